/**
 * `coreb cache stats` and `coreb cache prune`: inspect and compact the embedding cache
 * (COREB_CACHE_DIR, else $XDG_CACHE_HOME/coreb or ~/.cache/coreb).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CHAT_CACHE_LAYOUT } from '../../cache/chat-cache.js';
import { embeddingStoreDir, openEmbeddingStore, pruneEmbeddingStore, type PruneOptions, type StoreStats } from '../../cache/embedding-store.js';
import { jsonFileStoreStats, pruneJsonFileStore, VERDICT_CACHE_LAYOUT } from '../../cache/json-file-store.js';
import { statSync } from 'node:fs';
import { resolveCacheDir } from '../../cache/cache-dir.js';
import { RERANK_STORE_LAYOUT } from '../../cache/cached-reranker.js';
import { CorebError } from '../../core/errors.js';
import { opt, parseOptions } from '../options.js';
import type { Command, CommandContext } from '../command.js';

const USAGE = `Usage: coreb cache stats [--store embeddings|rerank|chat|verdicts] [--cache-dir DIR] [--json]
       coreb cache prune [--store embeddings|rerank|chat|verdicts] [--older-than AGE] [--provider P] [--model M] [--all] [--cache-dir DIR] [--json]

--store picks the embedding vectors (default), the rerank scores (one per reranker, instruction,
query and document; rerankers are listed by provider:model and template), the chat replies of
\`coreb build\` (one file per request) or the judge's verdicts (one file per program, tests and
judge settings). chat and verdicts are pruned by --older-than or --all (whole files, by their
write time).

stats: where the cache is, its size, and how many vectors each model (provider, model,
dimensions, pooling, normalisation) holds; interrupted writes found at segment ends are counted.

prune: compacts the cache into one segment, dropping duplicates and damaged records plus what
the options select: --older-than 30d (units s, m, h, d), --provider P and/or --model M (both
must match when given), or --all. Segments that a running coreb is still writing are left alone.

The cache root is COREB_CACHE_DIR, else $XDG_CACHE_HOME/coreb, else ~/.cache/coreb.
`;

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

function parseAge(v: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhd])$/.exec(v);
  if (m === null) throw new CorebError('USAGE', `--older-than must look like 30d, 12h, 90m or 45s; got \`${v}\``);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(2) + ' MB';
}

const STORES = ['embeddings', 'rerank', 'chat', 'verdicts'] as const;
/** The file-per-record stores and their layout folders. */
const FILE_STORES: Readonly<Record<string, string>> = { chat: CHAT_CACHE_LAYOUT, verdicts: VERDICT_CACHE_LAYOUT };

type Store = (typeof STORES)[number];

/** The store folder a `--store` value names (undefined: the embeddings). */
function layoutOf(s: Store): string | undefined {
  return s === 'rerank' ? RERANK_STORE_LAYOUT : undefined;
}

/** `chat` or `verdicts` when `--store` names a file-per-record store. */
function fileStoreOf(s: Store): string | undefined {
  return FILE_STORES[s];
}

/**
 * The cache directory: `--cache-dir`, else `$COREB_CACHE_DIR` or the default.
 * @throws CorebError `USAGE` when it names something that is not a directory.
 */
function root(ctx: CommandContext, dir: string | undefined): string {
  const d = dir !== undefined ? resolve(ctx.cwd, dir) : resolveCacheDir(ctx.env);
  let st: ReturnType<typeof statSync> | undefined;
  try {
    st = statSync(d);
  } catch {
    // not made yet: an empty cache
  }
  if (st !== undefined && !st.isDirectory()) {
    throw new CorebError(
      'USAGE',
      `${dir !== undefined ? '--cache-dir' : 'the cache directory'} ${d} is a file, not a directory; name the folder the caches live in`,
    );
  }
  return d;
}

