/**
 * Limits over the whole process tree, in the real sandbox: orphaned CPU workers and orphaned memory
 * holders (Python and C++) and Java off-heap memory must get `time_limit` / `memory_limit` under the
 * machine's mechanism (cgroup v2, cgroup v1 or /proc polling) and under /proc polling forced; legitimate
 * 4-thread programs pass; a program that kills its harness gets `runtime_error`; compiles have a memory
 * cap; the Go build cache is capped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecLanguage, ProgramResult, TestCase } from '../core/execution.js';
import { createTestJudge, tempDir, toolchainSkipReason } from '../../test/support/judge.js';
import type { JudgeBackend } from './backend.js';
import { createLocalJudge, type LocalJudgeOptions } from './local-judge.js';
import { detectTreeAccounting } from './process-tree.js';

const skip = toolchainSkipReason(['python', 'cpp', 'java', 'go']);

/** Time limits out of the way of a loaded machine: only the tree's CPU total can stop these runs. */
const ATTACK_LIMITS: LocalJudgeOptions = { timeLimitMs: 2000, wallTimeFactor: 15, jobs: 2, memoryLimitMb: 256 };

async function judgeWith(options: LocalJudgeOptions): Promise<JudgeBackend | string> {
  return skip ?? (await createTestJudge(options));
}

let n = 0;
async function run(judge: JudgeBackend, language: ExecLanguage, code: string, outputs = ['ok']): Promise<ProgramResult> {
  const tests: TestCase[] = [{ kind: 'stdin', input: '', outputs }];
  return judge.judge({ id: `tree-${++n}`, problemId: 'tree', language, code }, tests);
}

/**
 * Four double-forked workers burn 1.2 s of CPU each (4.8 s in all, each under the per-process limit);
 * the main program waits for them through a pipe they hold open, then says ok.
 */
const PY_ORPHAN_CPU = `import os, time
r, w = os.pipe()
for i in range(4):
    if os.fork() == 0:
        if os.fork() == 0:
            os.close(r)
            t = time.process_time()
            while time.process_time() - t < 1.2:
                pass
        os._exit(0)
os.close(w)
os.read(r, 1)
print("ok")
`;

const CPP_ORPHAN_CPU = `#include <cstdio>
#include <ctime>
#include <unistd.h>
int main() {
  int fd[2];
  if (pipe(fd) != 0) return 1;
  for (int i = 0; i < 4; i++) {
    if (fork() == 0) {
      if (fork() == 0) {
        close(fd[0]);
        clock_t t = clock();
        volatile unsigned long x = 0;
        while (clock() - t < 1.2 * CLOCKS_PER_SEC) x++;
      }
      _exit(0);
    }
  }
  close(fd[1]);
  char c;
  read(fd[0], &c, 1);
  printf("ok\\n");
}
`;

/**
 * Ten double-forked holders of 200 MiB each (2 GiB in all, each under the per-process limit). Each
 * reports on pipe A once its memory is touched and then holds it until the main program closes pipe
 * B; the main program waits for all ten reports (or for A to close when they are killed) before it
 * says ok. All ten hold their memory at once whatever the machine's load, so the tree passes its
 * 256 MiB limit in every run (a program that slept a fixed time instead could end first on a busy
 * machine and be judged, rightly, on the little memory it had reached).
 */
const PY_ORPHAN_MEMORY = `import os
a_r, a_w = os.pipe()
b_r, b_w = os.pipe()
for i in range(10):
    if os.fork() == 0:
        if os.fork() == 0:
            os.close(a_r)
            os.close(b_w)
            b = bytearray(200 * 1024 * 1024)
            for j in range(0, len(b), 4096):
                b[j] = 1
            os.write(a_w, b"x")
            os.read(b_r, 1)
        os._exit(0)
os.close(a_w)
os.close(b_r)
got = 0
while got < 10:
    c = os.read(a_r, 10)
    if not c:
        break
    got += len(c)
os.close(b_w)
print("ok")
`;

