/**
 * An independent check of the CoREB v2 qrels rules on a release directory (JSONL tables): every
 * rule of paper §3/§A.2 that `coreb build` applies, written from the rules, not from the builder's
 * code. Returns the violations (empty = all rules hold) and counts of what was checked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Row = Record<string, unknown>;
const read = (dir: string, t: string): Row[] =>
  readFileSync(join(dir, `${t}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);

/** Qrels rows as query -> doc -> relevance. */
function qrelsByQuery(rows: readonly Row[]): Map<string, Map<string, number>> {
  const m = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const q = String(r.query_id);
    if (!m.has(q)) m.set(q, new Map());
    m.get(q)!.set(String(r.doc_id), Number(r.relevance));
  }
  return m;
}

/** The docs judged at `level` for one query. */
const rel = (q: Map<string, number> | undefined, level: number): string[] =>
  [...(q ?? new Map()).entries()].filter(([, r]) => r === level).map(([d]) => d);

const sortIds = (a: string[]): string[] => [...a].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
const same = (a: string[], b: string[]): boolean => JSON.stringify(sortIds(a)) === JSON.stringify(sortIds(b));

/** The per-language search-query rules of `coreb build` (the official runner's variants). */
export interface SearchRules {
  /** Query types asked per problem (`title_search`, …). */
  types: readonly string[];
  /** Most queries per type and variant. */
  perVariant: number;
  /** Released `sub_query_type` per type. */
  subQueryType: Readonly<Record<string, string>>;
}

/** Which rules {@link checkQrelsRules} holds a release to. */
export interface QrelsRuleOptions {
  /** Hard negatives per code query as built; default 3. */
  maxHardNegatives?: number;
  /** The per-language search-query rules (checked when given). */
  search?: SearchRules;
  /**
   * `mini` (default): coreb-mini's rules (every anchor, hard negatives in id order, four near-miss
   * texts, ids 1..n). `official`: the maintainers' maker (docs/build.md, "Release shape").
   */
  shape?: 'mini' | 'official';
  /** Official shape: model A (primary) and model B (second), as corpus `model` names. */
  primary?: string;
  secondary?: string;
  /** Official shape: most queries per `t2c_search_<variant>` subtask; default 50. */
  searchCap?: number;
  /** Official shape: the code-to-code subtasks expected; default all three. */
  code2code?: readonly string[];
  /** Official shape: near-miss texts of the problem itself (`own`, default) or any of the corpus (`corpus`: v202602 as published). */
  nearMissFrom?: 'own' | 'corpus';
  /** Official shape: first hard-negative tier, the failed programs fitting the subtask (`constraint`, default) or every failed one (v202602). */
  hardNegativeFirstTier?: 'constraint' | 'failed';
}

/**
 * Checks every rule. With `search`, also the per-language search-query rules: for every problem
 * with a passing program, each type has 1..perVariant queries in `t2c_search_any` and in
 * `t2c_search_<lang>` for each language with a passing program, and none for other languages;
 * types and sub types as released (in the official shape a subtask over its cap is sampled, so
 * a variant may have none).
 */
