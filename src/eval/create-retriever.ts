/**
 * Turns parsed retriever specs into `Retriever`s: BM25 and dense search from `search`, precomputed
 * embeddings and TREC runs from files, reciprocal-rank fusion, and live models through the lazily
 * imported `dense-embedder` (so BM25 runs never load provider code).
 */
import { createHash } from 'node:crypto';
import { isAbsolute, join, resolve } from 'node:path';
import { resolveCacheDir } from '../cache/cache-dir.js';
import type { Doc, Query } from '../core/dataset.js';
import { sharedFloat32, type Embedder, type EmbeddingMatrix, type EmbedOptions } from '../core/embedding.js';
import { normalizeStore, readBlock, type DenseChunkSource, type DenseStore } from '../core/vector-store.js';
import { Interner } from '../core/ids.js';
import type { Logger, Progress } from '../core/progress.js';
import type { Retriever } from '../core/retrieval.js';
import { findTopRankedFile, loadTopRanked } from '../dataset/top-ranked.js';
import { hashFile } from '../dataset/dataset-identity.js';
import { docsWhat, loadEmbeddings, NPY_EMBEDDINGS_FILES, type EmbeddingVectors, type VectorTable } from '../dataset/embeddings-file.js';
import { openNpyChunks } from '../dataset/npy.js';
import { CorebError } from '../core/errors.js';
import { openIndexFileStore } from '../cache/index-file-store.js';
import { createBm25Retriever, type Bm25Options } from '../search/bm25.js';
import { createBridgedBm25Retriever } from '../search/bridge.js';
import { createDenseRetriever, createEmbedderEncoder, type DenseEncoder } from '../search/dense.js';
import { createGrepRetriever } from '../search/grep.js';
import { createRrfRetriever, rrfInputDepth } from '../search/rrf.js';
import { loadBridgeFile } from './bridge-release.js';
import { createLanguageFilteredRetriever } from './language-filter.js';
import type { RetrieverSpec } from './retriever-spec.js';
import { createRunRetriever, loadRunRankings, type RunSearchPlan } from './run-retriever.js';

/** What resolving a spec may need. */
export interface CreateRetrieverContext {
  /** Directory relative file paths are resolved against. */
  baseDir: string;
  /** Environment passed to providers (API keys are read by name). */
  env: Record<string, string | undefined>;
  /** Embedding cache directory for `dense:` specs. Default: the providers' (from `env`). */
  cacheDir?: string;
  /**
   * Folder of the on-disk BM25 index store (files under `bm25-index-v1/`, keyed by corpus hash and
   * tokeniser parameters): `bm25` specs reuse an index built by an earlier run. Default: none.
   */
  indexCacheDir?: string;
  /** The evaluated data directory (where `top-ranked` finds `top_ranked.jsonl`). */
  dataDir?: string;
  /** The qrels split read (picks `top_ranked/<split>.jsonl`). Default `test`. */
  split?: string;
  /**
   * Receives a close callback per resource to release after the evaluation (e.g. a `dense:`
   * embedding cache to flush). When absent, nothing is registered.
   */
  onClose?: (close: () => void) => void;
  /**
   * What the caller will search: a `run:` file then keeps only these queries, each to this depth
   * (plus its excluded documents), so memory follows queries x depth, not the file. Default: every
   * ranking of the file, whole.
   */
  plan?: RunSearchPlan;
  logger?: Logger;
  progress?: Progress;
  signal?: AbortSignal;
}

/**
 * Creates the retriever a spec describes (reads `run:`/`embeddings:` files now); a spec with
 * `filter=language` is wrapped by {@link createLanguageFilteredRetriever}.
 */
export async function createRetriever(spec: RetrieverSpec, ctx: CreateRetrieverContext): Promise<Retriever> {
  const r = await createUnfiltered(spec, ctx);
  return spec.filter === 'language' ? createLanguageFilteredRetriever(r, r.name) : r;
}

/** True when `spec` or one of its rrf members filters by language. */
export function usesLanguageFilter(spec: RetrieverSpec): boolean {
  return spec.filter === 'language' || (spec.kind === 'rrf' && spec.members.some(usesLanguageFilter));
}

