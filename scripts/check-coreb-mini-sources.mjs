#!/usr/bin/env node
// Checks the authored coreb-mini sources directly (no sandbox, fast): the shape of every
// problem.json, and every solution run on every test. Correct solutions must pass all tests;
// incorrect ones must pass the first example and fail at least one test. Prints a table.
//
//   node scripts/check-coreb-mini-sources.mjs [--fill] [--jobs N] [--no-run] [cm_001 cm_013 ...]
//     --fill     fill tests whose "output" is missing/null from the first correct solution
//                (written back to problem.json), then check everything as usual
//     --no-run   only check the shape of problem.json (no compilers needed)
//     --jobs N   parallel runs (default: number of CPUs)
// Outputs are compared token-wise (whitespace-separated tokens must be equal), like
// `coreb exec --comparator tokens`. Exit status 0 when every check passed, 1 otherwise.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const problemsDir = join(root, 'data', 'coreb-mini', 'sources', 'problems');

const LANGUAGES = ['python', 'cpp', 'java', 'go', 'ruby'];
const STRATEGIES = ['operation_type', 'optimization_objective', 'algorithmic_approach', 'problem_domain'];
const SEARCH_TYPES = ['description_search', 'algorithm_search', 'language_agnostic'];
const EXT = { python: '.py', cpp: '.cpp', java: '.java', go: '.go', ruby: '.rb' };
const RUN_TIMEOUT_MS = 10000;
const COMPILE_TIMEOUT_MS = 60000;

const args = process.argv.slice(2);
const fill = args.includes('--fill');
const noRun = args.includes('--no-run');
const jobsAt = args.indexOf('--jobs');
const jobs = jobsAt >= 0 ? Number(args[jobsAt + 1]) : availableParallelism();
const filters = args.filter((a, i) => !a.startsWith('--') && !(jobsAt >= 0 && i === jobsAt + 1));

const words = (s) => s.split(/\s+/).filter(Boolean).length;
const tokens = (s) => s.split(/\s+/).filter(Boolean);
const sameTokens = (a, b) => {
  const x = tokens(a);
  const y = tokens(b);
  return x.length === y.length && x.every((t, i) => t === y[i]);
};

/** Runs a command; resolves {code, stdout, stderr, ms, timedOut}. */
function run(cmd, argv, { input = '', cwd, timeoutMs = RUN_TIMEOUT_MS, env } = {}) {
  return new Promise((res) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (d) => {
      if (out.length < 1 << 24) out += d;
    });
    child.stderr.on('data', (d) => {
      if (err.length < 1 << 16) err += d;
    });
    child.stdin.on('error', () => {});
    child.on('error', (e) => {
      clearTimeout(timer);
      res({ code: -1, stdout: out, stderr: String(e), ms: performance.now() - t0, timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      res({ code, stdout: out, stderr: err, ms: performance.now() - t0, timedOut });
    });
    child.stdin.end(input);
  });
}

/** A tiny promise pool. */
async function pool(items, n, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(n, items.length)) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

/**
 * The worked examples of a statement: each "Example k" section holds "Input:" and "Output:"
 * followed either by a ``` fenced block or by plain lines up to the next blank line.
 */
