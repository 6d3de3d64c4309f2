import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { ReleaseTable } from '../core/dataset.js';
import { isCorebError } from '../core/errors.js';
import type { ValidationIssue } from '../core/issues.js';
import {
  fixtureTables,
  nestMeta,
  parquetBytes,
  tempDir,
  writeJsonlRelease,
  writeParquetRelease,
  type WireTables,
} from '../../test/e2e/validate-fixture.js';
import { loadRelease } from './release.js';
import { validateRelease } from './validate-release.js';

async function check(dir: string, format: 'auto' | 'jsonl' | 'parquet' = 'auto'): Promise<ValidationIssue[]> {
  const { release, issues } = await loadRelease(dir, { format });
  return [...issues, ...validateRelease(release)];
}

function jsonlDir(edit?: (t: WireTables) => void): string {
  const t = fixtureTables();
  edit?.(t);
  return writeJsonlRelease(tempDir(), t);
}

function setLine(dir: string, table: ReleaseTable, line: number, text: string): void {
  const file = join(dir, `${table}.jsonl`);
  const lines = readFileSync(file, 'utf8').split('\n');
  lines[line - 1] = text;
  writeFileSync(file, lines.join('\n'));
}

interface Expect {
  kind: string;
  severity?: 'error' | 'warning';
  file?: string;
  line?: number;
  row?: number;
  field?: string;
}

function assertIssue(issues: ValidationIssue[], e: Expect): void {
  const hit = issues.find(
    (i) =>
      i.kind === e.kind &&
      (e.severity === undefined || i.severity === e.severity) &&
      (e.file === undefined || (i.file ?? '').endsWith(e.file)) &&
      (e.line === undefined || i.line === e.line) &&
      (e.row === undefined || i.row === e.row) &&
      (e.field === undefined || i.field === e.field),
  );
  assert.ok(hit, `expected ${JSON.stringify(e)} among:\n${issues.map((i) => JSON.stringify(i)).join('\n')}`);
  assert.ok(hit.message.length > 10, 'issue message says what was expected');
}

function errorKinds(issues: ValidationIssue[]): string[] {
  return [...new Set(issues.filter((i) => i.severity === 'error').map((i) => i.kind))].sort();
}

test('the fixture release loads from JSONL with no issues and all records typed', async () => {
  const dir = jsonlDir();
  const { release, issues } = await loadRelease(dir);
  assert.deepEqual([...issues, ...validateRelease(release)], []);
  assert.equal(release.codeCorpus.length, 5);
  assert.equal(release.textCorpus.length, 3);
  assert.equal(release.tasks.text2code.queries.length, 3);
  assert.equal(release.tasks.code2text.qrels.length, 4);
  const c1 = release.codeCorpus[0];
  assert.equal(c1.codeId, 'c1');
  assert.equal(c1.meta.sourceProblemId, 'p1');
  assert.equal(c1.meta.passed, true);
  assert.equal(release.textCorpus[1].abbreviatedText, null);
  assert.deepEqual(release.tasks.code2code.queries[0].meta.targetLanguages, ['python']);
  assert.equal(release.tasks.code2code.queries[0].meta.anchorCodeId, 'c2');
});

test('parquet releases (nested and flattened meta) load exactly like the JSONL copy', async () => {
  const fromJsonl = (await loadRelease(jsonlDir())).release;
  for (const meta of ['nested', 'flat'] as const) {
    const dir = writeParquetRelease(tempDir(), { meta, split: 'release_t1' });
    const { release, issues } = await loadRelease(dir);
    assert.deepEqual(issues, [], meta);
    assert.equal(release.split, 'release_t1');
    assert.deepEqual(release.codeCorpus, fromJsonl.codeCorpus, meta);
    assert.deepEqual(release.textCorpus, fromJsonl.textCorpus, meta);
    assert.deepEqual(release.tasks, fromJsonl.tasks, meta);
    assert.equal(release.sources?.code_corpus?.format, 'parquet');
  }
});

