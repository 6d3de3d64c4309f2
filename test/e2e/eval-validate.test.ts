/**
 * `coreb eval` refuses what `coreb validate` rejects: dangling qrels, a pair judged twice with
 * different labels, and ids holding whitespace (which would make 8-column TREC run lines), on a
 * CoREB release and on a BEIR directory. Both commands report the same problem (exit 4).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/judge.js';
import { jsonl, writeTinyRelease } from './eval-fixture.js';

/** A tiny release with one defect made by `spoil`. */
function spoiled(spoil: (dir: string) => void): string {
  const dir = join(tempDir('coreb-e2e-eval-validate-'), 'release');
  writeTinyRelease(dir);
  spoil(dir);
  return dir;
}

/** Replaces every `"from"` JSON string with `"to"` in a table. */
function rename(dir: string, table: string, from: string, to: string): void {
  const f = join(dir, `${table}.jsonl`);
  writeFileSync(f, readFileSync(f, 'utf8').replaceAll(JSON.stringify(from), JSON.stringify(to)));
}

const cases: Array<{ what: string; kind: string; make: () => string }> = [
  {
    what: 'a qrel naming a document that is not in the corpus',
    kind: 'dangling-doc',
    make: () => spoiled((d) => appendFileSync(join(d, 'text2code_qrels.jsonl'), jsonl([{ query_id: 'q_t2c_2', doc_id: 'c99', relevance: 2 }]))),
  },
  {
    what: 'a qrel naming a query that does not exist',
    kind: 'dangling-query',
    make: () => spoiled((d) => appendFileSync(join(d, 'code2code_qrels.jsonl'), jsonl([{ query_id: 'q_c2c_9', doc_id: 'c2', relevance: 2 }]))),
  },
  {
    what: 'a pair judged twice with different labels',
    kind: 'duplicate-qrel',
    make: () => spoiled((d) => appendFileSync(join(d, 'text2code_qrels.jsonl'), jsonl([{ query_id: 'q_t2c_1', doc_id: 'c3', relevance: 2 }]))),
  },
  {
    what: 'a code id with a space (consistent across tables)',
    kind: 'bad-id',
    make: () =>
      spoiled((d) => {
        for (const t of ['code_corpus', 'text2code_qrels', 'code2code_qrels', 'code2code_queries', 'code2text_queries']) rename(d, t, 'c3', 'c 3');
      }),
  },
];

for (const c of cases) {
  test(`eval refuses ${c.what}, as validate does [${c.kind}]`, () => {
    const dir = c.make();
    const v = runCli(['validate', dir]);
    assert.equal(v.status, 4, v.stdout);
    assert.match(v.stdout, new RegExp(`error .*\\[${c.kind}\\]`));
    const out = join(tempDir('coreb-e2e-eval-validate-out-'), 'res');
    const e = runCli(['eval', '--data', dir, '--out', out, '--quiet']);
    assert.equal(e.status, 4, e.stderr);
    assert.match(e.stderr, new RegExp(`dataset has \\d+ problem\\(s\\); first: .*\\[${c.kind}\\].*coreb validate`));
    assert.doesNotMatch(e.stdout, /Leaderboard/, 'nothing scored');
  });
}

test('eval refuses a BEIR directory whose ids hold whitespace, as validate does', () => {
  const dir = tempDir('coreb-e2e-eval-validate-beir-');
  writeFileSync(
    join(dir, 'corpus.jsonl'),
    jsonl([
      { _id: 'd 1', title: '', text: 'def add(a, b): return a + b' },
      { _id: 'd2', title: '', text: 'def mul(a, b): return a * b' },
    ]),
  );
  writeFileSync(join(dir, 'queries.jsonl'), jsonl([{ _id: 'q1', text: 'add two numbers' }]));
  mkdirSync(join(dir, 'qrels'));
  writeFileSync(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td 1\t1\n');
  const v = runCli(['validate', dir]);
  assert.equal(v.status, 4, v.stdout);
  assert.match(v.stdout, /corpus\.jsonl:1: field `_id`: id "d 1" contains whitespace.*\[bad-id\]/);
  const e = runCli(['eval', '--data', dir, '--quiet']);
  assert.equal(e.status, 4, e.stderr);
  assert.match(e.stderr, /"d 1" contains whitespace.*\[bad-id\]/);
});
