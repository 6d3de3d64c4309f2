/**
 * The vocabulary bridge on CoREB releases: training pairs from a release's rel-2 judgments
 * (text-to-code: query statement and positive program; code-to-text: positive statement and query
 * program), training with the BM25 retriever's own tokeniser, the bridge file written and read
 * back (hashed into every result that used it), and the in-sample check against an evaluated release.
 */
import { createHash } from 'node:crypto';
import type { Doc, RetrievalTask } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { loadTextFile } from '../dataset/text-file.js';
import { saveAtomic } from '../dataset/atomic-write.js';
import {
  BRIDGE_TRAIN_DEFAULTS,
  parseBridgeFile,
  renderBridgeFile,
  trainBridge,
  type BridgeFile,
  type BridgePair,
  type BridgeTables,
  type BridgeTrainOptions,
} from '../search/bridge.js';
import { createTokenizer } from '../search/tokenize.js';
import { resolveBm25Options, type Bm25Options } from '../search/bm25.js';

/** The (statement, program) texts of a release's rel-2 judgments, deduplicated, with their problems. */
export interface BridgeTrainingPairs {
  pairs: Array<{ text: string; code: string }>;
  problems: string[];
}

/**
 * Every (statement, program) pair a release judges relevant (label 2): text-to-code query text with
 * each positive program, code-to-text positive text with the query program. A pair seen twice (the
 * same statement in several language subtasks) is kept once. `problems` are the seed problems of
 * the queries used (`problemId`), for in-sample checks. Queries of `exclude`d problems are left out
 * (so a bridge can be trained problem-disjoint from a test release).
 */
export function collectBridgePairs(tasks: ReadonlyMap<string, RetrievalTask>, exclude?: ReadonlySet<string>): BridgeTrainingPairs {
  const seen = new Set<string>();
  const pairs: Array<{ text: string; code: string }> = [];
  const problems = new Set<string>();
  const add = (text: string, code: string, problem: string | undefined) => {
    const key = `${text.length}:${code.length}:${text}\u0000${code}`;
    if (problem !== undefined) problems.add(problem);
    if (seen.has(key)) return;
    seen.add(key);
    pairs.push({ text, code });
  };
  for (const [name, task] of tasks) {
    if (name !== 'text2code' && name !== 'code2text') continue;
    const docs = new Map<string, Doc>(task.corpus.map((d) => [d.id, d]));
    for (const q of task.queries) {
      if (exclude !== undefined && q.problemId !== undefined && exclude.has(q.problemId)) continue;
      const judged = task.qrels.get(q.id);
      if (judged === undefined) continue;
      for (const [docId, label] of judged) {
        const d = docs.get(docId);
        if (label < 2 || d === undefined) continue;
        if (name === 'text2code') add(q.text, d.text, q.problemId);
        else add(d.text, q.text, q.problemId);
      }
    }
  }
  return { pairs, problems: [...problems].sort() };
}

/** What {@link trainReleaseBridge} records about the training data. */
export interface BridgeTrainingSource {
  dataset: { name: string; split?: string; sha256: string };
}

/**
 * Trains the bridge on `training` with the tokeniser of `bm25` (the retriever the bridge will
 * expand queries for; default the tuned BM25) and returns the bridge file's JSON object.
 */
export function trainReleaseBridge(
  training: BridgeTrainingPairs,
  source: BridgeTrainingSource,
  options: BridgeTrainOptions = {},
  bm25: Bm25Options = {},
): { file: BridgeFile; tables: BridgeTables } {
  if (training.pairs.length === 0)
    throw new CorebError('VALIDATION', 'the training release judges no (statement, program) pair relevant: nothing to learn a bridge from');
  const resolved = resolveBm25Options(bm25);
  const tokenize = createTokenizer(resolved);
  const pairs: BridgePair[] = training.pairs.map((p) => ({ text: tokenize(p.text), code: tokenize(p.code) }));
  const o = { ...BRIDGE_TRAIN_DEFAULTS, ...options };
  const tables = trainBridge(pairs, o);
  const { k1: _k1, b: _b, queryTf: _q, k3: _k3, fields: _f, feedbackDocs: _fd, feedbackTerms: _ft, feedbackWeight: _fw, ...tokenizer } = resolved;
  const file = renderBridgeFile(tables, {
    tokenizer,
    training: { dataset: source.dataset, problems: training.problems, pairs: training.pairs.length, options: o },
  });
  return { file, tables };
}

/** Writes a bridge file (JSON, atomically). */
export async function saveBridgeFile(path: string, file: BridgeFile): Promise<void> {
  await saveAtomic(path, `${JSON.stringify(file)}\n`);
}

/** A bridge file as read: its tables, contents and sha256. */
export interface LoadedBridge {
  path: string;
  sha256: string;
  file: BridgeFile;
  tables: BridgeTables;
}

const loaded = new Map<string, Promise<LoadedBridge>>();

/**
 * Reads a bridge file (plain or gzip), once per path and process.
 * @throws CorebError `NOT_FOUND`/`IO` for the file, `PARSE` naming the field that is not as documented.
 */
export function loadBridgeFile(path: string): Promise<LoadedBridge> {
  let p = loaded.get(path);
  if (p === undefined) {
    p = (async () => {
      const t = await loadTextFile(path);
      let value: unknown;
      try {
        value = JSON.parse(t.text);
      } catch (e) {
        throw new CorebError('PARSE', `not a coreb bridge file: not JSON (${(e as Error).message})`, { file: path, cause: e });
      }
      const parsed = parseBridgeFile(value, path);
      return { path, sha256: createHash('sha256').update(t.text).digest('hex'), ...parsed };
    })();
    loaded.set(path, p);
    p.catch(() => loaded.delete(path));
  }
  return p;
}

/**
 * The warning for a bridge evaluated on problems it was trained on, or undefined when none are
 * shared: `n of m problems of this release are in the bridge's training data`.
 */
export function bridgeInSampleWarning(bridge: LoadedBridge, evaluatedProblems: ReadonlySet<string>): string | undefined {
  const shared = bridge.file.training.problems.filter((p) => evaluatedProblems.has(p)).length;
  if (shared === 0) return undefined;
  return `in-sample: ${shared} of ${evaluatedProblems.size} problems of this release are in the training data of the bridge ${bridge.path} (trained on ${bridge.file.training.dataset.name}); its numbers here are not out-of-sample`;
}
