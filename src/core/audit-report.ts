/**
 * The shape of a `coreb audit` report, shared by eval (which computes it) and report (which renders
 * it). Documented in docs/report.md.
 */
import type { RetrieverDescription } from './retrieval.js';

/** Summary statistics of a distribution of numbers. */
export interface Distribution {
  count: number;
  min: number;
  p10: number;
  median: number;
  mean: number;
  p90: number;
  max: number;
}

/** A field whose presence (or one value) tells the label classes apart. */
export interface LabelProxy {
  /** `title` or `meta.<key>` of the documents. */
  field: string;
  /** `presence`: non-null, non-empty; `value`: equal to {@link value}. */
  kind: 'presence' | 'value';
  value?: string | number | boolean;
  /** Share of positive documents with the field (or value). */
  positives: number;
  /** Share of the comparison class with it. */
  others: number;
  /** The comparison class: judged non-positive documents, or (when fewer than 5) unjudged ones. */
  against: 'judged-negatives' | 'unjudged';
}

/** Audit of one task. */
export interface TaskAudit {
  /** The corpus the task ranks (`code`, `text` or `corpus`). */
  corpus: string;
  queries: number;
  /** Labels counted as relevant: >= this (CoREB 2, BEIR 1). */
  relevanceLevel: number;
  /** Judgments per label value. */
  labels: Record<string, number>;
  /** Relevant documents per query. */
  relevantPerQuery: Distribution & { histogram: { '0': number; '1': number; '2-10': number; '>10': number } };
  /** Share of queries with exactly one relevant document. */
  oneToOneShare: number;
  /** Share of queries with a relevant document whose id ends in the same number as the query id (qN -> dN). */
  alignedIdShare: number;
  /** Share of queries whose own id is a relevant document's id. */
  identicalIdShare: number;
  /** BM25 (title + text only) over the queries with at least one relevant document. */
  lexical: {
    retriever: RetrieverDescription;
    queries: number;
    /** Share of those queries whose rank-1 document is relevant. */
    rank1Share: number;
    /** Mean nDCG@10 under the dataset's protocol (CoREB: strict, level 2, c2c anchors excluded; BEIR: trec, level 1). */
    ndcg10: number;
  };
  /** Query length in characters and in whitespace-separated words. */
  queryLength: { chars: Distribution; words: Distribution };
  /** Fields present on (or with a value only on) one label class. */
  labelProxies: LabelProxy[];
  /** Queries whose exact text another query of the task has too (see {@link DuplicateQueryTexts}). */
  duplicateQueryTexts?: DuplicateQueryTexts;
  /** Labels against the released pass/fail verdicts of the judged programs; null without verdicts. */
  labelVerdicts?: LabelVerdicts | null;
}

/**
 * Queries that share their exact text: a retriever that reads only the query text ranks them
 * identically, so where their qrels differ (the language constraint lives in the subtask id, not
 * in the text) no such retriever can be right for all of them.
 */
export interface DuplicateQueryTexts {
  /** Groups of two or more queries with the same text, and the queries in them. */
  groups: number;
  queries: number;
  /** Of those, the groups whose members' qrels differ, and their queries. */
  conflictingGroups: number;
  conflictingQueries: number;
  /** Per subtask: its queries and how many are in a conflicting group. */
  bySubtask: Record<string, { queries: number; conflicting: number; ceilingNdcg10: number }>;
  /**
   * The highest mean nDCG@10 (the task's protocol: gains, level) a text-only retriever can reach:
   * a query outside a conflicting group can score 1 (0 without a relevant document); a conflicting
   * group's members share one ranking, the one that maximises their summed nDCG@10 (documents in
   * order of the sum over members of gain / ideal DCG, exact because nDCG is linear in each
   * position's gain). Anchors are not modelled.
   */
  ceilingNdcg10: number;
  /** Up to 3 conflicting groups: the text (first 80 characters) and member query ids with subtasks. */
  examples: Array<{ text: string; queries: Array<[string, string]> }>;
}

/** Labels of a code task against the released verdicts (`meta.passed`) of the programs judged. */
export interface LabelVerdicts {
  /** The relevance level (CoREB 2: "verified-correct", paper §3). */
  level: number;
  /** Judgments at or above the level on programs labelled failing (`meta.passed: false`). */
  relevantFailing: VerdictCount;
  /** Judgments above 0 and below the level on programs labelled passing. */
  belowLevelPassing: VerdictCount;
}

