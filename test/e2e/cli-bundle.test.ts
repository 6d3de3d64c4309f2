/**
 * The CLI users run (bin/coreb.js) is the compiled modules bundled into dist/cli.mjs. The bundle and
 * the separate modules must be the same program: the same output for the same command, the shipped
 * files (the sample release, prompts) and the worker scripts found from the bundle's place.
 * `coreb metrics` runs its own bundle (dist/cli-metrics.mjs): the same program for that command.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath } from '../support/cli.js';
import { projectRoot } from '../support/shared.js';

const modules = join(projectRoot, 'dist', 'src', 'cli', 'main.js');

function run(entry: string, args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [entry, ...args], { cwd, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('the bundle bin/coreb.js runs is at least as new as every compiled module', () => {
  assert.equal(cliPath, join(projectRoot, 'dist', 'cli.mjs'));
  assert.match(readFileSync(join(projectRoot, 'bin', 'coreb.js'), 'utf8'), /'dist', 'cli\.mjs'/);
  assert.ok(statSync(cliPath).mtimeMs >= statSync(join(projectRoot, 'dist', 'src', 'core', 'errors.js')).mtimeMs);
});

test('bundled and separate modules print the same (help, version, metrics); the bundle finds the sample from another folder', () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'coreb-bundle-'));
  const qrels = join(projectRoot, 'data', 'examples', 'qrels.txt');
  const runFile = join(projectRoot, 'data', 'examples', 'run.txt');
  for (const args of [['--version'], ['eval', '--help'], ['metrics', '-q', '-m', 'all_trec', '--qrels', qrels, '--run', runFile]]) {
    const a = run(cliPath, args, elsewhere);
    const b = run(modules, args, elsewhere);
    assert.equal(a.status, 0, a.stderr);
    assert.deepEqual(a, b, args.join(' '));
  }
  // the sample release is found from the bundle's own place, whatever the working folder
  const a = run(cliPath, ['eval', '--tasks', 'c2c', '--format', 'json', '--no-per-query', '--quiet'], elsewhere);
  assert.equal(a.status, 0, a.stderr);
  assert.match(a.stdout, /coreb_mini_v1/);
});

test('coreb metrics runs its own small bundle: the same output, errors, exit statuses and SIGINT handling as the whole CLI', async () => {
  const lean = join(projectRoot, 'dist', 'cli-metrics.mjs');
  const bin = join(projectRoot, 'bin', 'coreb.js');
  assert.ok(statSync(lean).size < statSync(cliPath).size / 4, 'the metrics bundle holds the metrics command, not the whole CLI');
  assert.match(readFileSync(bin, 'utf8'), /'dist', 'cli-metrics\.mjs'/);
  const elsewhere = mkdtempSync(join(tmpdir(), 'coreb-bundle-'));
  const qrels = join(projectRoot, 'data', 'examples', 'qrels.txt');
  const runFile = join(projectRoot, 'data', 'examples', 'run.txt');
  for (const args of [
    ['metrics', '-q', '-m', 'all_trec', '--qrels', qrels, '--run', runFile],
    ['metrics', '--help'],
    ['metrics', '--qrels', qrels],
    ['metrics', '--qrels', join(elsewhere, 'absent.txt'), '--run', runFile],
    ['metrics', '-m', 'ndcg_cut.x', '--qrels', qrels, '--run', runFile],
  ]) {
    const a = run(lean, args, elsewhere);
    const b = run(cliPath, args, elsewhere);
    assert.ok(a.status === b.status && a.stdout === b.stdout && a.stderr === b.stderr, `${args.join(' ')}: ${a.stderr} / ${b.stderr}`);
    // bin/coreb.js may first compile a checkout whose sources are newer than its build stamp: those lines aside.
    const c = run(bin, args, elsewhere);
    c.stderr = c.stderr.replace(/^coreb: compil(ing the sources|ed in) .*\n/gm, '');
    assert.ok(c.status === b.status && c.stdout === b.stdout && c.stderr === b.stderr, `bin/coreb.js ${args.join(' ')}: ${c.stderr}`);
  }
  // SIGINT stops it with the interrupted status, even blocked opening a FIFO no program writes (a read
  // in libuv's thread pool that cannot see the abort: the command exits when the grace period ends).
  const fifo = join(elsewhere, 'run.fifo');
  spawnSync('mkfifo', [fifo]);
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [bin, 'metrics', '--qrels', qrels, '--run', fifo], { cwd: elsewhere, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  await new Promise((r) => setTimeout(r, 700));
  const t0 = performance.now();
  child.kill('SIGINT');
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  assert.ok(performance.now() - t0 < 2000, 'stopped within 2 s');
  // Ended by SIGINT's default action (a shell shows status 130, as for any program Ctrl-C stops).
  assert.deepEqual([code, signal], [null, 'SIGINT'], stderr);
  assert.match(stderr, /SIGINT received/);
  assert.match(stderr, /still running 1\.5 s after SIGINT/);
});
