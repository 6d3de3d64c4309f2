import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvalResults, GroupResult, QueryResult, RetrieverResult } from '../core/eval-results.js';
import { prefixSvgIds, retrieverColours, withRetrieverColours } from './charts.js';
import { renderHtmlReport, writeHtmlReport } from './html-report.js';
import { groupResults } from './result-groups.js';
import { createRng } from './significance.js';

const EVIL = '<script>alert("x")</script>';
const MEASURES = ['ndcg@1', 'ndcg@10', 'map@10', 'recall@1', 'recall@10', 'recall@100', 'mrr@10'];

function group(v: number, queries = 30): GroupResult {
  const metrics: Record<string, number> = {};
  for (const m of MEASURES) metrics[m] = m.startsWith('recall@100') ? Math.min(1, v + 0.3) : v;
  return { queries, metrics, diagnostics: { intrusionRate: 0.4, intrusionEligible: 12, hardNegativesTop10: 1.2, ndcgRecallGap10: -0.1 } };
}

function retriever(name: string, level: number, seed: number, extra: Record<string, unknown> = {}): RetrieverResult {
  const rng = createRng(seed);
  const perQuery: Record<string, QueryResult> = {};
  for (let i = 0; i < 30; i++) {
    const task = i < 15 ? 'text2code' : 'code2code';
    perQuery[`q${i}`] = {
      task,
      subtask: `t2c_${EVIL}`,
      metrics: { 'ndcg@10': Math.min(1, Math.max(0, level + (rng() / 2 ** 32 - 0.5) * 0.2)) },
      hnIntrusion: null,
      hardNegativesTop10: 0,
    };
  }
  return {
    name,
    spec: name,
    description: { kind: 'test', note: `</pre>${EVIL}` },
    overall: group(level),
    taskMean: group(level),
    tasks: {
      text2code: { ...group(level, 15), missingQueries: 0, excludedQueries: 0, zeroedQueries: 0, emptyQueries: [], missingQueryIds: [] },
      code2code: { ...group(level + 0.1, 15), missingQueries: 0, excludedQueries: 0, zeroedQueries: 0, emptyQueries: [], missingQueryIds: [] },
    },
    subtasks: { [`t2c_${EVIL}`]: { task: 'text2code', ...group(level) } },
    languages: { text2code: { '<img src=x onerror=alert(1)>': group(level), python: group(level + 0.05) } },
    subQueryTypes: { text2code: { [`abbr${EVIL}`]: group(level) } },
    perQuery,
    timings: { indexMs: 1, searchMs: 1, evaluateMs: 1, totalMs: 1 },
    ...extra,
  } as RetrieverResult;
}

function results(split: string, sha: string, retrievers: RetrieverResult[]): EvalResults {
  return {
    schema: 'coreb.eval-results/2',
    coreb: { version: 't' },
    createdAt: '2026-01-01T00:00:00Z',
    dataset: {
      kind: 'coreb-release',
      dir: `/data/${EVIL}`,
      split,
      files: [{ path: `${EVIL}.jsonl`, bytes: 1, sha256: 'ab' }],
      sha256: sha,
      counts: { text2code: { corpus: 5, queries: 15 } },
    },
    protocol: {
      name: 'coreb',
      relevanceLevel: 2,
      ndcg: 'strict',
      scores: 'float32',
      ties: 'score-desc,docid-desc-utf8',
      anchorExclusion: true,
      ignoreIdenticalIds: false,
      qrels: 'as-is',
      c2tMatchNegatives: 'zero',
      population: 'run-and-qrels',
      mrr: 'trec',
      rankBy: 'overall',
      roundDigits: null,
      unrounded: [],
    },
    measures: MEASURES,
    options: { depth: 100, tasks: ['text2code', 'code2code'], subtasks: null },
    retrievers,
    timings: { loadMs: 0, totalMs: 0 },
  };
}

