/**
 * Peak resident memory of the dense retrieval paths, each in its own process, against the size of
 * one float32 copy of the document matrix: the `embeddings:` retriever over a JSONL file and over
 * a `.npy` directory (float32 and float16 storage), and the `dense:` path (an in-process embedder
 * standing in for a provider), each beside the previous implementation's steps (the JSONL map,
 * a packed copy, a normalised copy; the embedder output plus a normalised copy).
 *
 * Usage: node dist/bench/search-dense-memory.js [--docs 100000] [--dim 256] [--queries 100] [--dir /tmp/coreb-dense-memory]
 *   [--paths 'baseline;embeddings:DIR?memory=64MB'] (a `;`-separated subset of the paths below; the
 *   JSONL file is written only when a JSONL path is chosen). `embeddings:DIR?memory=64MB` is the
 *   streamed path: the document matrix stays in its `.npy` file, read in 16 MiB chunks per search.
 * (heavy at large sizes: run under the shared lock). Prints, per path, peak RSS, the growth over a
 * baseline process (modules and document list only) and that growth in copies of the matrix. The
 * growth includes a fixed part that is not the matrix: worker threads (a V8 isolate and a kernel
 * memory each; compare `?threads=1`), JSON parsing garbage (JSONL), hashing buffers.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder } from '../src/core/embedding.js';
import { normalizeMatrix, sharedFloat32 } from '../src/core/embedding.js';
import { loadEmbeddingsFile, packVectors } from '../src/dataset/embeddings-file.js';
import { npyHeader, writeIdsFile } from '../src/dataset/npy.js';
import { createRetriever } from '../src/eval/create-retriever.js';
import { parseRetrieverSpec } from '../src/eval/retriever-spec.js';
import { createDenseRetriever, createEmbedderEncoder, denseTopK } from '../src/search/dense.js';
import { createTieRanks } from '../src/search/top-k.js';
import { readBenchArgs } from './args.js';

const args = readBenchArgs({
  script: 'search-dense-memory',
  about: `peak resident memory of the dense retrieval paths (embeddings: over JSONL and .npy, float32,
float16 and streamed; dense: with an in-process embedder), each in its own process, beside the
previous implementation's steps, against the size of one float32 copy of the document matrix: peak
RSS, growth over a baseline process, that growth in copies. Heavy at large sizes: run under the
heavy-run lock.`,
  options: [
    { name: 'docs', value: 'N', help: 'documents (default 100000)' },
    { name: 'dim', value: 'N', help: 'vector dimension (default 256)' },
    { name: 'queries', value: 'N', help: 'queries (default 100)' },
    { name: 'dir', value: 'DIR', help: 'where the vectors are written, removed at the end (default /tmp/coreb-dense-memory)' },
    { name: 'paths', value: 'LIST', help: "';'-separated subset of the paths measured (default: all of them)" },
    { name: 'child', value: 'PATH', help: 'measure one path in this process', internal: true },
  ],
});
const arg = (name: string, fallback: string): string => args.get(name) ?? fallback;

const nd = Number(arg('docs', '100000'));
const dim = Number(arg('dim', '256'));
const nq = Number(arg('queries', '100'));
const dir = arg('dir', '/tmp/coreb-dense-memory');
const PATHS = [
  'baseline',
  'old embeddings:jsonl',
  'embeddings:FILE',
  'embeddings:DIR',
  'embeddings:DIR?dtype=float16',
  'embeddings:DIR?threads=1',
  'embeddings:DIR?dtype=float16&threads=1',
  'embeddings:DIR?memory=64MB',
  'embeddings:DIR?memory=64MB&threads=1',
  'old dense:',
  'dense: (shared embedder output)',
];
const paths = arg('paths', PATHS.join(';')).split(';');
const withJsonl = paths.some((p) => p.includes('jsonl') || p.includes('FILE'));

/** Row i of kind's seeded random vectors (the same numbers in every file and embedder). */
function fill(out: Float32Array, row0: number, rows: number, seed: number): void {
  for (let r = 0; r < rows; r++) {
    let a = (seed * 7919 + (row0 + r) * 104729) >>> 0;
    for (let j = 0; j < dim; j++) {
      a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
      out[r * dim + j] = a / 4294967296 - 0.5;
    }
  }
}

const docIds = () => Array.from({ length: nd }, (_, i) => `d${i}`);
const queryIds = () => Array.from({ length: nq }, (_, i) => `q${i}`);