test('the per-config parquet layout <table>/<split>-00000-of-00001.parquet loads too, shards in order', async () => {
  const src = writeParquetRelease(tempDir(), { split: 's1' });
  const dir = tempDir();
  for (const name of readdirSync(join(src, 's1'))) {
    const table = name.slice(0, name.indexOf('-s1-'));
    mkdirSync(join(dir, table));
    writeFileSync(join(dir, table, 's1-00000-of-00001.parquet'), readFileSync(join(src, 's1', name)));
  }
  const t = fixtureTables();
  writeFileSync(join(dir, 'code_corpus', 's1-00000-of-00002.parquet'), parquetBytes(t.code_corpus.slice(0, 2).map(nestMeta)));
  writeFileSync(join(dir, 'code_corpus', 's1-00001-of-00002.parquet'), parquetBytes(t.code_corpus.slice(2).map(nestMeta)));
  rmSync(join(dir, 'code_corpus', 's1-00000-of-00001.parquet'));
  const { release, issues } = await loadRelease(dir);
  assert.deepEqual(issues, []);
  assert.equal(release.split, 's1');
  assert.deepEqual(
    release.codeCorpus.map((c) => c.codeId),
    ['c1', 'c2', 'c3', 'c4', 'c5'],
  );
  const t2 = fixtureTables();
  t2.code_corpus[3].code_id = 'c1';
  writeFileSync(join(dir, 'code_corpus', 's1-00001-of-00002.parquet'), parquetBytes(t2.code_corpus.slice(2).map(nestMeta)));
  const again = await loadRelease(dir);
  const dup = validateRelease(again.release).find((i) => i.kind === 'duplicate-id');
  assert.ok(dup?.file?.endsWith('s1-00001-of-00002.parquet') && dup.row === 1, JSON.stringify(dup));
});

test('gzip JSONL tables are read like plain ones', async () => {
  const dir = jsonlDir();
  const file = join(dir, 'code_corpus.jsonl');
  writeFileSync(file + '.gz', gzipSync(readFileSync(file)));
  rmSync(file);
  const { release, issues } = await loadRelease(dir);
  assert.deepEqual(issues, []);
  assert.equal(release.codeCorpus.length, 5);
});

test('loading never modifies the input files', async () => {
  const dir = jsonlDir();
  const f = join(dir, 'text_corpus.jsonl');
  writeFileSync(f, '\ufeff' + readFileSync(f, 'utf8').replace(/\n/g, '\r\n'));
  const digest = (): string[] =>
    readdirSync(dir)
      .sort()
      .map((n) =>
        createHash('sha256')
          .update(readFileSync(join(dir, n)))
          .digest('hex'),
      );
  const before = digest();
  const issues = await check(dir);
  assert.deepEqual(digest(), before);
  assert.deepEqual(errorKinds(issues), []);
  assertIssue(issues, { kind: 'bom', severity: 'warning', file: 'text_corpus.jsonl', line: 1 });
  assertIssue(issues, { kind: 'crlf', severity: 'warning', file: 'text_corpus.jsonl', line: 1 });
});

test('a directory with no CoREB tables is a NOT_FOUND error naming the expected layout', async () => {
  await assert.rejects(loadRelease(tempDir()), (e) => isCorebError(e, 'NOT_FOUND') && /code_corpus/.test(e.message));
});

test('several parquet splits need an explicit split; the message lists them', async () => {
  const dir = tempDir();
  writeParquetRelease(dir, { split: 'release_a' });
  writeParquetRelease(dir, { split: 'release_b' });
  await assert.rejects(loadRelease(dir), (e) => isCorebError(e, 'USAGE') && /release_a, release_b/.test(e.message));
  const { release } = await loadRelease(dir, { split: 'release_b' });
  assert.equal(release.split, 'release_b');
});

