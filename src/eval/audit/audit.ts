/**
 * `coreb audit`: the paper's checks of a benchmark (§1, §B.12) run on any CoREB release or BEIR/CoIR
 * directory — qrels cardinality, aligned ids, lexical triviality under BM25, query lengths, label-proxy
 * fields; per corpus exact and near duplicates, declared languages a detector disputes, empty or
 * prose-only "code".
 */
import { resolve } from 'node:path';
import { TASK_CORPUS, TASKS, type Doc, type Query, type RetrievalTask, type TaskName } from '../../core/dataset.js';
import type { AuditReport, CorpusAudit, Distribution, LabelParity, LabelParityFinding, LanguageCheck, TaskAudit } from '../../core/audit-report.js';
import type { ProtocolSemantics } from '../../core/eval-results.js';
import { silentLogger, silentProgress, type Logger, type Progress } from '../../core/progress.js';
import type { RankedList } from '../../core/retrieval.js';
import { loadBeir } from '../../dataset/beir.js';
import { loadRelease } from '../../dataset/release.js';
import { releaseTasks } from '../../dataset/release-tasks.js';
import { createBm25Retriever } from '../../search/bm25.js';
import { beirIssues, releaseIssues } from '../dataset-issues.js';
import { findLabelProxies } from './label-proxies.js';
import { cppStrayMainCalls, OFFICIAL_HARNESS } from '../../sandbox/official-harness.js';
import { detectorAgrees, loadLanguageDetector, type LanguageDetector } from './language-detector.js';
import { findExactDuplicates, findNearDuplicates, type NearDuplicateOptions } from './near-duplicates.js';
import { crossReleaseDuplicates, duplicateQueryTexts, labelVerdicts, type ReleaseSide } from './label-findings.js';
import { resolveProtocol } from '../protocol.js';
import { detectDataLayout, failOnErrors } from '../eval-data.js';
import { scoreTask } from '../score.js';

/** Options of {@link runAudit}. */
export interface AuditOptions {
  /** A CoREB release or a BEIR directory. */
  data: string;
  /** Parquet release split or BEIR qrels split (default: the loaders'). */
  split?: string;
  /** Run the language detector over code documents. Default true. */
  languageCheck?: boolean;
  /** A detector to use instead of loading `@vscode/vscode-languagedetection` (tests). */
  detector?: LanguageDetector;
  /** Minimum detector confidence for a disagreement to count as confident. Default 0.5. */
  confidentAt?: number;
  /** Near-duplicate parameters (default: Jaccard >= 0.8 over 5-token shingles). */
  nearDuplicates?: NearDuplicateOptions;
  /** A second dataset (another release): the report then says what the two share (`crossRelease`). */
  against?: string;
  /** The second dataset's split, when it needs one. Default: the loaders'. */
  againstSplit?: string;
  signal?: AbortSignal;
  progress?: Progress;
  logger?: Logger;
}

/** Quantile with linear interpolation of sorted values. */
function quantile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** Summary of a list of numbers (all zero when empty). */
export function distribution(values: readonly number[]): Distribution {
  const s = [...values].sort((a, b) => a - b);
  const mean = s.length > 0 ? s.reduce((a, b) => a + b, 0) / s.length : 0;
  return { count: s.length, min: s[0] ?? 0, p10: quantile(s, 0.1), median: quantile(s, 0.5), mean, p90: quantile(s, 0.9), max: s[s.length - 1] ?? 0 };
}

/** The trailing number of an id (`q17` -> `17`, `d017` -> `17`), or null. */
export function idSuffix(id: string): string | null {
  const m = /(\d+)$/.exec(id);
  return m === null ? null : String(BigInt(m[1]));
}

const CODE_PUNCTUATION = /[(){}[\];=<>]/;

/** Loaded tasks and corpora of the dataset. */
interface AuditData {
  kind: 'coreb-release' | 'beir';
  split: string;
  tasks: Map<string, { task: RetrievalTask; corpus: string }>;
  corpora: Map<string, Doc[]>;
  protocol: ProtocolSemantics;
}

async function loadAuditData(dir: string, options: AuditOptions, logger: Logger): Promise<AuditData> {
  const layout = await detectDataLayout(dir);
  const tasks = new Map<string, { task: RetrievalTask; corpus: string }>();
  const corpora = new Map<string, Doc[]>();
  if (layout === 'beir') {
    const loaded = await loadBeir(dir, options.split !== undefined ? { split: options.split } : {});
    // The same rule as `coreb validate` and `coreb eval` (dataset-issues.ts).
    failOnErrors(dir, beirIssues(loaded), logger);
    const { task, split } = loaded;
    tasks.set(task.name, { task, corpus: 'corpus' });
    corpora.set('corpus', task.corpus);
    return { kind: 'beir', split, tasks, corpora, protocol: resolveProtocol('beir') };
  }
  const loaded = await loadRelease(dir, options.split !== undefined ? { split: options.split } : {});
  failOnErrors(dir, releaseIssues(loaded), logger);
  const { release } = loaded;
  const all = releaseTasks(release);
  for (const t of TASKS) {
    tasks.set(t, { task: all[t], corpus: TASK_CORPUS[t] });
    corpora.set(TASK_CORPUS[t], all[t].corpus);
  }
  return { kind: 'coreb-release', split: release.split, tasks, corpora, protocol: resolveProtocol('coreb') };
}

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('interrupted');
}

