/**
 * A tiny hand-made CoREB release (2 problems, 6 solutions, 4 texts, every task and c2t_match
 * positive and negative pairs) written by the `coreb eval` tests into a temp directory.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Rows as JSONL text. */
export const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** A 2-problem release: P1 "sum of pairs" and P2 "grid paths", each with solutions and a noise text. */
export function writeTinyRelease(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const code = (id: string, problem: string, language: string, text: string) => ({
    code_id: id,
    code: text,
    language,
    model: 'author-a',
    code_length: text.length,
    meta_source_problem_id: problem,
  });
  writeFileSync(
    join(dir, 'code_corpus.jsonl'),
    jsonl([
      code(
        'c1',
        'P1',
        'python',
        'def pair_sum(nums, target):\n    seen = set()\n    for x in nums:\n        if target - x in seen: return True\n        seen.add(x)\n    return False',
      ),
      code(
        'c2',
        'P1',
        'java',
        'class Main { static boolean pairSum(int[] nums, int target) { java.util.Set<Integer> seen = new java.util.HashSet<>(); for (int x : nums) { if (seen.contains(target - x)) return true; seen.add(x); } return false; } }',
      ),
      code(
        'c3',
        'P1',
        'python',
        'def pair_sum(nums, target):\n    for i in range(len(nums) - 1):\n        if nums[i] + nums[i + 1] == target: return True\n    return False',
      ),
      code(
        'c4',
        'P2',
        'python',
        'def grid_paths(rows, cols):\n    dp = [[1] * cols for _ in range(rows)]\n    for r in range(1, rows):\n        for c in range(1, cols): dp[r][c] = dp[r-1][c] + dp[r][c-1]\n    return dp[-1][-1]',
      ),
      code(
        'c5',
        'P2',
        'go',
        'func gridPaths(rows, cols int) int { dp := make([]int, cols); for i := range dp { dp[i] = 1 }; for r := 1; r < rows; r++ { for c := 1; c < cols; c++ { dp[c] += dp[c-1] } }; return dp[cols-1] }',
      ),
      code('c6', 'P2', 'cpp', 'int gridPaths(int rows, int cols) { return rows * cols; }'),
    ]),
  );
  writeFileSync(
    join(dir, 'text_corpus.jsonl'),
    jsonl([
      {
        text_id: 't1',
        text: 'Pair Sum\nGiven a list of integers nums and a target, decide whether two different elements sum to target.',
        abbreviated_text: 'Decide whether two numbers in nums sum to target.',
        meta_source_problem_id: 'P1',
      },
      {
        text_id: 't2',
        text: 'Grid Paths\nCount the monotone lattice paths from the top-left to the bottom-right cell of a rows x cols grid.',
        abbreviated_text: 'Count monotone paths in a grid.',
        meta_source_problem_id: 'P2',
      },
      {
        text_id: 't1_noise1',
        text: 'Pair Product\nGiven a list of integers nums and a target, decide whether two different elements multiply to target.',
        abbreviated_text: null,
        meta_source_problem_id: 'P1',
        meta_is_noise_sample: true,
      },
      {
        text_id: 't2_noise1',
        text: 'Grid Walls\nCount the cells of a rows x cols grid that touch its border.',
        abbreviated_text: null,
        meta_source_problem_id: 'P2',
        meta_is_noise_sample: true,
      },
    ]),
  );
  writeFileSync(
    join(dir, 'text2code_queries.jsonl'),
    jsonl([
      {
        query_id: 'q_t2c_1',
        query: 'decide whether two numbers in nums sum to target',
        split: 'text2code',
        subtask: 't2c_canonical_retro_any',
        query_type: 'language_agnostic',
        sub_query_type: 'abbreviated',
        language_constraint: 'none',
        meta_source_problem_id: 'P1',
      },
      {
        query_id: 'q_t2c_2',
        query: 'count monotone lattice paths in a grid, python',
        split: 'text2code',
        subtask: 't2c_search_python',
        query_type: 'language_specific',
        sub_query_type: 'algorithm_search',
        language_constraint: 'python',
        meta_source_problem_id: 'P2',
      },
    ]),
  );
  writeFileSync(
    join(dir, 'text2code_qrels.jsonl'),
    jsonl([
      { query_id: 'q_t2c_1', doc_id: 'c1', relevance: 2 },
      { query_id: 'q_t2c_1', doc_id: 'c2', relevance: 2 },
      { query_id: 'q_t2c_1', doc_id: 'c3', relevance: 1 },
      { query_id: 'q_t2c_2', doc_id: 'c4', relevance: 2 },
      { query_id: 'q_t2c_2', doc_id: 'c5', relevance: 1 },
    ]),
  );
  const c2t = (id: string, subtask: string, anchor: string, extra: object = {}) => ({
    query_id: id,
    query: 'code of ' + anchor,
    split: 'code2text',
    subtask,
    anchor_language: 'python',
    anchor_model: 'author-a',
    meta_anchor_code_id: anchor,
    ...extra,
  });
  writeFileSync(
    join(dir, 'code2text_queries.jsonl'),
    jsonl([
      c2t('q_c2t_1', 'c2t_full_retro_python', 'c1', { meta_text_type: 'full_description' }),
      c2t('q_c2t_m1', 'c2t_match', 'c4', { text_id: 't2', label: 1, text_type: 'full', meta_pair_type: 'positive' }),
      c2t('q_c2t_m2', 'c2t_match', 'c4', { text_id: 't1', label: 0, text_type: 'full', meta_pair_type: 'negative_random' }),
    ]),
  );
  writeFileSync(
    join(dir, 'code2text_qrels.jsonl'),
    jsonl([
      { query_id: 'q_c2t_1', doc_id: 't1', relevance: 2 },
      { query_id: 'q_c2t_1', doc_id: 't1_noise1', relevance: 1 },
      { query_id: 'q_c2t_m1', doc_id: 't2', relevance: 2 },
      { query_id: 'q_c2t_m1', doc_id: 't2_noise1', relevance: 1 },
      { query_id: 'q_c2t_m2', doc_id: 't2_noise1', relevance: 1 },
    ]),
  );
  writeFileSync(
    join(dir, 'code2code_queries.jsonl'),
    jsonl([
      {
        query_id: 'q_c2c_1',
        query: 'def pair_sum(nums, target):\n    seen = set()\n    for x in nums:\n        if target - x in seen: return True',
        split: 'code2code',
        subtask: 'c2c_cross_lang',
        anchor_language: 'python',
        anchor_model: 'author-a',
        meta_anchor_code_id: 'c1',
        meta_target_languages: ['java'],
        meta_source_problem_id: 'P1',
      },
    ]),
  );
  writeFileSync(
    join(dir, 'code2code_qrels.jsonl'),
    jsonl([
      { query_id: 'q_c2c_1', doc_id: 'c2', relevance: 2 },
      { query_id: 'q_c2c_1', doc_id: 'c3', relevance: 1 },
    ]),
  );
}

