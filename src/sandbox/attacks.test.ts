/**
 * The attack suite: hostile programs run in the real sandbox; each must be contained and reported with
 * the right verdict. Skips (naming the Debian packages) without bubblewrap/toolchains unless
 * COREB_REQUIRE_TOOLCHAINS=1.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExecLanguage, ProgramResult, TestCase } from '../core/execution.js';
import { projectRoot } from '../../test/support/shared.js';
import { createTestJudge, tempDir, testCacheDir, toolchainSkipReason } from '../../test/support/judge.js';
import type { JudgeBackend } from './backend.js';
import { createLocalJudge } from './local-judge.js';

const skip = toolchainSkipReason(['python', 'cpp']);
const made =
  skip === undefined
    ? await createTestJudge({ timeLimitMs: 1000, wallTimeFactor: 1, jobs: 2, limits: { python: { addressSpaceMb: 384, memoryLimitMb: 256 } } })
    : skip;
const judge: JudgeBackend | undefined = typeof made === 'string' ? undefined : made;
const skipReason = typeof made === 'string' ? made : false;
/**
 * The memory attacks get their own judge whose time limits are far out of the way (10 s CPU, 31 s wall
 * clock), so that a loaded machine cannot turn a memory verdict into `time_limit`: the allocations
 * below fail within a few hundred ms of CPU. Python's address space is kept small (192 MiB) so the
 * gradual hog touches little memory before it hits the limit.
 */
const memoryJudge: JudgeBackend | undefined =
  judge === undefined
    ? undefined
    : await createLocalJudge({
        cacheDir: testCacheDir,
        timeLimitMs: 10_000,
        wallTimeFactor: 3,
        jobs: 2,
        limits: { python: { addressSpaceMb: 192, memoryLimitMb: 128 } },
      });

let counter = 0;
function run(code: string, input = '', outputs: string[] = ['ok'], language: ExecLanguage = 'python', on = judge): Promise<ProgramResult> {
  const tests: TestCase[] = [{ kind: 'stdin', input, outputs }];
  return on!.judge({ id: `attack-${++counter}`, problemId: 'attack', language, code }, tests);
}

/**
 * A Python probe: after `setup`, `body` appends to `res` each thing it managed to do; the program
 * prints `ok` when it managed nothing (the default expected output of {@link run}).
 */
function probe(setup: string[], body: string[]): string {
  return [...setup, 'res = []', ...body, 'print(" ".join(res) or "ok")'].join('\n');
}

function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'latin1').includes(marker)) pids.push(Number(d));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