async function createUnfiltered(spec: RetrieverSpec, ctx: CreateRetrieverContext): Promise<Retriever> {
  const file = (f: string) => (isAbsolute(f) ? f : resolve(ctx.baseDir, f));
  switch (spec.kind) {
    case 'bm25':
      if (spec.bridge !== undefined) {
        const bridge = await loadBridgeFile(file(spec.bridge.file));
        return named(
          createBridgedBm25Retriever(
            spec.params as Bm25Options,
            bridge.tables,
            {
              ...(spec.bridge.terms !== undefined ? { terms: spec.bridge.terms } : {}),
              ...(spec.bridge.weight !== undefined ? { weight: spec.bridge.weight } : {}),
              ...(spec.bridge.mode !== undefined ? { mode: spec.bridge.mode } : {}),
              ...(spec.bridge.maxDf !== undefined ? { maxDf: spec.bridge.maxDf } : {}),
              describe: {
                file: spec.bridge.file,
                sha256: bridge.sha256,
                trainedOn: bridge.file.training.dataset,
                trainingPairs: bridge.file.training.pairs,
              },
            },
            {
              ...(ctx.indexCacheDir !== undefined ? { store: openIndexFileStore(ctx.indexCacheDir) } : {}),
              ...(ctx.logger !== undefined ? { logger: ctx.logger } : {}),
            },
          ),
          spec.text,
        );
      }
      return named(
        createBm25Retriever(spec.params as Parameters<typeof createBm25Retriever>[0], {
          ...(ctx.indexCacheDir !== undefined ? { store: openIndexFileStore(ctx.indexCacheDir) } : {}),
          ...(ctx.logger !== undefined ? { logger: ctx.logger } : {}),
        }),
        spec.text,
      );
    case 'run': {
      const f = file(spec.file);
      const rankings = await loadRunRankings(f, {
        ...(ctx.plan !== undefined ? { plan: ctx.plan } : {}),
        ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
        ...(ctx.progress !== undefined ? { progress: ctx.progress } : {}),
        onUngrouped: (parts) =>
          ctx.logger?.info(
            `${spec.file}: not grouped by query; splitting it by qid into ${parts} temporary files (sort it by qid to skip this pass)`,
          ),
      });
      return createRunRetriever(f, rankings, spec.text);
    }
    case 'embeddings': {
      const { memoryBytes, ...search } = spec.search;
      const vectors = await loadEmbeddings(file(spec.file), {
        normalizeDocs: true,
        sha256CacheDir: join(ctx.cacheDir ?? resolveCacheDir(ctx.env), 'file-sha256'),
        ...(search.dtype !== undefined ? { dtype: search.dtype } : {}),
        ...(memoryBytes !== undefined ? { memoryBytes } : {}),
        ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
      });
      if (!('store' in vectors.docs)) {
        const d = vectors.docs;
        ctx.logger?.info(
          `${spec.text}: ${d.file} holds ${d.header.rows} x ${d.header.dim} ${d.dtype} vectors (${mb(d.header.rows * d.header.dim * (d.dtype === 'float16' ? 2 : 4))} MiB), over the memory budget of ${mb(d.memoryBytes)} MiB: searched streamed from the file in ${mb(d.chunkBytes)} MiB chunks (same results; memory=SIZE sets the budget)`,
        );
      }
      return createDenseRetriever(createFileEncoder(vectors, await hashEmbeddings(vectors)), { name: spec.text, ...search, ...kernelNote(ctx) });
    }
    case 'dense': {
      const { createDenseEmbedder } = await import('./dense-embedder.js');
      const embedder = await createDenseEmbedder(spec.spec, {
        env: ctx.env,
        cwd: ctx.baseDir,
        ...(ctx.cacheDir !== undefined ? { cacheDir: ctx.cacheDir } : {}),
        ...(ctx.logger !== undefined ? { logger: ctx.logger } : {}),
        ...(ctx.progress !== undefined ? { progress: ctx.progress } : {}),
        ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
      });
      ctx.onClose?.(() => {
        ctx.logger?.info(`${spec.text}: embedding cache ${JSON.stringify(embedder.counters())}`);
        embedder.close();
      });
      return createDenseRetriever(denseEncoder(embedder), { name: spec.text, ...spec.search, ...kernelNote(ctx) });
    }
    case 'top-ranked': {
      const f = spec.file !== null ? file(spec.file) : ctx.dataDir !== undefined ? await findTopRankedFile(ctx.dataDir, ctx.split) : undefined;
      if (f === undefined) {
        throw new CorebError(
          'NOT_FOUND',
          `retriever \`${spec.text}\`: no top_ranked.jsonl (or top_ranked/${ctx.split ?? 'test'}.jsonl) in ${ctx.dataDir ?? 'the data directory'}; give top-ranked:FILE`,
        );
      }
      const candidates = await loadTopRanked(f);
      // Scores n, n-1, ... keep the file's order under trec ordering.
      const run = new Map([...candidates].map(([q, ids]) => [q, new Map(ids.map((d, i) => [d, ids.length - i]))]));
      const r = createRunRetriever(f, run, spec.text, await hashFile(f));
      return { name: spec.text, describe: () => ({ ...r.describe(), kind: 'top-ranked' }), index: (docs, o) => r.index(docs, o) };
    }
    case 'grep':
      return named(createGrepRetriever(spec.minLength !== undefined ? { minLength: spec.minLength } : {}), spec.text);
    case 'es': {
      // Loaded only when chosen, like live embedders (BM25 runs load no provider code).
      const { createEsRetriever, resolveEsOptions } = await import('../providers/es/es-retriever.js');
      return createEsRetriever(
        resolveEsOptions(spec.text, spec.index, spec.params),
        { env: ctx.env, ...(ctx.logger ? { logger: ctx.logger } : {}) },
        spec.text,
      );
    }
    case 'hyde':
    case 'q2d': {
      // Chat and provider code load only when chosen.
      const [{ createExpansionRetriever, EXPANSION_DEFAULTS }, { createChatModel }, { parseChatSpec }] = await Promise.all([
        import('./query-expansion.js'),
        import('../providers/chat/registry.js'),
        import('../providers/chat/config.js'),
      ]);
      const plan = ctx.plan === undefined ? undefined : { ...ctx.plan, depth: rrfInputDepth(ctx.plan.depth) };
      const inner = await createRetriever(spec.member, { ...ctx, ...(plan !== undefined ? { plan } : {}) });
      const model = await createChatModel(parseChatSpec(spec.chat), { env: ctx.env, ...(ctx.logger !== undefined ? { logger: ctx.logger } : {}) });
      // The spec holds only the options it was given: the defaults fill the rest.
      const { kind, text: _text, chat: _chat, member: _member, name: _name, filter: _filter, prompt, ...given } = spec;
      return createExpansionRetriever(
        inner,
        model,
        { ...EXPANSION_DEFAULTS, ...given, kind, ...(prompt !== undefined ? { prompt: file(prompt) } : {}) },
        ctx.cacheDir ?? resolveCacheDir(ctx.env),
        spec.text,
      );
    }
    case 'rrf': {
      const members: Retriever[] = [];
      // Each part is searched deeper than the fused list (rrfInputDepth).
      const plan = ctx.plan === undefined ? undefined : { ...ctx.plan, depth: rrfInputDepth(ctx.plan.depth) };
      for (const m of spec.members) members.push(await createRetriever(m, { ...ctx, ...(plan !== undefined ? { plan } : {}) }));
      return named(createRrfRetriever(members, { k: spec.k, ...(spec.weights ? { weights: spec.weights } : {}) }), spec.text);
    }
  }
}

