/**
 * Sandboxed processes started by the process helper: the same results as started here, Ctrl-C
 * (abort) kills a hosted run, a helper that dies ends its runs as not started; a judge in a big
 * process starts its runs there and gets the same verdicts, and their CPU is charged to it once closed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { runHosted, stopProcessHost } from './process-host.js';
import { buildRunHelper } from './run-helper.js';
import { runProcess, type ProcessSpec, type SandboxConfig } from './sandbox.js';
import { testCacheDir, toolchainSkipReason } from '../../test/support/judge.js';

const limits: ProcessSpec['limits'] = {
  wallMs: 10000,
  cpuS: 5,
  addressSpaceMb: 1024,
  processes: 16,
  fileSizeMb: 4,
  openFiles: 64,
  stackMb: 8,
  workDirMb: 4,
  stdoutBytes: 1 << 20,
  stderrBytes: 1 << 16,
};

function bare(): SandboxConfig {
  return { enabled: false, helperPath: buildRunHelper(testCacheDir), bwrapPath: '', dropPrivileges: false, uid: process.getuid?.() ?? 0 };
}

test('a hosted run gives what the same run started here gives; abort kills it; a stopped helper ends its runs', async (t) => {
  t.after(() => stopProcessHost());
  const config = bare();
  const spec = {
    argv: ['/bin/sh', '-c', 'read x; echo "got $x"; echo oops >&2; exit 3'],
    env: { PATH: '/usr/bin:/bin' },
    stdin: 'abc\n',
    mounts: [],
    workDir: '/tmp',
    limits,
  };
  const here = await runProcess(config, spec);
  const there = await runHosted({ config, spec });
  for (const r of [here, there]) {
    assert.equal(r.exitCode, 3);
    assert.equal(r.stdout, 'got abc\n');
    assert.equal(r.stderr, 'oops\n');
  }
  const ac = new AbortController();
  const started = Date.now();
  const sleeping = runHosted({ config, spec: { ...spec, argv: ['/bin/sleep', '30'], stdin: '' } }, ac.signal);
  setTimeout(() => ac.abort(), 200);
  const killed = await sleeping;
  assert.ok(Date.now() - started < 5000, 'the aborted run ended at once');
  assert.notEqual(killed.exitCode, 0);
  const orphan = runHosted({ config, spec: { ...spec, argv: ['/bin/sleep', '30'], stdin: '' } });
  setTimeout(() => stopProcessHost(), 200);
  const lost = await orphan;
  assert.equal(lost.exitCode, null);
  assert.match(lost.stderr, /process helper stopped/);
  // the next run starts a new helper
  assert.equal((await runHosted({ config, spec })).stdout, 'got abc\n');
});

const skip = toolchainSkipReason(['python']);

test('a judge whose process is big starts its runs from the helper, with the same verdicts; closed, their CPU is charged to it', { skip }, () => {
  const script = `
    import { createLocalJudge } from ${JSON.stringify(new URL('./local-judge.js', import.meta.url).href)};
    import { readFileSync } from 'node:fs';
    const statText = () => readFileSync('/proc/self/stat', 'utf8');
    const run = async () => {
      const j = await createLocalJudge({ cacheDir: ${JSON.stringify(testCacheDir)} });
      const r = await j.judge({ id: 'a', problemId: 'p', language: 'python', code: 'print(int(input()) * 2)' },
        [{ kind: 'stdin', input: '2\\n', outputs: ['4'] }, { kind: 'stdin', input: '3\\n', outputs: ['7'] }]);
      const s = j.stats();
      await j.close();
      return { verdicts: r.tests.map((x) => x.verdict), hosted: s.hostedRuns ?? 0, runs: s.runs };
    };
    const small = await run();
    globalThis.ballast = Array.from({ length: 20 }, () => Buffer.alloc(10 << 20, 1)); // 200 MiB resident
    const big = await run();
    // a hosted run's CPU is charged to this process once the judge is closed (the helper reaped here)
    const childrenCpu = () => { const f = (statText()).split(') ')[1].split(' '); return (Number(f[13]) + Number(f[14])) / 100; };
    const before = childrenCpu();
    const j = await createLocalJudge({ cacheDir: ${JSON.stringify(testCacheDir)} });
    const burn = 'import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.6:\\n    pass\\nprint(1)\\n';
    const b = await j.judge({ id: 'b', problemId: 'p', language: 'python', code: burn }, [{ kind: 'stdin', input: '', outputs: ['1'] }]);
    const hostedBurn = j.stats().hostedRuns ?? 0;
    await j.close();
    const charged = childrenCpu() - before;
    process.stdout.write(JSON.stringify({ small, big, burn: { verdict: b.verdict, hosted: hostedBurn, charged } }));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  const { small, big, burn } = JSON.parse(r.stdout) as {
    small: { verdicts: string[]; hosted: number; runs: number };
    big: { verdicts: string[]; hosted: number; runs: number };
    burn: { verdict: string; hosted: number; charged: number };
  };
  assert.equal(burn.verdict, 'accepted');
  assert.equal(burn.hosted, 1);
  assert.ok(burn.charged >= 0.5, `children CPU grew by ${burn.charged} s over a hosted run of 0.6 s`);
  assert.deepEqual(small.verdicts, ['accepted', 'wrong_answer']);
  assert.deepEqual(big.verdicts, small.verdicts);
  assert.equal(small.hosted, 0);
  assert.equal(big.hosted, big.runs);
});
