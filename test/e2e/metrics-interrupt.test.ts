/**
 * Ctrl-C / SIGTERM stop `coreb metrics` within a second while it reads a big run: exit code 130 and
 * a clear message, nothing written to stdout. The qrels come through a pipe so the test knows when
 * the CLI has moved on to the run.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliPath } from '../support/cli.js';

const root = mkdtempSync(join(tmpdir(), 'coreb-metrics-abort-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

// ~130 MB: 4,000 queries x 1,000 docs, several seconds of parsing on this machine.
const run = join(root, 'run.txt');
const block = Array.from({ length: 1000 }, (_, i) => ` Q0 doc${i * 7919} ${i + 1} ${(1000 - i) / 1000} run\n`);
const qids = (n: number): string[] => Array.from({ length: n }, (_, q) => `q${q}`);

/**
 * Writes every query of `ids` with the ranked `lines` to `file`, grouped by query or interleaved (rank
 * by rank: q0 d0, q1 d0, ...). A query (or a rank) at a time, each piece made by native joins: the big
 * run costs well under a second to write, not several seconds of string building in this process.
 */
function writeRun(file: string, ids: readonly string[], lines: readonly string[], order: 'grouped' | 'interleaved'): void {
  const fd = openSync(file, 'w');
  if (order === 'grouped') for (const q of ids) writeSync(fd, `${q}${lines.join(q)}`);
  else for (const line of lines) writeSync(fd, `${ids.join(line)}${line}`);
  closeSync(fd);
}
writeRun(run, qids(4000), block, 'grouped');

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  test(`${sig} stops coreb metrics reading a big run within a second (exit 130, no output)`, async () => {
    const qrels = join(root, `qrels-${sig}`);
    assert.equal(spawnSync('mkfifo', [qrels]).status, 0, 'mkfifo');
    const child = spawn(process.execPath, [cliPath, 'metrics', '--qrels', qrels, '--run', run], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    const exited = new Promise<{ code: number | null; at: number }>((done) => child.on('exit', (code) => done({ code, at: performance.now() })));
    // Opening the write end waits for the CLI to open the qrels; closing it sends the CLI on to the run.
    const writer = await open(qrels, 'w');
    await writer.write('q1 0 doc0 1\nq2 0 doc7919 1\n');
    await writer.close();
    await new Promise((r) => setTimeout(r, 150));
    const sent = performance.now();
    child.kill(sig);
    const { code, at } = await exited;
    assert.equal(code, 130, stderr);
    assert.match(stderr, new RegExp(`${sig} received`));
    assert.match(stderr, new RegExp(`interrupted by ${sig}`));
    assert.equal(stdout, '');
    // Well under a second on an idle machine (one 4 MiB chunk); the bound leaves room for a loaded
    // one. Work that ignored the signal would instead finish, print and exit 0 (asserted above).
    assert.ok(at - sent < 3000, `stopped ${(at - sent).toFixed(0)} ms after ${sig}`);
    process.stderr.write(`# ${sig}: stopped ${(at - sent).toFixed(0)} ms after the signal\n`);
  });
}

// The same lines interleaved (q0 d0, q1 d0, ..., q0 d1, ...): not grouped by query, so the CLI splits
// the run into temporary partitions before evaluating them.
const interleaved = join(root, 'interleaved.txt');
writeRun(interleaved, qids(4000), block, 'interleaved');

test('SIGINT stops coreb metrics -o FILE on an ungrouped run while it is partitioned: no output file, no temporary files', async () => {
  const tmp = join(root, 'tmp-sigint');
  mkdirSync(tmp);
  const qrels = join(root, 'qrels-ungrouped.txt');
  writeFileSync(qrels, 'q1 0 doc0 1\nq2 0 doc7919 1\n');
  const out = join(root, 'out.txt');
  const child = spawn(process.execPath, [cliPath, 'metrics', '-q', '--qrels', qrels, '--run', interleaved, '-o', out], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: tmp },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<{ code: number | null; at: number }>((done) => child.on('exit', (code) => done({ code, at: performance.now() })));
  // Wait until the CLI says it partitions, then a little more so the split is under way.
  while (!/not grouped by query/.test(stderr)) {
    await new Promise((r) => setTimeout(r, 20));
    if (child.exitCode !== null) break;
  }
  await new Promise((r) => setTimeout(r, 300));
  const sent = performance.now();
  child.kill('SIGINT');
  const { code, at } = await exited;
  assert.equal(code, 130, stderr);
  assert.equal(existsSync(out), false, 'no output file');
  assert.deepEqual(
    readdirSync(root).filter((f) => f.startsWith('out.txt')),
    [],
    'no temporary output file',
  );
  assert.deepEqual(readdirSync(tmp), [], 'partitions removed');
  assert.ok(at - sent < 3000, `stopped ${(at - sent).toFixed(0)} ms after SIGINT`);
  process.stderr.write(`# ungrouped, partitioning: stopped ${(at - sent).toFixed(0)} ms after the signal\n`);
});

test('coreb metrics -o FILE on the ungrouped run writes what the grouped run prints', () => {
  // Every run that is not grouped is partitioned: a run of 300 queries x 200 documents shows it as
  // well as the big one, at a tenth of the cost.
  const small = block.slice(0, 200);
  const smallRun = join(root, 'small-run.txt');
  const smallInterleaved = join(root, 'small-interleaved.txt');
  writeRun(smallRun, qids(300), small, 'grouped');
  writeRun(smallInterleaved, qids(300), small, 'interleaved');
  const qrels = join(root, 'qrels-same.txt');
  writeFileSync(qrels, 'q1 0 doc0 1\nq2 0 doc7919 1\nq299 0 doc15838 2\nq299 0 doc9999 1\n');
  const out = join(root, 'same.txt');
  const grouped = spawnSync(process.execPath, [cliPath, 'metrics', '-q', '-m', 'all_trec', '--qrels', qrels, '--run', smallRun], {
    encoding: 'utf8',
  });
  assert.equal(grouped.status, 0, grouped.stderr);
  const split = spawnSync(process.execPath, [cliPath, 'metrics', '-q', '-m', 'all_trec', '--qrels', qrels, '--run', smallInterleaved, '-o', out], {
    encoding: 'utf8',
  });
  assert.equal(split.status, 0, split.stderr);
  assert.equal(split.stdout, '');
  assert.match(split.stderr, /not grouped by query/);
  assert.equal(readFileSync(out, 'utf8'), grouped.stdout);
});
