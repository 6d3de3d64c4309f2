/**
 * BM25 tuning on CoREB release_v2602 (and only there): runs coreb's BM25 over a grid of parameters
 * and prints overall and per-task nDCG@10 / Recall@10 / MAP@10 under the CoREB protocol, next to
 * the third-party code-aware BM25 reference (overall 0.3256 / 0.4647 / 0.2707).
 *
 * Usage: node dist/bench/search-bm25-tune.js [RELEASE_DIR] [--grid full|default|JSON_ARRAY] [--base JSON]
 * (`--base` options are merged under every grid point; a JSON array lists the grid points).
 * Protocol: relevance level 2 for Recall/MAP, strict nDCG (labels < 2 zeroed), code-to-code anchor
 * removed before cutting, c2t_match negative pairs excluded, overall = query-weighted mean.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc, Query, Run } from '../src/core/dataset.js';
import { evaluate, measurePreset } from '../src/metrics/index.js';
import type { Bm25Options } from '../src/search/bm25.js';
import { createBm25Index } from '../src/search/bm25.js';
import { readBenchArgs } from './args.js';

const args = readBenchArgs({
  script: 'search-bm25-tune',
  about: `BM25 tuning on CoREB release_v2602 (and only there): coreb's BM25 over a grid of parameters,
overall and per-task nDCG@10 / Recall@10 / MAP@10 under the CoREB protocol, next to the third-party
code-aware BM25 reference (overall 0.3256 / 0.4647 / 0.2707).`,
  positional: { name: 'RELEASE_DIR', help: 'the release (default ../shared/data/coreb/release_v2602)' },
  options: [
    { name: 'grid', value: 'full|default|JSON_ARRAY', help: 'the grid: the full one, the defaults alone, or a JSON array of points (default full)' },
    { name: 'base', value: 'JSON', help: 'BM25 options merged under every grid point (default {})' },
  ],
});

const REFERENCE = { ndcg10: 0.3256, recall10: 0.4647, map10: 0.2707 } as const;

type Row = Record<string, unknown>;

function readJsonl(path: string): Row[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as Row);
}

interface TaskData {
  name: 't2c' | 'c2t' | 'c2c';
  corpus: 'code' | 'text';
  queries: Query[];
  qrels: Map<string, Map<string, number>>;
  exclude: Map<string, string[]>;
}

function loadQrels(path: string): Map<string, Map<string, number>> {
  const qrels = new Map<string, Map<string, number>>();
  for (const r of readJsonl(path)) {
    const q = String(r.query_id);
    let m = qrels.get(q);
    if (!m) qrels.set(q, (m = new Map()));
    m.set(String(r.doc_id), Number(r.relevance));
  }
  return qrels;
}

function loadRelease(dir: string): { code: Doc[]; text: Doc[]; tasks: TaskData[] } {
  const code: Doc[] = readJsonl(join(dir, 'code_corpus.jsonl')).map((r) => ({
    id: String(r.code_id),
    text: String(r.code),
    language: String(r.language),
  }));
  const text: Doc[] = readJsonl(join(dir, 'text_corpus.jsonl')).map((r) => ({
    id: String(r.text_id),
    text: String(r.text),
    meta: { abbreviatedText: r.abbreviated_text ?? null },
  }));
  const tasks: TaskData[] = [];
  for (const [name, file, corpus] of [
    ['t2c', 'text2code', 'code'],
    ['c2t', 'code2text', 'text'],
    ['c2c', 'code2code', 'code'],
  ] as const) {
    const rows = readJsonl(join(dir, `${file}_queries.jsonl`));
    const qrels = loadQrels(join(dir, `${file}_qrels.jsonl`));
    const queries: Query[] = [];
    const exclude = new Map<string, string[]>();
    for (const r of rows) {
      const id = String(r.query_id);
      if (r.subtask === 'c2t_match' && r.meta_pair_type !== 'positive') continue;
      if (!qrels.has(id)) continue;
      queries.push({ id, text: String(r.query), subtask: String(r.subtask) });
      if (name === 'c2c' && typeof r.meta_anchor_code_id === 'string') exclude.set(id, [r.meta_anchor_code_id]);
    }
    tasks.push({ name, corpus, queries, qrels, exclude });
  }
  return { code, text, tasks };
}

/** Sums of per-query values (n queries) until divided. */
interface Scores {
  ndcg10: number;
  recall10: number;
  map10: number;
  n: number;
}

