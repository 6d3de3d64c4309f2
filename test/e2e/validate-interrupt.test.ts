/**
 * Ctrl-C / SIGTERM stop `coreb validate` on a BEIR directory: exit code 130, no report. The qrels
 * come through a pipe so the test knows the corpus and queries have been read and checked and the
 * CLI is still loading.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliPath } from '../support/cli.js';

const root = mkdtempSync(join(tmpdir(), 'coreb-validate-abort-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

const docs: string[] = [];
for (let i = 0; i < 50_000; i++) docs.push(JSON.stringify({ _id: `d${i}`, text: `def f${i}(x):\n    return x + ${i}` }));

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  test(`${sig} while coreb validate loads a BEIR directory exits 130 without a report`, async () => {
    const dir = join(root, sig);
    mkdirSync(join(dir, 'qrels'), { recursive: true });
    writeFileSync(join(dir, 'corpus.jsonl'), docs.join('\n') + '\n');
    writeFileSync(join(dir, 'queries.jsonl'), '{"_id": "q1", "text": "find f1"}\n');
    const qrels = join(dir, 'qrels', 'test.tsv');
    assert.equal(spawnSync('mkfifo', [qrels]).status, 0, 'mkfifo');
    const child = spawn(process.execPath, [cliPath, 'validate', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    const exited = new Promise<{ code: number | null; at: number }>((done) => child.on('exit', (code) => done({ code, at: performance.now() })));
    // Opening the write end waits for the CLI to open the qrels, after it has read and checked the corpus.
    const writer = await open(qrels, 'w');
    await writer.write('query-id\tcorpus-id\tscore\nq1\td1\t1\n');
    child.kill(sig);
    await new Promise((r) => setTimeout(r, 100));
    // The rest (the qrels checks, validate's own checks and report) comes after this; the signal must stop it.
    const sent = performance.now();
    await writer.close();
    const { code, at } = await exited;
    assert.equal(code, 130, `${stderr}\n${stdout.slice(0, 300)}`);
    assert.match(stderr, new RegExp(`interrupted by ${sig}`));
    assert.equal(stdout, '', 'no report');
    process.stderr.write(`# ${sig}: exited ${(at - sent).toFixed(0)} ms after the qrels were complete\n`);
  });
}
