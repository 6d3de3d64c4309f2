/**
 * The reranker training record: one query with its positive, hard-negative and easy-negative
 * documents, the shape of the published CoREB reranker dataset
 * (`hq-bench/coreb-code-reranker-train-test-dataset`: query_id, task, subtask, query, pos,
 * hard_neg, easy_neg). Mining writes it, exporters read it. No I/O here.
 */
import { TASK_SHORT, TASKS, type TaskName } from './dataset.js';

/** One document of a record. */
export interface RerankPassage {
  id: string;
  text: string;
}

/** One training record (wire names `query_id`, `hard_neg`, `easy_neg` are camelCased here). */
export interface RerankTrainRecord {
  queryId: string;
  /** `T2C`, `C2T` or `C2C` as coreb writes it (the published dataset's labels). */
  task: string;
  subtask: string;
  query: string;
  pos: RerankPassage[];
  hardNeg: RerankPassage[];
  easyNeg: RerankPassage[];
}

/** The task label coreb writes into records, per task. */
export const RERANK_TASK_LABEL = { text2code: 'T2C', code2text: 'C2T', code2code: 'C2C' } as const satisfies Record<TaskName, string>;

/**
 * The CoREB task of a record's `task` label: `T2C`/`t2c`/`text2code` (any case) and the like;
 * undefined when it is none of them.
 */
export function rerankRecordTask(label: string): TaskName | undefined {
  const l = label.trim().toLowerCase();
  if ((TASKS as readonly string[]).includes(l)) return l as TaskName;
  return (TASK_SHORT as Record<string, TaskName>)[l];
}
