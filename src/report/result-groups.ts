/**
 * Which numbers may stand side by side: results are grouped by (dataset identity, protocol and
 * measure semantics), so rows of different datasets or protocols never share a leaderboard or a
 * significance test, and groups of the same protocol on different releases are ordered by date
 * for the cross-release view. Pure.
 */
import {
  protocolFingerprint,
  taskFamily,
  type EvalResults,
  type ProtocolSemantics,
  type RetrieverResult,
  type TaskFamily,
} from '../core/eval-results.js';

export { protocolFingerprint };
import type { LoadedResults } from '../dataset/results-file.js';
import { retrieverIdentity } from '../dataset/results-store.js';
import { describedModel } from '../core/model-meta.js';
import { roundHalfEven } from '../core/round.js';

/** Results of one dataset under one protocol: the retrievers of every file that evaluated it so. */
export interface ReleaseGroup {
  /** Display label: the split (`release_v2602`), with the protocol when the split has several groups; unique. */
  label: string;
  /** The dataset split. */
  split: string;
  /** The protocol's name (`coreb`, `mteb`, `beir`). */
  protocol: string;
  /** The rows' task family: whole-corpus retrieval, or reranking fixed candidate lists (see `taskFamily`). */
  family: TaskFamily;
  /** The grouping key: split, dataset sha256, the protocol fingerprint and the task family. */
  key: string;
  /** The protocol fingerprint alone (groups with equal ones may be compared across releases). */
  protocolKey: string;
  files: LoadedResults[];
  retrievers: RetrieverResult[];
  /** Rows left out because an earlier file of the group has the same row (same identity, scoring and numbers). */
  duplicates: Array<{ name: string; file: string; sameAs: string }>;
  /** The first file's results (dataset identity, protocol, measures). */
  results: EvalResults;
}

/** The protocol fields whose values differ between two protocols, e.g. `relevanceLevel 2 vs 1`. */
export function protocolDifferences(a: ProtocolSemantics, b: ProtocolSemantics): string[] {
  const ra = a as unknown as Record<string, unknown>;
  const rb = b as unknown as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort();
  return keys.filter((k) => JSON.stringify(ra[k]) !== JSON.stringify(rb[k])).map((k) => `${k} ${JSON.stringify(ra[k])} vs ${JSON.stringify(rb[k])}`);
}

/**
 * Groups results files by (split, dataset sha256, protocol fingerprint, task family of the row),
 * in order of first appearance: a file's reranking rows (see `taskFamily`) form a group apart
 * from its retrieval rows. The same row in several files (same name and identity, scored on the same tasks,
 * depth and subtasks, with the same numbers: one run merged twice, or a results-store entry beside
 * the results file it came from) is kept once and listed in `duplicates`; otherwise a repeated name
 * gets ` (file N)`.
 */
