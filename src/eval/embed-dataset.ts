/**
 * `coreb providers embed --data DIR`: embeds a release's (or BEIR directory's) queries and corpus
 * into one embeddings file that `--retriever embeddings:FILE` reads, through the very encoder a
 * `dense:` retriever uses (see {@link denseEncoder}), task by task, so the file holds the vectors
 * `dense:` would compute: each task's queries with that task's instruction, each corpus once.
 */
import { TASKS, type TaskName } from '../core/dataset.js';
import type { EmbedRole, Embedder, EmbeddingMatrix } from '../core/embedding.js';
import { CorebError } from '../core/errors.js';
import { silentLogger, silentProgress, type Logger, type Progress } from '../core/progress.js';
import { denseEncoder } from './create-retriever.js';
import { detectDataLayout, type EvalDataOptions, loadEvalData } from './eval-data.js';

/** Options of {@link embedDataset}. */
export interface EmbedDatasetOptions extends Pick<EvalDataOptions, 'split' | 'tasks' | 'subtasks'> {
  /**
   * What a text of a role becomes in a task (its template and input type, `embedInputKey` of the
   * resolved spec). When given, two tasks that share a corpus must embed its documents alike (an
   * embeddings file holds one vector per document), else the call fails naming both.
   */
  inputKey?: (role: EmbedRole, task: TaskName | undefined) => string;
  signal?: AbortSignal;
  progress?: Progress;
  logger?: Logger;
}

/** What {@link embedDataset} produced: embeddings file lines (`{"id","kind","vector"}`) and counts. */
export interface EmbeddedDataset {
  /** JSONL lines, queries first (task by task), then each corpus's documents. */
  lines: string[];
  queries: number;
  docs: number;
  dim: number;
  /** Corpus key (`code`, `text`, `corpus`) -> the task whose document instruction embedded it, and its documents. */
  corpora: Record<string, { task: string; docs: number }>;
}

/** The rows of `m` as embeddings file lines of `kind`. */
function vectorLines(ids: readonly string[], m: EmbeddingMatrix, kind: 'query' | 'doc', out: string[]): void {
  for (let i = 0; i < m.rows; i++) out.push(JSON.stringify({ id: ids[i], kind, vector: Array.from(m.data.subarray(i * m.dim, (i + 1) * m.dim)) }));
}

/**
 * Embeds every query of every selected task (with its task) and every document of each corpus
 * once (with the first task ranking that corpus: t2c for code, c2t for text), checked against the
 * same validation as `coreb eval`.
 * @throws CorebError `USAGE` when a query id repeats across tasks or a document id across corpora
 *   (one embeddings file, one vector per id), or when two tasks sharing a corpus would embed its
 *   documents differently.
 */
export async function embedDataset(embedder: Embedder, dir: string, options: EmbedDatasetOptions = {}): Promise<EmbeddedDataset> {
  const logger = options.logger ?? silentLogger;
  const progress = options.progress ?? silentProgress;
  const layout = await detectDataLayout(dir);
  const data = await loadEvalData(dir, layout, options, logger);
  const encoder = denseEncoder(embedder);
  const taskOf = (name: string): TaskName | undefined => ((TASKS as readonly string[]).includes(name) ? (name as TaskName) : undefined);
  const lines: string[] = [];
  const queryIds = new Map<string, string>();
  let dim = 0;
  let queries = 0;
  for (const [name, task] of data.tasks) {
    for (const q of task.queries) {
      const prev = queryIds.get(q.id);
      if (prev !== undefined)
        throw new CorebError('USAGE', `query id \`${q.id}\` is in ${prev} and ${name}; an embeddings file holds one vector per query id`);
      queryIds.set(q.id, name);
    }
    const t = taskOf(name);
    const m = await encoder.encodeQueries(task.queries, {
      ...(t ? { task: t } : {}),
      progress,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    vectorLines(
      task.queries.map((q) => q.id),
      m,
      'query',
      lines,
    );
    queries += m.rows;
    dim = m.dim;
  }
  const corpora: EmbeddedDataset['corpora'] = {};
  const docIds = new Map<string, string>();
  let docs = 0;
  for (const [name, task] of data.tasks) {
    const key = data.corpusKey.get(name)!;
    const first = corpora[key];
    if (first !== undefined) {
      const k = options.inputKey;
      if (k !== undefined && k('document', taskOf(first.task)) !== k('document', taskOf(name))) {
        throw new CorebError(
          'USAGE',
          `${first.task} and ${name} rank the same ${key} corpus but this model embeds its documents with different instructions; ` +
            'an embeddings file holds one vector per document: embed one task with --tasks, or use --retriever dense:SPEC',
        );
      }
      continue;
    }
    for (const d of task.corpus) {
      const prev = docIds.get(d.id);
      if (prev !== undefined)
        throw new CorebError(
          'USAGE',
          `document id \`${d.id}\` is in the ${prev} and ${key} corpora; an embeddings file holds one vector per document id`,
        );
      docIds.set(d.id, key);
    }
    const t = taskOf(name);
    const m = await encoder.encodeDocs(task.corpus, { ...(t ? { task: t } : {}), progress, ...(options.signal ? { signal: options.signal } : {}) });
    vectorLines(
      task.corpus.map((d) => d.id),
      m,
      'doc',
      lines,
    );
    corpora[key] = { task: name, docs: m.rows };
    docs += m.rows;
    dim ||= m.dim;
  }
  return { lines, queries, docs, dim, corpora };
}
