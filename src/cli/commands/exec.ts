/**
 * `coreb exec`: judges candidate programs against LiveCodeBench problems in the bubblewrap sandbox and
 * writes one JSONL line per program plus a verdict table; re-running resumes.
 */
import { statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, resolve } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { nameList, tableLines } from '../../core/table.js';
import { COMPARATORS, type ComparatorName } from '../../core/execution.js';
import { loadCandidatesWithLabels } from '../../dataset/candidates.js';
import { LCB_TEST_SETS, createLcbTestLookup, loadLcbProblems } from '../../dataset/lcb.js';
import { computeAgreement, renderAgreement, type AgreementRow } from '../../sandbox/judge-agreement.js';
import { readJudgeRecords, renderJudgeSummary, runJudging } from '../../sandbox/judge-run.js';
import type { LocalJudgeOptions } from '../../sandbox/local-judge.js';
import { NORMALISATIONS } from '../../sandbox/normalise.js';
import { DEFAULT_LIMITS, missingPackages } from '../../sandbox/languages/index.js';
import { detectTreeAccounting, TREE_MECHANISMS, type TreeMechanism } from '../../sandbox/process-tree.js';
import { opt, parseOptions } from '../options.js';
import type { Command } from '../command.js';
import { JUDGE_USAGE, readJudgeOption } from '../judge-option.js';
import { createProgressBar } from '../progress-bar.js';

const USAGE = `coreb exec --problems FILE --candidates FILE --out FILE [options]

Judges programs (python, cpp, java, go, ruby) on LiveCodeBench tests in a sandbox
(bubblewrap: no network, read-only system, unprivileged user, limits on time, memory,
processes and output). Writes one JSON line per program to --out; re-running the same
command skips programs already judged with the same code, tests and settings.

  --problems FILE      LiveCodeBench problems JSONL (question_id, public_test_cases,
                       private_test_cases as JSON or base64/zlib/pickle, metadata)
  --candidates FILE    programs: JSONL {id, problem_id, language, code}, or a CoREB
                       code_corpus table (.jsonl or .parquet); problem ids may carry
                       CoREB's lcb_ prefix
  --out FILE           output JSONL (appended; resumable)
  --comparator NAME    exact (LiveCodeBench) | tokens (numbers within --tolerance) | lines;
                       default tokens
  --tolerance X        absolute/relative tolerance of tokens; default 1e-6
  --tests SET          public | private | all; default all
  --jobs N             sandboxed processes at once (compiles and test runs alike);
                       default the number of cores
  --timeout-ms N       time limit per test, ms of CPU time; default 6000 (the sandbox
                       is killed after 3x this + 1 s of wall-clock time, so a busy
                       machine does not produce false time limits)
  --memory-mb N        memory limit per test, MiB; default 512 (Java: -Xmx; Go and
                       Java keep their extra address space for the runtime)
  --stop-early         stop a program at its first failing test (pass_rate then counts
                       unrun tests as failed)
  --cache-dir DIR      helper, C++ precompiled header, Go cache; default
                       $COREB_JUDGE_CACHE or <tmp>/coreb-judge
  --tree-limits M      how limits cover a program's whole process tree (children and
                       orphans included): auto (default: cgroup v2, else cgroup v1, else
                       polling /proc) | cgroup2 | cgroup1 | proc | off (per-process only)
  --explain-limits     print which tree-limit mechanism this machine uses and the
                       limits per language, then exit
  --no-sandbox         run untrusted code directly on this machine (DANGEROUS)
${JUDGE_USAGE}
  --normalise NAME     coreb (default: the few source changes docs/exec.md lists) |
                       official (the official CoREB harness's: comments stripped line
                       by line, its C++ headers and main() rewrites, g++ -std=c++17),
                       to re-judge a release the way its labels were made
  --compare WHAT       after judging, print per-language agreement of the verdicts with:
                       labels (the candidates' released meta_passed), local (the local
                       judge on the same programs, into OUT.local.jsonl, resumable), or
                       FILE (the JSONL of an earlier coreb exec)
  --summary-json FILE  also write the run summary (and any agreement) as JSON

Exit status 0 when every program was judged (whatever the verdicts).`;

