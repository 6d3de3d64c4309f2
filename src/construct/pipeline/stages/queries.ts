/** Stage `queries`: search queries per problem, query type and variant (language-agnostic and each passing language). */
import { CorebError } from '../../../core/errors.js';
import type { ExecLanguage } from '../../../core/execution.js';
import type { LcbProblem } from '../../../dataset/lcb.js';
import type { AuthoredProblem } from '../../mini-authored.js';
import { parseSearchQueriesReply, searchVariantKey } from '../contracts.js';
import { renderMessages } from '../prompts.js';
import { similarProblems, similarProblemsByEmbedding } from '../similar.js';
import type { RewriteRow, QueriesRow, SearchQueryKind } from '../types.js';
import { languagePrompt } from '../../../sandbox/languages/index.js';
import { ask, poolStage, modelStage, need, type Ctx } from '../context.js';

/**
 * The search-query types of the official query generation, with what each asks the writer to
 * focus on. One request per problem and type covers every variant (`retro_any` and `retro_<lang>`
 * for each language with a passing program).
 */
export const SEARCH_QUERY_KINDS = {
  title_search: 'the core problem names and key concepts unique to the target problem',
  description_search: 'the requirements and functionality specific to the target problem',
  algorithm_search: "the algorithms, data structures and optimisation techniques specific to the target problem's solution",
} as const satisfies Record<SearchQueryKind, string>;

export type { SearchQueryKind };

/** The released `sub_query_type` of each type, as in the official release (title searches are filed as `algorithm_search`). */
export const SEARCH_SUB_QUERY_TYPE: Readonly<Record<SearchQueryKind, string>> = {
  title_search: 'algorithm_search',
  description_search: 'description_search',
  algorithm_search: 'algorithm_search',
};

/** The problem block of the queries prompt (the official runner's layout). */
export function queryProblemBlock(
  id: string,
  title: string,
  statement: string,
  difficulty: string,
  languages: readonly string[],
  maxChars?: number,
): string {
  const text = maxChars !== undefined && statement.length > maxChars ? statement.slice(0, maxChars) + '…' : statement;
  return [
    '**Problem:**',
    `ID: ${id}`,
    `Title: ${title}`,
    `Description: ${text.trim()}`,
    `Difficulty: ${difficulty || 'unknown'}`,
    `Available Languages: ${languages.map((l) => languagePrompt(l).name).join(', ') || 'none'}`,
  ].join('\n');
}

async function stageQueries(
  ctx: Ctx,
  ready: Array<{ p: LcbProblem; rw: RewriteRow }>,
  passing: ReadonlyMap<string, readonly ExecLanguage[]>,
): Promise<QueriesRow[]> {
  const model = ctx.o.models.queryWriter ?? ctx.o.models.rewriter;
  const count = ctx.o.queriesPerVariant ?? 2;
  const kinds = Object.keys(SEARCH_QUERY_KINDS) as SearchQueryKind[];
  const docs = ready.map(({ p, rw }) => ({ id: p.questionId, text: `${rw.title ?? ''}\n${rw.statement ?? ''}` }));
  const embedder = ctx.o.models.similarityEmbedder;
  const similar = embedder !== undefined ? await similarProblemsByEmbedding(docs, embedder, ctx.signal) : similarProblems(docs);
  const byId = new Map(ready.map((r) => [r.p.questionId, r]));
  const block = (id: string, maxChars?: number): string => {
    const r = byId.get(id) as { p: LcbProblem; rw: RewriteRow };
    return queryProblemBlock(id, r.rw.title ?? '', r.rw.statement ?? '', r.p.difficulty ?? '', passing.get(id) ?? [], maxChars);
  };
  // One job per problem and query type; a problem without a passing program gets no search query (it could have no positive).
  const jobs = ready.flatMap(({ p }) => ((passing.get(p.questionId) ?? []).length === 0 ? [] : kinds.map((kind) => ({ p, kind }))));
  const answers: Array<{ id: string; kind: SearchQueryKind; value?: Record<string, string[]>; error?: string }> = await poolStage(
    ctx,
    'queries',
    jobs,
    [model],
    async ({ p, kind }) => {
      const languages = ['any', ...(passing.get(p.questionId) ?? [])];
      const keys = languages.map(searchVariantKey);
      const messages = renderMessages(ctx.prompts, 'queries', {
        count: String(count),
        queryType: kind,
        queryTypeFocus: SEARCH_QUERY_KINDS[kind],
        target: block(p.questionId),
        similarProblems: (similar.get(p.questionId) ?? []).map((id) => block(id, 500)).join('\n\n'),
        variants: languages
          .map((l) =>
            l === 'any'
              ? `- ${searchVariantKey(l)}: language-agnostic queries (no programming language named)`
              : `- ${searchVariantKey(l)}: queries for a ${languagePrompt(l).name.replace(/ \(.*\)$/, '')} solution (name the language)`,
          )
          .join('\n'),
        example: JSON.stringify({ queries: Object.fromEntries(keys.map((k) => [k, Array.from({ length: count }, () => '...')])) }),
        title: byId.get(p.questionId)?.rw.title ?? '',
        statement: byId.get(p.questionId)?.rw.statement ?? '',
      });
      const r = await ask(ctx, 'queries', `${p.questionId}/${kind}`, model, messages, (t) => parseSearchQueriesReply(t, keys, count));
      ctx.progress.tick();
      return 'value' in r ? { id: p.questionId, kind, value: r.value } : { id: p.questionId, kind, error: r.error };
    },
  );
  return ready.map(({ p }) => {
    const row: QueriesRow = { id: p.questionId, queries: [], variants: [] };
    const errors: string[] = [];
    for (const a of answers.filter((x) => x.id === p.questionId)) {
      if (a.value === undefined) {
        errors.push(`${a.kind}: ${a.error}`);
        continue;
      }
      for (const language of ['any', ...(passing.get(p.questionId) ?? [])]) {
        for (const q of a.value[searchVariantKey(language)] ?? []) {
          row.queries.push(q);
          row.variants?.push({ type: a.kind, language });
        }
      }
    }
    if (errors.length > 0) row.failed = errors.join('; ');
    return row;
  });
}

/** The search queries of a queries row for the release (query, type, released sub type, language). */
export function searchQueriesOf(row: QueriesRow | undefined): AuthoredProblem['searchQueries'] {
  if (row === undefined) return [];
  const variants = row.variants ?? [];
  if (variants.length !== row.queries.length) {
    throw new CorebError(
      'VALIDATION',
      `work/queries.jsonl: problem ${row.id} has ${row.queries.length} queries but ${variants.length} variants; an edit must keep both lists aligned (rerun the queries stage to rebuild them)`,
    );
  }
  return row.queries.map((text, i) => ({
    type: variants[i].type,
    text,
    language: variants[i].language,
    subQueryType: SEARCH_SUB_QUERY_TYPE[variants[i].type] ?? variants[i].type,
  }));
}

/** Stage `queries` behind the stage table (after `execute`: the variants depend on the verdicts). */
export const queries = modelStage<QueriesRow>(
  'queries',
  (ctx, work) => stageQueries(ctx, need(work, 'ready', 'queries'), need(work, 'passing', 'queries')),
  (work, rows) => {
    work.queries = new Map(rows.map((r) => [r.id, r]));
  },
);
