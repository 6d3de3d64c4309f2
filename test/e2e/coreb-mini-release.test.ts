/**
 * Checks that the committed coreb-mini release agrees with its authored sources and with the judge
 * results recorded in its manifest: every problem present and up to date, ids resolving, and every
 * label following the v2 rules. No execution here; `scripts/build-coreb-mini.mjs` regenerates it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/shared.js';

type Row = Record<string, unknown>;
const mini = join(projectRoot, 'data', 'coreb-mini');
const sourcesDir = join(mini, 'sources', 'problems');
const releaseDir = join(mini, 'release');
const TABLES = [
  'code_corpus',
  'text_corpus',
  'text2code_queries',
  'text2code_qrels',
  'code2code_queries',
  'code2code_qrels',
  'code2text_queries',
  'code2text_qrels',
] as const;

const readRows = (name: string): Row[] =>
  readFileSync(join(releaseDir, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);

interface Manifest {
  problems: Array<{ id: string; folder: string; source_sha256: string }>;
  solutions: Array<{ code_id: string; solution: string; intent: string; passed: boolean; language: string }>;
  tables_sha256: Record<string, string>;
  counts: { tables: Record<string, number>; subtasks: Record<string, number> };
}
const manifest = JSON.parse(readFileSync(join(releaseDir, 'manifest.json'), 'utf8')) as Manifest;
const tables = Object.fromEntries(TABLES.map((t) => [t, readRows(t)])) as Record<(typeof TABLES)[number], Row[]>;
const code = new Map(tables.code_corpus.map((r) => [r.code_id as string, r]));
const text = new Map(tables.text_corpus.map((r) => [r.text_id as string, r]));

const sha256 = (...parts: string[]): string => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

function qrelsByQuery(rows: Row[]): Map<string, Row[]> {
  const m = new Map<string, Row[]>();
  for (const r of rows) {
    const q = r.query_id as string;
    if (!m.has(q)) m.set(q, []);
    m.get(q)?.push(r);
  }
  return m;
}

test('every source problem is in the release and the release was built from the current sources', () => {
  const folders = readdirSync(sourcesDir)
    .filter((d) => /^cm_\d{3}-/.test(d))
    .sort();
  assert.deepEqual(
    manifest.problems.map((p) => p.folder),
    folders,
    'source folders differ from the release; run `node scripts/build-coreb-mini.mjs`',
  );
  assert.ok(folders.length >= 12, `expected a dozen problems or more, found ${folders.length}`);
  for (const p of manifest.problems) {
    const raw = readFileSync(join(sourcesDir, p.folder, 'problem.json'), 'utf8');
    const src = JSON.parse(raw) as { solutions: Array<{ file: string }> };
    const parts = src.solutions.flatMap((s) => [s.file, '\0', readFileSync(join(sourcesDir, p.folder, 'solutions', s.file), 'utf8'), '\0']);
    assert.equal(sha256(raw, ...parts), p.source_sha256, `${p.folder} changed since the release was built; rebuild it`);
  }
});

test('tables match the manifest hashes and counts', () => {
  for (const t of TABLES) {
    assert.equal(sha256(readFileSync(join(releaseDir, `${t}.jsonl`), 'utf8')), manifest.tables_sha256[t], t);
    assert.equal(tables[t].length, manifest.counts.tables[t], t);
  }
});

test('code corpus holds every solution verbatim with the judge result of the manifest', () => {
  assert.equal(tables.code_corpus.length, manifest.solutions.length);
  for (const s of manifest.solutions) {
    const row = code.get(s.code_id);
    assert.ok(row, `${s.solution} missing from code_corpus`);
    const [pid, file] = s.solution.split('/');
    const folder = manifest.problems.find((p) => p.id === pid)?.folder ?? '';
    assert.equal(row.code, readFileSync(join(sourcesDir, folder, 'solutions', file), 'utf8'), s.solution);
    assert.equal(row.meta_passed, s.passed, s.solution);
    assert.equal(row.language, s.language, s.solution);
  }
});

test('the sample keeps its promises: correct solutions pass, each problem has failing ones in two languages', () => {
  for (const p of manifest.problems) {
    const sols = manifest.solutions.filter((s) => s.solution.startsWith(`${p.id}/`));
    for (const s of sols.filter((x) => x.intent === 'correct')) assert.ok(s.passed, `${s.solution} should pass`);
    const failingLangs = new Set(sols.filter((s) => !s.passed).map((s) => s.language));
    assert.ok(failingLangs.size >= 2, `${p.id}: failing solutions in ${[...failingLangs].join(', ')}`);
    const passingLangs = new Set(sols.filter((s) => s.passed).map((s) => s.language));
    assert.equal(passingLangs.size, 5, `${p.id}: passing languages ${[...passingLangs].join(', ')}`);
  }
});

test('ids are unique and every qrel resolves to a query and a document of the right corpus', () => {
  for (const [queries, qrels, corpus] of [
    ['text2code_queries', 'text2code_qrels', code],
    ['code2code_queries', 'code2code_qrels', code],
    ['code2text_queries', 'code2text_qrels', text],
  ] as const) {
    const ids = new Set(tables[queries].map((q) => q.query_id as string));
    assert.equal(ids.size, tables[queries].length, `${queries}: duplicate ids`);
    for (const r of tables[qrels]) {
      assert.ok(ids.has(r.query_id as string), `${qrels}: unknown query ${String(r.query_id)}`);
      assert.ok(corpus.has(r.doc_id as string), `${qrels}: unknown doc ${String(r.doc_id)}`);
    }
  }
  assert.equal(code.size, tables.code_corpus.length);
  assert.equal(text.size, tables.text_corpus.length);
});

test('text2code labels: positives pass and meet the language constraint; hard negatives are same-problem', () => {
  const qrels = qrelsByQuery(tables.text2code_qrels);
  for (const q of tables.text2code_queries) {
    const rows = qrels.get(q.query_id as string) ?? [];
    const pos = rows.filter((r) => r.relevance === 2).map((r) => code.get(r.doc_id as string) as Row);
    assert.ok(pos.length > 0, `${String(q.query_id)} has no positive`);
    for (const d of pos) {
      assert.equal(d.meta_passed, true);
      assert.equal(d.meta_source_problem_id, q.meta_source_problem_id);
      if (q.language_constraint !== 'none') assert.equal(d.language, q.language_constraint);
    }
    const allPassing = tables.code_corpus.filter(
      (d) =>
        d.meta_source_problem_id === q.meta_source_problem_id &&
        d.meta_passed === true &&
        (q.language_constraint === 'none' || d.language === q.language_constraint),
    );
    assert.equal(pos.length, allPassing.length, `${String(q.query_id)}: every qualifying passing solution is a positive`);
    for (const r of rows.filter((x) => x.relevance === 1)) {
      const d = code.get(r.doc_id as string) as Row;
      assert.equal(d.meta_source_problem_id, q.meta_source_problem_id);
      assert.ok(d.meta_passed === false || (q.language_constraint !== 'none' && d.language !== q.language_constraint));
    }
  }
});

test('code2code labels: passing targets in other languages; the anchor is never judged', () => {
  const qrels = qrelsByQuery(tables.code2code_qrels);
  for (const q of tables.code2code_queries) {
    const anchor = code.get(q.meta_anchor_code_id as string) as Row;
    assert.equal(anchor.code, q.query);
    const rows = qrels.get(q.query_id as string) ?? [];
    assert.ok(!rows.some((r) => r.doc_id === anchor.code_id), 'anchor judged');
    const pos = rows.filter((r) => r.relevance === 2).map((r) => code.get(r.doc_id as string) as Row);
    assert.ok(pos.length > 0);
    for (const d of pos) {
      assert.equal(d.meta_passed, true);
      assert.notEqual(d.language, anchor.language);
      assert.ok((q.meta_target_languages as string[]).includes(d.language as string));
      assert.equal(d.meta_source_problem_id, anchor.meta_source_problem_id);
    }
  }
});

test('code2text labels: the own description is the positive, its four hard negatives are judged 1', () => {
  const qrels = qrelsByQuery(tables.code2text_qrels);
  for (const q of tables.code2text_queries) {
    const rows = qrels.get(q.query_id as string) ?? [];
    const pos = rows.filter((r) => r.relevance === 2).map((r) => text.get(r.doc_id as string) as Row);
    const neg = rows.filter((r) => r.relevance === 1).map((r) => text.get(r.doc_id as string) as Row);
    assert.equal(code.get(q.meta_anchor_code_id as string)?.code, q.query);
    if (q.subtask === 'c2t_match' && q.label === 0) assert.equal(pos.length, 0);
    else {
      assert.equal(pos.length, 1);
      assert.equal(pos[0].meta_source_problem_id, q.meta_source_problem_id);
      assert.equal(pos[0].text_style, 'title_plus_description');
    }
    assert.equal(neg.length, 4);
    for (const t of neg) assert.equal(t.meta_original_problem_id, q.meta_source_problem_id);
  }
});

test('queries cover every subtask family', () => {
  const subtasks = new Set(Object.keys(manifest.counts.subtasks));
  for (const s of [
    't2c_canonical_retro_any',
    't2c_full_retro_any',
    't2c_search_any',
    'c2t_canonical_retro_any',
    'c2t_full_retro_any',
    'c2t_match',
    'c2c_cross_lang',
  ]) {
    assert.ok(subtasks.has(s), s);
  }
  for (const lang of ['python', 'java', 'cpp', 'ruby', 'go']) {
    for (const v of ['t2c_canonical_retro', 't2c_full_retro', 't2c_search', 'c2t_canonical_retro', 'c2t_full_retro']) {
      assert.ok(subtasks.has(`${v}_${lang}`), `${v}_${lang}`);
    }
  }
  assert.ok(existsSync(join(mini, 'README.md')), 'data/coreb-mini/README.md');
});
