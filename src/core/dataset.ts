/**
 * The plain shapes every stage meets through: documents, queries, qrels and runs, plus the
 * typed records of the official CoREB release (paper §A.4). No I/O here.
 */

/** The three CoREB main tasks, by their table prefix. */
export const TASKS = ['text2code', 'code2text', 'code2code'] as const;
/** A CoREB main task. */
export type TaskName = (typeof TASKS)[number];

/** Short task names used on the command line and in subtask ids. */
export const TASK_SHORT = { t2c: 'text2code', c2t: 'code2text', c2c: 'code2code' } as const satisfies Record<string, TaskName>;
/** A short task name (`t2c`, `c2t`, `c2c`). */
export type TaskShort = keyof typeof TASK_SHORT;
/** The short name of each task, the inverse of {@link TASK_SHORT} (for narrow labels). */
export const TASK_SHORT_NAME = { text2code: 't2c', code2text: 'c2t', code2code: 'c2c' } as const satisfies Record<TaskName, TaskShort>;

/** Which corpus a task ranks: text-to-code and code-to-code rank code, code-to-text ranks text. */
export const TASK_CORPUS = { text2code: 'code', code2code: 'code', code2text: 'text' } as const satisfies Record<TaskName, 'code' | 'text'>;

/** The five CoREB languages. */
export const LANGUAGES = ['python', 'java', 'cpp', 'ruby', 'go'] as const;
/** A CoREB programming language. */
export type Language = (typeof LANGUAGES)[number];

/** Relevance grades of the CoREB v2 qrels scheme. Unjudged documents are easy negatives. */
export const RELEVANCE = { positive: 2, hardNegative: 1 } as const;

/** One retrievable document (BEIR `corpus.jsonl` row, or a CoREB code/text row). */
export interface Doc {
  id: string;
  text: string;
  /** BEIR title; empty or absent for CoREB. */
  title?: string;
  /** Programming language for code documents. */
  language?: string;
  /** Seed problem the document belongs to (CoREB `meta.source_problem_id`). */
  problemId?: string;
  /** Every other field of the source record, camelCased once at load time. */
  meta?: Record<string, unknown>;
}

/** One query. */
export interface Query {
  id: string;
  text: string;
  task?: TaskName;
  /** CoREB subtask id, e.g. `t2c_canonical_retro_python`, `c2c_cross_lang`. */
  subtask?: string;
  /** Language slice: t2c `language_constraint` (or `any`), c2t/c2c `anchor_language`. */
  language?: string;
  /** CoREB `sub_query_type` (t2c) or `text_type` (c2t). */
  subQueryType?: string;
  /** The query's own code item (c2c anchor, c2t source code), removed before scoring c2c. */
  anchorId?: string;
  problemId?: string;
  meta?: Record<string, unknown>;
}

/** Graded judgments: query id -> document id -> label (integer; < 0 means unjudged). */
export type Qrels = Map<string, Map<string, number>>;

/** A ranked run: query id -> document id -> score. Ranking order is derived, never stored. */
export type Run = Map<string, Map<string, number>>;

/** A corpus, queries and qrels for one retrieval task. */
export interface RetrievalTask {
  name: string;
  task?: TaskName;
  corpus: Doc[];
  queries: Query[];
  qrels: Qrels;
}

/** The 8 tables of an official CoREB release, by their wire (file) names. */
export const RELEASE_TABLES = [
  'code_corpus',
  'text_corpus',
  'text2code_queries',
  'text2code_qrels',
  'code2code_queries',
  'code2code_qrels',
  'code2text_queries',
  'code2text_qrels',
] as const;
/** One table of a CoREB release. */
export type ReleaseTable = (typeof RELEASE_TABLES)[number];

/**
 * Where a table's records came from, so validators can point at `file:line` (JSONL, 1-based) or
 * `file row N` (parquet, 0-based). `lines[i]` / `rows[i]` locate the i-th loaded record.
 */
