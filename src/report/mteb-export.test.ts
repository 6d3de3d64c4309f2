import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvalResults, QueryResult, RetrieverResult } from '../core/eval-results.js';
import { CorebError } from '../core/errors.js';
import { keyPaths, mtebResultsFixture } from '../../test/support/mteb.js';
import { roundHalfEven } from '../core/round.js';
import {
  confidenceScores,
  exportMteb,
  MTEB_DATASET_REVISIONS,
  MTEB_K,
  mtebModelMeta,
  nauc,
  roundMtebScores,
  stringifyMtebJson,
} from './mteb-export.js';
import { createRng } from './significance.js';

/** MTEB's results file shape (our own values; key set and order as MTEB 2.x writes them). */
const FIXTURE = mtebResultsFixture();

const FAMILIES = ['ndcg', 'map', 'recall', 'p', 'mrr', 'hit'] as const;

/** A results file shaped like the `mteb` preset's: every family at every k, per query and per task, with run files. */
function mtebLikeResults(dir: string, protocol = 'mteb', split = 'release_v2603'): EvalResults {
  const rng = createRng(3);
  const perQuery: Record<string, QueryResult> = {};
  const tasks: RetrieverResult['tasks'] = {};
  mkdirSync(join(dir, 'runs'), { recursive: true });
  for (const task of ['text2code', 'code2text', 'code2code']) {
    const lines: string[] = [];
    const sums: Record<string, number> = {};
    const n = 40;
    for (let q = 0; q < n; q++) {
      const id = `${task}-q${q}`;
      const metrics: Record<string, number> = {};
      const base = rng() / 2 ** 32;
      for (const f of FAMILIES) for (const k of MTEB_K) metrics[`${f}@${k}`] = Math.min(1, base * (f === 'p' ? 1 / k : 1) + (k >= 10 ? 0.1 : 0));
      perQuery[id] = { task, metrics, hnIntrusion: null, hardNegativesTop10: 0 };
      for (const [m, v] of Object.entries(metrics)) sums[m] = (sums[m] ?? 0) + v;
      const docs = 3 + (q % 5);
      for (let d = 0; d < docs; d++) lines.push(`${id} Q0 doc${d} ${d + 1} ${(base * 10 - d * (0.5 + rng() / 2 ** 32)).toFixed(6)} x`);
    }
    const metrics: Record<string, number> = {};
    for (const [m, v] of Object.entries(sums)) metrics[m] = Number((v / n).toFixed(5));
    writeFileSync(join(dir, 'runs', `bm25.${task}.trec`), lines.join('\n') + '\n');
    tasks[task] = {
      queries: n,
      metrics,
      diagnostics: { intrusionRate: null, intrusionEligible: 0, hardNegativesTop10: 0, ndcgRecallGap10: 0 },
      missingQueries: 0,
      excludedQueries: 0,
      zeroedQueries: 0,
      emptyQueries: [],
      missingQueryIds: [],
      runFile: `runs/bm25.${task}.trec`,
    };
  }
  const r = {
    name: 'bm25',
    spec: 'bm25',
    description: { kind: 'bm25' },
    overall: tasks.text2code,
    taskMean: tasks.text2code,
    tasks,
    subtasks: {},
    languages: {},
    subQueryTypes: {},
    perQuery,
    timings: { indexMs: 1, searchMs: 1, evaluateMs: 1, totalMs: 2500 },
  };
  const results = {
    schema: 'coreb.eval-results/2',
    coreb: { version: 't' },
    createdAt: '2026-01-01T00:00:00Z',
    dataset: { kind: 'coreb-release', dir: '/d', split, files: [], sha256: 'f'.repeat(64), counts: {} },
    protocol: { name: protocol },
    measures: Object.keys(perQuery['text2code-q0'].metrics),
    options: { depth: 1000, tasks: Object.keys(tasks), subtasks: null },
    retrievers: [r],
    timings: { loadMs: 0, totalMs: 0 },
  } as unknown as EvalResults;
  writeFileSync(join(dir, 'results.json'), JSON.stringify(results));
  return results;
}