const command: Command = {
  summary: 'embedding, rerank score, chat reply and verdict caches: `cache stats` and `cache prune`',
  usage: USAGE,
  async run(ctx) {
    const [sub, ...rest] = ctx.argv;
    if (sub === 'stats') {
      const { values } = parseOptions('cache stats', rest, {
        'cache-dir': opt.string(),
        store: opt.choice(STORES, 'embeddings'),
        json: opt.flag(),
      });
      const dir = root(ctx, values['cache-dir']);
      const fileLayout = fileStoreOf(values.store);
      if (fileLayout !== undefined) {
        const st = jsonFileStoreStats(dir, fileLayout);
        ctx.stdout.write(values.json ? JSON.stringify(st) + '\n' : `cache: ${st.dir}\n${st.records} record(s), ${mb(st.bytes)}\n`);
        return 0;
      }
      const layout = layoutOf(values.store);
      const unit = layout === undefined ? 'vectors' : 'scores';
      const storeDir = embeddingStoreDir(dir, layout);
      if (!existsSync(storeDir)) {
        // Nothing cached yet: report without creating folders.
        const empty: StoreStats = { dir: storeDir, segments: 0, bytes: 0, records: 0, keys: 0, tornTails: 0, corrupt: 0, namespaces: [] };
        if (values.json) ctx.stdout.write(JSON.stringify(empty) + '\n');
        else ctx.stdout.write(`cache: ${storeDir} (empty)\n`);
        return 0;
      }
      const store = openEmbeddingStore(dir, layout !== undefined ? { layout } : {});
      const s = store.stats();
      store.close();
      if (values.json) {
        ctx.stdout.write(JSON.stringify(s) + '\n');
        return 0;
      }
      const lines = [
        `cache: ${s.dir}`,
        `${s.keys} ${unit} in ${s.segments} segment(s), ${mb(s.bytes)}; ${s.records} records read` +
          (s.tornTails ? `, ${s.tornTails} interrupted write(s) ignored` : '') +
          (s.corrupt ? `, ${s.corrupt} damaged record(s) ignored` : ''),
      ];
      for (const n of s.namespaces.sort((a, b) => b.keys - a.keys)) {
        const id = n.identity ?? {};
        const label = id.provider !== undefined ? `${String(id.provider)}:${String(id.model)}` : n.ns;
        const extra = ['dimensions', 'pooling', 'normalize', 'template']
          .filter((k) => id[k] !== undefined && id[k] !== null)
          .map((k) => `${k}=${String(id[k])}`)
          .join(' ');
        lines.push(`  ${label}${extra ? ` (${extra})` : ''}: ${n.keys} ${unit}, ${mb(n.bytes)}`);
      }
      ctx.stdout.write(lines.join('\n') + '\n');
      return 0;
    }
    if (sub === 'prune') {
      const { values } = parseOptions('cache prune', rest, {
        'cache-dir': opt.string(),
        store: opt.choice(STORES, 'embeddings'),
        'older-than': opt.string(),
        provider: opt.string(),
        model: opt.string(),
        all: opt.flag(),
        json: opt.flag(),
      });
      const fileLayout = fileStoreOf(values.store);
      if (fileLayout !== undefined) {
        if (values.provider !== undefined || values.model !== undefined) {
          throw new CorebError(
            'USAGE',
            `--provider and --model select embeddings or rerank scores; prune --store ${values.store} by --older-than or --all`,
          );
        }
        if (values['older-than'] === undefined && !values.all) {
          throw new CorebError('USAGE', `prune --store ${values.store} needs --older-than AGE or --all`);
        }
        const before = values['older-than'] !== undefined ? Date.now() - parseAge(values['older-than']) : undefined;
        const r = pruneJsonFileStore(root(ctx, values['cache-dir']), fileLayout, before);
        ctx.stdout.write(values.json ? JSON.stringify(r) + '\n' : `pruned ${r.dir}: kept ${r.kept}, removed ${r.removed} record(s)\n`);
        return 0;
      }
      const layout = layoutOf(values.store);
      const options: PruneOptions = { all: values.all, ...(layout !== undefined ? { layout } : {}) };
      if (values['older-than'] !== undefined) options.writtenBefore = Date.now() - parseAge(values['older-than']);
      const match: Record<string, unknown> = {};
      if (values.provider !== undefined) match.provider = values.provider;
      if (values.model !== undefined) match.model = values.model;
      if (Object.keys(match).length > 0) options.match = match;
      const r = pruneEmbeddingStore(root(ctx, values['cache-dir']), options);
      if (values.json) ctx.stdout.write(JSON.stringify(r) + '\n');
      else {
        ctx.stdout.write(
          `pruned: kept ${r.kept} ${layout === undefined ? 'vectors' : 'scores'}, dropped ${r.dropped}; ${r.segmentsBefore} -> ${r.segmentsAfter} segment(s), ` +
            `${mb(r.bytesBefore)} -> ${mb(r.bytesAfter)}` +
            (r.segmentsBusy ? `; ${r.segmentsBusy} segment(s) in use by a running coreb left alone` : '') +
            '\n',
        );
      }
      return 0;
    }
    throw new CorebError(
      'USAGE',
      `coreb cache: expected \`stats\` or \`prune\`, got ${sub === undefined ? 'nothing' : `\`${sub}\``}; see \`coreb cache --help\``,
    );
  },
};
export default command;
