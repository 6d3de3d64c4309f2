import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSlotPool } from '../core/bounded-work.js';
import { createBwrapArgs, createCommandLine, type ProcessSpec, type SandboxConfig } from './sandbox.js';

const config: SandboxConfig = { enabled: true, helperPath: '/cache/bin/coreb-run', bwrapPath: '/usr/bin/bwrap', dropPrivileges: true, uid: 65534 };
const spec: ProcessSpec = {
  argv: ['/usr/bin/python3', '/prog/main.py'],
  env: { PATH: '/usr/bin' },
  stdin: '',
  mounts: [{ src: '/host/build', dest: '/prog' }],
  limits: {
    wallMs: 1000,
    cpuS: 2,
    addressSpaceMb: 256,
    processes: 8,
    fileSizeMb: 4,
    openFiles: 32,
    stackMb: 16,
    workDirMb: 8,
    stdoutBytes: 100,
    stderrBytes: 100,
  },
};

test('bwrap isolation flags: no network, no nested userns, read-only root and /dev, sized work dir', () => {
  const a = createBwrapArgs(config, spec);
  for (const flag of ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--clearenv']) {
    assert.ok(a.includes(flag), flag);
  }
  const pairs = a.map((x, i) => `${x} ${a[i + 1]}`);
  assert.ok(pairs.includes('--remount-ro /'));
  assert.ok(pairs.includes('--remount-ro /dev'));
  assert.ok(a.join(' ').includes(`--size ${8 * 1024 * 1024} --tmpfs /box`));
  assert.ok(a.join(' ').includes('--ro-bind /host/build /prog'), 'program bound read-only');
  assert.ok(a.lastIndexOf('--remount-ro') > a.lastIndexOf('--ro-bind'), 'root made read-only after every mount');
  assert.ok(!a.some((x) => x === '--share-net'));
});

test('the command line runs the helper with the limits in bytes and the program after --', () => {
  const c = createCommandLine(config, spec);
  // the host-side helper reaps the sandbox (its CPU charged to the judge), then bwrap
  assert.deepEqual(c.slice(0, 4), ['/cache/bin/coreb-run', '--reap', '--', '/usr/bin/bwrap']);
  const h = c.lastIndexOf('/.coreb-run');
  assert.deepEqual(c.slice(h + 1, h + 11), [
    '2',
    String(256 * 1048576),
    '8',
    String(4 * 1048576),
    '32',
    String(16 * 1048576),
    '3',
    '-1',
    '--',
    '/usr/bin/python3',
  ]);
  const bare = createCommandLine({ ...config, enabled: false }, spec);
  assert.equal(bare[0], '/cache/bin/coreb-run');
  // a secret (a program test's proof file) is moved to its descriptor by the helper; it is in no argument
  const sealed = createCommandLine(config, { ...spec, secret: { text: 'the-secret', fd: 77, dir: '/tmp' } });
  assert.equal(sealed[sealed.lastIndexOf('/.coreb-run') + 8], '77');
  assert.ok(!sealed.some((a) => a.includes('the-secret')));
});

test('with cgroups to join, coreb-run --enter joins them, drops to the sandbox uid, then starts bwrap', () => {
  const group = {
    joinFiles: ['/cg/memory/r/cgroup.procs', '/cg/pids/r/cgroup.procs'],
    sample: () => ({ cpuMs: 0, peakKb: 0, memoryExceeded: false }),
    close() {},
  };
  const c = createCommandLine(config, { ...spec, tree: { group, cpuLimitMs: 1000, memoryLimitKb: 1024 } });
  assert.deepEqual(c.slice(0, 7), ['/cache/bin/coreb-run', '--enter', '65534', '2', '/cg/memory/r/cgroup.procs', '/cg/pids/r/cgroup.procs', '--']);
  assert.equal(c[7], '/usr/bin/bwrap');
  const polled = createCommandLine(config, { ...spec, tree: { group: { ...group, joinFiles: [] }, cpuLimitMs: 1000, memoryLimitKb: 1024 } });
  assert.deepEqual(polled.slice(0, 4), ['/cache/bin/coreb-run', '--reap', '--', '/usr/bin/bwrap'], '/proc polling needs no entering step');
});

test('the slot pool never runs more than its size at once', async () => {
  const pool = createSlotPool(3);
  let running = 0;
  let peak = 0;
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      pool.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, i % 3));
        running--;
      }),
    ),
  );
  assert.equal(peak, 3);
  assert.equal(createSlotPool(0).size, 1);
});
