import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { isCorebError } from '../core/errors.js';
import { IdTable } from '../dataset/id-table.js';
import { parseTrecQrels, parseTrecRun } from '../dataset/trec.js';
import { evaluateColumns } from '../metrics/evaluate.js';
import { parseMeasures } from '../metrics/measures.js';
import { renderTrec } from '../metrics/trec-format.js';
import { evaluateTrecFiles } from './trec-metrics.js';

const root = mkdtempSync(join(tmpdir(), 'coreb-trec-metrics-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const specs = parseMeasures(['all_trec']);

/** A seeded run of `queries` x `depth` with tied scores (docid tie-break) and graded qrels. */
function fixture(queries: number, depth: number): { run: string[]; qrels: string } {
  const run: string[] = [];
  const qrels: string[] = [];
  let seed = 7;
  const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  for (let q = 0; q < queries; q++) {
    for (let i = 0; i < depth; i++) {
      const d = `d${(q * 31 + i * 17) % 997}`;
      run.push(`q${q} Q0 ${d} ${i + 1} ${(10 - Math.floor(i / 4) * 0.25).toFixed(2)} tag${q % 3}`);
      if (next() % 7 === 0) qrels.push(`q${q} 0 ${d} ${next() % 3}`);
    }
    qrels.push(`q${q} 0 unretrieved${q} 2`);
  }
  qrels.push('qonly 0 dx 1');
  return { run, qrels: qrels.join('\n') + '\n' };
}

function inMemory(runText: string, qrelsText: string, level = 1): string {
  const docs = new IdTable();
  const qrels = parseTrecQrels(qrelsText, { docs });
  const run = parseTrecRun(runText, { docs });
  return renderTrec(evaluateColumns(qrels, run, { specs, relevanceLevel: level, complete: true }), { perQuery: true, runId: run.runTag });
}

test('streamed (grouped, small chunks) and partitioned (shuffled, plain and gzip) equal the in-memory evaluation', async () => {
  const { run, qrels } = fixture(60, 40);
  const qrelsFile = join(root, 'qrels.txt');
  writeFileSync(qrelsFile, qrels);
  const grouped = run.join('\n') + '\n';
  const shuffledLines = [...run.slice(0, -1)].reverse();
  for (let i = 0; i < shuffledLines.length; i += 3)
    [shuffledLines[i], shuffledLines[(i * 7) % shuffledLines.length]] = [shuffledLines[(i * 7) % shuffledLines.length], shuffledLines[i]];
  const shuffled = [...shuffledLines, run[run.length - 1]].join('\n') + '\n';
  const expected = inMemory(grouped, qrels);
  assert.equal(inMemory(shuffled, qrels), expected, 'line order does not matter');
  const files: Array<[string, string | Buffer, 'grouped' | 'partitioned']> = [
    ['grouped.txt', grouped, 'grouped'],
    ['grouped.txt.gz', gzipSync(grouped), 'grouped'],
    ['shuffled.txt', shuffled, 'partitioned'],
    ['shuffled.txt.gz', gzipSync(shuffled), 'partitioned'],
  ];
  for (const [name, body, mode] of files) {
    writeFileSync(join(root, name), body);
    let told = 0;
    const got = await evaluateTrecFiles({
      qrels: qrelsFile,
      run: join(root, name),
      specs,
      complete: true,
      chunkBytes: 100,
      partitionBytes: 2000,
      tmpDir: root,
      onUngrouped: (parts) => {
        told = parts;
      },
    });
    assert.equal(got.mode, mode, name);
    if (mode === 'partitioned') assert.ok(told > 2 && got.partitions === told, `${name}: ${told} partitions`);
    assert.equal(renderTrec(got.result, { perQuery: true, runId: got.runTag }), expected, name);
  }
  assert.deepEqual(
    readdirSync(root).filter((f) => f.startsWith('coreb-metrics-')),
    [],
    'partitions removed',
  );
});

test('errors name the original file and line, grouped or partitioned, at any chunk', async () => {
  const { run, qrels } = fixture(30, 20);
  const qrelsFile = join(root, 'qrels-e.txt');
  writeFileSync(qrelsFile, qrels);
  const cases: Array<[string, (lines: string[]) => string[], (k: number) => RegExp]> = [
    ['short line', (l) => [...l.slice(0, 333), 'q16 Q0 dz 1', ...l.slice(333)], (k) => new RegExp(`:${334 + k}: expected 6 fields`)],
    [
      'NaN score',
      (l) => [...l.slice(0, 500), 'q25 Q0 dnan 1 nan t', ...l.slice(500)],
      (k) => new RegExp(`:${501 + k}: field \`score\`: score is NaN`),
    ],
    [
      'duplicate',
      (l) => [...l.slice(0, 450), l[441], ...l.slice(450)],
      (k) => new RegExp(`:${451 + k}: duplicate run line for query \`q22\` and document \`\\S+\` \\(first on line ${442 + k}\\)`),
    ],
  ];
  for (const [what, edit, message] of cases) {
    const lines = edit(run);
    for (const order of ['grouped', 'ungrouped'] as const) {
      const text = order === 'grouped' ? lines : ['q1 Q0 early 1 1 t', ...lines]; // q1 resumes at line 22: partitioned
      // the ungrouped copy has one line more in front
      const want = message(order === 'grouped' ? 0 : 1);
      const file = join(root, `bad-${what.replace(' ', '-')}-${order}.txt`);
      writeFileSync(file, text.join('\n') + '\n');
      await assert.rejects(
        evaluateTrecFiles({ qrels: qrelsFile, run: file, specs, chunkBytes: 64, partitionBytes: 1000, tmpDir: root }),
        (e) => isCorebError(e) && e.message.startsWith(file) && want.test(e.message),
        `${what} (${order})`,
      );
    }
  }
});

test('an empty run is refused like trec_eval does', async () => {
  writeFileSync(join(root, 'empty.txt'), '\n\n');
  writeFileSync(join(root, 'q1.txt'), 'q1 0 d1 1\n');
  await assert.rejects(
    evaluateTrecFiles({ qrels: join(root, 'q1.txt'), run: join(root, 'empty.txt'), specs }),
    (e) => isCorebError(e, 'VALIDATION') && /no result lines/.test(e.message),
  );
});

test('empty qrels are an error naming the qrels file, not a table of zeros', async () => {
  writeFileSync(join(root, 'empty-qrels.txt'), '\n');
  writeFileSync(join(root, 'run1.txt'), 'q1 Q0 d1 1 1.0 t\n');
  await assert.rejects(
    evaluateTrecFiles({ qrels: join(root, 'empty-qrels.txt'), run: join(root, 'run1.txt'), specs }),
    (e) => isCorebError(e, 'VALIDATION') && /no judgement lines/.test(e.message) && e.message.startsWith(join(root, 'empty-qrels.txt')),
  );
});
