/** Stage `release`: the 8 tables, the Hub layout, problems.jsonl and the manifest. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatModel } from '../../../core/chat.js';
import { RELEASE_TABLES, type ReleaseTable } from '../../../core/dataset.js';
import type { ExecLanguage } from '../../../core/execution.js';
import { saveAtomic, saveFileAtomic, saveLinesAtomic } from '../../../dataset/atomic-write.js';
import { saveHubRelease } from '../../../dataset/parquet-write.js';
import type { LcbProblem } from '../../../dataset/lcb.js';
import type { PlannedRelease } from '../../mini-release.js';
import { renderWireRow } from '../../wire-row.js';
import { REVIEW_FILE, summarizeReview } from '../../review/decisions.js';
import { SIMILAR_PROBLEMS_K, SIMILAR_PROBLEMS_MIN_SCORE } from '../similar.js';
import { NEAR_DUPLICATE_STATEMENTS } from '../../problem-selection.js';
import type { BuildWork, StageUsage, RewriteRow, TestsRow } from '../types.js';
import type { BuildStageModule } from '../context.js';
import { BUILD_STAGES } from '../types.js';
import { TESTS_BATCH } from './tests.js';
import { SEARCH_QUERY_KINDS } from './queries.js';
import { need, modelLabel, type Ctx } from '../context.js';

/** The problems.jsonl row of a rewritten problem (LiveCodeBench layout, tests as JSON strings). */
export function problemRow(p: LcbProblem, rw: RewriteRow, tests: TestsRow): Record<string, unknown> {
  return {
    question_id: p.questionId,
    question_title: rw.title,
    question_content: rw.statement,
    platform: p.platform,
    contest_id: p.contestId ?? '',
    contest_date: p.contestDate ?? '',
    difficulty: p.difficulty ?? '',
    starter_code: rw.starter_code ?? '',
    public_test_cases: JSON.stringify(tests.public_tests),
    private_test_cases: JSON.stringify(tests.private_tests),
    metadata: JSON.stringify(p.metadata),
    original_title: p.title,
  };
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** Counts of the release in the shapes of the paper's tables. */
export function paperCounts(plan: PlannedRelease, problems: number, models: string[], languages: readonly ExecLanguage[]): Record<string, unknown> {
  const code = plan.tables.code_corpus;
  const text = plan.tables.text_corpus;
  const rel = (table: ReleaseTable): Record<string, number> => {
    const out: Record<string, number> = { '2': 0, '1': 0 };
    for (const r of plan.tables[table]) out[String(r.relevance)] = (out[String(r.relevance)] ?? 0) + 1;
    return out;
  };
  const composition: Record<string, Record<string, { total: number; passed: number }>> = {};
  for (const m of models) {
    composition[m] = {};
    for (const l of languages) {
      const rows = code.filter((r) => r.model === m && r.language === l);
      composition[m][l] = { total: rows.length, passed: rows.filter((r) => r.meta_passed === true).length };
    }
  }
  const passed = code.filter((r) => r.meta_passed === true).length;
  return {
    table2_release: {
      problems,
      code_corpus: code.length,
      text_corpus: text.length,
      text_originals: text.filter((r) => r.meta_is_noise_sample !== true).length,
      text_hard_negatives: text.filter((r) => r.meta_is_noise_sample === true).length,
      queries: {
        text2code: plan.tables.text2code_queries.length,
        code2code: plan.tables.code2code_queries.length,
        code2text: plan.tables.code2text_queries.length,
      },
    },
    table5_judgments: { text2code: rel('text2code_qrels'), code2code: rel('code2code_qrels'), code2text: rel('code2text_qrels') },
    table11_subtasks: plan.counts.subtasks,
    table12_code_composition: composition,
    a8_verified_correct: { passed, total: code.length, rate: code.length === 0 ? 0 : Math.round((10000 * passed) / code.length) / 10000 },
  };
}

/** The folder of a build's Hub layout (`DIR/hub/`): what `hf upload` publishes. */
export const HUB_DIR = 'hub';

/** Writes the release: the 8 tables, the Hub layout, problems.jsonl and the manifest (with the hub copy). */
async function writeRelease(ctx: Ctx, work: BuildWork): Promise<void> {
  const o = ctx.o;
  const { plan, authored, dropped, review, shape, roles } = need(work, 'release', 'release');
  const { problems, selection, releaseName, createdAt, started } = work;
  const rewrites = need(work, 'rewrites', 'release');
  const tests = need(work, 'tests', 'release');
  const abbrevs = need(work, 'abbrevs', 'release');
  const solutions = need(work, 'solutions', 'release');
  const queries = need(work, 'queries', 'release');
  const negatives = need(work, 'negatives', 'release');
  const now = o.now ?? (() => new Date());
  for (const t of RELEASE_TABLES) {
    await saveLinesAtomic(join(o.outDir, `${t}.jsonl`), plan.tables[t].map(renderWireRow), o.signal);
  }
  // The same tables in the Hub's layout (one config per table, one split per release), ready for `hf upload`.
  const split = `release_${releaseName}`;
  await saveHubRelease(join(o.outDir, HUB_DIR), split, plan.tables as unknown as Record<ReleaseTable, Record<string, unknown>[]>, {
    title: `CoREB ${split}`,
    license: 'apache-2.0',
    body: [
      `A CoREB release built by coreb (${o.command ?? 'coreb build'}): ${authored.length} problem(s), ${plan.counts.tables.code_corpus} programs, ${plan.counts.tables.text_corpus} texts.`,
      '',
      `Read it with \`coreb eval --data . --split ${split}\` (or \`datasets.load_dataset(REPO, CONFIG, split="${split}")\`). The build's manifest, with models, prompts, seeds and counts, is \`manifest/${split}.json\`.`,
      '',
      'Check the licence of the source problems before publishing derived texts.',
    ].join('\n'),
  });
  const released = new Set(authored.map((a) => a.id.slice(4)));
  await saveLinesAtomic(
    join(o.outDir, 'problems.jsonl'),
    problems
      .filter((p) => released.has(p.questionId))
      .map((p) => JSON.stringify(problemRow(p, rewrites.get(p.questionId) as RewriteRow, tests.get(p.questionId) as TestsRow))),
  );
  const labels = o.models.solvers.map(modelLabel);
  const describe = (m: ChatModel | undefined): Record<string, unknown> | null => (m === undefined ? null : m.describe());
  const judgeSettings =
    o.judge !== undefined
      ? await (async () => {
          const j = await o.judge!();
          const d = j.describe();
          await j.close();
          return d;
        })()
      : null;
  const manifest = {
    name: releaseName,
    split,
    hub: { dir: HUB_DIR, split, layout: '<table>/<split>-00000-of-00001.parquet, README.md (dataset card), manifest/<split>.json' },
    description:
      'A CoREB-format release built by `coreb build` from LiveCodeBench-format problems: counterfactual rewrites, LLM solutions judged in the sandbox, LLM queries and hard-negative descriptions, v2 qrels.',
    created_at: createdAt,
    generated_by: o.command ?? 'coreb build',
    dates: { first_run: createdAt, this_run_started: started, this_run_finished: now().toISOString() },
    source: {
      problems_file: o.problemsFile,
      problems_sha256: sha256(readFileSync(o.problemsFile, 'utf8')),
      problems_read: problems.length,
      limit: o.limit ?? null,
      selection: {
        from: selection.from,
        to: selection.to,
        exclude_releases: selection.excluded,
        problems_offered: selection.offered,
        dropped: selection.dropped,
        near_duplicate_rule: NEAR_DUPLICATE_STATEMENTS,
      },
    },
    models: {
      rewriter: describe(o.models.rewriter),
      abbreviator: describe(o.models.abbreviator ?? o.models.rewriter),
      solvers: o.models.solvers.map((s) => ({ label: modelLabel(s), ...s.describe() })),
      query_writer: describe(o.models.queryWriter ?? o.models.rewriter),
      negative_writer: describe(o.models.negativeWriter ?? o.models.rewriter),
    },
    prompts: { dir: o.prompts.isDefault ? 'default (coreb prompts/build)' : o.prompts.dir, sha256: o.prompts.hashes },
    shape: shape.name,
    shape_rules: {
      rules: shape.rules,
      search_cap_per_subtask: shape.searchCap,
      code2code_subtasks: shape.code2code.map((s) => `c2c_${s}`),
      anchor_language: shape.anchorLanguage,
      c2t_near_miss_texts: shape.c2tHardTexts,
      c2t_match: shape.c2tMatch,
      hard_negatives_per_code_query: o.maxHardNegatives ?? shape.maxHardNegatives,
      hard_negative_pick: shape.rules === 'official' ? 'seeded sample from tiers (official)' : 'id order (coreb-mini)',
      source: 'hq-bench/coreb coreb_runner/runners/query_corpus_dataset_maker.py (docs/build.md, "Release shape")',
    },
    roles: { primary_model: roles.primary, second_model: roles.secondary ?? null },
    seeds: { build: ctx.seed, negative_temperature_range: [0.85, 1.0] },
    languages: ctx.languages,
    settings: {
      contract_retries: ctx.contractRetries,
      concurrency_per_endpoint: ctx.concurrency,
      queries_per_variant: o.queriesPerVariant ?? 2,
      search_query_types: Object.keys(SEARCH_QUERY_KINDS),
      similar_problems: {
        ranking:
          o.models.similarityEmbedder !== undefined
            ? 'embedding cosine'
            : 'TF-IDF cosine (sublinear tf, smoothed idf, English stop words, s-stemming)',
        embedder: o.models.similarityEmbedder?.describe() ?? null,
        top_k: SIMILAR_PROBLEMS_K,
        min_score: SIMILAR_PROBLEMS_MIN_SCORE,
        chars_each: 500,
      },
      tests_batch: TESTS_BATCH,
    },
    judge: judgeSettings,
    tools: { node: process.version, ...(o.toolVersions ?? {}) },
    stages: Object.fromEntries(
      BUILD_STAGES.filter((s) => ctx.usage[s] !== undefined).map((s) => {
        const u = ctx.usage[s] as StageUsage;
        return [
          s,
          {
            replies: u.replies,
            calls_this_run: u.calls,
            input_tokens: u.inputTokens,
            output_tokens: u.outputTokens,
            contract_retries: u.contractRetries,
            failed: u.failed,
          },
        ];
      }),
    ),
    counts: paperCounts(plan, authored.length, labels, ctx.languages),
    tables: plan.counts.tables,
    review: {
      file: REVIEW_FILE,
      ...summarizeReview(
        review,
        problems.map((p) => p.questionId),
      ),
    },
    abbreviation_fallbacks: [...abbrevs.values()].filter((a) => a.fallback).map((a) => a.id),
    dropped_problems: dropped,
    failures: [
      ...[...rewrites.values()].filter((r) => r.failed !== undefined).map((r) => ({ stage: 'rewrite', item: r.id, error: r.failed })),
      ...[...tests.values()]
        .filter((r) => r.failed !== undefined && r.failed !== 'rewrite failed')
        .map((r) => ({ stage: 'tests', item: r.id, error: r.failed })),
      ...[...abbrevs.values()].filter((r) => r.failed !== undefined).map((r) => ({ stage: 'abbreviate', item: r.id, error: r.failed })),
      ...solutions
        .filter((r) => r.failed !== undefined)
        .map((r) => ({ stage: 'solve', item: `${r.id}/${r.language}`, model: r.model, error: r.failed })),
      ...[...queries.values()].filter((r) => r.failed !== undefined).map((r) => ({ stage: 'queries', item: r.id, error: r.failed })),
      ...negatives.filter((r) => r.failed !== undefined).map((r) => ({ stage: 'negatives', item: `${r.id}/${r.strategy}`, error: r.failed })),
    ],
    problems: authored.map((a) => a.id),
  };
  await saveFileAtomic(join(o.outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  await saveAtomic(join(o.outDir, HUB_DIR, 'manifest', `${split}.json`), JSON.stringify(manifest, null, 2) + '\n');
}

/** Stage `release` behind the stage table (local: written on every run that reaches it). */
export const release: BuildStageModule = { name: 'release', run: writeRelease, resume: writeRelease };
