import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCandidates, parseCandidate, parseExecLanguage } from './candidates.js';

test('candidates and CoREB code_corpus rows both become programs', () => {
  assert.deepEqual(parseCandidate({ id: 'a', problem_id: 'abc1_a', language: 'Python3', code: 'print(1)' }), {
    id: 'a',
    problemId: 'abc1_a',
    language: 'python',
    code: 'print(1)',
  });
  const row = parseCandidate({ code_id: 'code_1', code: 'x', language: 'cpp', meta_source_problem_id: 'lcb_abc1_a', model: 'm' });
  assert.equal(row.id, 'code_1');
  assert.equal(row.problemId, 'lcb_abc1_a');
  assert.equal(parseCandidate({ code_id: 'c', code: 'x', language: 'go', meta: { source_problem_id: 'p' } }).problemId, 'p');
});

test('language aliases and errors naming the field and the valid values', () => {
  assert.equal(parseExecLanguage('C++'), 'cpp');
  assert.equal(parseExecLanguage('golang'), 'go');
  assert.equal(parseExecLanguage('rust'), undefined);
  assert.throws(
    () => parseCandidate({ id: 'a', problem_id: 'p', language: 'rust', code: '' }, 'c.jsonl', 3),
    (e: Error) => /c\.jsonl:3: field `language`: unknown language `rust`; valid: python/.test(e.message),
  );
  assert.throws(() => parseCandidate({ id: 'a', language: 'go', code: '' }), { code: 'VALIDATION' });
});

test('loadCandidates reads JSONL and rejects duplicate ids with the line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-cand-'));
  const f = join(dir, 'c.jsonl');
  writeFileSync(
    f,
    [
      { id: 'a', problem_id: 'p', language: 'ruby', code: 'p 1' },
      { id: 'b', problem_id: 'p', language: 'java', code: '' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n',
  );
  const progs = await loadCandidates(f);
  assert.deepEqual(
    progs.map((p) => [p.id, p.language]),
    [
      ['a', 'ruby'],
      ['b', 'java'],
    ],
  );
  writeFileSync(
    f,
    JSON.stringify({ id: 'a', problem_id: 'p', language: 'ruby', code: '' }) +
      '\n' +
      JSON.stringify({ id: 'a', problem_id: 'p', language: 'ruby', code: '' }) +
      '\n',
  );
  await assert.rejects(loadCandidates(f), (e: Error) => /:2: field `id`: duplicate program id `a`/.test(e.message));
});

test('loadCandidates reads a CoREB code_corpus parquet table (flat and nested meta)', async () => {
  const { parquetBytes } = await import('../../test/e2e/validate-fixture.js');
  const dir = mkdtempSync(join(tmpdir(), 'coreb-cand-pq-'));
  const flat = join(dir, 'code_corpus.parquet');
  writeFileSync(
    flat,
    parquetBytes([
      { code_id: 'code_1', code: 'print(1)', language: 'python', model: 'm', meta_source_problem_id: 'lcb_abc1_a' },
      { code_id: 'code_2', code: 'int main(){}', language: 'cpp', model: 'm', meta_source_problem_id: 'lcb_abc1_b' },
    ]),
  );
  const progs = await loadCandidates(flat);
  assert.deepEqual(
    progs.map((p) => [p.id, p.problemId, p.language]),
    [
      ['code_1', 'lcb_abc1_a', 'python'],
      ['code_2', 'lcb_abc1_b', 'cpp'],
    ],
  );
  const nested = join(dir, 'nested.parquet');
  writeFileSync(nested, parquetBytes([{ code_id: 'code_3', code: 'x', language: 'go', meta: { source_problem_id: 'lcb_abc2_a', passed: true } }]));
  assert.equal((await loadCandidates(nested))[0].problemId, 'lcb_abc2_a');
});