test('fork bomb is contained: time_limit, and nothing survives the sandbox', { skip: skipReason }, async () => {
  const marker = `coreb-forkbomb-${process.pid}`;
  const r = await run(
    `import os, time\nos.execv('/usr/bin/python3', ['python3', '-c', '''\nimport os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n''', '${marker}'])`,
  );
  assert.equal(r.verdict, 'time_limit');
  // The kernel tears the sandbox's pid namespace down asynchronously: on a loaded machine hundreds of
  // killed processes take a moment to go. Survivors are ones still there after 10 s.
  let left = processesWith(marker);
  for (const t0 = performance.now(); left.length > 0 && performance.now() - t0 < 10_000; left = processesWith(marker)) {
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.deepEqual(left, [], 'fork-bomb processes left running');
});

test('CPU loop is stopped with time_limit', { skip: skipReason }, async () => {
  const r = await run('while True:\n    pass\n');
  assert.equal(r.verdict, 'time_limit');
  assert.ok(r.tests[0].runMs < 5000, `ran ${r.tests[0].runMs} ms`);
});

test('sleeping forever is killed by the wall clock: time_limit', { skip: skipReason }, async () => {
  const t0 = performance.now();
  const r = await run('import time\ntime.sleep(10**6)\n');
  assert.equal(r.verdict, 'time_limit');
  assert.ok(performance.now() - t0 < 6000);
});

test('memory hogs get memory_limit (Python and C++)', { skip: skipReason }, async () => {
  const [py, gradual, cpp] = await Promise.all([
    run('x = bytearray(3 * 1024**3)\nprint("ok")\n', '', ['ok'], 'python', memoryJudge),
    run('a = []\nwhile True:\n    a.append(b"x" * 10**7)\n', '', ['ok'], 'python', memoryJudge),
    run('int main(){ std::vector<char> v((size_t)3 << 30, 1); printf("%d\\n", v[12345]); }', '', ['ok'], 'cpp', memoryJudge),
  ]);
  for (const [name, r] of [
    ['python one block', py],
    ['python gradual', gradual],
    ['c++', cpp],
  ] as const) {
    assert.equal(r.verdict, 'memory_limit', `${name}: ${JSON.stringify(r.tests[0])}`);
  }
});

test('disk fill with many files stops at the work dir size: runtime_error, host untouched', { skip: skipReason }, async () => {
  const r = await run('import os\nfor i in range(100000):\n    with open(f"f{i}", "wb") as f:\n        f.write(b"x" * 1024 * 1024)\n');
  assert.equal(r.verdict, 'runtime_error');
  assert.match(r.tests[0].detail ?? '', /No space left|OSError|File too large/);
  const tmpR = await run('with open("/tmp/big", "wb") as f:\n    f.write(b"x" * 100 * 1024 * 1024)\n');
  assert.notEqual(tmpR.verdict, 'accepted');
});

test('output flood is cut off with output_limit', { skip: skipReason }, async () => {
  const r = await run('import sys\nwhile True:\n    sys.stdout.write("x" * 65536)\n');
  assert.equal(r.verdict, 'output_limit');
});

test('no network: the host loopback and the outside are unreachable', { skip: skipReason }, async () => {
  let connections = 0;
  const server = createServer((s) => {
    connections++;
    s.end('secret\n');
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as { port: number }).port;
  try {
    const code = [
      'import socket',
      'res = []',
      `for host, port in [("127.0.0.1", ${port}), ("1.1.1.1", 53), ("8.8.8.8", 443)]:`,
      '    try:',
      '        socket.create_connection((host, port), timeout=2).close()',
      '        res.append("open")',
      '    except OSError:',
      '        res.append("blocked")',
      'try:',
      '    socket.getaddrinfo("example.com", 80)',
      '    res.append("dns")',
      'except OSError:',
      '    res.append("nodns")',
      'print(" ".join(res))',
    ].join('\n');
    const r = await run(code, '', ['blocked blocked blocked nodns']);
    assert.equal(r.verdict, 'accepted', JSON.stringify(r.tests[0]));
    assert.equal(connections, 0);
  } finally {
    server.close();
  }
});

test('writes outside the work dir fail and leave the host untouched', { skip: skipReason }, async () => {
  const hostDir = tempDir('coreb-attack-w-');
  const targets = [
    '/usr/coreb-evil',
    '/etc/coreb-evil',
    '/coreb-evil',
    '/prog/main.py',
    '/prog/evil',
    `${hostDir}/evil`,
    '/proc/sys/kernel/hostname',
  ];
  const code = probe(
    [],
    [
      `for p in ${JSON.stringify(targets)}:`,
      '    try:',
      '        with open(p, "w") as f:',
      '            f.write("x")',
      '        res.append("wrote " + p)',
      '    except OSError:',
      '        pass',
    ],
  );
  const r = await run(code);
  assert.equal(r.verdict, 'accepted', JSON.stringify(r.tests[0]));
  assert.equal(existsSync(join(hostDir, 'evil')), false);
  assert.equal(existsSync('/usr/coreb-evil'), false);
});

test('host files are unreadable: /root, /etc/shadow, the project dir, other temp files', { skip: skipReason }, async () => {
  const secretDir = tempDir('coreb-attack-r-');
  const secret = join(secretDir, 'secret.txt');
  writeFileSync(secret, 'TOP-SECRET');
  const paths = ['/root', '/etc/shadow', '/etc/passwd', join(projectRoot, 'package.json'), projectRoot, secret, '/home'];
  const code = probe(
    ['import os'],
    [
      `for p in ${JSON.stringify(paths)}:`,
      '    try:',
      '        if os.path.isdir(p):',
      '            os.listdir(p)',
      '        else:',
      '            open(p).read()',
      '        res.append("read " + p)',
      '    except OSError:',
      '        pass',
    ],
  );
  const r = await run(code);
  assert.equal(r.verdict, 'accepted', JSON.stringify(r.tests[0]));
});

test('writes to /dev fail (read-only /dev)', { skip: skipReason }, async () => {
  const code = probe(
    ['import os'],
    [
      'for p in ["/dev/coreb-evil", "/dev/sda", "/dev/mem"]:',
      '    try:',
      '        with open(p, "wb") as f:',
      '            f.write(b"x")',
      '        res.append("wrote " + p)',
      '    except OSError:',
      '        pass',
      'open("/dev/null", "w").write("fine")',
    ],
  );
  const r = await run(code);
  assert.equal(r.verdict, 'accepted', JSON.stringify(r.tests[0]));
});

test('nested user namespaces and privilege are refused', { skip: skipReason }, async () => {
  const code = probe(
    ['import ctypes, os', 'libc = ctypes.CDLL(None, use_errno=True)', 'CLONE_NEWUSER = 0x10000000', 'CLONE_NEWNET = 0x40000000'],
    [
      'if libc.unshare(CLONE_NEWUSER) == 0: res.append("userns")',
      'if libc.unshare(CLONE_NEWNET) == 0: res.append("netns")',
      'if os.getuid() == 0: res.append("root")',
      'try:',
      '    os.setuid(0)',
      '    res.append("setuid")',
      'except OSError:',
      '    pass',
    ],
  );
  const r = await run(code);
  assert.equal(r.verdict, 'accepted', JSON.stringify(r.tests[0]));
});

test('killing the judge process mid-run leaves nothing running', { skip: skipReason }, async () => {
  const marker = `9${process.pid}${Date.now() % 100000}`;
  const dir = tempDir('coreb-attack-k-');
  const script = join(dir, 'judge.mjs');
  const sandboxModule = join(projectRoot, 'dist', 'src', 'sandbox', 'index.js');
  writeFileSync(
    script,
    `import { createLocalJudge } from ${JSON.stringify(sandboxModule)};\n` +
      `const j = await createLocalJudge({ cacheDir: ${JSON.stringify(testCacheDir)}, timeLimitMs: 60000 });\n` +
      `const code = "import os\\nos.execv('/usr/bin/sleep', ['sleep', '${marker}'])\\n";\n` +
      `j.judge({ id: 'k', problemId: 'k', language: 'python', code }, [{ kind: 'stdin', input: '', outputs: [''] }]);\n` +
      `setInterval(() => {}, 1000);\n`,
  );
  const child = spawn(process.execPath, [script], { stdio: 'ignore' });
  const deadline = Date.now() + 15000;
  while (processesWith(marker).length === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
  assert.ok(processesWith(marker).length > 0, 'the sandboxed program never started');
  child.kill('SIGKILL');
  const gone = Date.now() + 5000;
  while (processesWith(marker).length > 0 && Date.now() < gone) await new Promise((res) => setTimeout(res, 100));
  assert.deepEqual(processesWith(marker), [], 'sandboxed processes survived the judge');
  const ps = spawnSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  assert.ok(!(ps.stdout ?? '').includes(marker));
});

test('the compiler is sandboxed too: #include of host files fails to compile', { skip: skipReason }, async () => {
  const secretDir = tempDir('coreb-attack-inc-');
  const secret = join(secretDir, 'secret.h');
  writeFileSync(secret, 'int leaked = 42;\n');
  for (const path of ['/etc/shadow', join(projectRoot, 'package.json'), secret]) {
    const r = await run(`#include "${path}"\nint main() { return 0; }\n`, '', [''], 'cpp');
    assert.equal(r.verdict, 'compile_error', path);
    assert.match(r.compileOutput ?? '', /No such file or directory/, path);
  }
});

test('ptrace of the harness and of the sandbox pid 1 fails, and so do their /proc memory and process_vm_readv', { skip: skipReason }, async () => {
  // Each attempt that works is reported; the harness must finish the run and report it.
  const code = `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
got = []
for name, pid in (("parent", os.getppid()), ("pid1", 1)):
    if libc.ptrace(16, pid, None, None) == 0:
        got.append("attached " + name)
    if libc.ptrace(0x4206, pid, None, None) == 0:
        got.append("seized " + name)
    try:
        with open("/proc/%d/mem" % pid, "rb") as f:
            f.read(1)
        got.append("read mem of " + name)
    except OSError:
        pass
class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
buf = ctypes.create_string_buffer(8)
local = IoVec(ctypes.cast(buf, ctypes.c_void_p), 8)
remote = IoVec(0x400000, 8)
if libc.process_vm_readv(os.getppid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) >= 0 or ctypes.get_errno() != 1:
    got.append("process_vm_readv errno %d" % ctypes.get_errno())
if libc.ptrace(0, 0, None, None) == 0 or ctypes.get_errno() != 1:
    got.append("PTRACE_TRACEME allowed (errno %d)" % ctypes.get_errno())
print(" ".join(got) or "ok")
`;
  const r = await run(code);
  assert.equal(r.verdict, 'accepted', `${JSON.stringify(r.tests[0])}`);
  // The harness reported real figures: it was never stopped.
  assert.ok(r.tests[0].cpuMs >= 0 && r.tests[0].memoryKb > 0, JSON.stringify(r.tests[0]));
});