const CPP_ORPHAN_MEMORY = `#include <cstdio>
#include <unistd.h>
#include <cstdlib>
int main() {
  int a[2], b[2];
  if (pipe(a) != 0 || pipe(b) != 0) return 1;
  for (int i = 0; i < 10; i++) {
    if (fork() == 0) {
      if (fork() == 0) {
        close(a[0]);
        close(b[1]);
        volatile char *p = (volatile char *)malloc(200u << 20);
        for (size_t j = 0; j < (200u << 20); j += 4096) p[j] = 1;
        char x = 'x';
        if (write(a[1], &x, 1) != 1) _exit(1);
        if (read(b[0], &x, 1) < 0) _exit(1);
        if (p[4096] != 1) printf("lost\\n");
      }
      _exit(0);
    }
  }
  close(a[1]);
  close(b[0]);
  int got = 0;
  char buf[16];
  while (got < 10) {
    long n = read(a[0], buf, sizeof buf);
    if (n <= 0) break;
    got += (int)n;
  }
  close(b[1]);
  printf("ok\\n");
}
`;

/** Java off-heap: 64 MiB blocks from Unsafe, touched, 1 GiB in all (the heap stays tiny; within the JVM's address space). */
const JAVA_OFF_HEAP = `import java.lang.reflect.Field;
public class Main {
  public static void main(String[] args) throws Exception {
    Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
    f.setAccessible(true);
    sun.misc.Unsafe u = (sun.misc.Unsafe) f.get(null);
    for (int i = 0; i < 16; i++) {
      long a = u.allocateMemory(64L << 20);
      u.setMemory(a, 64L << 20, (byte) 1);
    }
    System.out.println("ok");
  }
}
`;

/** Four threads, each with its own 100 MiB buffer: legitimate, and over a 1 GiB address-space cap. */
const CPP_THREADS = `#include <cstdio>
#include <thread>
#include <vector>
int main() {
  std::vector<std::thread> ts;
  std::vector<long> sums(4);
  for (int i = 0; i < 4; i++) ts.emplace_back([i, &sums] { std::vector<char> v(100u << 20, 1); long s = 0; for (size_t j = 0; j < v.size(); j += 4096) s += v[j]; sums[i] = s; });
  for (auto &t : ts) t.join();
  printf("%s\\n", sums[0] == sums[3] ? "ok" : "bad");
}
`;

const PY_THREADS = `import threading
out = [0] * 4
def work(i):
    b = bytearray(100 * 1024 * 1024)
    out[i] = len(b)
ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
for t in ts: t.start()
for t in ts: t.join()
print("ok" if len(set(out)) == 1 else "bad")
`;

