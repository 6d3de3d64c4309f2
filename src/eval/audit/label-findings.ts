/**
 * Label findings of `coreb audit` that read the qrels against something else the release holds:
 * queries whose identical texts carry different qrels (what a text-only retriever cannot get right),
 * relevance labels against the released pass/fail verdicts, and what two releases share. Pure.
 */
import type { Doc, Query, RetrievalTask } from '../../core/dataset.js';
import type { CrossReleaseAudit, DuplicateQueryTexts, LabelVerdicts, VerdictCount } from '../../core/audit-report.js';
import { normalizeWhitespace } from './near-duplicates.js';

/** How a label becomes an nDCG gain: `strict` zeroes labels below the level (CoREB), `trec` keeps them (BEIR). */
export interface GainRule {
  ndcg: 'strict' | 'trec';
  relevanceLevel: number;
}

const DISCOUNT = Array.from({ length: 10 }, (_, i) => 1 / Math.log2(i + 2));

function gainOf(label: number, rule: GainRule): number {
  if (label <= 0) return 0;
  return rule.ndcg === 'strict' && label < rule.relevanceLevel ? 0 : label;
}

/** Gains of one query's judged documents (positive gains only). */
function gains(labels: ReadonlyMap<string, number> | undefined, rule: GainRule): Map<string, number> {
  const out = new Map<string, number>();
  for (const [d, l] of labels ?? []) {
    const g = gainOf(l, rule);
    if (g > 0) out.set(d, g);
  }
  return out;
}

/** Ideal DCG@10 of a query's gains. */
function idealDcg(g: ReadonlyMap<string, number>): number {
  const sorted = [...g.values()].sort((a, b) => b - a);
  let s = 0;
  for (let i = 0; i < Math.min(10, sorted.length); i++) s += sorted[i] * DISCOUNT[i];
  return s;
}

/** Two qrels equal: the same documents with the same labels. */
function sameQrels(a: ReadonlyMap<string, number> | undefined, b: ReadonlyMap<string, number> | undefined): boolean {
  if ((a?.size ?? 0) !== (b?.size ?? 0)) return false;
  for (const [d, l] of a ?? []) if (b?.get(d) !== l) return false;
  return true;
}

/**
 * The best nDCG@10 each member of a group can have when all share one ranking, maximising their
 * sum: documents ordered by Σ_members gain / IDCG (then id); by the rearrangement inequality this
 * ordering is optimal, since each position's contribution is its discount times that weight.
 */
export function sharedRankingNdcg10(members: ReadonlyArray<ReadonlyMap<string, number>>): number[] {
  const ideal = members.map(idealDcg);
  const weight = new Map<string, number>();
  members.forEach((g, i) => {
    if (ideal[i] === 0) return;
    for (const [d, v] of g) weight.set(d, (weight.get(d) ?? 0) + v / ideal[i]);
  });
  const ranking = [...weight.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, 10)
    .map(([d]) => d);
  return members.map((g, i) => {
    if (ideal[i] === 0) return 0;
    let dcg = 0;
    ranking.forEach((d, p) => {
      dcg += (g.get(d) ?? 0) * DISCOUNT[p];
    });
    return dcg / ideal[i];
  });
}

/** {@link DuplicateQueryTexts} of one task's queries (exact text equality). */
export function duplicateQueryTexts(task: Pick<RetrievalTask, 'queries' | 'qrels'>, rule: GainRule): DuplicateQueryTexts {
  const byText = new Map<string, Query[]>();
  for (const q of task.queries) {
    const g = byText.get(q.text);
    if (g === undefined) byText.set(q.text, [q]);
    else g.push(q);
  }
  // Every query's ceiling: 1 with a relevant document, 0 without, unless its group conflicts.
  const ceiling = new Map<string, number>();
  for (const q of task.queries) ceiling.set(q.id, idealDcg(gains(task.qrels.get(q.id), rule)) > 0 ? 1 : 0);
  let groups = 0;
  let inGroups = 0;
  let conflictingGroups = 0;
  const conflicting = new Set<string>();
  const examples: DuplicateQueryTexts['examples'] = [];
  for (const [text, members] of byText) {
    if (members.length < 2) continue;
    groups++;
    inGroups += members.length;
    const first = task.qrels.get(members[0].id);
    if (members.every((m) => sameQrels(task.qrels.get(m.id), first))) continue;
    conflictingGroups++;
    for (const m of members) conflicting.add(m.id);
    const best = sharedRankingNdcg10(members.map((m) => gains(task.qrels.get(m.id), rule)));
    members.forEach((m, i) => ceiling.set(m.id, best[i]));
    const flat = text.replace(/\s+/g, ' ').trim();
    if (examples.length < 3)
      examples.push({ text: flat.length > 80 ? `${flat.slice(0, 79)}…` : flat, queries: members.map((m) => [m.id, m.subtask ?? '']) });
  }
  const bySubtask: DuplicateQueryTexts['bySubtask'] = {};
  const sums = new Map<string, number>();
  for (const q of task.queries) {
    const s = q.subtask ?? '(none)';
    const slot = (bySubtask[s] ??= { queries: 0, conflicting: 0, ceilingNdcg10: 0 });
    slot.queries++;
    if (conflicting.has(q.id)) slot.conflicting++;
    sums.set(s, (sums.get(s) ?? 0) + (ceiling.get(q.id) ?? 0));
  }
  for (const [s, slot] of Object.entries(bySubtask)) slot.ceilingNdcg10 = (sums.get(s) ?? 0) / slot.queries;
  let total = 0;
  for (const v of ceiling.values()) total += v;
  return {
    groups,
    queries: inGroups,
    conflictingGroups,
    conflictingQueries: conflicting.size,
    bySubtask,
    ceilingNdcg10: task.queries.length > 0 ? total / task.queries.length : 0,
    examples,
  };
}

