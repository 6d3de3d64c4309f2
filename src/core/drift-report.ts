/**
 * The shape of the series check of two releases (what `coreb drift` and `coreb build --previous`
 * print): the figures compared, their change, and the bands that flag them.
 */

/** How far a figure may move before it is flagged (docs/build.md, "The series check"). */
export interface DriftBands {
  /** Relative change of a query count (per subtask family and task). Default 0.25 (25%). */
  countRelative: number;
  /** Relative change of mean positives or hard negatives per query. Default 0.25. */
  perQueryRelative: number;
  /** Relative change of a mean token length. Default 0.25. */
  tokensRelative: number;
  /** Absolute change of a verified-correct share (model x language), in points of 1. Default 0.10. */
  verifiedAbsolute: number;
  /** Absolute change of BM25 nDCG@10 per task. Default 0.05. */
  ndcgAbsolute: number;
  /** Absolute change of BM25 hard negatives per query in the top 10. Default 0.5. */
  hardNegativesTop10Absolute: number;
  /** Absolute change of BM25's hard-negative intrusion rate. Default 0.10. */
  intrusionAbsolute: number;
}

/** One compared figure. */
export interface DriftRow {
  /** `counts`, `qrels`, `tokens`, `verified`, `bm25`. */
  section: string;
  /** What is measured, e.g. `c2c_cross_lang queries`, `code2text hard negatives / query`. */
  figure: string;
  /** null when the figure does not exist in that release (a subtask added or removed). */
  previous: number | null;
  current: number | null;
  /** current - previous (null when either is missing). */
  delta: number | null;
  /** Why it is flagged (outside its band, added, removed), or null. */
  flag: string | null;
}

/** The series check of two releases. */
export interface DriftReport {
  previous: { dir: string; split: string };
  current: { dir: string; split: string };
  bands: DriftBands;
  rows: DriftRow[];
  /** The flagged rows' count. */
  flagged: number;
}
