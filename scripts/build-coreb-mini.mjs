#!/usr/bin/env node
// Regenerates the bundled coreb-mini release (data/coreb-mini/release/*.jsonl + manifest.json)
// from the authored sources: judges every solution with `coreb exec` (the sandboxed judge), then
// plans the 8 official tables with src/construct and writes them. Deterministic: re-running on the
// same sources gives byte-identical files. Needs a build first (`npx tsc -p tsconfig.json`).
//
//   node scripts/build-coreb-mini.mjs [--judge-cache FILE] [--keep-temp] [--exec-arg ARG ...]
//     --judge-cache FILE  `coreb exec` output JSONL kept between builds (default
//                         <tmp>/coreb-mini-judge-results.jsonl); exec resumes from it, so only new or
//                         changed programs are judged again
//     --working-tree   build from the working tree, uncommitted edits and problems included
//                      (default: from the committed sources, `git archive HEAD`)
//     --keep-temp      keep the temp dir (problems/candidates/results JSONL) and print its path
//     --exec-arg ARG   pass ARG through to `coreb exec` (e.g. --exec-arg --jobs --exec-arg 2)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { planMiniRelease, renderWireRow, outcomeKey } = await import(join(root, 'dist', 'src', 'construct', 'index.js'));
const { RELEASE_TABLES } = await import(join(root, 'dist', 'src', 'core', 'dataset.js'));

const SOURCES = join(root, 'data', 'coreb-mini', 'sources', 'problems');
const RELEASE = join(root, 'data', 'coreb-mini', 'release');
/** Fixed so rebuilds are byte-identical; bump when the sample's content changes meaningfully. */
const CREATED_AT = '2026-11-30T00:00:00Z';
const SEED = 2602;
const PUBLIC_TESTS = 2; // the worked examples are the public tests; the rest are private
/** Judge settings, spelled out so the manifest records them (they equal `coreb exec`'s defaults). */
const JUDGE = { comparator: 'tokens', tolerance: '1e-6', timeoutMs: '6000', tests: 'all' };
const JUDGE_ARGS = ['--comparator', JUDGE.comparator, '--tolerance', JUDGE.tolerance, '--timeout-ms', JUDGE.timeoutMs, '--tests', JUDGE.tests];

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const execArgs = args.flatMap((a, i) => (args[i - 1] === '--exec-arg' ? [a] : []));
const keepTemp = args.includes('--keep-temp');

