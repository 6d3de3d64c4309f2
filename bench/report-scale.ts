/**
 * The reports on big results stores: `coreb leaderboard STORE` (text), `leaderboard --site`,
 * `compare STORE` and `report STORE` on generated stores of 10, 50 and 200 models, each scored on two
 * releases sized like v202602 (2,604 queries: 1,165 text-to-code, 1,270 code-to-text, 169
 * code-to-code; every per-query measure `coreb eval` keeps). Rows differ by a model effect and
 * per-query noise (seeded), so some pairs are significantly apart and some are not, as on a real
 * board. Each command runs as a child: its wall time and whole-process CPU seconds (median of
 * `--reps`), printed beside the budget (a 50-row board: each command under 10 s) and, with `--old
 * DIR` (an older, built coreb checkout), beside that build on the same stores.
 *
 * Usage: node dist/bench/report-scale.js [--rows 10,50,200] [--queries 2604] [--reps 3]
 *   [--commands leaderboard,site,compare,report] [--old DIR] [--old-max-rows 50] [--dir DIR]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUniform } from '../src/core/random.js';
import { EVAL_MEASURES } from '../src/eval/protocol.js';
import { readBenchArgs } from './args.js';
import { childrenCpuSeconds, cpuDescription, median } from './support/process-tree.js';
import { corebCli } from './support/cli.js';

const args = readBenchArgs({
  script: 'report-scale',
  about: `\`coreb leaderboard\`, \`leaderboard --site\`, \`compare\` and \`report\` on generated results stores
of N models x 2 releases (v202602-sized: 2,604 queries each): wall and CPU seconds per command (median of
--reps) against the 10 s budget of a 50-row board and, with --old, an older coreb build.`,
  options: [
    { name: 'rows', value: 'LIST', help: 'models per store, comma list (default 10,50,200)' },
    { name: 'queries', value: 'N', help: 'queries per release (default 2604, split like v202602)' },
    { name: 'reps', value: 'N', help: 'runs per command and store, the median reported (default 3; 1 for stores over 50 rows)' },
    { name: 'commands', value: 'LIST', help: 'of leaderboard,site,compare (all three tests),compare-randomization,report (default all)' },
    { name: 'old', value: 'DIR', help: 'an older, built coreb checkout timed on the same stores (default: none)' },
    { name: 'old-max-rows', value: 'N', help: 'largest store the old build is timed on (default 50)' },
    { name: 'old-timeout', value: 'S', help: 'seconds after which an old build run is stopped and reported as such (default 300)' },
    { name: 'dir', value: 'DIR', help: 'keep the generated stores in DIR and reuse them (default: a temp dir, removed)' },
  ],
});
const option = (name: string): string | undefined => args.get(name);
const ROWS = (option('rows') ?? '10,50,200').split(',').map(Number);
const QUERIES = Number(option('queries') ?? 2604);
const REPS = option('reps');
const COMMANDS = (option('commands') ?? 'leaderboard,site,compare,compare-randomization,report').split(',');
const OLD = option('old');
const OLD_MAX_ROWS = Number(option('old-max-rows') ?? 50);
const OLD_TIMEOUT_S = Number(option('old-timeout') ?? 300);
const cli = corebCli;

/** The measures `coreb eval` keeps per query by default. */
const MEASURES = EVAL_MEASURES;
const TASKS = [
  { task: 'text2code', share: 1165 / 2604, subtasks: ['t2c_canonical_retro_python', 't2c_full_retro_cpp', 't2c_search_go'] },
  { task: 'code2text', share: 1270 / 2604, subtasks: ['c2t_canonical_retro_java', 'c2t_full_retro_ruby', 'c2t_match'] },
  { task: 'code2code', share: 169 / 2604, subtasks: ['c2c_cross_lang'] },
];
const LANGUAGES = ['python', 'cpp', 'java', 'go', 'ruby'];

interface Query {
  id: string;
  task: string;
  subtask: string;
  language: string;
  difficulty: number;
}