for (const mechanism of ['auto', 'proc'] as const) {
  test(`orphaned CPU workers get time_limit (Python, C++; tree limits ${mechanism})`, { skip: skip ?? false }, async () => {
    const judge = await judgeWith({ ...ATTACK_LIMITS, treeLimits: mechanism });
    assert.ok(typeof judge !== 'string', String(judge));
    const [py, cpp] = await Promise.all([run(judge, 'python', PY_ORPHAN_CPU), run(judge, 'cpp', CPP_ORPHAN_CPU)]);
    for (const r of [py, cpp]) {
      assert.equal(r.verdict, 'time_limit', `${r.language}: ${JSON.stringify(r.tests[0])}`);
      // What the tree used, not -1: its CPU time (past the limit) and its peak memory.
      assert.ok(r.tests[0].cpuMs >= ATTACK_LIMITS.timeLimitMs!, `${r.language}: cpu ${r.tests[0].cpuMs}`);
      assert.ok(r.tests[0].memoryKb > 0, `${r.language}: memory ${r.tests[0].memoryKb}`);
      assert.doesNotMatch(r.tests[0].detail ?? '', /-1/);
    }
    await judge.close();
  });

  test(`orphaned memory holders get memory_limit (Python, C++; tree limits ${mechanism})`, { skip: skip ?? false }, async () => {
    // CPU time out of the way, as for Java below: on a loaded machine touching the memory can pass 2 s of CPU.
    const judge = await judgeWith({ ...ATTACK_LIMITS, timeLimitMs: 20000, treeLimits: mechanism });
    assert.ok(typeof judge !== 'string', String(judge));
    const [py, cpp] = await Promise.all([run(judge, 'python', PY_ORPHAN_MEMORY), run(judge, 'cpp', CPP_ORPHAN_MEMORY)]);
    for (const r of [py, cpp]) {
      assert.equal(r.verdict, 'memory_limit', `${r.language}: ${JSON.stringify(r.tests[0])}`);
      assert.ok(r.tests[0].memoryKb > 0 && r.tests[0].cpuMs >= 0, `${r.language}: ${JSON.stringify(r.tests[0])}`);
      assert.doesNotMatch(r.tests[0].detail ?? '', /peak -1/);
    }
    await judge.close();
  });

  test(`Java off-heap memory gets memory_limit (tree limits ${mechanism})`, { skip: skip ?? false }, async () => {
    // CPU time out of the way: touching 640 MiB page by page takes over 2 s of CPU on a slow virtual machine.
    const judge = await judgeWith({ ...ATTACK_LIMITS, timeLimitMs: 20000, treeLimits: mechanism });
    assert.ok(typeof judge !== 'string', String(judge));
    const r = await run(judge, 'java', JAVA_OFF_HEAP);
    assert.equal(r.verdict, 'memory_limit', JSON.stringify(r.tests[0]) + (r.compileOutput ?? ''));
    await judge.close();
  });

  test(`4-thread C++ and Python programs pass under the default limits (tree limits ${mechanism})`, { skip: skip ?? false }, async () => {
    const judge = await judgeWith({ jobs: 2, wallTimeFactor: 8, treeLimits: mechanism });
    assert.ok(typeof judge !== 'string', String(judge));
    const [cpp, py] = await Promise.all([run(judge, 'cpp', CPP_THREADS), run(judge, 'python', PY_THREADS)]);
    for (const r of [cpp, py]) assert.equal(r.verdict, 'accepted', `${r.language}: ${JSON.stringify(r.tests[0])}`);
    await judge.close();
  });
}

test('the machine has a tree-accounting mechanism, and --explain-limits names it', () => {
  const t = detectTreeAccounting();
  assert.ok(t !== undefined);
  assert.match(t.explanation, /cgroup v2|cgroup v1|\/proc/);
  t.close();
});