export function groupResults(files: readonly LoadedResults[]): ReleaseGroup[] {
  const groups = new Map<string, ReleaseGroup>();
  const fingerprints = new Map<RetrieverResult, string>();
  const fileOf = new Map<RetrieverResult, string>();
  // Imported results (MTEB's files carry no dataset hash) join the group of their split and
  // protocol once every scored file has made its groups.
  const order = files.map((f, n) => ({ f, n }));
  const unhashed = (f: LoadedResults) => f.results.dataset.sha256.startsWith('mteb-');
  for (const { f, n } of [...order.filter((x) => !unhashed(x.f)), ...order.filter((x) => unhashed(x.f))]) {
    const protocolKey = protocolFingerprint(f.results.protocol);
    const split = f.results.dataset.split;
    // Rows of another task family (reranking fixed candidate lists) make a group of their own.
    const groupOf = (family: TaskFamily): ReleaseGroup => {
      let key = `${split}\u0000${f.results.dataset.sha256}\u0000${protocolKey}\u0000${family}`;
      if (unhashed(f)) {
        const host = [...groups.values()].find((g) => g.split === split && g.protocolKey === protocolKey && g.family === family);
        if (host !== undefined) key = host.key;
      }
      let g = groups.get(key);
      if (g === undefined) {
        const label = family === 'retrieval' ? split : `${split} · reranking`;
        g = {
          label,
          split,
          protocol: f.results.protocol.name,
          family,
          key,
          protocolKey,
          files: [],
          retrievers: [],
          duplicates: [],
          results: f.results,
        };
        groups.set(key, g);
      }
      if (!g.files.includes(f)) g.files.push(f);
      return g;
    };
    for (const r of f.results.retrievers) {
      const g = groupOf(taskFamily(r));
      const fp = rowFingerprint(r, f.results);
      const same = g.retrievers.find((x) => x.name === r.name && fingerprints.get(x) === fp);
      if (same !== undefined) {
        g.duplicates.push({ name: r.name, file: f.file, sameAs: fileOf.get(same) ?? '' });
        continue;
      }
      const taken = g.retrievers.some((x) => x.name === r.name);
      const row = taken ? { ...r, name: `${r.name} (file ${n + 1})` } : r;
      fingerprints.set(row, fp);
      fileOf.set(row, f.file);
      g.retrievers.push(row);
    }
  }
  // An imported row with a scored twin (same model, the same numbers at MTEB's 6 decimals: coreb's
  // own export read back) is shown once, as the scored row (it has per-query values).
  for (const g of groups.values()) {
    g.retrievers = g.retrievers.filter((r) => {
      if (r.imported === undefined) return true;
      const twin = g.retrievers.find((x) => x.imported === undefined && sameImportedNumbers(r, x));
      if (twin === undefined) return true;
      g.duplicates.push({ name: r.name, file: fileOf.get(r) ?? '', sameAs: `${fileOf.get(twin) ?? ''} (row ${twin.name}, equal numbers)` });
      return false;
    });
  }
  const out = [...groups.values()];
  // A split scored under several protocols: name the protocol; the same split with other data: number it.
  const protocols = new Map<string, Set<string>>();
  for (const g of out) protocols.set(g.split, (protocols.get(g.split) ?? new Set()).add(g.protocolKey));
  for (const g of out) if ((protocols.get(g.split)?.size ?? 0) > 1) g.label = `${g.label} · protocol ${g.protocol}`;
  const seen = new Map<string, number>();
  for (const g of out) {
    const c = seen.get(g.label) ?? 0;
    seen.set(g.label, c + 1);
    if (c > 0) g.label = `${g.label} #${c + 1}`;
  }
  return out;
}

/**
 * Why results form several leaderboards, one sentence per pair of groups that differ (empty for
 * one group): other dataset (split or content) or other protocol, naming the fields that differ.
 */
export function explainGroups(groups: readonly ReleaseGroup[]): string[] {
  if (groups.length < 2) return [];
  const first = groups[0];
  return groups.slice(1).map((g) => {
    const data =
      g.results.dataset.split !== first.results.dataset.split
        ? `another dataset (${g.split} vs ${first.split})`
        : g.results.dataset.sha256 !== first.results.dataset.sha256
          ? `the same split name with other data (sha256 ${g.results.dataset.sha256.slice(0, 12)} vs ${first.results.dataset.sha256.slice(0, 12)})`
          : '';
    const diff = protocolDifferences(g.results.protocol, first.results.protocol);
    const proto = diff.length > 0 ? `another protocol (${diff.join('; ')})` : '';
    return `${g.label} vs ${first.label}: ${[data, proto].filter((x) => x !== '').join(' and ')}`;
  });
}

/**
 * A release's place in time: the `vYYMM` of its split (`release_v2603` -> 2603), else the
 * `YYYYMM` / `YYYY-MM` it names, else NaN (then file order decides).
 */