export function checkQrelsRules(dir: string, options: QrelsRuleOptions = {}): { violations: string[]; checked: Record<string, number> } {
  const { maxHardNegatives = 3, search } = options;
  if (options.shape === 'official') return checkOfficialRules(dir, options);
  const v: string[] = [];
  const checked: Record<string, number> = {};
  const tick = (k: string): void => void (checked[k] = (checked[k] ?? 0) + 1);
  const code = read(dir, 'code_corpus');
  const text = read(dir, 'text_corpus');
  const codeById = new Map(code.map((r) => [String(r.code_id), r]));
  const textById = new Map(text.map((r) => [String(r.text_id), r]));
  const codeOf = (pid: string): Row[] => code.filter((r) => r.meta_source_problem_id === pid);
  const qrelsOf = (t: string): Map<string, Map<string, number>> => qrelsByQuery(read(dir, t));
  const expectHn = (failed: Row[], nonQualifying: Row[]): string[] =>
    [...sortIds(failed.map((r) => String(r.code_id))), ...sortIds(nonQualifying.map((r) => String(r.code_id)))].slice(0, maxHardNegatives);

  // text2code
  const t2c = qrelsOf('text2code_qrels');
  for (const q of read(dir, 'text2code_queries')) {
    const id = String(q.query_id);
    const pid = String(q.meta_source_problem_id);
    const lang = String(q.language_constraint);
    const own = codeOf(pid);
    const fits = (r: Row): boolean => lang === 'none' || r.language === lang;
    const pos = own.filter((r) => r.meta_passed === true && fits(r)).map((r) => String(r.code_id));
    const hn = expectHn(
      own.filter((r) => r.meta_passed !== true),
      own.filter((r) => r.meta_passed === true && !fits(r)),
    );
    const qr = t2c.get(id);
    if (pos.length === 0) v.push(`${id}: a t2c query without a passing program was emitted`);
    if (!same(rel(qr, 2), pos)) v.push(`${id}: t2c positives ${rel(qr, 2)} != passing programs of ${pid} in ${lang} ${pos}`);
    if (!same(rel(qr, 1), hn)) v.push(`${id}: t2c hard negatives ${rel(qr, 1)} != failed first, then wrong-language correct ${hn}`);
    if (lang !== 'none' && !String(q.subtask).endsWith(`_${lang}`)) v.push(`${id}: subtask ${q.subtask} does not name ${lang}`);
    if (lang === 'none' && !String(q.subtask).endsWith('_any'))
      v.push(`${id}: subtask ${q.subtask} has no language constraint but does not end in _any`);
    if (q.query_type !== (lang === 'none' ? 'language_agnostic' : 'language_specific'))
      v.push(`${id}: query_type ${q.query_type} for constraint ${lang}`);
    tick('t2c');
  }
  // Query ids: q_<subtask>_NNNN, numbered 1..n in file order.
  read(dir, 'text2code_queries').forEach((q, i) => {
    const want = `q_${q.subtask}_${String(i + 1).padStart(4, '0')}`;
    if (q.query_id !== want) v.push(`${q.query_id}: expected id ${want} (subtask and 1-based position)`);
  });
  if (search !== undefined) {
    const searchRows = read(dir, 'text2code_queries').filter((q) => String(q.subtask).startsWith('t2c_search_'));
    const problems = [...new Set(code.map((r) => String(r.meta_source_problem_id)))];
    for (const q of searchRows) {
      const orig = String(q.meta_original_query_type);
      if (!search.types.includes(orig)) v.push(`${q.query_id}: meta_original_query_type ${orig} is not one of ${search.types}`);
      else if (q.sub_query_type !== search.subQueryType[orig])
        v.push(`${q.query_id}: sub_query_type ${q.sub_query_type} for ${orig}, expected ${search.subQueryType[orig]}`);
    }
    for (const pid of problems) {
      const passingLangs = [
        ...new Set(
          codeOf(pid)
            .filter((r) => r.meta_passed === true)
            .map((r) => String(r.language)),
        ),
      ];
      const variants = passingLangs.length === 0 ? [] : ['any', ...passingLangs];
      const mine = searchRows.filter((q) => q.meta_source_problem_id === pid);
      for (const q of mine) {
        const lang = String(q.subtask).slice('t2c_search_'.length);
        if (!variants.includes(lang)) v.push(`${q.query_id}: search query of ${pid} in ${lang}, which has no passing program`);
      }
      for (const lang of variants) {
        for (const type of search.types) {
          const n = mine.filter((q) => q.subtask === `t2c_search_${lang}` && q.meta_original_query_type === type).length;
          if (n < 1 || n > search.perVariant) v.push(`${pid}: ${n} ${type} queries in t2c_search_${lang}, expected 1..${search.perVariant}`);
          tick('search_variant');
        }
      }
    }
  }
  // code2code cross_lang
  const c2c = qrelsOf('code2code_qrels');
  for (const q of read(dir, 'code2code_queries')) {
    const id = String(q.query_id);
    const anchor = codeById.get(String(q.meta_anchor_code_id));
    if (anchor === undefined || anchor.meta_passed !== true) {
      v.push(`${id}: c2c anchor ${q.meta_anchor_code_id} missing or not passing`);
      continue;
    }
    if (q.query !== anchor.code) v.push(`${id}: c2c query text is not the anchor's code`);
    const pid = String(anchor.meta_source_problem_id);
    const others = codeOf(pid).filter((r) => r.code_id !== anchor.code_id);
    const targets = sortIds([
      ...new Set(others.filter((r) => r.meta_passed === true && String(r.language) > String(anchor.language)).map((r) => String(r.language))),
    ]);
    if (!same(targets, (q.meta_target_languages as string[]) ?? []))
      v.push(`${id}: c2c targets ${q.meta_target_languages} != later passing languages ${targets}`);
    const pos = others.filter((r) => r.meta_passed === true && targets.includes(String(r.language))).map((r) => String(r.code_id));
    const hn = expectHn(
      others.filter((r) => r.meta_passed !== true),
      others.filter((r) => r.meta_passed === true && !targets.includes(String(r.language))),
    );
    const qr = c2c.get(id);
    if (pos.length === 0) v.push(`${id}: c2c query without positives`);
    if (!same(rel(qr, 2), pos)) v.push(`${id}: c2c positives ${rel(qr, 2)} != ${pos}`);
    if (!same(rel(qr, 1), hn)) v.push(`${id}: c2c hard negatives ${rel(qr, 1)} != ${hn}`);
    if ((qr ?? new Map()).has(String(anchor.code_id))) v.push(`${id}: c2c judges its own anchor`);
    tick('c2c');
  }
  // code2text and c2t_match
  const c2t = qrelsOf('code2text_qrels');
  const originalOf = (pid: string): Row | undefined => text.find((r) => r.meta_source_problem_id === pid && r.meta_is_noise_sample !== true);
  const noiseOf = (textId: string): string[] => text.filter((r) => r.meta_original_text_id === textId).map((r) => String(r.text_id));
  for (const q of read(dir, 'code2text_queries')) {
    const id = String(q.query_id);
    const anchor = codeById.get(String(q.meta_anchor_code_id));
    const pid = String(q.meta_source_problem_id);
    if (anchor === undefined || anchor.meta_passed !== true || anchor.meta_source_problem_id !== pid) {
      v.push(`${id}: c2t anchor missing, failing or of another problem`);
      continue;
    }
    const original = originalOf(pid);
    if (original === undefined) {
      v.push(`${id}: problem ${pid} has no original text`);
      continue;
    }
    const noise = noiseOf(String(original.text_id));
    if (noise.length !== 4) v.push(`${pid}: ${noise.length} hard-negative texts, expected 4`);
    const qr = c2t.get(id);
    if (q.subtask === 'c2t_match') {
      if (q.label === 1 || q.label === 1.0) {
        if (!same(rel(qr, 2), [String(original.text_id)])) v.push(`${id}: positive match pair must judge the problem's own text`);
        if (q.text_id !== original.text_id) v.push(`${id}: positive pair text_id is not the problem's text`);
      } else {
        if (rel(qr, 2).length !== 0) v.push(`${id}: negative match pair has a positive`);
        if (q.meta_negative_problem_id === pid || textById.get(String(q.text_id))?.meta_source_problem_id === pid)
          v.push(`${id}: negative pair uses its own problem`);
      }
      tick('c2t_match');
    } else {
      if (!same(rel(qr, 2), [String(original.text_id)])) v.push(`${id}: c2t positive must be the original text ${original.text_id}`);
      const lang = String(q.subtask).split('_').at(-1);
      if (lang !== 'any' && anchor.language !== lang) v.push(`${id}: anchor language ${anchor.language} != subtask ${q.subtask}`);
      tick('c2t');
    }
    if (!same(rel(qr, 1), noise)) v.push(`${id}: c2t hard negatives ${rel(qr, 1)} != the 4 near-miss texts ${noise}`);
  }
  // Every judged document exists.
  for (const [t, corpus] of [
    ['text2code_qrels', codeById],
    ['code2code_qrels', codeById],
    ['code2text_qrels', textById],
  ] as const) {
    for (const r of read(dir, t)) if (!corpus.has(String(r.doc_id))) v.push(`${t}: ${r.query_id} judges unknown doc ${r.doc_id}`);
  }
  return { violations: v, checked };
}

