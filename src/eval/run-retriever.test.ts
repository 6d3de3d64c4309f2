import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Query } from '../core/dataset.js';
import { CorebError, isCorebError } from '../core/errors.js';
import { hashFile } from '../dataset/dataset-identity.js';
import { loadTrecRunMap } from '../dataset/trec.js';
import { createRunRetriever, loadRunRankings, type RunSearchPlan } from './run-retriever.js';

const root = mkdtempSync(join(tmpdir(), 'coreb-run-retriever-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

/** A seeded shuffle of `a` in place. */
function shuffle<T>(a: T[], seed: number): T[] {
  let s = seed;
  for (let i = a.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * Lines of a run: `planned` queries p0.. and `others` queries u0.., `depth` docs each, in shuffled
 * order within a query, with float32 ties (scores differing only past float32) and exact ties
 * broken by docid; p3's anchor `a3` and its own id `p3` sit at the top of its list.
 */
function runLines(planned: number, others: number, depth: number): string[][] {
  const groups: string[][] = [];
  for (const [prefix, n] of [
    ['p', planned],
    ['u', others],
  ] as const) {
    for (let q = 0; q < n; q++) {
      const qid = `${prefix}${q}`;
      const lines: string[] = [];
      for (let i = 0; i < depth; i++) {
        const doc = qid === 'p3' && i === 0 ? 'a3' : qid === 'p3' && i === 1 ? 'p3' : `d${(q * 37 + i * 11) % 997}`;
        // Groups of four share one float32 score: two written with digits float32 drops, two exact.
        const score = (100 - Math.floor(i / 4)).toString() + (i % 4 === 1 ? '.0000001' : i % 4 === 2 ? '.00000002' : '');
        lines.push(`${qid} Q0 ${doc} ${i + 1} ${score} tag`);
      }
      groups.push(shuffle(lines, q + 7));
    }
  }
  return groups;
}

const queries = (ids: string[]): Query[] => ids.map((id) => ({ id, text: id }));

test('a run read for a plan keeps only the planned queries, each to depth + excluded docs, and ranks them as the whole run does', async () => {
  const file = join(root, 'planned.trec');
  writeFileSync(file, runLines(10, 200, 300).flat().join('\n') + '\n');
  const planned = new Map(Array.from({ length: 10 }, (_, q) => [`p${q}`, q === 3 ? 2 : 0]));
  planned.set('missing', 0);
  const plan: RunSearchPlan = { depth: 20, queries: planned };
  const rankings = await loadRunRankings(file, { plan });
  assert.deepEqual([...rankings.lists.keys()].sort(), [...planned.keys()].filter((q) => q !== 'missing').sort());
  assert.equal(rankings.kept, 10 * 20 + 2, 'depth 20 per planned query, 2 more for p3 (anchor and own id excluded)');
  assert.equal(rankings.documents, 210 * 300);

  const whole = createRunRetriever(file, await loadTrecRunMap(file), 'run:x', await hashFile(file));
  const streamed = createRunRetriever(file, rankings, 'run:x');
  assert.deepEqual(streamed.describe(), whole.describe());
  assert.deepEqual(streamed.describe(), { kind: 'run', file, sha256: await hashFile(file), queries: 210, documents: 63000 });

  const exclude = new Map([['p3', ['a3', 'p3']]]);
  const ids = [...planned.keys()];
  const want = await (await whole.index([])).search(queries(ids), 20, { exclude });
  const got = await (await streamed.index([])).search(queries(ids), 20, { exclude });
  assert.deepEqual(got, want);
  assert.equal(got.has('missing'), false, 'a query absent from the file has no list');
  assert.equal(got.get('p3')?.docIds.includes('a3'), false);
  assert.equal(got.get('p0')?.docIds.length, 20);

  // Beyond the plan: a refusal, never a silently shorter list.
  const index = await streamed.index([]);
  await assert.rejects(index.search(queries(['p0']), 21), (e) => isCorebError(e, 'INTERNAL') && /depth 21/.test(e.message));
  await assert.rejects(index.search(queries(['u5']), 5), (e) => isCorebError(e, 'INTERNAL') && /u5/.test(e.message));
});

test('an ungrouped run and its gzip give the same rankings and counts, and the sha256 of the bytes on disk', async () => {
  const groups = runLines(6, 30, 50);
  const grouped = join(root, 'grouped.trec');
  writeFileSync(grouped, groups.flat().join('\n') + '\n');
  const ungrouped = join(root, 'ungrouped.trec');
  writeFileSync(ungrouped, shuffle(groups.flat(), 11).join('\n') + '\n');
  const gz = join(root, 'ungrouped.trec.gz');
  writeFileSync(gz, gzipSync(Buffer.from(shuffle(groups.flat(), 11).join('\n') + '\n')));
  const plan: RunSearchPlan = { depth: 10, queries: new Map(Array.from({ length: 6 }, (_, q) => [`p${q}`, 0])) };
  const ids = [...plan.queries.keys()];
  const reference = await (await createRunRetriever(grouped, await loadTrecRunMap(grouped)).index([])).search(queries(ids), 10);
  for (const file of [grouped, ungrouped, gz]) {
    const told: number[] = [];
    const rankings = await loadRunRankings(file, { plan, chunkBytes: 4096, onUngrouped: (parts) => told.push(parts) });
    assert.equal(told.length, file === grouped ? 0 : 1, `${file}: partitioned only when ungrouped`);
    assert.equal(rankings.kept, 60);
    assert.equal(rankings.sha256, await hashFile(file));
    const r = createRunRetriever(file, rankings);
    assert.deepEqual(r.describe(), { kind: 'run', file, sha256: await hashFile(file), queries: 36, documents: 1800 });
    assert.deepEqual(await (await r.index([])).search(queries(ids), 10), reference, file);
  }
});

test('a malformed or duplicate line deep into a run is named by file and line, grouped or not, plain or gzip', async () => {
  const lines: string[] = [];
  for (let q = 0; q < 3000; q++) for (let i = 0; i < 100; i++) lines.push(`q${q} Q0 d${i} ${i + 1} ${100 - i} t`);
  const bad = [...lines];
  bad[250_000] = 'q2500 Q0 d0 1 100';
  const dup = [...lines];
  dup[280_010] = dup[280_003];
  const cases: Array<[string, string[], RegExp]> = [
    ['bad.trec', bad, /bad\.trec:250001: expected 6 fields/],
    ['dup.trec', dup, /dup\.trec:280011: duplicate run line for query `q2800` and document `d3` \(first on line 280004\)/],
  ];
  for (const [name, content, message] of cases) {
    const text = content.join('\n') + '\n';
    const plain = join(root, name);
    writeFileSync(plain, text);
    const gz = join(root, `${name}.gz`);
    writeFileSync(gz, gzipSync(Buffer.from(text)));
    for (const file of [plain, gz]) {
      await assert.rejects(
        loadRunRankings(file, { plan: { depth: 10, queries: new Map([['q0', 0]]) }, chunkBytes: 1 << 16 }),
        (e) => e instanceof CorebError && message.test(e.message.replace('.gz:', ':')),
      );
    }
  }
  // Ungrouped: the error found in a partition still names the original line.
  const moved = [...bad];
  moved.push(moved.splice(10, 1)[0]);
  const ungrouped = join(root, 'bad-ungrouped.trec');
  writeFileSync(ungrouped, moved.join('\n') + '\n');
  await assert.rejects(
    loadRunRankings(ungrouped, { chunkBytes: 1 << 16 }),
    (e) => isCorebError(e, 'PARSE') && /bad-ungrouped\.trec:250000:/.test(e.message),
  );
});

test('an aborted signal stops the read with its reason', async () => {
  const file = join(root, 'abort.trec');
  const lines: string[] = [];
  for (let q = 0; q < 2000; q++) for (let i = 0; i < 50; i++) lines.push(`q${q} Q0 d${i} ${i + 1} ${50 - i} t`);
  writeFileSync(file, lines.join('\n') + '\n');
  const controller = new AbortController();
  let ticks = 0;
  const progress = { start() {}, tick: () => ++ticks === 1 && controller.abort(new CorebError('INTERRUPTED', 'stop')), done() {} };
  await assert.rejects(loadRunRankings(file, { signal: controller.signal, progress, chunkBytes: 1 << 16 }), (e) => isCorebError(e, 'INTERRUPTED'));
  assert.ok(ticks >= 1);
});