test('MTEB export: per-task files with exactly the key set (and order) of an MTEB results file, model_meta.json, run_settings.jsonl', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-mteb-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const results = mtebLikeResults(dir);
  const out = await exportMteb(results, {
    outDir: join(dir, 'out'),
    modelName: 'coreb/bm25',
    revision: 'abc123',
    resultsFile: join(dir, 'results.json'),
    nowSeconds: 1,
  });
  assert.equal(out.dir, join(dir, 'out', 'coreb__bm25', 'abc123'));
  assert.deepEqual(
    out.files.map((f) => f.slice(out.dir.length + 1)),
    ['CorebT2CRetrieval.json', 'CorebC2TRetrieval.json', 'CorebC2CRetrieval.json', 'model_meta.json', 'run_settings.jsonl'],
  );
  for (const f of out.files.slice(0, 3)) {
    const text = readFileSync(f, 'utf8');
    const doc = JSON.parse(text.replace(/\bNaN\b/g, 'null')) as { scores: { test: Array<Record<string, unknown>> }; task_name: string };
    assert.deepEqual(keyPaths(doc), keyPaths(FIXTURE), f);
    const s = doc.scores.test[0];
    assert.equal(s.main_score, s.ndcg_at_10);
    assert.equal(s.accuracy, s.recall_at_1);
    assert.equal(s.hf_subset, 'default');
    const task = { CorebT2CRetrieval: 'text2code', CorebC2TRetrieval: 'code2text', CorebC2CRetrieval: 'code2code' }[doc.task_name]!;
    assert.equal(s.ndcg_at_1000, roundHalfEven(results.retrievers[0].tasks[task].metrics['ndcg@1000'], 6));
    assert.equal(s.hit_rate_at_5, roundHalfEven(results.retrievers[0].tasks[task].metrics['hit@5'], 6));
    assert.equal(s.precision_at_20, roundHalfEven(results.retrievers[0].tasks[task].metrics['p@20'], 6));
    // release_v2603 is what MTEB's CoREB tasks hold: its pinned revisions are written.
    assert.equal((doc as unknown as { dataset_revision: string }).dataset_revision, MTEB_DATASET_REVISIONS.release_v2603[doc.task_name]);
    assert.equal(typeof s.nauc_mrr_at_10_diff1, 'number');
  }
  const settings = readFileSync(out.files[4], 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { task_name: string; retriever: { spec: string } });
  assert.deepEqual(
    settings.map((s) => s.task_name),
    ['CorebT2CRetrieval', 'CorebC2TRetrieval', 'CorebC2CRetrieval'],
  );
  assert.equal((JSON.parse(readFileSync(out.files[3], 'utf8')) as { name: string }).name, 'coreb/bm25');

  // nAUCs equal an independent numpy implementation of MTEB's formula (when python3 + numpy are here).
  const probe = spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' });
  if (probe.status !== 0) return;
  const t2c = JSON.parse(readFileSync(out.files[0], 'utf8').replace(/\bNaN\b/g, 'null')) as { scores: { test: Array<Record<string, number>> } };
  const r = results.retrievers[0];
  const ids = Object.keys(r.perQuery!).filter((id) => r.perQuery![id].task === 'text2code');
  const runs: Record<string, number[]> = {};
  for (const line of readFileSync(join(dir, 'runs', 'bm25.text2code.trec'), 'utf8')
    .trim()
    .split('\n')) {
    const [q, , , , score] = line.split(' ');
    (runs[q] ??= []).push(Number(score));
  }
  const payload = { conf: ids.map((id) => runs[id]), metric: ids.map((id) => r.perQuery![id].metrics['ndcg@10']) };
  const py = `import json,sys
import numpy as np
d=json.load(sys.stdin)
def curve(c,m):
    o=np.argsort(np.array(c),kind='stable'); rates=np.linspace(0,1,11)[:-1]
    return rates,np.array([m[o[min(round(r*len(o)),len(c)-1):]].mean() for r in rates])
m=np.array(d['metric'])
out={}
for name,f in [('max',lambda s: max(s)),('std',lambda s: float(np.std(s))),('diff1',lambda s: sorted(s)[::-1][0]-sorted(s)[::-1][1])]:
    c=[f(s) for s in d['conf']]
    r,a=curve(c,m); _,o=curve(m,m)
    A=np.trapz(a,r) if hasattr(np,'trapz') else np.trapezoid(a,r); O=np.trapz(o,r) if hasattr(np,'trapz') else np.trapezoid(o,r); F=o[0]*(r[-1]-r[0])
    out[name]=(A-F)/(O-F)
print(json.dumps(out))`;
  const res = spawnSync('python3', ['-c', py], { input: JSON.stringify(payload), encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  const ref = JSON.parse(res.stdout) as Record<string, number>;
  for (const fct of ['max', 'std', 'diff1']) {
    assert.ok(
      Math.abs(t2c.scores.test[0][`nauc_ndcg_at_10_${fct}`] - ref[fct]) < 2e-6,
      `${fct}: ${t2c.scores.test[0][`nauc_ndcg_at_10_${fct}`]} vs numpy ${ref[fct]}`,
    );
  }
});

test('MTEB export refuses results of another preset, naming it and the one to use', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-mteb-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const results = mtebLikeResults(dir, 'coreb');
  await assert.rejects(
    exportMteb(results, { outDir: join(dir, 'out'), modelName: 'a/b', revision: 'r', resultsFile: join(dir, 'results.json') }),
    (e: unknown) => e instanceof CorebError && e.code === 'USAGE' && /computed with the `coreb` preset.*--protocol mteb/.test(e.message),
  );
  await assert.rejects(
    exportMteb({ ...results, protocol: { ...results.protocol, name: 'mteb' } } as unknown as EvalResults, {
      outDir: dir,
      modelName: 'no-slash',
      revision: 'r',
      resultsFile: join(dir, 'results.json'),
    }),
    /ORG\/NAME/,
  );
});