export function releaseOrder(split: string): number {
  const v = /v(\d{4})(\d{2})?(?!\d)/.exec(split);
  if (v !== null) return v[2] !== undefined ? Number(v[1].slice(2) + v[2]) : Number(v[1]);
  const d = /(20\d{2})-?(\d{2})/.exec(split);
  if (d !== null) return Number(d[1].slice(2) + d[2]);
  return Number.NaN;
}

/**
 * A group's place in time, ms since the epoch: its release date (manifest) when the results record
 * one, else the first day of the month its split names (`release_v2603` -> 2026-03-01), else NaN.
 */
export function releaseTime(g: ReleaseGroup): number {
  const d = g.results.dataset.releaseDate;
  if (d !== undefined && !Number.isNaN(Date.parse(d))) return Date.parse(d);
  const yymm = releaseOrder(g.split);
  if (Number.isNaN(yymm)) return Number.NaN;
  return Date.UTC(2000 + Math.floor(yymm / 100), (yymm % 100) - 1, 1);
}

/**
 * Pairs of groups to compare across releases: groups under the same protocol on different
 * datasets, ordered by {@link releaseTime} (file order where unknown), each with the next one.
 */
export function crossReleasePairs(groups: readonly ReleaseGroup[]): Array<[ReleaseGroup, ReleaseGroup]> {
  const byProtocol = new Map<string, ReleaseGroup[]>();
  for (const g of groups) byProtocol.set(g.protocolKey, [...(byProtocol.get(g.protocolKey) ?? []), g]);
  const pairs: Array<[ReleaseGroup, ReleaseGroup]> = [];
  for (const list of byProtocol.values()) {
    const ordered = oldestFirst(list);
    for (let i = 1; i < ordered.length; i++) pairs.push([ordered[i - 1], ordered[i]]);
  }
  return pairs;
}

/** Groups oldest release first: by date, then by the month the split names, then in the order given. */
export function oldestFirst(groups: readonly ReleaseGroup[]): ReleaseGroup[] {
  const by = (a: number, b: number) => (Number.isNaN(a) || Number.isNaN(b) ? 0 : a - b);
  return groups
    .map((g, i) => ({ g, i, t: releaseTime(g), v: releaseOrder(g.split) }))
    .sort((x, y) => by(x.t, y.t) || by(x.v, y.v) || x.i - y.i)
    .map((x) => x.g);
}

/** What makes two rows of one dataset and protocol the same row: identity, scoring options and numbers. */
/**
 * Whether an imported row is a scored row read back from MTEB's format: the model names agree
 * (its model, or the model's last segment, is the row's name or the model it describes) and every
 * task value it has equals the scored value at MTEB's 6 decimals.
 */
function sameImportedNumbers(imported: RetrieverResult, scored: RetrieverResult): boolean {
  const model = imported.imported!.model;
  const names = new Set([scored.name, describedModel(scored.description)].filter((x): x is string => x !== undefined));
  if (!names.has(model) && !names.has(model.slice(model.lastIndexOf('/') + 1))) return false;
  const tasks = Object.keys(imported.tasks);
  if (tasks.length === 0 || !tasks.every((t) => scored.tasks[t] !== undefined)) return false;
  return tasks.every((t) =>
    Object.entries(imported.tasks[t].metrics).every(([m, v]) => {
      const w = scored.tasks[t].metrics[m];
      return typeof w === 'number' && roundHalfEven(w, 6) === v;
    }),
  );
}

function rowFingerprint(r: RetrieverResult, results: EvalResults): string {
  const o = results.options ?? ({} as Partial<EvalResults['options']>);
  return JSON.stringify({
    identity: retrieverIdentity(r),
    scoring: { depth: o.depth, tasks: o.tasks, subtasks: o.subtasks, measures: results.measures },
    overall: r.overall,
    taskMean: r.taskMean,
    // Where a run file was written is not part of the numbers.
    tasks: Object.fromEntries(Object.entries(r.tasks).map(([k, { runFile: _f, ...t }]) => [k, t])),
  });
}