/**
 * A synthetic release big enough for a run to take a noticeable time: `problems` problems, each
 * with 5 solutions (one per language) made of seeded random identifiers, a text, and one
 * text-to-code and one code-to-code query. Deterministic for a given `problems`.
 */
export function writeSyntheticRelease(dir: string, problems: number): void {
  mkdirSync(dir, { recursive: true });
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
  const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ');
  const langs = ['python', 'java', 'cpp', 'go', 'ruby'];
  const code: object[] = [];
  const texts: object[] = [];
  const t2c: object[] = [];
  const t2cQrels: object[] = [];
  const c2c: object[] = [];
  const c2cQrels: object[] = [];
  const c2t: object[] = [];
  const c2tQrels: object[] = [];
  for (let p = 0; p < problems; p++) {
    const topic = text(20);
    langs.forEach((language, l) => code.push({ code_id: `c${p}_${l}`, code: `${topic} ${text(120)}`, language, meta_source_problem_id: `P${p}` }));
    texts.push({ text_id: `t${p}`, text: `${topic} ${text(150)}`, meta_source_problem_id: `P${p}` });
    t2c.push({ query_id: `qt${p}`, query: `${topic} ${text(10)}`, subtask: 't2c_full_retro_any', language_constraint: 'none' });
    langs.forEach((_, l) => t2cQrels.push({ query_id: `qt${p}`, doc_id: `c${p}_${l}`, relevance: 2 }));
    c2c.push({
      query_id: `qc${p}`,
      query: `${topic} ${text(120)}`,
      subtask: 'c2c_cross_lang',
      anchor_language: 'python',
      meta_anchor_code_id: `c${p}_0`,
    });
    c2cQrels.push({ query_id: `qc${p}`, doc_id: `c${p}_1`, relevance: 2 });
    c2t.push({
      query_id: `qx${p}`,
      query: `${topic} ${text(120)}`,
      subtask: 'c2t_full_retro_any',
      anchor_language: 'python',
      meta_anchor_code_id: `c${p}_0`,
    });
    c2tQrels.push({ query_id: `qx${p}`, doc_id: `t${p}`, relevance: 2 });
  }
  const tables: Record<string, object[]> = {
    code_corpus: code,
    text_corpus: texts,
    text2code_queries: t2c,
    text2code_qrels: t2cQrels,
    code2code_queries: c2c,
    code2code_qrels: c2cQrels,
    code2text_queries: c2t,
    code2text_qrels: c2tQrels,
  };
  for (const [name, rows] of Object.entries(tables)) writeFileSync(join(dir, `${name}.jsonl`), jsonl(rows));
}