export interface TableSource {
  file: string;
  format: 'jsonl' | 'parquet';
  /** JSONL line number (1-based) of each loaded record. */
  lines?: number[];
  /** Parquet row index (0-based, within its shard file) of each loaded record. */
  rows?: number[];
  /** File of each loaded record, when the table spans several shard files. */
  recordFiles?: string[];
  /** How meta fields arrived: a nested `meta` object or flattened `meta_*` columns (default flat). */
  metaStyle?: 'nested' | 'flat';
}

/** Where the `index`-th record of a table came from: `{file, line}` (JSONL) or `{file, row}` (parquet). */
export function recordLocation(source: TableSource | undefined, index: number): { file?: string; line?: number; row?: number } {
  if (source === undefined) return {};
  const file = source.recordFiles?.[index] ?? source.file;
  if (source.lines !== undefined) return { file, line: source.lines[index] };
  if (source.rows !== undefined) return { file, row: source.rows[index] };
  return { file };
}

/** A CoREB `code_corpus` row (paper §A.4), fields camelCased. */
export interface CodeRecord {
  codeId: string;
  code: string;
  language: string;
  model: string;
  codeLength: number;
  meta: {
    sourceProblemId: string;
    solutionKey?: string;
    passed?: boolean;
    passRate?: number;
    testPassed?: number;
    testTotal?: number;
    createdAt?: string;
    corpusVersion?: string;
    [key: string]: unknown;
  };
  /** Top-level columns coreb does not know, camelCased, kept as read. */
  extra?: Record<string, unknown>;
}

/** A CoREB `text_corpus` row: a problem description or an LLM-made hard negative. */
export interface TextRecord {
  textId: string;
  text: string;
  textStyle?: string;
  textLength?: number;
  /** The 50–150 word version (original problems only; null on hard negatives). */
  abbreviatedText: string | null;
  abbreviatedTextLength?: number | null;
  meta: {
    sourceProblemId: string;
    originalTextId?: string | null;
    originalProblemId?: string | null;
    isNoiseSample?: boolean | null;
    noiseType?: string | null;
    noiseVariation?: number | null;
    createdAt?: string;
    corpusVersion?: string;
    [key: string]: unknown;
  };
  extra?: Record<string, unknown>;
}

/** A CoREB query row of any task; task-specific fields are optional. */
export interface QueryRecord {
  queryId: string;
  query: string;
  split: string;
  subtask: string;
  /** t2c only. */
  queryType?: string;
  subQueryType?: string;
  languageConstraint?: string;
  /** c2c and c2t. */
  anchorLanguage?: string;
  anchorModel?: string;
  /** c2t_match pair fields. */
  code?: string | null;
  textId?: string | null;
  label?: number | null;
  textType?: string | null;
  text?: string | null;
  meta: {
    sourceProblemId?: string;
    anchorCodeId?: string;
    targetLanguages?: string[];
    numTargetSolutions?: number;
    textType?: string | null;
    taskType?: string | null;
    pairType?: string | null;
    negativeProblemId?: string | null;
    availableLanguages?: string[] | null;
    createdAt?: string;
    generatorVersion?: string;
    /** t2c: how many qrels carry relevance 2 (null on single-model queries). */
    numRelevantDocs?: number | null;
    modelsInRelevantDocs?: string[] | null;
    isMultiModel?: boolean | null;
    originalQueryType?: string;
    [key: string]: unknown;
  };
  extra?: Record<string, unknown>;
}

/** A CoREB qrels row. */
export interface QrelRecord {
  queryId: string;
  docId: string;
  relevance: number;
}

/** One task's tables of a CoREB release. */
export interface ReleaseTask {
  queries: QueryRecord[];
  qrels: QrelRecord[];
}

/** A loaded CoREB release (the 8 official tables). */
export interface Release {
  /** Directory it was read from. */
  dir: string;
  /** Split name, e.g. `release_v2602`. */
  split: string;
  /**
   * When the release was made (ISO 8601), from its `manifest.json` (`release_date`, else
   * `created_at`); absent when it has none (the published parquet: its split name dates it).
   */
  releaseDate?: string;
  codeCorpus: CodeRecord[];
  textCorpus: TextRecord[];
  tasks: Record<TaskName, ReleaseTask>;
  /** Where each table was read from (absent for releases built in memory). */
  sources?: Partial<Record<ReleaseTable, TableSource>>;
}
