/**
 * The live index of `coreb serve --repo`, run as a user runs it: a tree of N files (copies of this
 * project's own `src/`, or with --from-git of the trees of git repositories at HEAD, one folder per
 * copy, so the chunks are real code), served over HTTP. Prints the
 * first build's time, the peak memory of the server, the update latency of one file changed (the
 * time from the write to the first search that finds the new word: median and max of --edits edits,
 * each a different file), and the restart: time to load the saved index and answer.
 *
 * Usage: node dist/bench/live-index.js [--files 10000] [--edits 20] [--from-git REPO,REPO] [--dir DIR]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBenchArgs } from './args.js';
import { median } from './support/process-tree.js';
import { corebCli } from './support/cli.js';

const args = readBenchArgs({
  script: 'live-index',
  about: `\`coreb serve --repo TREE\` on a tree of N real code files: first build, peak memory, the latency of one changed
file (write -> first search that finds it) and the restart from the saved index.`,
  options: [
    { name: 'files', value: 'N', help: 'files in the tree (default 10000; copies of src/)' },
    { name: 'edits', value: 'N', help: 'single-file edits timed (default 20)' },
    { name: 'from-git', value: 'REPO,REPO', help: "copy these git repositories' trees at HEAD (git archive) instead of src/" },
    { name: 'dir', value: 'DIR', help: 'work folder (default: a temp dir, removed)' },
  ],
});
const FILES = Number(args.get('files') ?? 10000);
const EDITS = Number(args.get('edits') ?? 20);
const cli = corebCli;
const work = args.get('dir') ?? mkdtempSync(join(tmpdir(), 'coreb-live-bench-'));
const FROM_GIT = (args.get('from-git') ?? '').split(',').filter((r) => r !== '');
/** The files copied: src/, or the git repositories' trees extracted once under work/sources. */
const src = FROM_GIT.length === 0 ? fileURLToPath(new URL('../../src', import.meta.url)) : extractSources(FROM_GIT);

function extractSources(repos: readonly string[]): string {
  const dir = join(work, 'sources');
  rmSync(dir, { recursive: true, force: true });
  for (const [i, repo] of repos.entries()) {
    const to = join(
      dir,
      `${i}-${
        repo
          .split('/')
          .filter((x) => x !== '' && x !== 'repo' && x !== '.git')
          .pop() ?? 'repo'
      }`,
    );
    mkdirSync(to, { recursive: true });
    const gitDir = existsSync(join(repo, '.git')) ? join(repo, '.git') : repo;
    execFileSync('sh', ['-c', 'git --git-dir "$1" archive HEAD | tar -x -C "$2"', 'sh', gitDir, to], { stdio: 'inherit' });
  }
  return dir;
}
const tree = join(work, 'tree');
const state = join(work, 'state');

function listFiles(dir: string, out: string[] = [], rel = ''): string[] {
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const r = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) listFiles(dir, out, r);
    else out.push(r);
  }
  return out;
}

/** A tree of `n` files: copies of src/ under copy-K/ until there are n files (the last copy cut short). */
function makeTree(n: number): string[] {
  rmSync(tree, { recursive: true, force: true });
  const files = listFiles(src);
  const made: string[] = [];
  for (let k = 0; made.length < n; k++) {
    for (const f of files) {
      if (made.length >= n) break;
      const to = join(tree, `copy-${k}`, f);
      mkdirSync(join(to, '..'), { recursive: true });
      cpSync(join(src, f), to);
      made.push(`copy-${k}/${f}`);
    }
  }
  return made;
}

function start(): Promise<{ child: ChildProcess; port: number; t0: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, 'serve', '--repo', tree, '--state-dir', state, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, COREB_CACHE_DIR: join(work, 'cache') },
  });
  let err = '';
  return new Promise((ok, fail) => {
    child.stderr?.on('data', (b: Buffer) => {
      err += b.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m !== null) ok({ child, port: Number(m[1]), t0 });
    });
    child.on('exit', (c) => fail(new Error(`serve exited ${c}: ${err}`)));
    (child as ChildProcess & { errText?: () => string }).errText = () => err;
  });
}