/** Each case: a malformed input and the issue a user must see for it. */
const CASES: Array<{ name: string; make: () => string; expect: Expect; errors?: string[] }> = [
  {
    name: 'malformed JSON line',
    make: () => {
      const d = jsonlDir();
      setLine(d, 'code_corpus', 3, '{"code_id": "c3", "code": ');
      return d;
    },
    expect: { kind: 'malformed-json', severity: 'error', file: 'code_corpus.jsonl', line: 3 },
    // The dropped c3 is then missing for the qrels that judge it.
    errors: ['dangling-doc', 'malformed-json'],
  },
  {
    name: 'a line that is JSON but not an object',
    make: () => {
      const d = jsonlDir();
      setLine(d, 'text2code_qrels', 2, '["q_t2c_1", "c2", 2]');
      return d;
    },
    expect: { kind: 'not-an-object', severity: 'error', file: 'text2code_qrels.jsonl', line: 2 },
    errors: ['not-an-object'],
  },
  {
    name: 'missing id field',
    make: () => jsonlDir((t) => delete t.code_corpus[4].code_id),
    expect: { kind: 'missing-field', severity: 'error', file: 'code_corpus.jsonl', line: 5, field: 'code_id' },
    // c5 is the anchor of a c2t query, which now dangles.
    errors: ['dangling-anchor', 'missing-field'],
  },
  {
    name: 'null required field',
    make: () => jsonlDir((t) => (t.text2code_queries[1].query = null)),
    expect: { kind: 'missing-field', severity: 'error', file: 'text2code_queries.jsonl', line: 2, field: 'query' },
    errors: ['dangling-query', 'missing-field'],
  },
  {
    name: 'duplicate code id',
    make: () => jsonlDir((t) => (t.code_corpus[3].code_id = 'c1')),
    expect: { kind: 'duplicate-id', severity: 'error', file: 'code_corpus.jsonl', line: 4, field: 'code_id' },
    errors: ['dangling-anchor', 'dangling-doc', 'duplicate-id'],
  },
  {
    name: 'duplicate query id',
    make: () => jsonlDir((t) => (t.code2text_queries[2].query_id = 'q_c2t_1')),
    expect: { kind: 'duplicate-id', severity: 'error', file: 'code2text_queries.jsonl', line: 3, field: 'query_id' },
    errors: ['dangling-query', 'duplicate-id'],
  },
  {
    name: 'qrels pointing at an unknown query',
    make: () => jsonlDir((t) => (t.code2code_qrels[1].query_id = 'q_nope')),
    expect: { kind: 'dangling-query', severity: 'error', file: 'code2code_qrels.jsonl', line: 2, field: 'query_id' },
    errors: ['dangling-query'],
  },
  {
    name: 'qrels pointing at an unknown document',
    make: () => jsonlDir((t) => (t.text2code_qrels[6].doc_id = 'c99')),
    expect: { kind: 'dangling-doc', severity: 'error', file: 'text2code_qrels.jsonl', line: 7, field: 'doc_id' },
    errors: ['dangling-doc'],
  },
  {
    name: 'code-to-text qrels pointing into the code corpus',
    make: () => jsonlDir((t) => (t.code2text_qrels[0].doc_id = 'c1')),
    expect: { kind: 'dangling-doc', severity: 'error', file: 'code2text_qrels.jsonl', line: 1, field: 'doc_id' },
    errors: ['dangling-doc'],
  },
  {
    name: 'non-integer relevance',
    make: () => jsonlDir((t) => (t.code2code_qrels[0].relevance = 1.5)),
    expect: { kind: 'not-integer', severity: 'error', file: 'code2code_qrels.jsonl', line: 1, field: 'relevance' },
    errors: ['not-integer'],
  },
  {
    name: 'NaN relevance (Python json.dumps literal)',
    make: () => {
      const d = jsonlDir();
      setLine(d, 'text2code_qrels', 4, '{"query_id": "q_t2c_2", "doc_id": "c1", "relevance": NaN}');
      return d;
    },
    expect: { kind: 'non-finite-number', severity: 'error', file: 'text2code_qrels.jsonl', line: 4, field: 'relevance' },
    errors: ['non-finite-number'],
  },
  {
    name: 'Infinity in an optional numeric meta field (warning: dropped)',
    make: () => {
      const d = jsonlDir();
      const line = JSON.stringify(fixtureTables().code_corpus[1]).replace('"meta_pass_rate":1', '"meta_pass_rate":Infinity');
      setLine(d, 'code_corpus', 2, line);
      return d;
    },
    expect: { kind: 'non-finite-number', severity: 'warning', file: 'code_corpus.jsonl', line: 2, field: 'meta_pass_rate' },
    errors: [],
  },
  {
    name: 'boolean relevance',
    make: () => jsonlDir((t) => (t.code2text_qrels[3].relevance = true)),
    expect: { kind: 'wrong-type', severity: 'error', file: 'code2text_qrels.jsonl', line: 4, field: 'relevance' },
    errors: ['wrong-type'],
  },
  {
    name: 'wrong type in an optional meta field (warning: dropped, it cannot make a score wrong)',
    make: () => jsonlDir((t) => (t.code_corpus[0].meta_passed = 'yes')),
    expect: { kind: 'wrong-type', severity: 'warning', file: 'code_corpus.jsonl', line: 1, field: 'meta_passed' },
    errors: [],
  },
  {
    name: 'wrong type in a c2c anchor (dropped, then the query has no anchor: an error)',
    make: () => jsonlDir((t) => (t.code2code_queries[0].meta_anchor_code_id = { id: 'c1' })),
    expect: { kind: 'missing-anchor', severity: 'error', file: 'code2code_queries.jsonl', line: 1, field: 'meta_anchor_code_id' },
    errors: ['missing-anchor'],
  },
  {
    name: 'object where the query text belongs',
    make: () => jsonlDir((t) => (t.code2code_queries[0].query = { code: 'x' })),
    expect: { kind: 'wrong-type', severity: 'error', file: 'code2code_queries.jsonl', line: 1, field: 'query' },
    errors: ['dangling-query', 'wrong-type'],
  },
  {
    name: 'empty table file',
    make: () => {
      const d = jsonlDir();
      writeFileSync(join(d, 'code2code_qrels.jsonl'), '');
      return d;
    },
    expect: { kind: 'empty-file', severity: 'error', file: 'code2code_qrels.jsonl' },
    errors: ['empty-file'],
  },
  {
    name: 'missing table file',
    make: () => {
      const d = jsonlDir();
      rmSync(join(d, 'code2text_queries.jsonl'));
      return d;
    },
    expect: { kind: 'missing-table', severity: 'error', file: 'code2text_queries.jsonl' },
    errors: ['dangling-query', 'missing-table'],
  },
  {
    name: 'a subtask of a known family that no known release uses (a later release may add it: scored)',
    make: () => jsonlDir((t) => (t.text2code_queries[2].subtask = 't2c_fuzzy_java')),
    expect: { kind: 'unknown-subtask', severity: 'warning', file: 'text2code_queries.jsonl', line: 3, field: 'subtask' },
    errors: [],
  },
  {
    name: 'a subtask of no known family (skipped, not scored)',
    make: () => jsonlDir((t) => (t.text2code_queries[2].subtask = 'x2y_probe')),
    expect: { kind: 'unknown-family', severity: 'warning', file: 'text2code_queries.jsonl', line: 3, field: 'subtask' },
    errors: [],
  },
  {
    name: 'subtask named for another task (scored with the corpus of its table)',
    make: () => jsonlDir((t) => (t.code2code_queries[0].subtask = 'c2t_match')),
    expect: { kind: 'subtask-task-mismatch', severity: 'warning', file: 'code2code_queries.jsonl', line: 1, field: 'subtask' },
    errors: [],
  },
  {
    name: 'a table coreb does not know (skipped)',
    make: () => {
      const d = jsonlDir();
      writeFileSync(join(d, 'code2code_notes.jsonl'), '{"query_id": "q1"}\n');
      return d;
    },
    expect: { kind: 'unknown-table', severity: 'warning', file: 'code2code_notes.jsonl' },
    errors: [],
  },
  {
    name: 'c2c query whose anchor is not in the corpus',
    make: () => jsonlDir((t) => (t.code2code_queries[0].meta_anchor_code_id = 'c42')),
    expect: { kind: 'dangling-anchor', severity: 'error', file: 'code2code_queries.jsonl', line: 1, field: 'meta_anchor_code_id' },
    errors: ['dangling-anchor'],
  },
  {
    name: 'c2c query without an anchor',
    make: () => jsonlDir((t) => delete t.code2code_queries[0].meta_anchor_code_id),
    expect: { kind: 'missing-anchor', severity: 'error', file: 'code2code_queries.jsonl', line: 1, field: 'meta_anchor_code_id' },
    errors: ['missing-anchor'],
  },
  {
    name: 'c2t match pair naming an unknown text',
    make: () => jsonlDir((t) => (t.code2text_queries[2].text_id = 't9')),
    expect: { kind: 'dangling-doc', severity: 'error', file: 'code2text_queries.jsonl', line: 3, field: 'text_id' },
    errors: ['dangling-doc'],
  },
  {
    name: 'the same (query, doc) judged twice',
    make: () => jsonlDir((t) => t.code2code_qrels.push({ query_id: 'q_c2c_1', doc_id: 'c1', relevance: 1 })),
    expect: { kind: 'duplicate-qrel', severity: 'error', file: 'code2code_qrels.jsonl', line: 3, field: 'doc_id' },
    errors: ['duplicate-qrel'],
  },
  {
    name: 'invalid UTF-8 bytes',
    make: () => {
      const d = jsonlDir();
      const f = join(d, 'text_corpus.jsonl');
      writeFileSync(f, Buffer.concat([readFileSync(f), Buffer.from([0xff, 0xfe, 0x0a])]));
      return d;
    },
    expect: { kind: 'invalid-encoding', severity: 'error', file: 'text_corpus.jsonl' },
  },
  {
    name: 'a corrupt gzip table',
    make: () => {
      const d = jsonlDir();
      writeFileSync(join(d, 'code2code_qrels.jsonl.gz'), Buffer.from([0x1f, 0x8b, 1, 2, 3]));
      rmSync(join(d, 'code2code_qrels.jsonl'));
      return d;
    },
    expect: { kind: 'invalid-encoding', severity: 'error', file: 'code2code_qrels.jsonl.gz' },
    errors: ['invalid-encoding'],
  },
  {
    name: 'stringified list (warning, read as a list)',
    make: () => jsonlDir((t) => (t.code2code_queries[0].meta_target_languages = "['python']")),
    expect: { kind: 'stringified-list', severity: 'warning', file: 'code2code_queries.jsonl', line: 1, field: 'meta_target_languages' },
    errors: [],
  },
  {
    name: '"None" for a missing value (warning)',
    make: () => jsonlDir((t) => (t.text_corpus[0].meta_noise_variation = 'None')),
    expect: { kind: 'stringified-null', severity: 'warning', file: 'text_corpus.jsonl', line: 1, field: 'meta_noise_variation' },
    errors: [],
  },
  {
    name: 'blank line (warning)',
    make: () => {
      const d = jsonlDir();
      const f = join(d, 'code_corpus.jsonl');
      const lines = readFileSync(f, 'utf8').split('\n');
      lines.splice(2, 0, '   ');
      writeFileSync(f, lines.join('\n'));
      return d;
    },
    expect: { kind: 'blank-line', severity: 'warning', file: 'code_corpus.jsonl', line: 3 },
    errors: [],
  },
  {
    name: 'unknown programming language (warning)',
    make: () => jsonlDir((t) => (t.code_corpus[4].language = 'cobol')),
    expect: { kind: 'unknown-language', severity: 'warning', file: 'code_corpus.jsonl', line: 5, field: 'language' },
    errors: [],
  },
  {
    name: 'query without qrels (warning)',
    make: () => jsonlDir((t) => (t.text2code_qrels = t.text2code_qrels.filter((r) => r.query_id !== 'q_t2c_3'))),
    expect: { kind: 'no-qrels', severity: 'warning', file: 'text2code_queries.jsonl', line: 3 },
    errors: [],
  },
  {
    name: 'language constraint disagreeing with the subtask (warning)',
    make: () => jsonlDir((t) => (t.text2code_queries[1].language_constraint = 'go')),
    expect: { kind: 'inconsistent-language', severity: 'warning', file: 'text2code_queries.jsonl', line: 2, field: 'language_constraint' },
    errors: [],
  },
  {
    name: 'c2t_match positive pair whose text is not judged relevant (warning)',
    make: () =>
      jsonlDir((t) => {
        t.code2text_queries[2].label = 1;
      }),
    expect: { kind: 'inconsistent-pair', severity: 'warning', file: 'code2text_queries.jsonl', line: 3, field: 'label' },
    errors: [],
  },
  {
    name: 'corrupt parquet file',
    make: () => {
      const d = writeParquetRelease(tempDir(), { split: 's' });
      writeFileSync(join(d, 's', 'code2code_qrels-s-00000-of-00001.parquet'), 'PAR1 not really');
      return d;
    },
    expect: { kind: 'malformed-parquet', severity: 'error', file: 'code2code_qrels-s-00000-of-00001.parquet' },
    errors: ['malformed-parquet'],
  },
  {
    name: 'parquet row with a non-integer relevance (reported by row)',
    make: () => {
      const t = fixtureTables();
      t.text2code_qrels[5].relevance = 0.5;
      return writeParquetRelease(tempDir(), { split: 's', tables: t });
    },
    expect: { kind: 'not-integer', severity: 'error', file: 'text2code_qrels-s-00000-of-00001.parquet', row: 5, field: 'relevance' },
    errors: ['not-integer'],
  },
  {
    name: 'nested parquet meta with a missing anchor',
    make: () => {
      const t = fixtureTables();
      t.code2code_queries[0].meta_anchor_code_id = null;
      return writeParquetRelease(tempDir(), { split: 's', tables: t, meta: 'nested' });
    },
    expect: { kind: 'missing-anchor', severity: 'error', file: 'code2code_queries-s-00000-of-00001.parquet', row: 0, field: 'meta.anchor_code_id' },
    errors: ['missing-anchor'],
  },
];