/** The text of `--explain-limits`: the mechanism this machine uses and the limits per language. */
function explainLimits(choice: TreeMechanism | 'auto' | 'off'): string {
  const lines: string[] = [];
  if (choice === 'off') {
    lines.push('tree limits: off — per-process rlimits only (RLIMIT_CPU, RLIMIT_AS, RLIMIT_NPROC): children and orphans escape them.');
  } else {
    const t = detectTreeAccounting(choice === 'auto' ? {} : { mechanism: choice });
    if (t === undefined) lines.push(`tree limits: ${choice} is NOT available on this machine (needs root and that cgroup hierarchy).`);
    else {
      const hold =
        t.cpuHold === 'none'
          ? 'none (a multithreaded run may use every core; its CPU time counts in full)'
          : `${t.cpuHold} (each run's tree gets one core's worth of CPU per period)`;
      lines.push(`tree limits: ${t.mechanism}`, `  ${t.explanation}`, `one-core hold: ${hold}`);
      t.close();
    }
  }
  lines.push('', 'per test (defaults; --timeout-ms and --memory-mb override):');
  lines.push(
    ...nameList(
      Object.entries(DEFAULT_LIMITS).map(([lang, l]) => [
        lang,
        `CPU ${l.timeLimitMs} ms (whole tree), memory ${l.memoryLimitMb} MiB (resident, whole tree), ${l.processes} processes/threads, work dir ${l.workDirMb} MiB`,
      ]),
    ),
  );
  lines.push("  The wall clock kills a run after 3x its CPU limit + 1 s. Java's heap is -Xmx = the memory limit; the");
  lines.push('  tree may use 384 MiB more for the JVM itself (64 MiB for the other runtimes). Compiles: 60 s, 2048 MiB.');
  return lines.join('\n') + '\n';
}