test('nauc and confidence scores: hand-computed cases', () => {
  assert.deepEqual(confidenceScores([3, 1, 2]), { max: 3, std: Math.sqrt(2 / 3), diff1: 1 });
  assert.deepEqual(confidenceScores([5]), { max: 5, std: 0, diff1: 0 });
  // Confidence ordered exactly like the metric: the oracle, nAUC 1; reversed: below 0; constant metric: NaN.
  const m = Array.from({ length: 20 }, (_, i) => i / 20);
  assert.ok(Math.abs(nauc(m, m) - 1) < 1e-12);
  assert.ok(
    nauc(
      m.map((x) => -x),
      m,
    ) < 0,
  );
  assert.ok(
    Number.isNaN(
      nauc(
        m,
        m.map(() => 0.5),
      ),
    ),
  );
  assert.equal(stringifyMtebJson({ a: NaN, b: 1 }), '{\n  "a": NaN,\n  "b": 1\n}\n');
});

test('MTEB rounding: every score to 6 places as Python round (exact ties to even), lists and nested objects too', () => {
  // 1/128 = 0.0078125 exactly: Python round(0.0078125, 6) = 0.007812 (toFixed would give 0.007813).
  assert.deepEqual(roundMtebScores({ a: 1 / 128, b: [0.1234565, 2 / 3], c: { d: NaN }, e: 'default' }), {
    a: 0.007812,
    b: [Number((0.1234565).toFixed(6)), 0.666667],
    c: { d: NaN },
    e: 'default',
  });
});

test('model_meta.json is filled from the preset of a known model; --model-meta fields win; unknown models get nulls', () => {
  const q = mtebModelMeta('Qwen/Qwen3-Embedding-8B', 'rev', {});
  assert.equal(q.n_parameters, 7_567_295_488);
  assert.equal(q.embed_dim, 4096);
  assert.equal(q.max_tokens, 8192);
  assert.equal(q.open_weights, true);
  assert.equal(q.license, 'apache-2.0');
  assert.equal(q.reference, 'https://huggingface.co/Qwen/Qwen3-Embedding-8B');
  assert.equal(q.use_instructions, true);
  const api = mtebModelMeta('voyageai/voyage-code-3', 'rev', { memory_usage_mb: 1 });
  assert.deepEqual([api.n_parameters, api.open_weights, api.embed_dim, api.memory_usage_mb], [null, false, 1024, 1]);
  const mine = mtebModelMeta('me/my-model', 'r', { n_parameters: 5, name: 'ignored' });
  assert.deepEqual([mine.name, mine.n_parameters, mine.license, mine.embed_dim], ['me/my-model', 5, null, null]);
});

test('MTEB export: a split MTEB does not host needs --dataset-revision per task; an export never overwrites silently', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-mteb-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const results = mtebLikeResults(dir, 'mteb', 'release_v2602');
  const base = { outDir: join(dir, 'out'), modelName: 'a/b', revision: 'r', resultsFile: join(dir, 'results.json') };
  await assert.rejects(exportMteb(results, base), /no MTEB dataset revision for text2code \(CorebT2CRetrieval\), code2text/);
  const revs = { text2code: 'x1', code2text: 'x2', CorebC2CRetrieval: 'x3' };
  const out = await exportMteb(results, { ...base, datasetRevisions: revs });
  assert.equal(JSON.parse(readFileSync(out.files[2], 'utf8').replace(/\bNaN\b/g, 'null')).dataset_revision, 'x3');
  await assert.rejects(exportMteb(results, { ...base, datasetRevisions: revs }), /already holds 5 file\(s\).*--overwrite/);
  await exportMteb(results, { ...base, datasetRevisions: revs, overwrite: true });
});