test(`at least 20 distinct malformed inputs are covered (${CASES.length})`, () => {
  assert.ok(CASES.length >= 20);
});

for (const c of CASES) {
  test(`malformed input: ${c.name}`, async () => {
    const issues = await check(c.make());
    assertIssue(issues, c.expect);
    if (c.errors !== undefined) assert.deepEqual(errorKinds(issues), c.errors);
  });
}

test('every problem is reported, not only the first', async () => {
  const dir = jsonlDir((t) => {
    t.code2code_qrels[0].relevance = 2.5;
    t.text2code_qrels[0].doc_id = 'zz1';
    t.text2code_qrels[1].doc_id = 'zz2';
    t.text2code_queries[0].subtask = 'nope';
    delete t.code2code_queries[0].meta_anchor_code_id;
  });
  const issues = await check(dir);
  assert.equal(issues.filter((i) => i.severity === 'error').length, 4);
  assert.ok(issues.some((i) => i.kind === 'unknown-family' && i.severity === 'warning'));
});

test('quirky values are converted, not dropped', async () => {
  const dir = jsonlDir((t) => {
    t.code2code_queries[0].meta_target_languages = "['python', 'go']";
    t.text_corpus[0].meta_noise_type = 'None';
    t.code2code_qrels[0].relevance = '2';
  });
  const { release, issues } = await loadRelease(dir);
  assert.deepEqual(release.tasks.code2code.queries[0].meta.targetLanguages, ['python', 'go']);
  assert.equal(release.textCorpus[0].meta.noiseType, null);
  assert.equal(release.tasks.code2code.qrels[0].relevance, 2);
  assert.equal(issues.filter((i) => i.severity === 'warning').length, 3);
});

test('a JSONL release takes its split name from manifest.json, else from its folder name', async () => {
  const dir = jsonlDir();
  const folder = dir.split('/').filter(Boolean).pop();
  assert.equal((await loadRelease(dir)).release.split, folder);
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ name: 'x', split: 'mini_v9' }));
  assert.equal((await loadRelease(dir)).release.split, 'mini_v9');
  assert.equal((await loadRelease(dir, { split: 'chosen' })).release.split, 'chosen', 'an explicit split wins');
  writeFileSync(join(dir, 'manifest.json'), '{"split": ');
  await assert.rejects(loadRelease(dir), (e: unknown) => isCorebError(e, 'PARSE') && e.message.includes('manifest.json'));
});