function parseExamples(statement) {
  const parts = statement.split(/^[#\s*]*Example\s+\d+\b.*$/im).slice(1);
  const block = (text, label) => {
    const m = new RegExp(`^[ \\t]*\\**${label}\\**:?\\**[ \\t]*$`, 'im').exec(text);
    if (m === null) return undefined;
    const rest = text
      .slice(m.index + m[0].length)
      .split('\n')
      .slice(1);
    while (rest.length > 0 && rest[0].trim() === '') rest.shift();
    if (rest[0]?.trim().startsWith('```')) {
      const end = rest.findIndex((l, i) => i > 0 && l.trim().startsWith('```'));
      return rest.slice(1, end < 0 ? undefined : end).join('\n');
    }
    const end = rest.findIndex((l) => l.trim() === '' || /^\s*\**Output\**:?/i.test(l));
    return rest.slice(0, end < 0 ? undefined : end).join('\n');
  };
  return parts
    .map((text) => ({ input: block(text, 'Input'), output: block(text, 'Output') }))
    .filter((e) => e.input !== undefined && e.output !== undefined);
}

/** Checks the shape of one problem.json; returns a list of messages. */
function checkShape(dir, p) {
  const bad = [];
  const need = (cond, msg) => {
    if (!cond) bad.push(msg);
  };
  const id = dir.slice(0, 6);
  need(p.id === id, `id ${JSON.stringify(p.id)} does not match folder ${dir}`);
  need(typeof p.title === 'string' && p.title.length > 0, 'title missing');
  need(typeof p.statement === 'string' && words(p.statement) >= 80, 'statement missing or shorter than 80 words');
  if (typeof p.statement === 'string') {
    for (const part of ['Input', 'Output', 'Constraints', 'Example']) {
      need(p.statement.includes(part), `statement lacks a "${part}" section`);
    }
  }
  const aw = typeof p.abbreviated === 'string' ? words(p.abbreviated) : 0;
  need(aw >= 50 && aw <= 150, `abbreviated has ${aw} words (50-150 required)`);
  need(Array.isArray(p.tests) && p.tests.length >= 6, `needs >= 6 tests, has ${p.tests?.length ?? 0}`);
  for (const [i, t] of (p.tests ?? []).entries()) {
    need(typeof t.input === 'string', `tests[${i}].input not a string`);
    if (!fill) need(typeof t.output === 'string', `tests[${i}].output not a string`);
  }
  if (typeof p.statement === 'string' && Array.isArray(p.tests)) {
    const examples = parseExamples(p.statement);
    need(examples.length >= 2, `statement needs >= 2 worked examples ("Example k" / "Input:" / "Output:"), found ${examples.length}`);
    for (const [i, ex] of examples.entries()) {
      const t = p.tests[i];
      need(t !== undefined && sameTokens(ex.input, t.input ?? ''), `Example ${i + 1} input differs from tests[${i}].input`);
      if (typeof t?.output === 'string') {
        need(sameTokens(ex.output, t.output), `Example ${i + 1} output differs from tests[${i}].output`);
      }
    }
  }
  const hn = p.hard_negatives ?? [];
  need(hn.length === 4, `needs exactly 4 hard_negatives, has ${hn.length}`);
  need(
    STRATEGIES.every((s) => hn.filter((h) => h.strategy === s).length === 1),
    `hard_negatives must have one of each strategy ${STRATEGIES.join(', ')}`,
  );
  for (const [i, h] of hn.entries()) {
    const w = words(h.text ?? '');
    need(w >= 80 && w <= 250, `hard_negatives[${i}] has ${w} words (80-250 required)`);
    need(!/^#|Modified Problem/m.test(h.text ?? ''), `hard_negatives[${i}] has a header`);
  }
  const sq = p.search_queries ?? [];
  need(
    SEARCH_TYPES.every((t) => sq.some((q) => q.type === t && typeof q.text === 'string' && q.text.length > 0)),
    `search_queries need each type ${SEARCH_TYPES.join(', ')}`,
  );
  const sols = p.solutions ?? [];
  for (const lang of LANGUAGES) {
    need(
      sols.some((s) => s.language === lang && s.intent === 'correct'),
      `no correct ${lang} solution`,
    );
  }
  const wrongLangs = new Set(sols.filter((s) => s.intent === 'incorrect').map((s) => s.language));
  need(wrongLangs.size >= 2, 'needs incorrect solutions in at least 2 different languages');
  for (const s of sols) {
    need(LANGUAGES.includes(s.language), `${s.file}: unknown language ${s.language}`);
    need(['correct', 'incorrect'].includes(s.intent), `${s.file}: intent must be correct|incorrect`);
    need(['author-a', 'author-b'].includes(s.author), `${s.file}: author must be author-a|author-b`);
    need(s.file?.endsWith(EXT[s.language]), `${s.file}: extension does not match ${s.language}`);
    need(existsSync(join(problemsDir, dir, 'solutions', s.file ?? '')), `${s.file}: file missing`);
    if (s.intent === 'incorrect') need(typeof s.note === 'string' && s.note.length > 0, `${s.file}: incorrect needs a note`);
  }
  const files = existsSync(join(problemsDir, dir, 'solutions')) ? readdirSync(join(problemsDir, dir, 'solutions')) : [];
  for (const f of files)
    need(
      sols.some((s) => s.file === f),
      `solutions/${f} is not listed in problem.json`,
    );
  return bad;
}

/** Compiles one solution into `work`; returns {argv, error}. */
async function build(srcPath, lang, work) {
  mkdirSync(work, { recursive: true });
  if (lang === 'python') return { argv: ['python3', srcPath] };
  if (lang === 'ruby') return { argv: ['ruby', srcPath] };
  if (lang === 'cpp') {
    const exe = join(work, 'a.out');
    const r = await run('g++', ['-O2', '-std=c++17', '-o', exe, srcPath], { timeoutMs: COMPILE_TIMEOUT_MS });
    return r.code === 0 ? { argv: [exe] } : { error: r.stderr.slice(0, 400) };
  }
  if (lang === 'go') {
    const exe = join(work, 'main');
    const r = await run('go', ['build', '-o', exe, srcPath], {
      timeoutMs: COMPILE_TIMEOUT_MS,
      env: { GO111MODULE: 'off', CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false', GOCACHE: join(tmpdir(), 'coreb-mini-gocache') },
    });
    return r.code === 0 ? { argv: [exe] } : { error: r.stderr.slice(0, 400) };
  }
  if (lang === 'java') {
    const src = readFileSync(srcPath, 'utf8');
    const cls = /public\s+(?:final\s+)?class\s+(\w+)/.exec(src)?.[1] ?? 'Main';
    copyFileSync(srcPath, join(work, `${cls}.java`));
    const r = await run('javac', ['-encoding', 'UTF-8', `${cls}.java`], { cwd: work, timeoutMs: COMPILE_TIMEOUT_MS });
    return r.code === 0
      ? { argv: ['java', '-Xss64m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', work, cls] }
      : { error: r.stderr.slice(0, 400) };
  }
  return { error: `unknown language ${lang}` };
}

async function main() {
  const dirs = existsSync(problemsDir)
    ? readdirSync(problemsDir)
        .filter((d) => /^cm_\d{3}-/.test(d))
        .filter((d) => filters.length === 0 || filters.some((f) => d.startsWith(f) || d.includes(f)))
        .sort()
    : [];
  if (dirs.length === 0) {
    console.error(`check-coreb-mini-sources: no problems found under ${problemsDir}`);
    process.exit(1);
  }
  const tmp = mkdtempSync(join(tmpdir(), 'coreb-mini-check-'));
  let failures = 0;
  const rows = [];
  try {
    for (const dir of dirs) {
      const file = join(problemsDir, dir, 'problem.json');
      let p;
      try {
        p = JSON.parse(readFileSync(file, 'utf8'));
      } catch (e) {
        console.log(`${dir}: problem.json unreadable: ${e.message}`);
        failures++;
        continue;
      }
      const shape = checkShape(dir, p);
      for (const m of shape) console.log(`${dir}: ${m}`);
      failures += shape.length;
      if (noRun) {
        rows.push([dir, 'shape', shape.length ? 'FAIL' : 'ok', '', '']);
        continue;
      }
      const sols = (p.solutions ?? []).filter((s) => existsSync(join(problemsDir, dir, 'solutions', s.file)));
      const built = await pool(sols, jobs, (s, i) => build(resolve(problemsDir, dir, 'solutions', s.file), s.language, join(tmp, dir, String(i))));
      if (fill && p.tests.some((t) => typeof t.output !== 'string')) {
        const ref = sols.findIndex((s, i) => s.intent === 'correct' && !built[i].error);
        if (ref < 0) throw new Error(`${dir}: no buildable correct solution to fill outputs`);
        const [cmd, ...rest] = built[ref].argv;
        for (const t of p.tests) {
          if (typeof t.output === 'string') continue;
          const r = await run(cmd, rest, { input: t.input });
          if (r.code !== 0) throw new Error(`${dir}: reference ${sols[ref].file} failed: ${r.stderr.slice(0, 300)}`);
          t.output = r.stdout;
        }
        writeFileSync(file, JSON.stringify(p, null, 2) + '\n');
        console.log(`${dir}: filled outputs from ${sols[ref].file}`);
      }
      const results = await pool(sols, Math.max(1, Math.floor(jobs / 1)), async (_s, i) => {
        if (built[i].error) return { compileError: built[i].error };
        const [cmd, ...rest] = built[i].argv;
        const per = [];
        let maxMs = 0;
        for (const t of p.tests) {
          const r = await run(cmd, rest, { input: t.input });
          maxMs = Math.max(maxMs, r.ms);
          per.push(r.code === 0 && !r.timedOut && sameTokens(r.stdout, t.output ?? ''));
        }
        return { per, maxMs };
      });
      for (const [i, s] of sols.entries()) {
        const r = results[i];
        let verdict;
        let ok;
        if (r.compileError) {
          verdict = 'COMPILE ERROR';
          ok = false;
          console.log(`${dir}/${s.file}: ${r.compileError}`);
        } else {
          const passed = r.per.filter(Boolean).length;
          verdict = `${passed}/${r.per.length}`;
          ok = s.intent === 'correct' ? passed === r.per.length : r.per[0] && passed < r.per.length;
          if (!ok && s.intent === 'incorrect' && !r.per[0]) verdict += ' (fails example 1)';
          if (!ok && s.intent === 'incorrect' && passed === r.per.length) verdict += ' (passes all)';
          if (s.intent === 'correct' && r.maxMs > 3000) {
            ok = false;
            verdict += ' (slow)';
          }
          verdict += ` max ${Math.round(r.maxMs)}ms`;
        }
        if (!ok) failures++;
        rows.push([dir, s.file, s.intent, verdict, ok ? 'ok' : 'FAIL']);
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const widths = [0, 1, 2, 3, 4].map((c) => Math.max(...rows.map((r) => String(r[c]).length)));
  for (const r of rows) console.log(r.map((v, c) => String(v).padEnd(widths[c])).join('  '));
  console.log(failures === 0 ? `all checks passed (${dirs.length} problems)` : `${failures} check(s) failed`);
  process.exit(failures === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e.stack ?? String(e));
  process.exit(1);
});