/**
 * The encoder a `dense:` retriever embeds through: each distinct text once, documents as
 * `title\ntext`, queries as their text, with role and task, so the embedder applies the task's
 * instruction template. `coreb providers embed --data` embeds a release through this same encoder,
 * so its embeddings file holds the vectors `dense:` would compute.
 */
export function denseEncoder(embedder: Embedder): DenseEncoder {
  return createEmbedderEncoder(dedupeEmbedder(embedder));
}

/** Bytes as MiB with one decimal. */
function mb(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}

/** Wraps a retriever under another display name. */
function named(r: Retriever, name: string): Retriever {
  return { name, describe: () => r.describe(), index: (docs, o) => r.index(docs, o) };
}

/** sha256 of an embeddings file, or of a `.npy` directory's four files (`name:sha256` lines hashed). */
/** Dense search's one note (a large search without onnxruntime) goes to the run's log. */
function kernelNote(ctx: CreateRetrieverContext): { onNote?: (message: string) => void } {
  const logger = ctx.logger;
  return logger !== undefined ? { onNote: (m) => logger.info(m) } : {};
}

async function hashEmbeddings(v: EmbeddingVectors): Promise<string> {
  if (v.format === 'jsonl') return hashFile(v.file);
  const lines: string[] = [];
  // Files read whole were hashed as they were read; a streamed matrix is hashed from its file.
  for (const name of [...NPY_EMBEDDINGS_FILES.docs, ...NPY_EMBEDDINGS_FILES.queries]) {
    lines.push(`${name}:${v.fileSha256?.[name] ?? (await hashFile(join(v.file, name)))}`);
  }
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** Store rows of `ids` in `table`, or a `VALIDATION` error naming how many ids have none, and the first few. */
function rowsOf(v: EmbeddingVectors, kind: 'query' | 'doc', table: Pick<VectorTable, 'ids'>, ids: readonly string[]): Int32Array {
  const rows = new Int32Array(ids.length);
  const missing: string[] = [];
  for (let i = 0; i < ids.length; i++) {
    const r = table.ids.get(ids[i]);
    if (r === undefined) missing.push(ids[i]);
    else rows[i] = r;
  }
  if (missing.length > 0) {
    const add =
      v.format === 'npy'
        ? `add them to ${kind === 'query' ? 'queries' : 'docs'}.npy/.ids`
        : `add a line {"id", "kind": "${kind}", "vector"} for each`;
    throw new CorebError(
      'VALIDATION',
      `${missing.length} of ${ids.length} ${kind} ids have no vector in ${v.file} (first: ${missing.slice(0, 5).join(', ')}); ${add}`,
      {
        file: v.file,
      },
    );
  }
  return rows;
}

/** The rows of `ids` as a float32 matrix (shared memory). */
function packRows(v: EmbeddingVectors, kind: 'query' | 'doc', table: VectorTable, ids: readonly string[]): EmbeddingMatrix {
  const data = sharedFloat32(ids.length * v.dim);
  readBlock({ ...table.store, rows: ids.length, rowMap: rowsOf(v, kind, table, ids) }, 0, ids.length, data);
  return { rows: ids.length, dim: v.dim, data };
}

/**
 * A {@link DenseEncoder} over precomputed vectors (looked up by id); `sha256` of the file(s) goes
 * into its description. It owns `vectors`: the document store is normalised in place, once, on the
 * first index (unless it was as it was read: `normalizeDocs`), and each corpus is a row map into it (one copy of the matrix for every task). A
 * streamed document table ({@link loadEmbeddings} over the memory budget) gives each corpus a chunk
 * source over the `.npy` file instead (`openNpyChunks`), read at each search.
 */
export function createFileEncoder(vectors: EmbeddingVectors, sha256?: string): DenseEncoder {
  let normalized: DenseStore | undefined;
  const table = vectors.docs;
  const dtype = 'store' in table ? table.store.dtype : table.dtype;
  return {
    describe: () => ({
      source: 'embeddings-file',
      file: vectors.file,
      format: vectors.format,
      ...(sha256 !== undefined ? { sha256 } : {}),
      dim: vectors.dim,
      ...(dtype !== 'float32' ? { dtype } : {}),
      ...(!('store' in table) ? { streamed: { memoryBytes: table.memoryBytes, chunkBytes: table.chunkBytes } } : {}),
      queries: vectors.queries.ids.size,
      docs: table.ids.size,
    }),
    async encodeDocs(docs: readonly Doc[]) {
      if (!('store' in table)) {
        throw new CorebError(
          'UNSUPPORTED',
          `${table.file} is larger than the memory budget (${table.memoryBytes} bytes) and is searched streamed; its vectors are not packed into one matrix`,
        );
      }
      return packRows(
        vectors,
        'doc',
        table,
        docs.map((d) => d.id),
      );
    },
    async docStore(docs: readonly Doc[]): Promise<DenseStore | DenseChunkSource> {
      const docIds = docs.map((d) => d.id);
      // Documents in the file's row order (the usual case) read the matrix in place: no row map.
      const rowMap = table.ids.inOrder(docIds) ? undefined : rowsOf(vectors, 'doc', table, docIds);
      if (!('store' in table)) return openNpyChunks(table.file, { dtype: table.dtype, rowMap, chunkBytes: table.chunkBytes });
      if (normalized === undefined) {
        if (table.normalized !== true) normalizeStore(table.store, docsWhat(vectors.file));
        normalized = table.store;
      }
      return { ...normalized, rows: docs.length, rowMap };
    },
    encodeQueries: async (queries: readonly Query[]) =>
      packRows(
        vectors,
        'query',
        vectors.queries,
        queries.map((q) => q.id),
      ),
  };
}

/**
 * Wraps an embedder so each call embeds every distinct text once and copies its row to the
 * duplicates (corpora and query sets repeat texts: shared solutions, c2t_match pairs reusing code).
 */
export function dedupeEmbedder(embedder: Embedder): Embedder {
  return {
    id: embedder.id,
    describe: () => embedder.describe(),
    async embed(texts: readonly string[], options: EmbedOptions): Promise<EmbeddingMatrix> {
      const unique = new Interner();
      const slot = new Int32Array(texts.length);
      for (let i = 0; i < texts.length; i++) slot[i] = unique.intern(texts[i]);
      if (unique.size === texts.length) return embedder.embed(texts, options);
      const m = await embedder.embed(unique.strings, options);
      const data = sharedFloat32(texts.length * m.dim);
      for (let i = 0; i < texts.length; i++) data.set(m.data.subarray(slot[i] * m.dim, (slot[i] + 1) * m.dim), i * m.dim);
      return { rows: texts.length, dim: m.dim, data };
    },
  };
}