async function writeData(): Promise<void> {
  mkdirSync(join(dir, 'npy'), { recursive: true });
  const jsonl = withJsonl ? openSync(join(dir, 'vectors.jsonl'), 'w') : undefined;
  const row = new Float32Array(dim);
  for (const [kind, n, seed] of [
    ['doc', nd, 1],
    ['query', nq, 2],
  ] as const) {
    const npy = openSync(join(dir, 'npy', kind === 'doc' ? 'docs.npy' : 'queries.npy'), 'w');
    writeSync(npy, npyHeader(n, dim, 'float32'));
    for (let i = 0; i < n; i++) {
      fill(row, i, 1, seed);
      writeSync(npy, new Uint8Array(row.buffer));
      if (jsonl !== undefined) writeSync(jsonl, `${JSON.stringify({ id: kind === 'doc' ? `d${i}` : `q${i}`, kind, vector: Array.from(row) })}\n`);
    }
    closeSync(npy);
  }
  if (jsonl !== undefined) closeSync(jsonl);
  await writeIdsFile(join(dir, 'npy', 'docs.ids'), docIds());
  await writeIdsFile(join(dir, 'npy', 'queries.ids'), queryIds());
}

/** An embedder producing the seeded vectors; `shared` = its output in shared memory (as coreb's embedders now allocate it). */
function fakeEmbedder(shared: boolean): Embedder {
  return {
    id: 'bench',
    describe: () => ({ provider: 'bench' }),
    async embed(texts, o) {
      const data = shared ? sharedFloat32(texts.length * dim) : new Float32Array(texts.length * dim);
      fill(data, 0, texts.length, o.role === 'document' ? 1 : 2);
      return { rows: texts.length, dim, data };
    },
  };
}

async function child(path: string): Promise<void> {
  const docs = docIds().map((id) => ({ id, text: id }));
  const queries = queryIds().map((id) => ({ id, text: id }));
  let top = '';
  if (path === 'old embeddings:jsonl') {
    const e = await loadEmbeddingsFile(join(dir, 'vectors.jsonl'));
    const D = normalizeMatrix({ rows: nd, dim, data: packVectors(e.file, 'doc', e.docs, docIds(), dim) });
    const Q = normalizeMatrix({ rows: nq, dim, data: packVectors(e.file, 'query', e.queries, queryIds(), dim) });
    top = String(denseTopK(Q, D, 10, { tieRanks: createTieRanks(docIds()) }).indices[0]);
  } else if (path === 'old dense:') {
    const emb = fakeEmbedder(false);
    const raw = await emb.embed(
      docs.map((d) => d.text),
      { role: 'document' },
    );
    const D = normalizeMatrix(raw);
    const Q = normalizeMatrix(
      await emb.embed(
        queries.map((q) => q.text),
        { role: 'query' },
      ),
    );
    top = String(denseTopK(Q, D, 10, { tieRanks: createTieRanks(docIds()) }).indices[0]);
  } else if (path !== 'baseline') {
    const r = path.startsWith('embeddings:')
      ? await createRetriever(parseRetrieverSpec(path.replace('FILE', join(dir, 'vectors.jsonl')).replace('DIR', join(dir, 'npy'))), {
          baseDir: dir,
          env: {},
        })
      : createDenseRetriever(createEmbedderEncoder(fakeEmbedder(true)));
    const index = await r.index(docs);
    top = (await index.search(queries, 10)).get('q0')?.docIds[0] ?? '';
  }
  console.log(JSON.stringify({ maxRssMB: process.resourceUsage().maxRSS / 1024, top }));
}

async function main(): Promise<void> {
  const which = arg('child', '');
  if (which !== '') return child(which);
  await writeData();
  try {
    const copyMB = (nd * dim * 4) / 2 ** 20;
    console.log(`dense retrieval peak RSS: ${nd} docs x dim ${dim} (one float32 copy = ${copyMB.toFixed(0)} MB), ${nq} queries`);
    const self = fileURLToPath(import.meta.url);
    let base = 0;
    for (const path of paths) {
      const r = spawnSync(
        process.execPath,
        [self, '--child', path, '--docs', String(nd), '--dim', String(dim), '--queries', String(nq), '--dir', dir],
        {
          encoding: 'utf8',
        },
      );
      if (r.status !== 0) throw new Error(`${path}: ${r.stderr}`);
      const { maxRssMB, top } = JSON.parse(r.stdout.trim().split('\n').pop() as string) as { maxRssMB: number; top: string };
      if (path === 'baseline') base = maxRssMB;
      const grow = maxRssMB - base;
      console.log(
        `${path.padEnd(34)} peak RSS ${maxRssMB.toFixed(0).padStart(6)} MB` +
          (path === 'baseline' ? '' : `  +${grow.toFixed(0).padStart(5)} MB = ${(grow / copyMB).toFixed(2)} copies  (top of q0: ${top})`),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
