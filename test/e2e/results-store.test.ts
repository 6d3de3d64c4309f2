/**
 * `coreb eval --results DIR` and `coreb results`: rows accumulate in one store; a row already there
 * is read, not scored again; a new retriever, task set or `--force` behaves as a user expects.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../support/cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-results-store-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const store = join(tmp, 'store');
const env = { ...process.env, COREB_CACHE_DIR: join(tmp, 'cache') };
const THREE = ['--retriever', 'bm25', '--retriever', 'bm25?k1=1.2&b=0.75&name=bm25-classic', '--retriever', 'bm25?k1=0.9&b=0.4&name=bm25-anserini'];
const evalInto = (extra: string[]) => runCli(['eval', '--results', store, '--format', 'json', '--quiet', ...extra], { env });
const ls = () =>
  JSON.parse(runCli(['results', 'ls', store, '--format', 'json'], { env }).stdout) as {
    entries: Array<{ path: string; retriever: string; tasks: string[]; ndcg10: number }>;
  };

test('three retrievers into a store, then the same command: nothing scored again, the same numbers printed from the store', () => {
  const first = evalInto(THREE);
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stderr, /3 row\(s\) scored and added, 0 already there/);
  const entries = ls().entries;
  assert.deepEqual(entries.map((e) => e.retriever).sort(), ['bm25', 'bm25-anserini', 'bm25-classic']);
  const mtimes = entries.map((e) => statSync(join(store, ...e.path.split('/'))).mtimeMs);
  const again = evalInto(THREE);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stderr, /0 row\(s\) scored and added, 3 already there and read from it \(not scored again; --force recomputes\)/);
  assert.deepEqual(
    ls().entries.map((e) => statSync(join(store, ...e.path.split('/'))).mtimeMs),
    mtimes,
    'no entry rewritten',
  );
  // The printed results are the stored rows, number for number.
  const a = JSON.parse(first.stdout).retrievers.map((r: { name: string; overall: unknown }) => [r.name, r.overall]);
  const b = JSON.parse(again.stdout).retrievers.map((r: { name: string; overall: unknown }) => [r.name, r.overall]);
  assert.deepEqual(b, a);
});

test('a new retriever adds one entry; another task set is another entry; --force rescores and replaces', () => {
  const third = evalInto([...THREE, '--retriever', 'bm25?k1=1.5&b=0.9&name=bm25-wide']);
  assert.equal(third.status, 0, third.stderr);
  assert.match(third.stderr, /1 row\(s\) scored and added, 3 already there/);
  assert.equal(ls().entries.length, 4);
  const t2c = evalInto(['--retriever', 'bm25', '--tasks', 't2c']);
  assert.match(t2c.stderr, /1 row\(s\) scored and added, 0 already there/);
  const entries = ls().entries;
  assert.equal(entries.length, 5);
  assert.deepEqual(
    entries
      .filter((e) => e.retriever === 'bm25')
      .map((e) => e.tasks.join(','))
      .sort(),
    ['text2code', 'text2code,code2text,code2code'].sort(),
  );
  const before = entries.find((e) => e.retriever === 'bm25-wide') as { path: string };
  const stamp = JSON.parse(readFileSync(join(store, ...before.path.split('/')), 'utf8')).createdAt;
  const forced = evalInto(['--retriever', 'bm25?k1=1.5&b=0.9&name=bm25-wide', '--force']);
  assert.match(forced.stderr, /1 row\(s\) scored and added, 0 already there/);
  assert.equal(ls().entries.length, 5);
  assert.notEqual(JSON.parse(readFileSync(join(store, ...before.path.split('/')), 'utf8')).createdAt, stamp);
});

test('coreb results show and rm; bad verbs and paths are refused', () => {
  const entries = ls().entries;
  const show = runCli(['results', 'show', store, entries[0].path], { env });
  assert.equal(show.status, 0, show.stderr);
  assert.equal(JSON.parse(show.stdout).retrievers[0].name, entries[0].retriever);
  const table = runCli(['results', 'ls', store], { env });
  assert.match(table.stdout, /^retriever\s+split\s+protocol\s+tasks\s+queries\s+nDCG@10\s+entry$/m);
  assert.match(table.stdout, /5 entries in /);
  const rm = runCli(['results', 'rm', store, entries[0].path], { env });
  assert.equal(rm.status, 0, rm.stderr);
  assert.equal(ls().entries.length, 4);
  assert.equal(runCli(['results', 'rm', store, 'nope.json'], { env }).status, 2);
  assert.equal(runCli(['results', 'show', store, entries[0].path], { env }).status, 3);
  assert.equal(runCli(['results', 'list', store], { env }).status, 2);
  assert.equal(runCli(['eval', '--force'], { env }).status, 2);
});