test('a program that kills its harness gets runtime_error, not sandbox_error', { skip: skip ?? false }, async () => {
  const judge = await judgeWith({ jobs: 2 });
  assert.ok(typeof judge !== 'string', String(judge));
  const r = await run(judge, 'python', 'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint("ok")\n');
  assert.equal(r.verdict, 'runtime_error', JSON.stringify(r.tests[0]));
  assert.match(r.tests[0].detail ?? '', /killed the judge's harness/);
  await judge.close();
});

test('a compile over its memory cap is compile_error with the reason', { skip: skip ?? false }, async () => {
  const judge = await judgeWith({ jobs: 2, compileMemoryMb: 24 });
  assert.ok(typeof judge !== 'string', String(judge));
  const r = await run(judge, 'cpp', 'int main() { std::map<int, std::string> m; m[1] = "ok"; std::cout << m[1] << "\\n"; }\n');
  assert.equal(r.verdict, 'compile_error', JSON.stringify(r));
  assert.match(r.compileOutput ?? '', /memory cap of 24 MiB/);
  await judge.close();
});

test('the shared Go build cache is emptied past its cap', { skip: skip ?? false }, async () => {
  const cacheDir = tempDir('coreb-gocache-');
  chmodSync(cacheDir, 0o755);
  const junk = join(cacheDir, 'gocache', 'ff', 'junk-d');
  mkdirSync(join(cacheDir, 'gocache', 'ff'), { recursive: true });
  writeFileSync(junk, Buffer.alloc(3 * 1024 * 1024));
  const judge = await createLocalJudge({ cacheDir, jobs: 1, goCacheMaxMb: 2 });
  const r = await run(judge, 'go', 'package main\nimport "fmt"\nfunc main() { fmt.Println("ok") }\n');
  assert.equal(r.verdict, 'accepted', JSON.stringify(r));
  assert.equal(existsSync(junk), false, 'the over-cap cache was emptied');
  await judge.close();
});

/** Four threads spin for 1.5 s of wall-clock time each, then the program says ok. */
const CPP_BUSY_THREADS = `#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
int main() {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; i++) ts.emplace_back([end] { volatile unsigned long x = 0; while (std::chrono::steady_clock::now() < end) x++; });
  for (auto& t : ts) t.join();
  std::puts("ok");
}
`;

const machine = detectTreeAccounting();
const held = machine?.cpuHold ?? 'none';
machine?.close();

test('a run is held to one core where the cpu controller allows (cpu.max / cpu.cfs_quota_us), and --explain-limits says which', async (t) => {
  const acc = detectTreeAccounting();
  assert.ok(acc !== undefined);
  try {
    if (acc.cpuHold === 'none') {
      assert.match(acc.explanation, /may use every core|\/proc/);
      t.skip(`no writable cpu controller here (${acc.mechanism})`);
      return;
    }
    assert.match(
      acc.explanation,
      acc.cpuHold === 'cpu.max' ? /cpu\.max holds the tree to one core/ : /cpu\.cfs_quota_us = cpu\.cfs_period_us = 100000 holds/,
    );
    const g = acc.createGroup({ memoryMb: 64, pids: 8, cpuMs: 1000 });
    try {
      const dirs = g.joinFiles.map((f) => f.replace(/\/cgroup\.procs$/, ''));
      const file = acc.cpuHold === 'cpu.max' ? 'cpu.max' : 'cpu.cfs_quota_us';
      const quota = dirs.filter((d) => existsSync(join(d, file))).map((d) => readFileSync(join(d, file), 'utf8').trim());
      assert.ok(quota.includes(acc.cpuHold === 'cpu.max' ? '100000 100000' : '100000'), JSON.stringify({ dirs, quota }));
    } finally {
      g.close();
    }
  } finally {
    acc.close();
  }
});

test(`a 4-thread busy program's CPU time over wall time stays <= 1.2 when held (${held})`, {
  skip: skip ?? (held === 'none' ? 'no cpu hold on this machine' : false),
}, async () => {
  const judge = await judgeWith({ jobs: 1, timeLimitMs: 6000, wallTimeFactor: 4 });
  assert.ok(typeof judge !== 'string', String(judge));
  const r = await run(judge, 'cpp', CPP_BUSY_THREADS);
  await judge.close();
  const { cpuMs, runMs } = r.tests[0];
  assert.equal(r.verdict, 'accepted', JSON.stringify(r.tests[0]));
  assert.ok(cpuMs > 0 && runMs >= 1500, JSON.stringify(r.tests[0]));
  assert.ok(cpuMs / runMs <= 1.2, `CPU ${cpuMs} ms over wall ${runMs} ms = ${(cpuMs / runMs).toFixed(2)}`);
  // Without the hold (/proc accounting) the threads may use every core: printed, not asserted (a busy machine has none spare).
  const free = await judgeWith({ jobs: 1, timeLimitMs: 6000, wallTimeFactor: 4, treeLimits: 'proc' });
  assert.ok(typeof free !== 'string', String(free));
  const u = (await run(free, 'cpp', CPP_BUSY_THREADS)).tests[0];
  await free.close();
  console.log(`# cpu/wall held (${held}): ${(cpuMs / runMs).toFixed(2)}; not held (proc): ${(u.cpuMs / u.runMs).toFixed(2)}`);
});