/** Share of queries whose rank-1 document has label >= level. */
function rank1Share(queries: readonly Query[], lists: ReadonlyMap<string, RankedList>, qrels: RetrievalTask['qrels'], level: number): number {
  let hits = 0;
  for (const q of queries) {
    const top = lists.get(q.id)?.docIds[0];
    if (top !== undefined && (qrels.get(q.id)?.get(top) ?? 0) >= level) hits++;
  }
  return queries.length > 0 ? hits / queries.length : 0;
}

/**
 * Audits a dataset. BM25 indexes each corpus once (title + text: no metadata field, so a label proxy
 * cannot help it) and ranks each task's queries to depth 10.
 */
export async function runAudit(options: AuditOptions): Promise<AuditReport> {
  const logger = options.logger ?? silentLogger;
  const progress = options.progress ?? silentProgress;
  const signal = options.signal;
  const dir = resolve(options.data);
  const data = await loadAuditData(dir, options, logger);
  const level = data.protocol.relevanceLevel;
  const bm25 = createBm25Retriever({ fields: ['title', 'text'] });
  const indexes = new Map<string, Awaited<ReturnType<typeof bm25.index>>>();
  const tasks: Record<string, TaskAudit> = {};
  for (const [name, { task, corpus }] of data.tasks) {
    checkAborted(signal);
    const labels: Record<string, number> = {};
    const relCounts: number[] = [];
    let one = 0;
    let aligned = 0;
    let identical = 0;
    let withRel = 0;
    const positives = new Set<string>();
    const judged = new Set<string>();
    for (const q of task.queries) {
      const m = task.qrels.get(q.id);
      let rel = 0;
      let isAligned = false;
      const qs = idSuffix(q.id);
      for (const [doc, label] of m ?? []) {
        labels[String(label)] = (labels[String(label)] ?? 0) + 1;
        judged.add(doc);
        if (label >= level) {
          rel++;
          positives.add(doc);
          if (qs !== null && idSuffix(doc) === qs) isAligned = true;
          if (doc === q.id) identical++;
        }
      }
      relCounts.push(rel);
      if (rel === 1) one++;
      if (rel > 0) withRel++;
      if (isAligned) aligned++;
    }
    const hist = { '0': 0, '1': 0, '2-10': 0, '>10': 0 };
    for (const c of relCounts) hist[c === 0 ? '0' : c === 1 ? '1' : c <= 10 ? '2-10' : '>10']++;
    // Lexical triviality.
    let index = indexes.get(corpus);
    if (index === undefined) {
      index = await bm25.index(task.corpus, { progress: prefixed(progress, `audit bm25 ${corpus}`), ...(signal ? { signal } : {}) });
      indexes.set(corpus, index);
    }
    const scored = task.queries.filter((q) => [...(task.qrels.get(q.id) ?? [])].some(([, l]) => l >= level));
    const anchored = data.protocol.anchorExclusion && name === 'code2code';
    const exclude = new Map<string, string[]>();
    for (const q of scored) {
      const ex: string[] = [];
      if (anchored && q.anchorId !== undefined) ex.push(q.anchorId);
      if (data.protocol.ignoreIdenticalIds) ex.push(q.id);
      if (ex.length > 0) exclude.set(q.id, ex);
    }
    const lists = await index.search(scored, 10, { exclude, progress: prefixed(progress, `audit bm25 ${name}`), ...(signal ? { signal } : {}) });
    const s = scoreTask({
      task: name,
      queries: scored,
      qrels: task.qrels,
      lists,
      protocol: { ...data.protocol, c2tMatchNegatives: 'include' },
      excludeAnchors: anchored,
      graded: false,
    });
    let ndcg = 0;
    for (const r of s.perQuery.values()) ndcg += r.metrics['ndcg@10'] ?? 0;
    // Label proxies among the task's corpus documents.
    const byId = new Map(task.corpus.map((d) => [d.id, d]));
    const pos = [...positives].map((id) => byId.get(id)).filter((d): d is Doc => d !== undefined);
    const negJudged = [...judged]
      .filter((id) => !positives.has(id))
      .map((id) => byId.get(id))
      .filter((d): d is Doc => d !== undefined);
    const proxies =
      negJudged.length >= 5
        ? findLabelProxies(pos, negJudged, 'judged-negatives')
        : findLabelProxies(
            pos,
            task.corpus.filter((d) => !judged.has(d.id)),
            'unjudged',
          );
    tasks[name] = {
      corpus,
      queries: task.queries.length,
      relevanceLevel: level,
      labels,
      relevantPerQuery: { ...distribution(relCounts), histogram: hist },
      oneToOneShare: task.queries.length > 0 ? one / task.queries.length : 0,
      alignedIdShare: withRel > 0 ? aligned / withRel : 0,
      identicalIdShare: withRel > 0 ? identical / withRel : 0,
      lexical: {
        retriever: bm25.describe(),
        queries: scored.length,
        rank1Share: rank1Share(scored, lists, task.qrels, level),
        ndcg10: s.perQuery.size > 0 ? ndcg / s.perQuery.size : 0,
      },
      queryLength: {
        chars: distribution(task.queries.map((q) => q.text.length)),
        words: distribution(task.queries.map((q) => q.text.split(/\s+/).filter((w) => w !== '').length)),
      },
      labelProxies: proxies,
      duplicateQueryTexts: duplicateQueryTexts(task, data.protocol),
      labelVerdicts: labelVerdicts(task, level),
    };
  }
  const corpora: Record<string, CorpusAudit> = {};
  let detector = options.detector;
  const ownDetector = detector === undefined;
  try {
    for (const [name, docs] of data.corpora) {
      checkAborted(signal);
      corpora[name] = await auditCorpus(docs, name, options, progress, async () => (detector ??= await loadLanguageDetector()));
    }
  } finally {
    if (ownDetector) detector?.dispose();
  }
  const report: AuditReport = { dataset: { kind: data.kind, dir, split: data.split }, tasks, corpora };
  if (options.against !== undefined) {
    const otherDir = resolve(options.against);
    const other = await loadAuditData(
      otherDir,
      { ...options, ...(options.againstSplit !== undefined ? { split: options.againstSplit } : { split: undefined }) },
      logger,
    );
    report.crossRelease = crossReleaseDuplicates(releaseSide(dir, data), releaseSide(otherDir, other));
  }
  return report;
}

