/** Stage `execute`: every program judged in the sandbox on its problem's tests (resumable; verdicts cached). */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CorebError } from '../../../core/errors.js';
import type { Program, TestCase } from '../../../core/execution.js';
import { openJsonFileStore, VERDICT_CACHE_LAYOUT } from '../../../cache/json-file-store.js';
import { judgeKey, runJudging, type JudgeRecord } from '../../../sandbox/judge-run.js';
import type { BuildWork, SolveRow } from '../types.js';
import { need, type BuildStageModule, type Ctx } from '../context.js';
import { programId, programsOf } from './solve.js';

async function stageExecute(ctx: Ctx, solutions: SolveRow[], testsOf: Map<string, TestCase[]>): Promise<Map<string, JudgeRecord>> {
  if (ctx.o.judge === undefined) throw new CorebError('USAGE', 'the execute stage needs a judge');
  const judge = await ctx.o.judge();
  try {
    const programs = programsOf(solutions);
    const outFile = join(ctx.outDir, 'work', 'execute.jsonl');
    const cache =
      ctx.o.cacheDir === undefined
        ? undefined
        : openJsonFileStore<JudgeRecord>(ctx.o.cacheDir, VERDICT_CACHE_LAYOUT, (v, key) => (v as JudgeRecord | null)?.key === key);
    const summary = await runJudging({
      judge,
      testsOf: (id) => testsOf.get(id),
      programs,
      outFile,
      concurrency: ctx.concurrency * 2,
      progress: ctx.progress,
      logger: ctx.logger,
      signal: ctx.signal,
      ...(cache !== undefined ? { store: { get: (key: string) => cache.get(key), put: (rec: JudgeRecord) => cache.put(rec.key, rec) } } : {}),
    });
    ctx.judging = { judged: summary.judged, fromCache: summary.fromStore, resumed: summary.resumed };
    return executeRecords(ctx.outDir, programs, testsOf, judge.describe());
  } finally {
    await judge.close();
  }
}

/** The judge's records of `programs`, matched by their resume key (code, tests, judge settings). */
export function executeRecords(
  outDir: string,
  programs: Program[],
  testsOf: Map<string, TestCase[]>,
  settings: Record<string, unknown>,
): Map<string, JudgeRecord> {
  const { jobs: _jobs, ...keySettings } = settings;
  const byKey = new Map<string, JudgeRecord>();
  const file = join(outDir, 'work', 'execute.jsonl');
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const rec = JSON.parse(line) as JudgeRecord;
      byKey.set(rec.key, rec);
    }
  }
  const out = new Map<string, JudgeRecord>();
  for (const p of programs) {
    const rec = byKey.get(judgeKey(p, testsOf.get(p.problemId) ?? [], keySettings));
    if (rec !== undefined) out.set(p.id, rec);
  }
  return out;
}

/** Adds the verdicts and, per problem, the languages with a passing program. */
function recordVerdicts(ctx: Ctx, work: BuildWork, records: Map<string, JudgeRecord>): void {
  const solutions = need(work, 'solutions', 'execute');
  const unjudged = programsOf(solutions).filter((p) => !records.has(p.id));
  if (unjudged.length > 0) {
    throw new CorebError('NOT_FOUND', `${unjudged.length} program(s) have no execution result (e.g. ${unjudged[0].id}); run the execute stage`);
  }
  work.records = records;
  work.passing = new Map(
    need(work, 'ready', 'execute').map(({ p }) => {
      const langs = new Set(
        solutions.filter((s) => s.id === p.questionId && s.code !== undefined && records.get(programId(s))?.passed === true).map((s) => s.language),
      );
      return [p.questionId, ctx.languages.filter((l) => langs.has(l))];
    }),
  );
}

/** Stage `execute` behind the stage table: its journal is `work/execute.jsonl`, written as it judges. */
export const execute: BuildStageModule = {
  name: 'execute',
  async run(ctx, work) {
    recordVerdicts(ctx, work, await stageExecute(ctx, need(work, 'solutions', 'execute'), need(work, 'testsOf', 'execute')));
  },
  async resume(ctx, work) {
    if (ctx.o.judge === undefined) throw new CorebError('USAGE', 'reading execution results needs the judge settings');
    const judge = await ctx.o.judge();
    try {
      recordVerdicts(
        ctx,
        work,
        executeRecords(ctx.outDir, programsOf(need(work, 'solutions', 'execute')), need(work, 'testsOf', 'execute'), judge.describe()),
      );
    } finally {
      await judge.close();
    }
  },
};