/**
 * The official shape, from its rules: positives as in coreb-mini for text-to-code; the three
 * code-to-code subtasks by model role; hard negatives a sample of min(cap, pool) from the pool
 * grown tier by tier (constraint-matching failed, any failed, non-positive correct); three of the
 * four near-miss texts; per-language code-to-text queries only for problems passing in two
 * languages; query numbers increasing within each table.
 */
function checkOfficialRules(dir: string, o: QrelsRuleOptions): { violations: string[]; checked: Record<string, number> } {
  const v: string[] = [];
  const checked: Record<string, number> = {};
  const tick = (k: string): void => void (checked[k] = (checked[k] ?? 0) + 1);
  const max = o.maxHardNegatives ?? 3;
  const cap = o.searchCap ?? 50;
  const A = String(o.primary);
  const B = o.secondary;
  const code = read(dir, 'code_corpus');
  const text = read(dir, 'text_corpus');
  const codeById = new Map(code.map((r) => [String(r.code_id), r]));
  const codeOf = (pid: string): Row[] => code.filter((r) => r.meta_source_problem_id === pid);
  const ids = (rows: Row[]): string[] => rows.map((r) => String(r.code_id));
  const passed = (r: Row): boolean => r.meta_passed === true;
  const qrelsOf = (t: string): Map<string, Map<string, number>> => qrelsByQuery(read(dir, t));
  /** Hard negatives drawn from the tiered pool: the right number, all from the pool. */
  const checkHn = (id: string, got: string[], allTiers: Row[][]): void => {
    const pool: string[] = [];
    for (const t of o.hardNegativeFirstTier === 'failed' ? allTiers.slice(1) : allTiers) {
      if (pool.length >= max) break;
      for (const c of ids(t)) if (!pool.includes(c)) pool.push(c);
    }
    if (got.length !== Math.min(max, pool.length)) v.push(`${id}: ${got.length} hard negatives, expected min(${max}, pool of ${pool.length})`);
    for (const g of got) if (!pool.includes(g)) v.push(`${id}: hard negative ${g} is not in the tiered pool ${pool}`);
  };
  const numbers = (t: string): void => {
    let last = 0;
    for (const q of read(dir, t)) {
      const m = /^q_(.+)_(\d{4,})$/.exec(String(q.query_id));
      if (m === null || m[1] !== q.subtask) v.push(`${q.query_id}: id does not read q_<subtask>_NNNN for ${q.subtask}`);
      else if (Number(m[2]) <= last) v.push(`${q.query_id}: number not above the previous query's (${last})`);
      else last = Number(m[2]);
    }
  };
  numbers('text2code_queries');
  numbers('code2code_queries');
  numbers('code2text_queries');

  // text2code
  const t2c = qrelsOf('text2code_qrels');
  const searchCount = new Map<string, number>();
  for (const q of read(dir, 'text2code_queries')) {
    const id = String(q.query_id);
    const lang = String(q.language_constraint);
    const own = codeOf(String(q.meta_source_problem_id));
    const fits = (r: Row): boolean => lang === 'none' || r.language === lang;
    const pos = ids(own.filter((r) => passed(r) && fits(r)));
    const qr = t2c.get(id);
    if (pos.length === 0) v.push(`${id}: a t2c query without a passing program was emitted`);
    if (!same(rel(qr, 2), pos)) v.push(`${id}: t2c positives ${rel(qr, 2)} != passing programs in ${lang} ${pos}`);
    checkHn(id, rel(qr, 1), [own.filter((r) => !passed(r) && fits(r)), own.filter((r) => !passed(r)), own.filter((r) => passed(r) && !fits(r))]);
    if (String(q.subtask).startsWith('t2c_search_')) {
      searchCount.set(String(q.subtask), (searchCount.get(String(q.subtask)) ?? 0) + 1);
      if (o.search !== undefined && q.sub_query_type !== o.search.subQueryType[String(q.meta_original_query_type)])
        v.push(`${id}: sub_query_type ${q.sub_query_type} for ${q.meta_original_query_type}`);
    }
    tick('t2c');
  }
  for (const [subtask, n] of searchCount) {
    if (n > cap) v.push(`${subtask}: ${n} queries, over the cap of ${cap}`);
    tick('search_subtask');
  }

  // code2code by role
  const c2c = qrelsOf('code2code_qrels');
  const want = new Set(o.code2code ?? ['c2c_mono_lang', 'c2c_cross_lang', 'c2c_cross_model']);
  const expected = new Map<string, Set<string>>();
  for (const pid of new Set(code.map((r) => String(r.meta_source_problem_id)))) {
    const pass = codeOf(pid).filter(passed);
    const ofA = pass.filter((r) => r.model === A);
    const ofB = B === undefined ? [] : pass.filter((r) => r.model === B);
    const add = (s: string, a: Row): void => {
      if (!expected.has(s)) expected.set(s, new Set());
      expected.get(s)!.add(String(a.code_id));
    };
    const pyB = ofB.filter((r) => r.language === 'python');
    if (pyB.length > 0 && ofA.some((r) => r.language === 'python')) add('c2c_mono_lang', pyB[0]);
    if (ofA.some((r) => r.language !== 'python')) for (const a of pyB) add('c2c_cross_model', a);
    for (const a of ofA) if (ofA.some((t) => t.language !== a.language && String(t.code_id) > String(a.code_id))) add('c2c_cross_lang', a);
  }
  const seen = new Map<string, Set<string>>();
  for (const q of read(dir, 'code2code_queries')) {
    const id = String(q.query_id);
    const s = String(q.subtask);
    const anchor = codeById.get(String(q.meta_anchor_code_id));
    if (anchor === undefined || !passed(anchor)) {
      v.push(`${id}: anchor missing or not passing`);
      continue;
    }
    if (!want.has(s)) v.push(`${id}: subtask ${s} was not asked for`);
    if (!seen.has(s)) seen.set(s, new Set());
    seen.get(s)!.add(String(anchor.code_id));
    const others = codeOf(String(anchor.meta_source_problem_id)).filter((r) => r.code_id !== anchor.code_id);
    const isPos = (r: Row): boolean =>
      r.model === A &&
      (s === 'c2c_mono_lang'
        ? r.language === 'python'
        : s === 'c2c_cross_model'
          ? r.language !== 'python'
          : r.language !== anchor.language && String(r.code_id) > String(anchor.code_id));
    const tier1 = (r: Row): boolean =>
      s === 'c2c_mono_lang'
        ? r.model !== anchor.model && r.language === anchor.language
        : s === 'c2c_cross_model'
          ? r.model !== anchor.model && r.language !== anchor.language
          : r.language !== anchor.language;
    const qr = c2c.get(id);
    if (!same(rel(qr, 2), ids(others.filter((r) => passed(r) && isPos(r)))))
      v.push(`${id}: ${s} positives ${rel(qr, 2)} do not follow the role rule`);
    checkHn(id, rel(qr, 1), [
      others.filter((r) => !passed(r) && tier1(r)),
      others.filter((r) => !passed(r)),
      others.filter((r) => passed(r) && !isPos(r)),
    ]);
    if ((qr ?? new Map()).has(String(anchor.code_id))) v.push(`${id}: judges its own anchor`);
    tick(s);
  }
  for (const s of want) {
    if (!same([...(seen.get(s) ?? [])], [...(expected.get(s) ?? [])]))
      v.push(`${s}: anchors ${[...(seen.get(s) ?? [])]} != by the rule ${[...(expected.get(s) ?? [])]}`);
  }

  // code2text
  const c2t = qrelsOf('code2text_qrels');
  const originalOf = (pid: string): Row | undefined => text.find((r) => r.meta_source_problem_id === pid && r.meta_is_noise_sample !== true);
  const noiseOf = (textId: string): string[] => text.filter((r) => r.meta_original_text_id === textId).map((r) => String(r.text_id));
  for (const q of read(dir, 'code2text_queries')) {
    const id = String(q.query_id);
    const pid = String(q.meta_source_problem_id);
    const anchor = codeById.get(String(q.meta_anchor_code_id));
    const original = originalOf(pid);
    if (anchor === undefined || !passed(anchor) || anchor.meta_source_problem_id !== pid || original === undefined) {
      v.push(`${id}: anchor missing, failing or of another problem, or no original text`);
      continue;
    }
    const pass = codeOf(pid).filter(passed);
    const lang = String(q.subtask).split('_').at(-1);
    const qr = c2t.get(id);
    const isMatchNegative = q.subtask === 'c2t_match' && Number(q.label) === 0;
    if (!same(rel(qr, 2), isMatchNegative ? [] : [String(original.text_id)]))
      v.push(`${id}: c2t positive must be ${isMatchNegative ? 'none' : original.text_id}`);
    const own = noiseOf(String(original.text_id));
    const hn = rel(qr, 1);
    if (o.nearMissFrom === 'corpus') {
      const nearMiss = (h: string): boolean => text.some((r) => r.text_id === h && r.meta_is_noise_sample === true);
      if (hn.length !== 3 || !hn.every(nearMiss)) v.push(`${id}: near-miss texts ${hn} are not 3 near-miss texts of the corpus`);
    } else if (hn.length !== Math.min(3, own.length) || hn.some((h) => !own.includes(h))) v.push(`${id}: near-miss texts ${hn} are not 3 of ${own}`);
    if (q.subtask === 'c2t_match' || lang === 'any') {
      const wantAnchor = pass.find((r) => r.language === 'python' && r.model === A) ?? pass.find((r) => r.language === 'python') ?? pass[0];
      if (anchor.code_id !== wantAnchor?.code_id) v.push(`${id}: anchor ${anchor.code_id}, the rule picks ${wantAnchor?.code_id}`);
    } else {
      if (new Set(pass.map((r) => r.language)).size < 2) v.push(`${id}: per-language query for a problem passing in one language`);
      const first = pass.find((r) => r.language === lang);
      if (anchor.code_id !== first?.code_id) v.push(`${id}: anchor ${anchor.code_id}, the first passing ${lang} program is ${first?.code_id}`);
    }
    tick(q.subtask === 'c2t_match' ? 'c2t_match' : 'c2t');
  }
  for (const [t, corpus] of [
    ['text2code_qrels', codeById],
    ['code2code_qrels', codeById],
    ['code2text_qrels', new Map(text.map((r) => [String(r.text_id), r]))],
  ] as const) {
    for (const r of read(dir, t)) if (!corpus.has(String(r.doc_id))) v.push(`${t}: ${r.query_id} judges unknown doc ${r.doc_id}`);
  }
  return { violations: v, checked };
}
