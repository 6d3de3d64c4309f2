/**
 * Write failures end with a clear error naming the file (exit 3), never a stack trace: exec's
 * --out on a full disk or naming a directory, providers embed's --out on a full disk.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, runCli, type CliResult } from '../support/cli.js';
import { mountFullDisk } from '../support/full-disk.js';
import { projectRoot } from '../support/shared.js';
import { tempDir, testCacheDir, toolchainSkipReason } from '../support/judge.js';
import { startLoopbackServer } from '../support/loopback-server.js';

function execFixtures(): { problems: string; candidates: string } {
  const dir = tempDir('coreb-e2e-write-');
  const problems = join(dir, 'problems.jsonl');
  const candidates = join(dir, 'candidates.jsonl');
  writeFileSync(
    problems,
    JSON.stringify({
      question_id: 'abc900_a',
      public_test_cases: JSON.stringify([{ input: '1 2\n', output: '3\n', testtype: 'stdin' }]),
      private_test_cases: '[]',
      metadata: '{}',
    }) + '\n',
  );
  writeFileSync(
    candidates,
    JSON.stringify({ id: 'p', problem_id: 'abc900_a', language: 'python', code: 'print(sum(map(int, input().split())))' }) + '\n',
  );
  return { problems, candidates };
}

/** Runs the CLI without blocking this process (the loopback server lives here). */
function runCliAsync(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const noStack = (r: CliResult): void => {
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(r.stderr, /internal error/);
};

test('exec --out naming a directory is a usage error, not a crash', () => {
  const f = execFixtures();
  const dir = tempDir('coreb-e2e-outdir-');
  const r = runCli(['exec', '--problems', f.problems, '--candidates', f.candidates, '--out', dir]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--out .* is a directory; --out names the JSONL file/);
  noStack(r);
});

test('exec on a full disk: exit 3 and a message naming the file', { skip: toolchainSkipReason(['python']) ?? false }, (t) => {
  // One free page: the lock file fits, the first verdict line does not.
  const disk = mountFullDisk(1);
  if (typeof disk === 'string') return t.skip(disk);
  try {
    const f = execFixtures();
    const out = join(disk.dir, 'verdicts.jsonl');
    const r = runCli(['exec', '--problems', f.problems, '--candidates', f.candidates, '--out', out], {
      env: { ...process.env, COREB_JUDGE_CACHE: testCacheDir },
    });
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, new RegExp(`${out.replace(/[.]/g, '\\.')}.*no space left on the device`));
    noStack(r);
  } finally {
    disk.release();
  }
});

test('providers embed on a full disk: exit 3 naming the file, no temp file left', async (t) => {
  const disk = mountFullDisk();
  if (typeof disk === 'string') return t.skip(disk);
  const server = await startLoopbackServer({ format: 'openai', dim: 256 });
  try {
    const dir = tempDir('coreb-e2e-embed-full-');
    const input = join(dir, 'texts.jsonl');
    writeFileSync(input, Array.from({ length: 50 }, (_, i) => JSON.stringify({ id: `t${i}`, text: `text ${i}` })).join('\n') + '\n');
    mkdirSync(join(disk.dir, 'sub'), { recursive: true });
    const out = join(disk.dir, 'sub', 'vectors.jsonl');
    const r = await runCliAsync([
      'providers',
      'embed',
      '--spec',
      `dense:openai:m?baseUrl=${server.baseUrl}`,
      '--input',
      input,
      '--out',
      out,
      '--no-cache',
    ]);
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, /vectors\.jsonl.*ENOSPC/);
    noStack(r);
    assert.deepEqual(readdirSync(join(disk.dir, 'sub')), [], 'no temp file left behind');
  } finally {
    await server.close();
    disk.release();
  }
});

test('providers embed with its cache on a full disk: exit 7 naming the cache file', async (t) => {
  const disk = mountFullDisk();
  if (typeof disk === 'string') return t.skip(disk);
  const server = await startLoopbackServer({ format: 'openai', dim: 8 });
  try {
    const dir = tempDir('coreb-e2e-cache-full-');
    const input = join(dir, 'texts.jsonl');
    writeFileSync(input, '{"id": "a", "text": "x"}\n');
    const r = await runCliAsync(
      ['providers', 'embed', '--spec', `dense:openai:m?baseUrl=${server.baseUrl}`, '--input', input, '--out', join(dir, 'v.jsonl')],
      {
        ...process.env,
        COREB_CACHE_DIR: join(disk.dir, 'cache'),
      },
    );
    assert.equal(r.status, 7, r.stderr);
    assert.match(r.stderr, /cache.*(namespaces\.jsonl|segment).*ENOSPC/);
    noStack(r);
  } finally {
    await server.close();
    disk.release();
  }
});

test('stdout on a full disk: metrics, eval, validate, leaderboard and results ls end with one line naming standard output, exit 3, no stack trace', async (t) => {
  const disk = mountFullDisk();
  if (typeof disk === 'string') return t.skip(disk);
  try {
    const root = projectRoot;
    const out = tempDir('coreb-e2e-stdout-');
    const evalOut = join(out, 'eval');
    const store = join(out, 'store');
    const e = runCli(['eval', '--quiet', '--tasks', 't2c', '--out', evalOut, '--results', store]);
    assert.equal(e.status, 0, e.stderr);
    const commands: Array<[string, string[]]> = [
      ['metrics', ['metrics', '--qrels', join(root, 'data', 'examples', 'qrels.txt'), '--run', join(root, 'data', 'examples', 'run.txt')]],
      ['eval', ['eval', '--quiet', '--tasks', 't2c']],
      ['validate', ['validate', join(root, 'data', 'coreb-mini', 'release')]],
      ['leaderboard', ['leaderboard', evalOut]],
      ['results ls', ['results', 'ls', store]],
    ];
    for (const [name, args] of commands) {
      const fd = openSync(join(disk.dir, `${name}.out`), 'w');
      const r = spawnSync(process.execPath, [cliPath, ...args], { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
      closeSync(fd);
      assert.equal(r.status, 3, `${name}: ${r.stderr}`);
      assert.match(r.stderr, /coreb: cannot write to standard output: no space left on the device.*\(ENOSPC\)/, name);
      assert.doesNotMatch(r.stderr, /\n\s+at /, `${name}: no stack trace`);
    }
  } finally {
    disk.release();
  }
});

test('cache stats --cache-dir naming a file is a usage error', () => {
  const file = join(tempDir('coreb-e2e-cache-'), 'not-a-dir');
  writeFileSync(file, 'x');
  const r = runCli(['cache', 'stats', '--cache-dir', file]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--cache-dir .*not-a-dir is a file, not a directory/);
});