/** The declared language of a document (`language`, or a string `meta.language`). */
function languageOf(d: Doc): string {
  if (d.language !== undefined) return d.language;
  const m = d.meta?.language;
  return typeof m === 'string' ? m : '(unknown)';
}

function emptyCount(): VerdictCount & { seen: Set<string>; langSeen: Map<string, Set<string>> } {
  return { judgments: 0, programs: 0, byLanguage: {}, examples: [], seen: new Set(), langSeen: new Map() };
}

/**
 * {@link LabelVerdicts} of a task whose corpus documents carry a boolean `meta.passed`; null when
 * none does.
 */
export function labelVerdicts(task: Pick<RetrievalTask, 'queries' | 'qrels' | 'corpus'>, level: number): LabelVerdicts | null {
  const byId = new Map<string, Doc>();
  for (const d of task.corpus) if (typeof d.meta?.passed === 'boolean') byId.set(d.id, d);
  if (byId.size === 0) return null;
  const failing = emptyCount();
  const passing = emptyCount();
  const add = (c: ReturnType<typeof emptyCount>, q: string, d: Doc) => {
    c.judgments++;
    c.seen.add(d.id);
    const lang = languageOf(d);
    const slot = (c.byLanguage[lang] ??= { judgments: 0, programs: 0 });
    slot.judgments++;
    let ls = c.langSeen.get(lang);
    if (ls === undefined) c.langSeen.set(lang, (ls = new Set()));
    ls.add(d.id);
    slot.programs = ls.size;
    if (c.examples.length < 5) c.examples.push([q, d.id]);
  };
  for (const q of task.queries) {
    for (const [docId, label] of task.qrels.get(q.id) ?? []) {
      const d = byId.get(docId);
      if (d === undefined) continue;
      if (label >= level && d.meta?.passed === false) add(failing, q.id, d);
      else if (label > 0 && label < level && d.meta?.passed === true) add(passing, q.id, d);
    }
  }
  const done = (c: ReturnType<typeof emptyCount>): VerdictCount => ({
    judgments: c.judgments,
    programs: c.seen.size,
    byLanguage: Object.fromEntries(Object.entries(c.byLanguage).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    examples: c.examples,
  });
  return { level, relevantFailing: done(failing), belowLevelPassing: done(passing) };
}

/** One side of {@link crossReleaseDuplicates}: corpora by name and queries by task. */
export interface ReleaseSide {
  dir: string;
  split: string;
  corpora: ReadonlyMap<string, readonly Doc[]>;
  queries: ReadonlyMap<string, readonly Query[]>;
}

/**
 * What release `a` shares with release `b`: per corpus the documents with the same id and with
 * the same whitespace-normalised text (and of those, how many under none of the ids that text has
 * in `b`), per task the
 * queries whose exact text is a query of that task in `b`.
 */
export function crossReleaseDuplicates(a: ReleaseSide, b: ReleaseSide): CrossReleaseAudit {
  const corpora: CrossReleaseAudit['corpora'] = {};
  for (const [name, docs] of a.corpora) {
    const other = b.corpora.get(name) ?? [];
    const ids = new Set(other.map((d) => d.id));
    const texts = new Map<string, string[]>();
    for (const d of other) {
      const t = normalizeWhitespace(d.text);
      if (t === '') continue;
      const ids = texts.get(t);
      if (ids === undefined) texts.set(t, [d.id]);
      else ids.push(d.id);
    }
    let sameId = 0;
    let sameText = 0;
    let otherId = 0;
    const examples: Array<[string, string]> = [];
    for (const d of docs) {
      if (ids.has(d.id)) sameId++;
      const match = texts.get(normalizeWhitespace(d.text));
      if (match === undefined) continue;
      sameText++;
      if (!match.includes(d.id)) otherId++;
      if (examples.length < 5) examples.push([d.id, match.includes(d.id) ? d.id : match[0]]);
    }
    corpora[name] = { documents: docs.length, otherDocuments: other.length, sameId, sameText, sameTextOtherId: otherId, examples };
  }
  const queries: CrossReleaseAudit['queries'] = {};
  for (const [task, qs] of a.queries) {
    const other = b.queries.get(task) ?? [];
    const texts = new Map<string, string>();
    for (const q of other) if (!texts.has(q.text)) texts.set(q.text, q.id);
    let same = 0;
    const examples: Array<[string, string]> = [];
    for (const q of qs) {
      const match = texts.get(q.text);
      if (match === undefined) continue;
      same++;
      if (examples.length < 5) examples.push([q.id, match]);
    }
    queries[task] = { queries: qs.length, otherQueries: other.length, sameText: same, examples };
  }
  return { dataset: { dir: b.dir, split: b.split }, corpora, queries };
}