function releaseSide(dir: string, data: AuditData): ReleaseSide {
  return { dir, split: data.split, corpora: data.corpora, queries: new Map([...data.tasks].map(([name, t]) => [name, t.task.queries])) };
}

function prefixed(inner: Progress, prefix: string): Progress {
  return { start: (label, total) => inner.start(`${prefix}: ${label}`, total), tick: (n) => inner.tick(n), done: () => inner.done() };
}

/** The declared language of a document (`language`, or a string `meta.language`), if any. */
function declaredLanguage(d: Doc): string | undefined {
  if (d.language !== undefined) return d.language;
  const m = d.meta?.language;
  return typeof m === 'string' ? m : undefined;
}

async function auditCorpus(
  docs: readonly Doc[],
  name: string,
  options: AuditOptions,
  progress: Progress,
  getDetector: () => Promise<LanguageDetector>,
): Promise<CorpusAudit> {
  const texts = docs.map((d) => d.text);
  const groups = findExactDuplicates(texts);
  const nd = options.nearDuplicates ?? {};
  const threshold = nd.threshold ?? 0.8;
  progress.start(`audit near-duplicates ${name}`, docs.length);
  const pairs = findNearDuplicates(texts, nd);
  progress.tick(docs.length);
  progress.done();
  const hasProblems = docs.some((d) => d.problemId !== undefined);
  const inPairs = new Set(pairs.flatMap((p) => [p.i, p.j]));
  const isCode = docs.some((d) => declaredLanguage(d) !== undefined);
  let languages: Record<string, number> | null = null;
  let empty = 0;
  let proseOnly = 0;
  let noLetters = 0;
  const noCode: string[] = [];
  for (const d of docs) {
    const t = d.text.trim();
    if (t === '') {
      empty++;
      if (noCode.length < 5) noCode.push(d.id);
      continue;
    }
    if (!isCode) continue;
    if (!CODE_PUNCTUATION.test(t)) {
      proseOnly++;
      if (noCode.length < 5) noCode.push(d.id);
    } else if (!/[A-Za-z]/.test(t)) {
      noLetters++;
      if (noCode.length < 5) noCode.push(d.id);
    }
  }
  let languageCheck: LanguageCheck | null = null;
  if (isCode) {
    languages = {};
    for (const d of docs) {
      const l = declaredLanguage(d);
      if (l !== undefined) languages[l] = (languages[l] ?? 0) + 1;
    }
    if (options.languageCheck ?? true)
      languageCheck = await checkLanguages(docs, await getDetector(), options.confidentAt ?? 0.5, progress, options.signal);
  }
  return {
    documents: docs.length,
    exactDuplicates: groups.reduce((s, g) => s + g.length - 1, 0),
    exactDuplicateGroups: groups.length,
    nearDuplicates: {
      method: `MinHash (${(nd.bands ?? 20) * (nd.rows ?? 5)} hashes, LSH ${nd.bands ?? 20} bands x ${nd.rows ?? 5} rows) over ${nd.shingleSize ?? 5}-token shingles, candidates kept at exact shingle Jaccard >= ${threshold}`,
      threshold,
      pairs: pairs.length,
      documents: inPairs.size,
      crossProblemPairs: hasProblems ? pairs.filter((p) => docs[p.i].problemId !== docs[p.j].problemId).length : null,
      examples: pairs.slice(0, 5).map((p) => [docs[p.i].id, docs[p.j].id, Math.round(p.jaccard * 1000) / 1000]),
    },
    languages,
    languageCheck,
    empty,
    proseOnly,
    noLetters,
    noCodeExamples: noCode,
    labelParity: isCode ? checkLabelParity(docs) : null,
  };
}

