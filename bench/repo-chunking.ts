/**
 * Chunking speed on a real repository: every text file under a source tree (default: the Go
 * distribution's tree, GOROOT, about 12,000 files as Debian's golang-go installs it) cut by
 * `createCodeChunker` (tree-sitter definitions + line windows), against the budget of 60 s for 10,000
 * files on 2 cores and against plain 50-line windows (what a tool without a parser does) over the
 * same files. Files over 1 MiB or holding a NUL byte are skipped, as `coreb repo build` skips them.
 * Usage: node dist/bench/repo-chunking.js [--dir DIR] [--limit N]
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import { createCodeChunker, languageOfPath } from '../src/dataset/code-chunks.js';
import { readBenchArgs } from './args.js';

const args = readBenchArgs({
  script: 'repo-chunking',
  about: `chunks every text file of a source tree (default the Go distribution, GOROOT) with coreb's
tree-sitter chunker and with plain line windows, and prints files, chunks and CPU seconds against the
budget of 60 s per 10,000 files.`,
  options: [
    { name: 'dir', value: 'DIR', help: 'the source tree (default: `go env GOROOT`)' },
    { name: 'limit', value: 'N', help: 'at most N files (default all)' },
  ],
});
const dir = args.get('dir') ?? execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim();
const limit = Number(args.get('limit') ?? Number.POSITIVE_INFINITY);

/** Text files under `root` (symlinks followed, `.git` skipped), in sorted order. */
function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (name === '.git') continue;
      const p = join(d, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (st === undefined) continue;
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && st.size <= 1 << 20) out.push(p);
    }
  };
  walk(root);
  return out;
}

const files = listFiles(dir).slice(0, limit);
const texts: Array<{ path: string; text: string }> = [];
let bytes = 0;
for (const f of files) {
  const buf = readFileSync(f);
  if (buf.subarray(0, 8192).includes(0)) continue;
  bytes += buf.length;
  texts.push({ path: relative(dir, f), text: buf.toString('utf8') });
}

const chunker = createCodeChunker();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let chunks = 0;
const byLanguage = new Map<string, number>();
for (const { path, text } of texts) {
  const cs = await chunker.chunk(path, text);
  chunks += cs.length;
  const l = languageOfPath(path) ?? 'other';
  byLanguage.set(l, (byLanguage.get(l) ?? 0) + 1);
}
const wall = (performance.now() - t0) / 1000;
const c = process.cpuUsage(cpu0);
const cpu = (c.user + c.system) / 1e6;

// The reference: plain 50-line windows over the same texts.
const cpu1 = process.cpuUsage();
let windows = 0;
for (const { text } of texts) {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 50) if (lines.slice(i, i + 50).some((l) => l.trim() !== '')) windows++;
}
const w = process.cpuUsage(cpu1);
const windowCpu = (w.user + w.system) / 1e6;

console.log(`# repo chunking: ${dir} (${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores)`);
console.log(
  `files ${texts.length} (${(bytes / 2 ** 20).toFixed(1)} MiB; ${files.length - texts.length} binary skipped); by language: ${[...byLanguage]
    .sort((a, b) => b[1] - a[1])
    .map(([l, n]) => `${l} ${n}`)
    .join(', ')}`,
);
console.log(
  `coreb chunker: ${chunks} chunks in ${wall.toFixed(1)} s wall, ${cpu.toFixed(1)} CPU s (${(texts.length / cpu).toFixed(0)} files per CPU s; grammars ${chunker.loaded().join(', ')})`,
);
console.log(
  `per 10,000 files: ${((cpu * 10000) / texts.length).toFixed(1)} CPU s against the budget of 60 s (${((cpu * 10000) / texts.length / 60).toFixed(2)}x the budget)`,
);
console.log(
  `reference, plain 50-line windows: ${windows} windows in ${windowCpu.toFixed(2)} CPU s (the parser costs ${(cpu / Math.max(windowCpu, 1e-3)).toFixed(0)}x a line splitter)`,
);
