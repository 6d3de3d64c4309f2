/**
 * What `coreb eval --out` costs over the same eval without it: the CLI as a user types it
 * (`coreb eval --data DIR [--retriever SPEC]`), then with `--out DIR` (gzip runs at the default run
 * depth, results.json, leaderboard.md), and with `--out DIR --run-depth all` (every retrieved
 * document, the behaviour before run files followed the measures' depth), alternating, each side's
 * whole-process CPU (user + system, from the kernel's children accounting) and wall time; medians.
 * The reference is the eval without `--out`; the target is at most 1.1x its CPU. Besides the ratio of
 * medians, each side's median paired ratio (its run over the reference run of the same round). Each run gets a
 * fresh cache dir with the release's statistics copied in (computed once per release and cached by
 * its hash, as a user's second run reads them; results.json records them, so only `--out` needs them).
 *
 * Usage: node dist/bench/eval-out.js [--data DIR] [--retriever bm25] [--repeat 5]
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBenchArgs } from './args.js';
import { childrenCpuSeconds, cpuDescription, median } from './support/process-tree.js';
import { spawnSync } from 'node:child_process';
import { corebCli } from './support/cli.js';

const args = readBenchArgs({
  script: 'eval-out',
  about: `\`coreb eval\` with --out (gzip runs at the default run depth; and with --run-depth all) against
the same eval without it: whole-process CPU and wall, medians, alternating. Target: --out at most
1.1x the CPU of the eval without it (v202602, BM25).`,
  options: [
    { name: 'data', value: 'DIR', help: 'the release (default ../shared/data/coreb/release_v2602, else the bundled sample)' },
    { name: 'retriever', value: 'SPEC', help: 'retriever spec (default bm25)' },
    { name: 'repeat', value: 'N', help: 'runs per side; medians printed (default 5)' },
  ],
});

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = corebCli;
const shared = join(root, '..', 'shared', 'data', 'coreb', 'release_v2602');
const data = args.get('data') ?? (existsSync(shared) ? shared : join(root, 'data', 'coreb-mini', 'release'));
const retriever = args.get('retriever') ?? 'bm25';
const repeat = Number(args.get('repeat') ?? 5);
const work = mkdtempSync(join(tmpdir(), 'coreb-eval-out-'));
const seedCache = join(work, 'seed-cache');

function run(extra: readonly string[]): { cpuS: number; wallS: number } {
  const cache = mkdtempSync(join(work, 'cache-'));
  if (existsSync(join(seedCache, 'datasets'))) cpSync(join(seedCache, 'datasets'), join(cache, 'datasets'), { recursive: true });
  const c0 = childrenCpuSeconds();
  const w0 = performance.now();
  const p = spawnSync(process.execPath, [cli, 'eval', '--data', data, '--retriever', retriever, '--quiet', ...extra], {
    encoding: 'utf8',
    env: { ...process.env, COREB_CACHE_DIR: cache },
    maxBuffer: 1 << 26,
  });
  const wallS = (performance.now() - w0) / 1000;
  const cpuS = childrenCpuSeconds() - c0;
  if (p.status !== 0) throw new Error(`coreb eval ${extra.join(' ')} exited ${p.status}: ${p.stderr}`);
  rmSync(cache, { recursive: true, force: true });
  return { cpuS, wallS };
}

try {
  // the release's statistics (token lengths: written with results.json), computed once and given to every side
  spawnSync(process.execPath, [cli, 'eval', '--data', data, '--retriever', retriever, '--quiet', '--out', join(work, 'seed-out'), '--runs', 'none'], {
    env: { ...process.env, COREB_CACHE_DIR: seedCache },
    stdio: 'ignore',
  });
  const sides = {
    'no --out (reference)': () => [] as string[],
    '--out (default run depth)': (i: number) => ['--out', join(work, `out-${i}`)],
    '--out --run-depth all': (i: number) => ['--out', join(work, `all-${i}`), '--run-depth', 'all'],
  };
  const figures = new Map<string, Array<{ cpuS: number; wallS: number }>>(Object.keys(sides).map((k) => [k, []]));
  for (let i = 0; i < repeat; i++) {
    for (const [name, extra] of Object.entries(sides)) {
      figures.get(name)?.push(run(extra(i)));
      rmSync(join(work, `out-${i}`), { recursive: true, force: true });
      rmSync(join(work, `all-${i}`), { recursive: true, force: true });
    }
  }
  const ref = figures.get('no --out (reference)') ?? [];
  const refCpu = median(ref.map((f) => f.cpuS));
  const refWall = median(ref.map((f) => f.wallS));
  process.stdout.write(`coreb eval --retriever ${retriever} on ${data}\n${cpuDescription()}; medians of ${repeat}\n`);
  for (const [name, fs] of figures) {
    const cpu = median(fs.map((f) => f.cpuS));
    const wall = median(fs.map((f) => f.wallS));
    // Each round runs the sides back to back: the ratio within a round cancels the machine's drift
    // between rounds (its speed moves 10-20% within minutes here), so its median is the steadier figure.
    const paired = fs.map((f, i) => f.cpuS / ref[i].cpuS).sort((a, b) => a - b);
    const quartiles = `${paired[Math.floor((paired.length - 1) / 4)].toFixed(2)}-${paired[Math.ceil((3 * (paired.length - 1)) / 4)].toFixed(2)}`;
    process.stdout.write(
      `${name.padEnd(28)} CPU ${cpu.toFixed(2)} s (${(cpu / refCpu).toFixed(2)}x; paired ${median(paired).toFixed(2)}x, quartiles ${quartiles})  wall ${wall.toFixed(2)} s (${(wall / refWall).toFixed(2)}x)\n`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