/**
 * Released labels the released text cannot have produced: programs labelled passing (`meta.passed`)
 * whose text no compiler accepts. Today one check: C++ with a top-level `main();` (a call at file
 * scope) — the official harness rewrote `main();` to `int main() {` and dropped the duplicate
 * `int main()` with what followed, so such programs passed there and fail to compile as released.
 * Null when no document carries a boolean label.
 */
export function checkLabelParity(docs: readonly Doc[]): LabelParity | null {
  const labelled = docs.filter((d) => typeof d.meta?.passed === 'boolean');
  if (labelled.length === 0) return null;
  const cpp = labelled.filter((d) => /^(cpp|c\+\+)$/i.test(declaredLanguage(d) ?? ''));
  const stray = cpp.filter((d) => cppStrayMainCalls(d.text) > 0);
  const passing = stray.filter((d) => d.meta?.passed === true);
  const findings: LabelParityFinding[] = [];
  if (stray.length > 0) {
    findings.push({
      check: 'cpp-stray-main-call',
      language: 'cpp',
      explanation:
        'a top-level `main();` statement after the program: no C++ compiler accepts it, so as released these programs are compile errors; ' +
        `the official harness (${OFFICIAL_HARNESS}) replaced \`main();\` with \`int main() {\` and dropped the second \`int main()\` with the lines after it, ` +
        'so the ones labelled passing passed there; re-judge them as the labels were made with `coreb exec --normalise official`',
      programs: stray.length,
      labelledPassing: passing.length,
      examples: passing.slice(0, 5).map((d) => d.id),
    });
  }
  return { labelled: labelled.length, passing: labelled.filter((d) => d.meta?.passed === true).length, findings };
}

async function checkLanguages(
  docs: readonly Doc[],
  detector: LanguageDetector,
  confidentAt: number,
  progress: Progress,
  signal: AbortSignal | undefined,
): Promise<LanguageCheck> {
  const byLanguage: LanguageCheck['byLanguage'] = {};
  let checked = 0;
  let abstained = 0;
  let disagreements = 0;
  let confident = 0;
  const examples: LanguageCheck['examples'] = [];
  progress.start('audit language check', docs.length);
  for (const d of docs) {
    const declared = declaredLanguage(d);
    progress.tick(1);
    if (declared === undefined) continue;
    checkAborted(signal);
    checked++;
    const g = await detector.detect(d.text);
    const slot = (byLanguage[declared] ??= { checked: 0, agree: 0, detectedAs: {} });
    slot.checked++;
    if (g.languageId === null) {
      abstained++;
      continue;
    }
    if (detectorAgrees(declared, g.languageId)) {
      slot.agree++;
      continue;
    }
    disagreements++;
    slot.detectedAs[g.languageId] = (slot.detectedAs[g.languageId] ?? 0) + 1;
    if (g.confidence >= confidentAt && !g.top.some((id) => detectorAgrees(declared, id))) {
      confident++;
      if (examples.length < 5) examples.push([d.id, declared, g.languageId, Math.round(g.confidence * 1000) / 1000]);
    }
  }
  progress.done();
  return { detector: detector.name, checked, abstained, disagreements, confidentDisagreements: confident, confidentAt, byLanguage, examples };
}

/** Tasks of a dataset's audit in display order (CoREB's three first). */
export function auditTaskOrder(report: AuditReport): string[] {
  const names = Object.keys(report.tasks);
  return [
    ...(TASKS as readonly string[]).filter((t) => names.includes(t)),
    ...names.filter((n) => !(TASKS as readonly string[]).includes(n as TaskName)),
  ];
}