const command: Command = {
  summary: 'judge programs on LiveCodeBench tests in a sandbox (JSONL verdicts)',
  usage: USAGE,
  async run(ctx) {
    const { values } = parseOptions('exec', ctx.argv, {
      problems: opt.string(),
      candidates: opt.string(),
      out: opt.string(),
      comparator: opt.choice<ComparatorName, ComparatorName>(COMPARATORS, 'tokens'),
      tolerance: opt.number(undefined, (x) => Number.isFinite(x) && x >= 0, 'a number >= 0'),
      tests: opt.choice(LCB_TEST_SETS, 'all'),
      jobs: opt.int(availableParallelism(), 1),
      'timeout-ms': opt.optionalInt(1),
      'memory-mb': opt.optionalInt(16),
      'stop-early': opt.flag(),
      'cache-dir': opt.string(),
      'no-sandbox': opt.flag(),
      'summary-json': opt.string(),
      'tree-limits': opt.choice(['auto', ...TREE_MECHANISMS, 'off'] as const, 'auto'),
      'explain-limits': opt.flag(),
      judge: opt.string(),
      normalise: opt.choice(NORMALISATIONS, 'coreb'),
      compare: opt.string(),
    });
    const treeLimits = values['tree-limits'];
    if (values['explain-limits']) {
      ctx.stdout.write(explainLimits(treeLimits));
      return 0;
    }
    const need = (name: 'problems' | 'candidates' | 'out'): string => {
      const v = values[name];
      if (v === undefined || v === '') throw new CorebError('USAGE', `coreb exec: --${name} FILE is required; see \`coreb exec --help\``);
      return resolve(ctx.cwd, v);
    };
    const problemsFile = need('problems');
    const candidatesFile = need('candidates');
    const outFile = need('out');
    if (statSync(outFile, { throwIfNoEntry: false })?.isDirectory() === true) {
      throw new CorebError(
        'USAGE',
        `coreb exec: --out ${outFile} is a directory; --out names the JSONL file to write (e.g. ${outFile}/verdicts.jsonl)`,
      );
    }
    const { comparator, tests, tolerance, jobs, 'timeout-ms': timeLimitMs, 'memory-mb': memoryLimitMb } = values;
    const sandbox = !values['no-sandbox'];
    // Unset: the judge's own default (<tmp>/coreb-judge).
    const cacheDir = values['cache-dir'] !== undefined ? resolve(ctx.cwd, values['cache-dir']) : ctx.env.COREB_JUDGE_CACHE;

    if (!sandbox) {
      ctx.stderr.write(
        '\n*** WARNING: --no-sandbox: the candidate programs run DIRECTLY ON THIS MACHINE as your user, with\n' +
          '*** network access, your files and no memory or process limits beyond a timer. Untrusted code can\n' +
          '*** delete or steal data. Use only on programs you wrote or trust. Results are marked sandboxed=false.\n\n',
      );
    }
    const { normalise, compare } = values;
    // The settings every judge takes; the local one adds its sandbox, cache and tree limits.
    const common = {
      jobs,
      comparator,
      tolerance,
      stopEarly: values['stop-early'],
      timeLimitMs,
      memoryLimitMb,
      normalise,
    };
    const local: LocalJudgeOptions = { ...common, sandbox, cacheDir, treeLimits };
    const choice = readJudgeOption(values.judge, ctx, local, common);
    const problems = await loadLcbProblems(problemsFile);
    const { programs, labels } = await loadCandidatesWithLabels(candidatesFile);
    if (compare === 'labels' && labels.size === 0) {
      throw new CorebError(
        'USAGE',
        `--compare labels: ${candidatesFile} has no released labels (meta_passed, meta.passed or passed on its rows); give a CoREB code_corpus`,
      );
    }
    const languages = [...new Set(programs.map((p) => p.language))];
    if (choice.local || compare === 'local') {
      const missing = missingPackages(languages, sandbox);
      if (missing.length > 0) {
        throw new CorebError(
          'TOOLCHAIN',
          `missing toolchain packages for ${languages.join(', ')}: ${missing.join(' ')}; install them with ` +
            `apt-get install -y ${missing.join(' ')}${choice.local ? ' (or judge remotely: --judge sandboxfusion:URL | judge0:URL | piston:URL)' : ''}`,
        );
      }
    }
    const judge = await choice.create();
    const testsOf = createLcbTestLookup(problems, tests);
    ctx.logger.info(
      `coreb exec: ${programs.length} program(s), ${problems.size} problem(s), comparator ${comparator}, ${jobs} job(s), judge ${String(judge.describe().backend)}` +
        `${normalise === 'official' ? ', official normalisation' : ''}${sandbox ? '' : ', NO SANDBOX'}`,
    );
    const summary = await runJudging({
      judge,
      testsOf,
      programs,
      outFile,
      progress: createProgressBar(ctx.stderr, ctx.interactive),
      logger: ctx.logger,
      signal: ctx.signal,
    });
    await judge.close();
    const stats = judge.stats();
    ctx.stdout.write(renderJudgeSummary(summary));
    ctx.stdout.write(
      `judged ${summary.judged}, resumed ${summary.resumed}, no problem ${summary.missingProblem}, no tests ${summary.noTests}; ` +
        `${stats.compiles} compile(s), ${stats.runs} run(s)${stats.peakProcesses === undefined ? '' : `, at most ${stats.peakProcesses} at once`}\n`,
    );
    let agreement: Record<string, AgreementRow[]> | undefined;
    if (compare !== undefined) {
      const ids = new Set(programs.map((p) => p.id));
      const judged = readJudgeRecords(outFile).filter((r) => ids.has(r.id));
      const mine = judged.map((r) => ({ id: r.id, language: r.language, passed: r.passed }));
      let reference: Map<string, boolean>;
      let name: string;
      if (compare === 'labels') {
        reference = labels;
        name = 'labels';
      } else if (compare === 'local') {
        if (choice.local) throw new CorebError('USAGE', '--compare local compares a remote --judge with the local judge; this run is local already');
        const localOut = outFile.replace(/\.jsonl$/, '') + '.local.jsonl';
        const localJudge = await readJudgeOption('local', ctx, local, {}).create();
        ctx.logger.info(`--compare local: judging the same programs with the local judge into ${localOut}`);
        await runJudging({
          judge: localJudge,
          testsOf,
          programs,
          outFile: localOut,
          progress: createProgressBar(ctx.stderr, ctx.interactive),
          logger: ctx.logger,
          signal: ctx.signal,
        });
        await localJudge.close();
        reference = new Map(
          readJudgeRecords(localOut)
            .filter((r) => ids.has(r.id))
            .map((r) => [r.id, r.passed]),
        );
        name = 'local';
      } else {
        const file = resolve(ctx.cwd, compare);
        reference = new Map(readJudgeRecords(file).map((r) => [r.id, r.passed]));
        name = basename(file);
      }
      agreement = { [name]: computeAgreement(mine, reference) };
      ctx.stdout.write(`\nagreement of passed with ${name === 'labels' ? 'the released labels (meta_passed)' : name}, per language:\n`);
      ctx.stdout.write(renderAgreement(agreement));
      const byVerdict = new Map<string, number>();
      for (const r of judged) {
        const ref = reference.get(r.id);
        if (ref === undefined || ref === r.passed) continue;
        const k = `${r.language} ${r.verdict} where ${name} ${ref ? 'passes' : 'fails'}`;
        byVerdict.set(k, (byVerdict.get(k) ?? 0) + 1);
      }
      if (byVerdict.size > 0) {
        ctx.stdout.write('disagreements by verdict:\n');
        const rows = [...byVerdict].sort((a, b) => b[1] - a[1]).map(([k, n]) => [String(n), k]);
        ctx.stdout.write(`${tableLines({ header: ['programs', 'verdict'], rows, align: ['right', 'left'], indent: '  ' }).join('\n')}\n`);
      }
    }
    if (values['summary-json'] !== undefined) {
      writeFileSync(
        resolve(ctx.cwd, values['summary-json']),
        JSON.stringify({ ...summary, judge: judge.describe(), stats, ...(agreement !== undefined ? { agreement } : {}) }, null, 2) + '\n',
      );
    }
    return 0;
  },
};
export default command;
