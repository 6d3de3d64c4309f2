/**
 * Ctrl-C / SIGTERM stop `coreb metrics` within a second while it reads a big run: exit code 130 and
 * a clear message, nothing written to stdout. The qrels come through a pipe so the test knows when
 * the CLI has moved on to the run.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
const parts: string[] = [];
for (let q = 0; q < 4000; q++) parts.push(block.map((l) => `q${q}${l}`).join(''));
writeFileSync(run, parts.join(''));

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
