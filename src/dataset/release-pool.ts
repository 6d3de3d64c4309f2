/**
 * Several releases as one, for the statistics the CoREB paper reports over both of its releases
 * (e.g. "19 tokens" per search query is v202602's 25.0 and v202603's 12.7 pooled): every row of
 * every release, ids prefixed with the release's split so none collide, so the same counting code
 * gives pooled counts (summed), means (weighted by items) and medians (of the pooled values).
 */
import type { Release, TaskName } from '../core/dataset.js';
import type { DatasetStats, ReleaseTokenStats, TokenMean, VerifiedByModelLanguage } from '../core/eval-results.js';
import { TASKS } from '../core/dataset.js';

/** The split of a pool: the releases' splits joined by `+` (`release_v2602+release_v2603`). */
export function pooledSplit(releases: readonly Pick<Release, 'split'>[]): string {
  return releases.map((r) => r.split).join('+');
}

/**
 * One release holding every row of `releases`, each id (code, text, query, qrels and anchor ids)
 * prefixed with `SPLIT/`; seed-problem ids are kept, so a problem in two releases counts once.
 * The inputs are not modified.
 */
export function poolReleases(releases: readonly Release[]): Release {
  const tasks = Object.fromEntries(TASKS.map((t) => [t, { queries: [], qrels: [] }])) as unknown as Release['tasks'];
  const pool: Release = { dir: releases.map((r) => r.dir).join(' + '), split: pooledSplit(releases), codeCorpus: [], textCorpus: [], tasks };
  for (const r of releases) {
    const id = (x: string) => `${r.split}/${x}`;
    const maybe = (x: string | null | undefined) => (x == null ? x : id(x));
    for (const c of r.codeCorpus) pool.codeCorpus.push({ ...c, codeId: id(c.codeId) });
    for (const t of r.textCorpus) {
      pool.textCorpus.push({
        ...t,
        textId: id(t.textId),
        meta: { ...t.meta, ...(t.meta.originalTextId != null ? { originalTextId: id(t.meta.originalTextId) } : {}) },
      });
    }
    for (const name of Object.keys(r.tasks) as TaskName[]) {
      const into = (pool.tasks[name] ??= { queries: [], qrels: [] });
      for (const q of r.tasks[name].queries) {
        into.queries.push({
          ...q,
          queryId: id(q.queryId),
          ...(q.textId !== undefined ? { textId: maybe(q.textId) } : {}),
          meta: { ...q.meta, ...(q.meta.anchorCodeId !== undefined ? { anchorCodeId: id(q.meta.anchorCodeId) } : {}) },
        });
      }
      for (const x of r.tasks[name].qrels) into.qrels.push({ ...x, queryId: id(x.queryId), docId: id(x.docId) });
    }
  }
  return pool;
}

/**
 * The descriptive statistics of several releases pooled from each one's: every token mean weighted
 * by its items (exactly the mean over all items), verified-correct counts summed.
 */
export function poolDatasetStats(stats: readonly DatasetStats[]): DatasetStats {
  const pool = (pick: (t: ReleaseTokenStats) => Record<string, TokenMean>): Record<string, TokenMean> => {
    const sums = new Map<string, { items: number; tokens: number }>();
    for (const s of stats) {
      for (const [k, m] of Object.entries(pick(s.tokens))) {
        const x = sums.get(k) ?? { items: 0, tokens: 0 };
        x.items += m.items;
        x.tokens += m.items * m.meanTokens;
        sums.set(k, x);
      }
    }
    return Object.fromEntries(
      [...sums.keys()].sort().map((k) => [k, { items: sums.get(k)!.items, meanTokens: sums.get(k)!.tokens / sums.get(k)!.items }]),
    );
  };
  const verified: VerifiedByModelLanguage = {};
  for (const s of stats) {
    for (const [model, langs] of Object.entries(s.verified)) {
      for (const [lang, c] of Object.entries(langs)) {
        const cell = ((verified[model] ??= {})[lang] ??= { programs: 0, passed: 0 });
        cell.programs += c.programs;
        cell.passed += c.passed;
      }
    }
  }
  return {
    tokens: {
      encoding: 'cl100k_base',
      querySubtasks: pool((t) => t.querySubtasks),
      queryTasks: pool((t) => t.queryTasks),
      queryVariants: pool((t) => t.queryVariants),
      codeCorpus: pool((t) => t.codeCorpus),
      textCorpus: pool((t) => t.textCorpus),
    },
    verified,
  };
}