async function health(port: number): Promise<Record<string, unknown>> {
  return ((await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { index: Record<string, unknown> }).index;
}

async function readyAfter(port: number, t0: number, child: ChildProcess): Promise<{ ms: number; index: Record<string, unknown> }> {
  for (;;) {
    const index = await health(port).catch((e: unknown) => {
      const err = (child as ChildProcess & { errText?: () => string }).errText?.() ?? '';
      throw new Error(`the server stopped answering (${(e as Error).message}); its stderr:\n${err.slice(-4000)}`);
    });
    if (index.state === 'ready') return { ms: performance.now() - t0, index };
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function finds(port: number, word: string, path: string): Promise<boolean> {
  const r = (await (await fetch(`http://127.0.0.1:${port}/search?q=${word}&k=3`)).json()) as { hits: Array<{ path: string }> };
  return r.hits.some((h) => h.path === path);
}

/** Stops the server; resolves with its peak resident memory (MiB, VmHWM read just before the stop). */
function stop(child: ChildProcess): Promise<number> {
  let hwm = Number.NaN;
  try {
    hwm = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    // not Linux: no figure
  }
  return new Promise((ok) => {
    child.once('exit', () => ok(hwm));
    child.kill('SIGTERM');
  });
}

async function main(): Promise<void> {
  process.stdout.write(`live-index: ${cpus()[0]?.model ?? 'cpu'}, ${cpus().length} cores, load ${loadavg()[0].toFixed(1)}\n`);
  const files = makeTree(FILES);
  let bytes = 0;
  for (const f of files) bytes += statSync(join(tree, f)).size;
  process.stdout.write(
    `tree: ${files.length} files, ${(bytes / 1048576).toFixed(1)} MiB (copies of ${FROM_GIT.length === 0 ? 'src/' : FROM_GIT.join(', ')})\n`,
  );
  rmSync(state, { recursive: true, force: true });
  const s = await start();
  const built = await readyAfter(s.port, s.t0, s.child);
  process.stdout.write(
    `first build: ${(built.ms / 1000).toFixed(1)} s to ready (${String(built.index.files)} files, ${String(built.index.chunks)} chunks)\n`,
  );
  const latencies: number[] = [];
  const ts = files.filter((f) => /\.(ts|java|go|js|py)$/.test(f) && !/\.test\.ts$/.test(f));
  for (let i = 0; i < EDITS; i++) {
    const f = ts[(i * 7919) % ts.length];
    // letters only: the code-aware tokenizer splits at digits, and words sharing a prefix would find each other
    const word = `livebench${Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('')}`;
    const t0 = performance.now();
    writeFileSync(join(tree, f), `${readFileSync(join(tree, f), 'utf8')}\n${f.endsWith('.py') ? '#' : '//'} ${word}\n`);
    while (!(await finds(s.port, word, f))) await new Promise((r) => setTimeout(r, 5));
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  process.stdout.write(
    `one file changed -> found by a search: median ${median(latencies).toFixed(0)} ms, max ${latencies[latencies.length - 1].toFixed(0)} ms over ${EDITS} edits (a search applies what the watcher marked)\n`,
  );
  const peak1 = await stop(s.child);
  process.stdout.write(`server peak RSS (build + edits): ${peak1.toFixed(0)} MiB\n`);
  const stateBytes = readdirSync(state).reduce((n, f) => n + statSync(join(state, f)).size, 0);
  const r = await start();
  const loaded = await readyAfter(r.port, r.t0, r.child);
  const st = loaded.index.start as { from: string; ms: number };
  process.stdout.write(
    `restart: ready after ${(loaded.ms / 1000).toFixed(2)} s (index ${st.from} in ${(st.ms / 1000).toFixed(2)} s; saved index ${(stateBytes / 1048576).toFixed(1)} MiB) vs ${(built.ms / 1000).toFixed(1)} s to build\n`,
  );
  const peak2 = await stop(r.child);
  process.stdout.write(`server peak RSS (restart): ${peak2.toFixed(0)} MiB\n`);
  if (args.get('dir') === undefined) rmSync(work, { recursive: true, force: true });
}

if (!existsSync(cli)) throw new Error(`build first: ${cli} is missing`);
await main();