/** Judgments (query, program) of one kind, the distinct programs, per language, with examples. */
export interface VerdictCount {
  judgments: number;
  programs: number;
  byLanguage: Record<string, { judgments: number; programs: number }>;
  /** Up to 5 [query id, document id]. */
  examples: Array<[string, string]>;
}

/** What two releases share: the same program, statement or query text in both (`coreb audit A B`). */
export interface CrossReleaseAudit {
  /** The other release. */
  dataset: { dir: string; split: string };
  /** Per corpus: documents of each side, same id in both, same whitespace-normalised text in both. */
  corpora: Record<
    string,
    { documents: number; otherDocuments: number; sameId: number; sameText: number; sameTextOtherId: number; examples: Array<[string, string]> }
  >;
  /** Per task: queries whose exact text is a query of the same task in the other release. */
  queries: Record<string, { queries: number; otherQueries: number; sameText: number; examples: Array<[string, string]> }>;
}

/** Audit of one corpus. */
export interface CorpusAudit {
  documents: number;
  /** Documents whose whitespace-normalised text equals an earlier document's. */
  exactDuplicates: number;
  exactDuplicateGroups: number;
  nearDuplicates: {
    /** How pairs were found, with the threshold. */
    method: string;
    threshold: number;
    /** Pairs at or above the threshold (exact duplicates not counted). */
    pairs: number;
    /** Documents in at least one pair. */
    documents: number;
    /** Pairs whose documents belong to different seed problems (when problem ids are known). */
    crossProblemPairs: number | null;
    examples: Array<[string, string, number]>;
  };
  /** Documents per declared language (code corpora). */
  languages: Record<string, number> | null;
  /** Declared languages the detector disputes (code corpora), or null when not run. */
  languageCheck: LanguageCheck | null;
  /** Empty or whitespace-only documents. */
  empty: number;
  /** Code documents with no code punctuation at all (none of `(){}[];=<>`), e.g. pure prose. */
  proseOnly: number;
  /** Code documents without a single letter (bare outputs such as `[3, 4, 5]`). */
  noLetters: number;
  /** Up to 5 ids of empty / prose-only / no-letter code documents. */
  noCodeExamples: string[];
  /** Released pass/fail labels the released text cannot have produced (code corpora with `meta.passed`), or null. */
  labelParity?: LabelParity | null;
}

/** Released verdicts checked against the released program text. */
export interface LabelParity {
  /** Documents with a boolean `meta.passed`. */
  labelled: number;
  /** Of them, labelled passing. */
  passing: number;
  /** Patterns that make a pass impossible as released, each with what it explains. */
  findings: LabelParityFinding[];
}

/** One pattern of program text that no compiler accepts, against the labels of the programs holding it. */
export interface LabelParityFinding {
  /** Short name (e.g. `cpp-stray-main-call`). */
  check: string;
  language: string;
  /** What the pattern is and what the official harness did to such programs. */
  explanation: string;
  /** Programs of `language` holding the pattern. */
  programs: number;
  /** Of them, labelled passing: passes the released text cannot have produced. */
  labelledPassing: number;
  /** Up to 5 ids of the labelled-passing ones. */
  examples: string[];
}

/** Outcome of the language detector over a code corpus. */
export interface LanguageCheck {
  detector: string;
  checked: number;
  /** Documents the detector gave no answer for (shorter than 20 characters). */
  abstained: number;
  /** Documents whose detected language (top 1) is not the declared one. */
  disagreements: number;
  /** Disagreements with detector confidence >= `confidentAt` and the declared language not in its top 3. */
  confidentDisagreements: number;
  confidentAt: number;
  /** Per declared language: checked, agreeing, and the most frequent other answers. */
  byLanguage: Record<string, { checked: number; agree: number; detectedAs: Record<string, number> }>;
  /** Up to 5 confident disagreements: [id, declared, detected, confidence]. */
  examples: Array<[string, string, string, number]>;
}

/** The audit of a dataset (`coreb audit --format json`). */
export interface AuditReport {
  dataset: { kind: 'coreb-release' | 'beir'; dir: string; split: string };
  tasks: Record<string, TaskAudit>;
  corpora: Record<string, CorpusAudit>;
  /** Given a second release: what the two share. */
  crossRelease?: CrossReleaseAudit;
}
