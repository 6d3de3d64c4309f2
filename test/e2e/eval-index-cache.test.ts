/**
 * `coreb eval --index-cache DIR`: the first run builds and stores the BM25 indexes, the second reads
 * them and prints the same leaderboard; a corrupt stored index is rebuilt with a warning; Ctrl-C
 * during a large build stops the command at once and leaves nothing in the cache.
 */
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, runCli } from '../support/cli.js';

/** The leaderboard without its timing column. */
const board = (stdout: string): string => stdout.replace(/\s+[\d.]+s$/gm, '');

test('coreb eval --index-cache stores BM25 indexes, reuses them, and rebuilds a corrupt one with a warning', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'coreb-index-cache-'));
  try {
    const first = runCli(['eval', '--index-cache', 'idx'], { cwd });
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /bm25: index of \d+ documents saved to .*bm25-index-v1/);
    const dir = join(cwd, 'idx', 'bm25-index-v1');
    const files = readdirSync(dir);
    assert.equal(files.length, 2, 'one index per corpus (code, text)');
    assert.ok(files.every((f) => /^[0-9a-f]{64}\.bin$/.test(f)));

    const second = runCli(['eval', '--index-cache', 'idx'], { cwd });
    assert.equal(second.status, 0, second.stderr);
    assert.equal((second.stderr.match(/bm25: index of \d+ documents read from/g) ?? []).length, 2, second.stderr);
    assert.doesNotMatch(second.stderr, /saved to/);
    assert.equal(board(second.stdout), board(first.stdout));

    const victim = join(dir, files[0]);
    const bytes = readFileSync(victim);
    writeFileSync(victim, bytes.subarray(0, bytes.length >> 1));
    const third = runCli(['eval', '--index-cache', 'idx'], { cwd });
    assert.equal(third.status, 0, third.stderr);
    assert.match(third.stderr, new RegExp(`warning: bm25: .*${files[0]}: stored BM25 index: .*truncated.*; rebuilding the index`));
    assert.equal(board(third.stdout), board(first.stdout));
    assert.equal(readFileSync(victim).length, bytes.length, 'the rebuilt index replaced the truncated file');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

/**
 * A BEIR directory of `docs` documents of 80 seeded random words (over 30,000) each, and 20 queries:
 * large enough that indexing it takes well over the time a signal needs to stop it.
 */
function writeLargeBeir(dir: string, docs: number): void {
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  let seed = 2026;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = Array.from({ length: 30000 }, (_, i) => `w${i.toString(36)}Part${(i * 7) % 97}`);
  const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() * rand() * words.length)]).join(' ');
  const lines: string[] = [];
  for (let i = 0; i < docs; i++) lines.push(JSON.stringify({ _id: `d${i}`, text: text(80) }));
  writeFileSync(join(dir, 'corpus.jsonl'), `${lines.join('\n')}\n`);
  const queries = Array.from({ length: 20 }, (_, i) => JSON.stringify({ _id: `q${i}`, text: text(8) }));
  writeFileSync(join(dir, 'queries.jsonl'), `${queries.join('\n')}\n`);
  writeFileSync(join(dir, 'qrels', 'test.tsv'), `query-id\tcorpus-id\tscore\n${queries.map((_, i) => `q${i}\td${i * 11}\t1`).join('\n')}\n`);
}

test('Ctrl-C during an --index-cache build stops coreb eval at once: exit 130, no index file, no temporary file, no results', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'coreb-index-cache-sigint-'));
  try {
    const docs = 120000;
    writeLargeBeir(join(cwd, 'data'), docs);
    const child = spawn(process.execPath, [cliPath, 'eval', '--data', 'data', '--index-cache', 'idx', '--out', 'out'], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let sentAt = 0;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      // Non-interactive progress prints "<step>: N to do" as a step starts: interrupt the build a moment in.
      if (sentAt === 0 && /bm25 index: \d+ to do/.test(stderr)) {
        sentAt = -1;
        setTimeout(() => {
          sentAt = performance.now();
          child.kill('SIGINT');
        }, 150);
      }
    });
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const stopMs = performance.now() - sentAt;
    assert.ok(sentAt > 0, `never saw the build start: ${stderr}`);
    assert.equal(status, 130, stderr);
    const stopped = /bm25 index of (\d+) documents stopped after (\d+): interrupted by SIGINT/.exec(stderr);
    assert.ok(stopped !== null && Number(stopped[2]) < docs, `the build was cut short: ${stderr}`);
    // The one-step build went on to the end and saved the index; the stepwise one stops within a step (measured 0.1 s).
    assert.ok(stopMs < 2000, `stopped ${stopMs.toFixed(0)} ms after SIGINT`);
    const left = existsSync(join(cwd, 'idx')) ? readdirSync(join(cwd, 'idx'), { recursive: true }).map(String) : [];
    assert.deepEqual(
      left.filter((f) => f.endsWith('.bin') || f.endsWith('.tmp')),
      [],
      'neither an index nor a temporary file in the cache',
    );
    assert.equal(existsSync(join(cwd, 'out', 'results.json')), false);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
