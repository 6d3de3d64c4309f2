/**
 * The CLI users run (bin/coreb.js) is the compiled modules bundled into dist/cli.mjs. The bundle and
 * the separate modules must be the same program: the same output for the same command, the shipped
 * files (the sample release, prompts) and the worker scripts found from the bundle's place.
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