async function evaluateConfig(
  data: ReturnType<typeof loadRelease>,
  options: Bm25Options,
): Promise<{ tasks: Record<string, Scores>; overall: Scores }> {
  const codeIndex = createBm25Index(data.code, options);
  const textIndex = createBm25Index(data.text, options);
  const tasks: Record<string, Scores> = {};
  const total: Scores = { ndcg10: 0, recall10: 0, map10: 0, n: 0 };
  for (const t of data.tasks) {
    const index = t.corpus === 'code' ? codeIndex : textIndex;
    const ranked = await index.search(t.queries, 100, { exclude: t.exclude });
    const run: Run = new Map();
    for (const [qid, list] of ranked) run.set(qid, new Map(list.docIds.map((d, i) => [d, list.scores[i]])));
    const anchors = new Map([...t.exclude].map(([q, ids]) => [q, ids[0]]));
    const e = evaluate(t.qrels, run, { measures: ['ndcg_cut.10', 'recall.10', 'map_cut.10'], ...measurePreset('coreb'), anchors });
    const n = e.perQuery.size;
    const s: Scores = {
      ndcg10: e.aggregate.ndcg_cut_10 * n,
      recall10: e.aggregate.recall_10 * n,
      map10: e.aggregate.map_cut_10 * n,
      n,
    };
    total.ndcg10 += s.ndcg10;
    total.recall10 += s.recall10;
    total.map10 += s.map10;
    total.n += s.n;
    tasks[t.name] = { ndcg10: s.ndcg10 / s.n, recall10: s.recall10 / s.n, map10: s.map10 / s.n, n: s.n };
  }
  return {
    tasks,
    overall: { ndcg10: total.ndcg10 / total.n, recall10: total.recall10 / total.n, map10: total.map10 / total.n, n: total.n },
  };
}

function gridOf(kind: string, base: Bm25Options): Bm25Options[] {
  if (kind === 'default') return [base];
  if (kind.startsWith('[')) return (JSON.parse(kind) as Bm25Options[]).map((g) => ({ ...base, ...g }));
  const grid: Bm25Options[] = [];
  for (const stopwords of ['none', 'english', 'code', 'english+code'] as const) grid.push({ stopwords });
  for (const stem of [false, true]) grid.push({ stem });
  for (const minLength of [1, 2, 3]) grid.push({ minLength });
  for (const keepWhole of [false, true]) grid.push({ keepWhole });
  for (const splitIdentifiers of [false, true]) grid.push({ splitIdentifiers });
  for (const keepNumbers of [false, true]) grid.push({ keepNumbers });
  for (const fields of [['text'], ['text', 'meta.abbreviatedText']]) grid.push({ fields });
  grid.push({ queryTf: 'raw' }, { queryTf: 'binary' });
  for (const k3 of [0.5, 1, 2, 8]) grid.push({ queryTf: 'saturate', k3 });
  for (const k1 of [0.6, 0.9, 1.2, 1.5, 2, 3, 4, 6, 8, 12, 20]) for (const b of [0.3, 0.5, 0.75, 0.9, 1]) grid.push({ k1, b });
  for (const feedbackDocs of [3, 5, 10]) for (const feedbackWeight of [0.3, 0.5]) grid.push({ feedbackDocs, feedbackWeight });
  return grid.map((g) => ({ ...base, ...g }));
}

async function main(): Promise<void> {
  const grid = args.get('grid') ?? 'full';
  const base = JSON.parse(args.get('base') ?? '{}') as Bm25Options;
  const dir = args.positional ?? '../shared/data/coreb/release_v2602';
  const data = loadRelease(dir);
  const f = (x: number) => x.toFixed(4);
  console.log(
    `release ${dir}: code ${data.code.length} docs, text ${data.text.length} docs, queries ${data.tasks.map((t) => `${t.name} ${t.queries.length}`).join(', ')}`,
  );
  console.log(`reference (third-party code-aware BM25): nDCG@10 ${REFERENCE.ndcg10} R@10 ${REFERENCE.recall10} MAP@10 ${REFERENCE.map10}`);
  console.log(['config', 'nDCG@10', 'R@10', 'MAP@10', 't2c nDCG', 'c2t nDCG', 'c2c nDCG', 'ms'].join('\t'));
  for (const options of gridOf(grid, base)) {
    const t0 = performance.now();
    const r = await evaluateConfig(data, options);
    const ms = performance.now() - t0;
    console.log(
      [
        JSON.stringify(options),
        f(r.overall.ndcg10),
        f(r.overall.recall10),
        f(r.overall.map10),
        f(r.tasks.t2c.ndcg10),
        f(r.tasks.c2t.ndcg10),
        f(r.tasks.c2c.ndcg10),
        ms.toFixed(0),
      ].join('\t'),
    );
  }
}

await main();
