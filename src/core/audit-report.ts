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
}