function sha256(...parts) {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

/**
 * The folder to read sources from: by default a snapshot of the committed sources (`git archive
 * HEAD`), so the committed release never depends on someone's uncommitted edits;
 * `--working-tree` reads the working tree instead (including uncommitted problems).
 */
function sourcesSnapshot(tmp) {
  if (args.includes('--working-tree')) return SOURCES;
  const archive = spawnSync('git', ['archive', '--format=tar', 'HEAD', 'data/coreb-mini/sources/problems'], {
    cwd: root,
    maxBuffer: 1 << 30,
  });
  if (archive.status !== 0) {
    console.error(`build-coreb-mini: git archive failed: ${archive.stderr}`);
    process.exit(1);
  }
  const dir = join(tmp, 'sources');
  mkdirSync(dir, { recursive: true });
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (untar.status !== 0) {
    console.error(`build-coreb-mini: tar failed: ${untar.stderr}`);
    process.exit(1);
  }
  return join(dir, 'data', 'coreb-mini', 'sources', 'problems');
}

/** Reads every problem folder into the planner's AuthoredProblem shape (+ a content hash). */
function loadSources(sourcesDir) {
  const dirs = readdirSync(sourcesDir)
    .filter((d) => /^cm_\d{3}-/.test(d))
    .sort()
    .filter((d) => {
      const file = join(sourcesDir, d, 'problem.json');
      let ok = existsSync(file);
      if (ok) {
        try {
          const p = JSON.parse(readFileSync(file, 'utf8'));
          ok = Array.isArray(p.solutions) && p.solutions.every((s) => existsSync(join(sourcesDir, d, 'solutions', s.file)));
        } catch {
          ok = false;
        }
      }
      if (!ok) console.error(`build-coreb-mini: skipping ${d} (problem.json missing, unreadable or listing missing files)`);
      return ok;
    });
  return dirs.map((dir) => {
    const raw = readFileSync(join(sourcesDir, dir, 'problem.json'), 'utf8');
    const p = JSON.parse(raw);
    const solutions = p.solutions.map((s) => ({
      file: s.file,
      language: s.language,
      author: s.author,
      intent: s.intent,
      ...(s.note === undefined ? {} : { note: s.note }),
      code: readFileSync(join(sourcesDir, dir, 'solutions', s.file), 'utf8'),
    }));
    const hash = sha256(raw, ...solutions.flatMap((s) => [s.file, '\0', s.code, '\0']));
    return {
      dir,
      hash,
      problem: {
        id: p.id,
        title: p.title,
        statement: p.statement,
        abbreviated: p.abbreviated,
        tests: p.tests,
        hardNegatives: p.hard_negatives,
        searchQueries: p.search_queries,
        solutions,
      },
    };
  });
}

/** Writes the judge's inputs: LiveCodeBench-format problems and a candidates JSONL. */
function writeJudgeInputs(sources, dir) {
  const problems = sources.map(({ problem: p }) => {
    const tests = p.tests.map((t) => ({ input: t.input, output: t.output, testtype: 'stdin' }));
    return JSON.stringify({
      question_id: p.id,
      question_title: p.title,
      question_content: p.statement,
      platform: 'coreb-mini',
      public_test_cases: JSON.stringify(tests.slice(0, PUBLIC_TESTS)),
      private_test_cases: JSON.stringify(tests.slice(PUBLIC_TESTS)),
      metadata: '{}',
    });
  });
  const candidates = sources.flatMap(({ problem: p }) =>
    p.solutions.map((s) => JSON.stringify({ id: outcomeKey(p.id, s.file), problem_id: p.id, language: s.language, code: s.code })),
  );
  writeFileSync(join(dir, 'problems.jsonl'), problems.join('\n') + '\n');
  writeFileSync(join(dir, 'candidates.jsonl'), candidates.join('\n') + '\n');
}

function runJudge(dir, out) {
  const argv = [
    join(root, 'dist', 'src', 'cli', 'main.js'),
    'exec',
    '--problems',
    join(dir, 'problems.jsonl'),
    '--candidates',
    join(dir, 'candidates.jsonl'),
    '--out',
    out,
    ...JUDGE_ARGS,
    ...execArgs,
  ];
  console.error(`build-coreb-mini: judging with: coreb ${argv.slice(1).join(' ')}`);
  const r = spawnSync(process.execPath, argv, { stdio: ['ignore', 'inherit', 'inherit'], cwd: root });
  if (r.status !== 0) {
    console.error(`build-coreb-mini: coreb exec failed with status ${r.status}`);
    process.exit(1);
  }
  return out;
}

function readResults(file) {
  const byId = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line);
    byId.set(r.id, r); // the last record of an id wins (resumed runs append)
  }
  return byId;
}