function queriesOf(release: number): Query[] {
  const rand = createUniform(1000 + release);
  const out: Query[] = [];
  for (const t of TASKS) {
    const n = Math.round(QUERIES * t.share);
    for (let i = 0; i < n; i++) {
      const subtask = t.subtasks[i % t.subtasks.length];
      out.push({ id: `q_${subtask}_${release}_${i}`, task: t.task, subtask, language: LANGUAGES[i % 5], difficulty: rand() });
    }
  }
  return out;
}

const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

/** The template entry: a real `coreb eval --results` row on the bundled sample (the schema as written today). */
let template: Record<string, unknown> | undefined;
function templateEntry(root: string): Record<string, unknown> {
  if (template !== undefined) return template;
  const store = join(root, 'template');
  rmSync(store, { recursive: true, force: true });
  const p = spawnSync(process.execPath, [cli, 'eval', '--retriever', 'bm25', '--results', store, '--quiet'], { encoding: 'utf8' });
  if (p.status !== 0) throw new Error(`coreb eval for the template failed: ${p.stderr}`);
  const file = spawnSync('find', [store, '-name', '*.json'], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  template = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return template;
}

/** One store entry: the template with the model's name, the release, and generated per-query values. */
function writeEntry(root: string, store: string, model: number, release: number, queries: Query[]): void {
  const rand = createUniform(model * 7919 + release);
  const skill = 0.25 + 0.5 * (model / Math.max(1, ROWS.at(-1)!)) + 0.02 * release;
  const perQuery: Record<string, { task: string; metrics: Record<string, number> }> = {};
  for (const q of queries) {
    const base = Math.min(1, Math.max(0, skill - 0.4 * (q.difficulty - 0.5) + 0.35 * (rand() - 0.5)));
    const metrics: Record<string, number> = {};
    for (const m of MEASURES) {
      const k = Number(m.split('@')[1]);
      metrics[m] = Math.round(Math.min(1, base * (0.6 + 0.4 * Math.min(1, k / 10)) + 0.05 * rand()) * 1e4) / 1e4;
    }
    perQuery[q.id] = {
      task: q.task,
      metrics,
      hnIntrusion: 0.5,
      hardNegativesTop10: 1,
      subtask: q.subtask,
      language: q.language,
      subQueryType: 'abbreviated',
    } as never;
  }
  const aggregate = (qs: Query[]) => ({
    queries: qs.length,
    metrics: Object.fromEntries(MEASURES.map((m) => [m, mean(qs.map((q) => perQuery[q.id].metrics[m]))])),
  });
  const tasks = Object.fromEntries(TASKS.map((t) => [t.task, aggregate(queries.filter((q) => q.task === t.task))]));
  // biome-ignore lint/suspicious/noExplicitAny: the template is a results file of today's schema, edited in place
  const results = structuredClone(templateEntry(root)) as Record<string, any>;
  const split = `release_v26${String(2 + release).padStart(2, '0')}`;
  const sha = `${String(release + 1).repeat(8)}${'ab'.repeat(28)}`;
  const name = `model-${String(model).padStart(3, '0')}`;
  results.dataset = { ...results.dataset, dir: `/data/${split}`, split, releaseDate: `2026-0${2 + release}-01T00:00:00Z`, sha256: sha, files: [] };
  const row = results.retrievers[0];
  row.name = name;
  row.spec = `dense:openai:${name}`;
  row.description = { kind: 'dense', model: name };
  row.model = { ...row.model, parameters: (model + 1) * 33_000_000, embedDim: 768, reference: null, source: null };
  row.perQuery = perQuery;
  row.overall = aggregate(queries);
  // Each task keeps the template's other fields (hard-negative diagnostics, ...) with the generated means.
  row.tasks = Object.fromEntries(Object.entries(tasks).map(([t, v]) => [t, { ...row.tasks[t], ...v }]));
  row.taskMean = {
    queries: queries.length,
    metrics: Object.fromEntries(MEASURES.map((m) => [m, mean(TASKS.map((t) => tasks[t.task].metrics[m]))])),
  };
  const dir = join(store, `${name}__${String(model).padStart(8, '0')}`, `${split}__${sha.slice(0, 8)}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'coreb__00000000.json'), JSON.stringify(results));
}

function makeStore(root: string, dir: string, rows: number): void {
  if (existsSync(join(dir, '.complete'))) return;
  rmSync(dir, { recursive: true, force: true });
  for (let release = 0; release < 2; release++) {
    const queries = queriesOf(release);
    for (let m = 0; m < rows; m++) writeEntry(root, dir, m, release, queries);
  }
  writeFileSync(join(dir, '.complete'), '');
}

function commandArgs(command: string, store: string, out: string): string[] {
  if (command === 'leaderboard') return ['leaderboard', store];
  if (command === 'site') return ['leaderboard', store, '--site', join(out, 'site'), '--format', 'json'];
  if (command === 'compare') return ['compare', store];
  if (command === 'compare-randomization') return ['compare', store, '--test', 'randomization'];
  if (command === 'report') return ['report', store, '--out', join(out, 'report'), '--no-png'];
  throw new Error(`unknown command ${command}`);
}

interface Timing {
  wallS: number;
  cpuS: number;
  failed?: string;
}

function time(main: string, a: string[], timeoutS?: number): Timing {
  const c0 = childrenCpuSeconds();
  const w0 = performance.now();
  const p = spawnSync(process.execPath, [main, ...a], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    timeout: timeoutS === undefined ? undefined : timeoutS * 1000,
  });
  const wallS = (performance.now() - w0) / 1000;
  const cpuS = childrenCpuSeconds() - c0;
  if (p.signal === 'SIGTERM') return { wallS, cpuS, failed: `stopped after ${timeoutS} s` };
  if (p.status !== 0) return { wallS, cpuS, failed: `exit ${p.status}: ${p.stderr.trim().split('\n').at(-1)}` };
  return { wallS, cpuS };
}

const root = option('dir') ?? mkdtempSync(join(tmpdir(), 'coreb-report-scale-'));
mkdirSync(root, { recursive: true });
console.log(`report-scale: ${cpuDescription()}, load ${loadavg()[0].toFixed(1)}; ${QUERIES} queries per release, 2 releases`);
console.log('rows  command                build  runs   wall s (median)   CPU s (median)   budget');
try {
  for (const rows of ROWS) {
    const store = join(root, `store-${rows}`);
    const t0 = performance.now();
    makeStore(root, store, rows);
    const bytes = Number(spawnSync('du', ['-sb', store], { encoding: 'utf8' }).stdout.split('\t')[0]);
    console.log(`(store of ${rows} rows x 2 releases: ${(bytes / 1e6).toFixed(0)} MB, made in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    const reps = REPS !== undefined ? Number(REPS) : rows > 50 ? 1 : 3;
    const builds: Array<[string, string]> = [['new', cli]];
    if (OLD !== undefined && rows <= OLD_MAX_ROWS) builds.push(['old', join(OLD, 'dist/src/cli/main.js')]);
    for (const command of COMMANDS) {
      for (const [label, main] of builds) {
        const runs: Timing[] = [];
        for (let r = 0; r < reps; r++) {
          const out = join(root, `out-${rows}-${command}-${label}`);
          rmSync(out, { recursive: true, force: true });
          const t = time(main, commandArgs(command, store, out), label === 'old' ? OLD_TIMEOUT_S : undefined);
          runs.push(t);
          if (t.failed !== undefined) break;
        }
        const failed = runs.find((t) => t.failed !== undefined)?.failed;
        const wall = median(runs.map((t) => t.wallS));
        const cpu = median(runs.map((t) => t.cpuS));
        const budget = rows === 50 && label === 'new' ? (wall < 10 ? 'under 10 s' : 'OVER 10 s') : '';
        console.log(
          `${String(rows).padStart(4)}  ${command.padEnd(21)}  ${label.padEnd(5)}  ${String(runs.length).padStart(4)}  ${wall.toFixed(2).padStart(15)}  ${cpu.toFixed(2).padStart(15)}   ${failed ?? budget}`,
        );
      }
    }
  }
} finally {
  if (option('dir') === undefined) rmSync(root, { recursive: true, force: true });
}