const strong = retriever(EVIL, 0.7, 1);
const weak = retriever('bm25 & "co"', 0.3, 2);
const reranked = retriever('bm25>>rr', 0.75, 3, {
  firstStage: 'bm25 & "co"',
  rerank: {
    depth: 128,
    reranker: { kind: 'x' },
    recallCeiling: { text2code: 0.81, code2code: 0.9 },
    delta: { text2code: { 'ndcg@10': 0.045 }, code2code: { 'ndcg@10': -0.02 } },
    deltaRelative: { text2code: { 'ndcg@10': 0.1 }, code2code: { 'ndcg@10': -0.03 } },
  },
});
const a = { file: `a-${EVIL}.json`, results: results('release_v2602', 'aa', [strong, weak, reranked]) };
const b = { file: 'b.json', results: results('release_v2603', 'bb', [retriever(EVIL, 0.65, 4), retriever('bm25 & "co"', 0.35, 5)]) };

test('report: every id and text is escaped; no script, no external resource; charts inline with text alternatives', async () => {
  const { html, charts } = await renderHtmlReport([a, b], { permutations: 500, now: '2026-01-01T00:00:00Z' });
  assert.equal(/<script/i.test(html), false, 'no <script> anywhere in the page');
  assert.equal(/onerror=/i.test(html.replace(/&lt;img src=x onerror=alert\(1\)&gt;/g, '')), false);
  assert.ok(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
  assert.ok(html.includes('bm25 &amp; &quot;co&quot;'));
  assert.equal(/\b(src|href)="(https?:)?\/\//i.test(html), false, 'no network reference');
  assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
  for (const c of charts) {
    assert.equal(/<script/i.test(c.svg), false, `${c.id} svg`);
    assert.match(c.svg, /^<svg[^>]*role="img" aria-label="[^"]+"><title>/);
    assert.ok(html.includes(`id="fig-${c.id}"`));
    assert.ok(c.table.rows.length > 0);
  }
  assert.deepEqual(charts.map((c) => c.id).sort(), [
    'intrusion-0',
    'intrusion-1',
    'languages-0',
    'languages-1',
    'recall-curve-0',
    'recall-curve-1',
    'rerank-deltas-0',
    'stability',
    'tasks-ndcg-0',
    'tasks-ndcg-1',
  ]);
  // Letters follow the board order (a = bm25>>rr 0.75, b = the <script> one 0.70, c = bm25 & "co" 0.30);
  // a score carries the letters of the rows it significantly beats.
  assert.match(
    html,
    /<td>b<\/td><td>&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;<\/td><td class="num">0\.7000<sup title="significantly better than bm25 &amp; &quot;co&quot;">c<\/sup>/,
  );
  assert.match(html, /0\.7500<sup title="significantly better than[^"]*">bc<\/sup>/);
  assert.match(html, /<td>c<\/td><td>bm25 &amp; &quot;co&quot;<\/td><td class="num">0\.3000<\/td>/);
  // Reranking table and cross-release summary.
  assert.match(html, /\+0\.0450/);
  assert.match(html, /recall ceiling/);
  assert.match(html, /2 retrievers in both\. Spearman ρ = 1\.000, Kendall τ-b = 1\.000/);
  assert.match(html, /<details><summary>a-&lt;script&gt;/);
});

test('report files: index.html, one SVG and PNG per chart', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-report-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out = await writeHtmlReport([a], { outDir: dir, permutations: 200 });
  const files = readdirSync(join(dir, 'charts')).sort();
  assert.equal(files.length, out.charts.length * 2);
  for (const c of out.charts) {
    const png = readFileSync(c.pngFile!);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(png.length > 2000);
    assert.match(readFileSync(c.svgFile, 'utf8'), /^<\?xml[^>]*>\n<svg/);
  }
  assert.equal(readFileSync(out.indexFile, 'utf8'), out.html);
});

test('groupResults merges files of one dataset and protocol and renames clashing retrievers', () => {
  const g = groupResults([a, { file: 'c.json', results: results('release_v2602', 'aa', [retriever('bm25 & "co"', 0.2, 9)]) }, b]);
  assert.equal(g.length, 2);
  assert.deepEqual(
    g[0].retrievers.map((r) => r.name),
    [EVIL, 'bm25 & "co"', 'bm25>>rr', 'bm25 & "co" (file 2)'],
  );
});

test('prefixSvgIds rewrites ids and their references only', () => {
  const svg = '<svg><clipPath id="clip1"><rect/></clipPath><g clip-path="url(#clip1)"><use href="#clip1"/><path fill="url(#other)"/></g></svg>';
  assert.equal(
    prefixSvgIds(svg, 'c-'),
    '<svg><clipPath id="c-clip1"><rect/></clipPath><g clip-path="url(#c-clip1)"><use href="#c-clip1"/><path fill="url(#other)"/></g></svg>',
  );
});

test('report: a contamination study gets its own section (escaped), also without any results file', async () => {
  const summary = {
    models: {
      [`m${EVIL}`]: {
        original: { passAt1: 0.75 },
        rewritten: { passAt1: 0.25 },
        delta: -0.5,
        table: { bothPass: 1, originalOnly: 2, rewrittenOnly: 0, neither: 1 },
        mcnemarP: 0.5,
        languages: {
          cpp: {
            original: { passAt1: 1 },
            rewritten: { passAt1: 0 },
            delta: -1,
            table: { bothPass: 0, originalOnly: 2, rewrittenOnly: 0, neither: 0 },
            mcnemarP: 0.5,
          },
        },
      },
    },
  };
  const { html } = await renderHtmlReport([], {
    contamination: [{ file: `build/${EVIL}/contamination.json`, summary }],
    now: '2026-12-01T00:00:00Z',
  });
  assert.equal(html.includes(EVIL), false, 'model names and paths are escaped');
  const sec = /<section id="contamination">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
  assert.match(sec, /<h2>Contamination study<\/h2>/);
  for (const cell of ['75.0%', '25.0%', '-50.0', '100.0%', '0.0%', '-100.0', '0.500']) assert.ok(sec.includes(`>${cell}<`), cell);
  assert.match(html, /1 contamination study/);
  assert.doesNotMatch(html, /id="provenance"/, 'no results file, no provenance section');
  await assert.rejects(renderHtmlReport([]), /at least one results file or contamination\.json/);
});

test('a retriever has one colour in every chart of a report, whatever its rank in each release', () => {
  const groups = [{ retrievers: [{ name: 'e5' }, { name: 'bm25' }] }, { retrievers: [{ name: 'bm25' }, { name: 'new-model' }, { name: 'e5' }] }];
  const colours = retrieverColours(groups);
  assert.deepEqual([...colours.keys()], ['e5', 'bm25', 'new-model']);
  assert.equal(new Set(colours.values()).size, 3);
  const chart = (names: string[]) => ({
    data: { values: names.map((retriever, i) => ({ retriever, x: i })) },
    layer: [{ mark: 'line', encoding: { color: { field: 'retriever', type: 'nominal', sort: names } } }],
  });
  const a = withRetrieverColours(chart(['bm25', 'e5']), colours) as {
    layer: Array<{ encoding: { color: { scale: { domain: string[]; range: string[] } } } }>;
  };
  const b = withRetrieverColours(chart(['new-model', 'bm25']), colours) as typeof a;
  const colourOf = (c: typeof a, name: string) => {
    const s = c.layer[0].encoding.color.scale;
    return s.range[s.domain.indexOf(name)];
  };
  assert.equal(colourOf(a, 'bm25'), colours.get('bm25'));
  assert.equal(colourOf(b, 'bm25'), colours.get('bm25'));
  assert.deepEqual(b.layer[0].encoding.color.scale.domain, ['bm25', 'new-model'], 'the legend lists the chart’s retrievers only');
  // Sixty retrievers: the palette repeats only after its twenty colours.
  const many = retrieverColours([{ retrievers: Array.from({ length: 60 }, (_, i) => ({ name: `m${i}` })) }]);
  assert.equal(new Set([...many.values()].slice(0, 20)).size, 20);
});