/** Writes a file atomically (temp + rename) so an interrupted build leaves no half-written table. */
function writeAtomic(file, text) {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'coreb-mini-build-'));
  try {
    const sources = loadSources(sourcesSnapshot(tmp));
    if (sources.length === 0) {
      console.error(`build-coreb-mini: no problems under ${SOURCES}`);
      process.exit(1);
    }
    writeJudgeInputs(sources, tmp);
    const resultsFile = runJudge(tmp, opt('--judge-cache') ?? join(tmpdir(), 'coreb-mini-judge-results.jsonl'));
    const results = readResults(resultsFile);

    const outcomes = new Map();
    const judged = [];
    const surprises = [];
    let judgeSettings;
    for (const { problem: p } of sources) {
      for (const s of p.solutions) {
        const key = outcomeKey(p.id, s.file);
        const r = results.get(key);
        if (r === undefined) {
          console.error(`build-coreb-mini: the judge returned no result for ${key}`);
          process.exit(1);
        }
        judgeSettings ??= { comparator: r.comparator, sandboxed: r.sandboxed };
        outcomes.set(key, { passed: r.passed, testsPassed: r.tests_passed, testsTotal: r.tests_total });
        judged.push({
          solution: key,
          language: s.language,
          author: s.author,
          intent: s.intent,
          verdict: r.verdict,
          passed: r.passed,
          tests_passed: r.tests_passed,
          tests_total: r.tests_total,
        });
        if (r.passed !== (s.intent === 'correct')) surprises.push(`${key} (${s.intent}) -> ${r.verdict} ${r.tests_passed}/${r.tests_total}`);
      }
    }

    const plan = planMiniRelease(
      sources.map((s) => s.problem),
      outcomes,
      { createdAt: CREATED_AT, seed: SEED },
    );
    const codeIdOf = new Map(
      plan.tables.code_corpus.map((r) => [outcomeKey(r.meta_source_problem_id, r.meta_solution_key.slice(r.model.length + 1)), r.code_id]),
    );
    mkdirSync(RELEASE, { recursive: true });
    for (const t of RELEASE_TABLES) {
      writeAtomic(join(RELEASE, `${t}.jsonl`), plan.tables[t].map((r) => renderWireRow(r)).join('\n') + '\n');
    }
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const manifest = {
      name: 'coreb-mini',
      split: 'coreb_mini_v1',
      description:
        'A small CoREB-format release authored for the coreb project: original problems, solutions in five languages judged in the sandbox, hard-negative descriptions and queries for every subtask family.',
      license: 'MIT',
      coreb_version: pkg.version,
      created_at: CREATED_AT,
      generated_by: 'node scripts/build-coreb-mini.mjs',
      judge: {
        command: `coreb exec --problems problems.jsonl --candidates candidates.jsonl --out results.jsonl ${JUDGE_ARGS.join(' ')}${execArgs.length ? ' ' + execArgs.join(' ') : ''}`,
        comparator: judgeSettings?.comparator ?? null,
        tolerance: Number(JUDGE.tolerance),
        timeout_ms_per_test: Number(JUDGE.timeoutMs),
        tests: JUDGE.tests,
        sandboxed: judgeSettings?.sandboxed ?? null,
        public_tests_per_problem: PUBLIC_TESTS,
      },
      labels: {
        scheme:
          'CoREB v2 qrels: relevance 2 = passes every test and meets the subtask constraint; relevance 1 = same-problem hard negative; unjudged = easy negative',
        max_code_hard_negatives: 3,
        seed: SEED,
      },
      authors: [...new Set(sources.flatMap((s) => s.problem.solutions.map((x) => x.author)))].sort(),
      problems: sources.map(({ dir, hash, problem: p }) => ({
        id: p.id,
        folder: dir,
        title: p.title,
        tests: p.tests.length,
        solutions: p.solutions.length,
        source_sha256: hash,
      })),
      counts: plan.counts,
      solutions: judged.map((j) => ({ code_id: codeIdOf.get(j.solution) ?? null, ...j })),
      tables_sha256: Object.fromEntries(RELEASE_TABLES.map((t) => [t, sha256(readFileSync(join(RELEASE, `${t}.jsonl`)))])),
    };
    writeAtomic(join(RELEASE, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    console.error(`build-coreb-mini: ${sources.length} problems -> ${JSON.stringify(plan.counts.tables)}`);
    if (surprises.length > 0) {
      console.error(`build-coreb-mini: ${surprises.length} solution(s) judged against their intent (labels follow the judge):`);
      for (const s of surprises) console.error(`  ${s}`);
    }
  } finally {
    if (keepTemp) console.error(`build-coreb-mini: temp files kept in ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

main();
