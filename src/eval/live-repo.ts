/**
 * A working tree as a search index that stays fresh: every code file chunked as `coreb repo build`
 * chunks a snapshot (same rules, same chunk ids and fields), indexed by a {@link LiveBm25Index};
 * file events (a recursive `fs.watch`) mark paths, and the marked files are read again, re-chunked
 * and re-indexed within a debounce of their change (edits, new files, deletions, renames, whole
 * folders); without events (a watcher that cannot start) a search first checks every file's size and
 * modification time. The index persists under a state folder (documents, BM25 arrays, each file's
 * size and time), so a restart loads it and re-reads only what changed while it was down.
 */
import { createHash } from 'node:crypto';
import { watch, type Dirent, type FSWatcher, type Stats } from 'node:fs';
import { lstat, mkdir, readdir, readFile } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import type { Doc } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/progress.js';
import { saveAtomic, saveChunksAtomic, saveLinesAtomic } from '../dataset/atomic-write.js';
import { createCodeChunker, type CodeChunker } from '../dataset/code-chunks.js';
import { chunkId, skipReason, VENDORED_DIRS } from '../dataset/source-files.js';
import { forEachLine } from '../dataset/text-file.js';
import type { Bm25Options } from '../search/bm25.js';
import { decodeBm25IndexData, encodeBm25IndexData } from '../search/bm25-store.js';
import { LiveBm25Index } from '../search/bm25-live.js';
import { answerSearch } from './search-request.js';
import type { SearchService } from './search-service.js';

/** Folders never walked besides {@link VENDORED_DIRS}: any whose name starts with a dot, and Python's caches. */
const SKIPPED_DIR = (name: string): boolean => name.startsWith('.') || name === '__pycache__' || (VENDORED_DIRS as readonly string[]).includes(name);

/** Options of {@link LiveRepoIndex}. */
export interface LiveRepoOptions {
  /** The working tree. */
  root: string;
  /** Prefix of chunk ids (`NAME:path:start-end`). Default: the folder's name. */
  name?: string;
  /** BM25 parameters (no RM3 feedback). Default coreb's. */
  bm25?: Bm25Options;
  /** Where the index persists; undefined: not persisted. */
  stateDir?: string;
  /** Watch the tree for changes. Default true. */
  watch?: boolean;
  /** Milliseconds between a file event and the re-index of the marked paths. Default 150. */
  debounceMs?: number;
  logger?: Logger;
}

/** What the index is doing and holds. */
export interface LiveRepoStatus {
  state: 'starting' | 'loading' | 'indexing' | 'ready';
  root: string;
  files: number;
  /** Files read so far in the current build (indexing). */
  filesDone: number;
  /** Files found to read in the current build. */
  filesTotal: number;
  chunks: number;
  /** How the first build went: `loaded` from the state folder (and files changed since re-read) or `built`. */
  start?: { from: 'loaded' | 'built'; ms: number; reindexedFiles: number };
  /** Re-indexes after changes: how many, and the last one's files and milliseconds. */
  updates: number;
  lastUpdate?: { files: number; ms: number; at: string };
  watching: boolean;
}

/** A file of the index: what identifies its version, and its chunks' ids. */
interface FileEntry {
  mtimeMs: number;
  size: number;
  ids: string[];
}

/** The persisted form's version; another version is rebuilt, never read. */
const STATE_VERSION = 1;

/** A folder's key in a state directory: the tree's absolute path, hashed. */
export function liveStateKey(root: string): string {
  return createHash('sha256').update(resolve(root)).digest('hex').slice(0, 16);
}

/** A working tree kept indexed (see the module comment). */
export class LiveRepoIndex {
  readonly root: string;
  readonly name: string;
  private readonly bm25: LiveBm25Index;
  private readonly chunker: CodeChunker;
  private readonly files = new Map<string, FileEntry>();
  private readonly dirty = new Set<string>();
  private fullScanNeeded = false;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private persistTimer: NodeJS.Timeout | undefined;
  private persisting: Promise<void> | undefined;
  private persistAgain = false;
  private closing = false;
  private working: Promise<void> = Promise.resolve();
  private readonly logger: Logger;
  private readonly status_: LiveRepoStatus;
  private closed = false;

  constructor(private readonly options: LiveRepoOptions) {
    this.root = resolve(options.root);
    this.name = (options.name ?? basename(this.root)).replace(/\s/g, '_');
    this.bm25 = new LiveBm25Index(options.bm25 ?? {});
    this.chunker = createCodeChunker();
    this.logger = options.logger ?? silentLogger;
    this.status_ = { state: 'starting', root: this.root, files: 0, filesDone: 0, filesTotal: 0, chunks: 0, updates: 0, watching: false };
  }

  /** What the index is doing and holds. */
  status(): LiveRepoStatus {
    return { ...this.status_, files: this.files.size, chunks: this.bm25.size };
  }

  /** True once the first build (or load) is done. */
  get ready(): boolean {
    return this.status_.state === 'ready';
  }

  /**
   * Loads the persisted index (when there is one for this tree and these options) or builds it,
   * then starts watching. Resolves when the index answers; searches before that are refused with
   * the progress made.
   */
  async start(signal?: AbortSignal): Promise<void> {
    const t0 = performance.now();
    if (this.options.watch ?? true) this.startWatching();
    let from: 'loaded' | 'built' = 'built';
    if (this.options.stateDir !== undefined && (await this.load())) from = 'loaded';
    // a first build indexes every chunk at once when the walk is done
    if (from === 'built') this.bm25.beginStaging();
    this.status_.state = 'indexing';
    const changed = await this.scanAll(signal);
    if (from === 'built' || changed > 0) await this.bm25.compact(signal);
    this.status_.state = 'ready';
    this.status_.start = { from, ms: Math.round(performance.now() - t0), reindexedFiles: changed };
    this.logger.info(
      `${this.root}: ${from === 'loaded' ? `index loaded, ${changed} changed file(s) re-read` : 'indexed'}: ${this.files.size} files, ${this.bm25.size} chunks in ${(this.status_.start.ms / 1000).toFixed(1)} s${this.status_.watching ? '; watching for changes' : ''}`,
    );
    if (from === 'built' || changed > 0) await this.persist();
    // changes seen while it was being built
    if (this.dirty.size > 0) void this.update();
  }

  /** Marks a path (relative to the root) as changed and schedules a re-index. */
  private mark(path: string): void {
    this.dirty.add(path);
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.update().catch((e: unknown) => this.logger.warn(`live index: update failed: ${(e as Error).message}`));
    }, this.options.debounceMs ?? 150);
  }

  private startWatching(): void {
    try {
      this.watcher = watch(this.root, { recursive: true }, (_event, file) => {
        if (file === null) {
          this.fullScanNeeded = true;
          this.mark('');
          return;
        }
        const rel = file.toString().split(sep).join('/');
        if (rel.split('/').some((seg) => SKIPPED_DIR(seg))) return;
        this.mark(rel);
      });
      this.watcher.on('error', (e) => {
        this.logger.warn(`live index: file watching stopped (${e.message}); each search checks the files instead`);
        this.watcher?.close();
        this.watcher = undefined;
        this.status_.watching = false;
      });
      this.status_.watching = true;
    } catch (e) {
      this.logger.warn(`live index: cannot watch ${this.root} (${(e as Error).message}); each search checks the files instead`);
      this.status_.watching = false;
    }
  }

  /**
   * Brings the index up to date: the marked paths (or, without a watcher, every file) are looked
   * at again. Serialised: one update at a time; a search waits for the one in progress.
   */
  update(): Promise<void> {
    const run = async (): Promise<void> => {
      if (!this.ready || this.closed) return;
      const t0 = performance.now();
      let files = 0;
      if (this.fullScanNeeded || !this.status_.watching) {
        this.fullScanNeeded = false;
        this.dirty.clear();
        files = await this.scanAll();
      } else {
        const paths = [...this.dirty];
        this.dirty.clear();
        for (const p of paths) files += await this.refreshPath(p);
      }
      if (files > 0) {
        this.status_.updates++;
        this.status_.lastUpdate = { files, ms: Math.round(performance.now() - t0), at: new Date().toISOString() };
        this.schedulePersist();
      }
    };
    this.working = this.working.then(run, run);
    return this.working;
  }

  /** The top `k` chunks for `query` (after bringing the index up to date). */
  async search(query: string, k: number): Promise<{ docs: Doc[]; scores: Float32Array }> {
    if (!this.ready) {
      const s = this.status_;
      throw new CorebError(
        'IO',
        `the index of ${this.root} is still being built (${s.state}: ${s.filesDone.toLocaleString('en-US')} of ${s.filesTotal.toLocaleString('en-US')} files read); ask again in a moment`,
      );
    }
    if (this.dirty.size > 0 || !this.status_.watching) {
      if (this.timer !== undefined) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      await this.update();
    } else await this.working;
    const list = this.bm25.search(query, k);
    return { docs: list.docIds.map((id) => this.bm25.get(id) as Doc), scores: list.scores as Float32Array };
  }

  /** The live documents (chunks) of the index as it stands. */
  documents(): Iterable<Doc> {
    return this.bm25.documents();
  }

  /** Walks the tree; (re-)indexes every file that is new or whose size or time changed, removes those gone. Returns the files changed. */
  private async scanAll(signal?: AbortSignal): Promise<number> {
    const found = new Map<string, { mtimeMs: number; size: number }>();
    const walk = async (dir: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await readdir(join(this.root, dir), { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const rel = dir === '' ? e.name : `${dir}/${e.name}`;
        if (e.isDirectory()) {
          if (!SKIPPED_DIR(e.name)) await walk(rel);
        } else if (e.isFile()) {
          try {
            const st = await lstat(join(this.root, rel));
            found.set(rel, { mtimeMs: st.mtimeMs, size: st.size });
          } catch {
            // gone between the listing and the stat
          }
        }
      }
    };
    await walk('');
    let changed = 0;
    for (const path of [...this.files.keys()]) {
      if (!found.has(path)) {
        this.dropFile(path);
        changed++;
      }
    }
    const todo = [...found].filter(([p, st]) => {
      const f = this.files.get(p);
      return f === undefined || f.mtimeMs !== st.mtimeMs || f.size !== st.size;
    });
    this.status_.filesTotal = todo.length;
    this.status_.filesDone = 0;
    for (const [path, st] of todo) {
      if (signal?.aborted) throw new CorebError('INTERRUPTED', `indexing ${this.root} stopped after ${this.status_.filesDone} files`);
      await this.indexFile(path, st);
      this.status_.filesDone++;
      changed++;
    }
    return changed;
  }

  /** Looks at one marked path again: a file re-indexed or dropped, a folder walked, a folder gone dropped with its files. */
  private async refreshPath(path: string): Promise<number> {
    if (path === '') return this.scanAll();
    let st: Stats;
    try {
      st = await lstat(join(this.root, path));
    } catch {
      // gone: the file, or every file under the folder
      let n = 0;
      for (const p of [...this.files.keys()]) {
        if (p === path || p.startsWith(`${path}/`)) {
          this.dropFile(p);
          n++;
        }
      }
      return n;
    }
    if (st.isDirectory()) {
      let n = 0;
      const walk = async (dir: string): Promise<void> => {
        for (const e of await readdir(join(this.root, dir), { withFileTypes: true }).catch(() => [])) {
          const rel = `${dir}/${e.name}`;
          if (e.isDirectory()) {
            if (!SKIPPED_DIR(e.name)) await walk(rel);
          } else if (e.isFile()) n += await this.refreshPath(rel);
        }
      };
      await walk(path);
      return n;
    }
    if (!st.isFile()) return 0;
    const f = this.files.get(path);
    if (f !== undefined && f.mtimeMs === st.mtimeMs && f.size === st.size) return 0;
    await this.indexFile(path, { mtimeMs: st.mtimeMs, size: st.size });
    return 1;
  }

  private dropFile(path: string): void {
    const f = this.files.get(path);
    if (f === undefined) return;
    for (const id of f.ids) this.bm25.remove(id);
    this.files.delete(path);
  }

  /** Reads, chunks and indexes one file (its old chunks removed); a file the rules skip is recorded with no chunks. */
  private async indexFile(path: string, st: { mtimeMs: number; size: number }): Promise<void> {
    this.dropFile(path);
    const entry: FileEntry = { mtimeMs: st.mtimeMs, size: st.size, ids: [] };
    const asGit = { path, size: st.size, mode: '100644', blob: '' } as Parameters<typeof skipReason>[0];
    if (skipReason(asGit) === undefined) {
      let content: Buffer | undefined;
      try {
        content = await readFile(join(this.root, path));
      } catch {
        content = undefined;
      }
      if (content !== undefined && skipReason(asGit, content) === undefined) {
        for (const c of await this.chunker.chunk(path, content.toString('utf8'))) {
          const id = chunkId(this.name, c);
          this.bm25.add({
            id,
            title: c.path,
            text: c.text,
            meta: { repo: this.name, path: c.path, startLine: c.startLine, endLine: c.endLine, symbol: c.symbol, kind: c.kind, language: c.language },
          });
          entry.ids.push(id);
        }
      }
    }
    this.files.set(path, entry);
  }

  private schedulePersist(): void {
    if (this.options.stateDir === undefined) return;
    if (this.persistTimer !== undefined) clearTimeout(this.persistTimer);
    this.persistTimer = setTimeout(() => {
      this.persistTimer = undefined;
      void this.persistInBackground();
    }, 2000);
  }

  /**
   * Saves the index beside the updates and searches (the compaction lets them run, see
   * LiveBm25Index.compact); one save at a time, and one more after it when changes came meanwhile.
   */
  private persistInBackground(): Promise<void> {
    if (this.persisting !== undefined) {
      this.persistAgain = true;
      return this.persisting;
    }
    this.persisting = this.persist()
      .then((saved) => {
        if (!saved) this.persistAgain = true;
      })
      .catch((e: unknown) => this.logger.warn(`live index: not saved: ${(e as Error).message}`))
      .finally(() => {
        this.persisting = undefined;
        if (this.persistAgain && !this.closing) {
          this.persistAgain = false;
          this.schedulePersist();
        }
      });
    return this.persisting;
  }

  /** The options that decide the index's content: a state written under others is rebuilt, not loaded. */
  private fingerprint(): string {
    return JSON.stringify({ version: STATE_VERSION, root: this.root, name: this.name, bm25: this.bm25.options });
  }

  /**
   * Writes the index to the state folder (compacted first): `state.json`, `docs.jsonl`, `bm25.bin`.
   * False (nothing written) when files changed while it compacted: the next save takes them.
   */
  async persist(): Promise<boolean> {
    const dir = this.options.stateDir;
    if (dir === undefined) return true;
    if (this.bm25.snapshot() === undefined) await this.bm25.compact();
    const snap = this.bm25.snapshot();
    if (snap === undefined) return false;
    // the files as they are now match the snapshot; later updates touch neither its arrays nor this copy
    const files = Object.fromEntries(this.files);
    await mkdir(dir, { recursive: true });
    const key = this.fingerprint();
    // a line at a time: a million chunks' JSON is more than one string may hold
    const lines = function* (): Generator<string> {
      for (const d of snap.docs) yield JSON.stringify(d);
    };
    await saveLinesAtomic(join(dir, 'docs.jsonl'), lines());
    await saveChunksAtomic(join(dir, 'bm25.bin'), encodeBm25IndexData(snap.data, key));
    // Written last: a state.json names only files already complete.
    await saveAtomic(join(dir, 'state.json'), `${JSON.stringify({ fingerprint: key, files })}\n`);
    return true;
  }

  /** Reads the state folder; false (nothing taken) when it is missing, from other options or unreadable. */
  private async load(): Promise<boolean> {
    const dir = this.options.stateDir as string;
    this.status_.state = 'loading';
    try {
      const state = JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as { fingerprint: string; files: Record<string, FileEntry> };
      if (state.fingerprint !== this.fingerprint()) return false;
      const docs: Doc[] = [];
      await forEachLine(join(dir, 'docs.jsonl'), (l) => {
        if (l !== '') docs.push(JSON.parse(l) as Doc);
      });
      const data = decodeBm25IndexData(await readFile(join(dir, 'bm25.bin')), state.fingerprint);
      this.bm25.setBase(docs, data);
      for (const [p, f] of Object.entries(state.files)) this.files.set(p, f);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
        this.logger.warn(`live index: the saved index in ${dir} is unreadable (${(e as Error).message}); building it again`);
      this.files.clear();
      return false;
    }
  }

  /** Stops watching and saves the index (when it has a state folder and is built). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.watcher?.close();
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.persistTimer !== undefined) clearTimeout(this.persistTimer);
    this.closing = true;
    await this.working.catch(() => undefined);
    await this.persisting;
    if (this.ready && this.options.stateDir !== undefined) await this.persist();
    this.closed = true;
  }
}

/**
 * A {@link SearchService} over a live index: the hits of the index as it is when the search runs
 * (marked changes applied first); a search before the first build is done fails with its progress.
 */
export function liveSearchService(index: LiveRepoIndex, spec: string): SearchService {
  return {
    describe: () => ({ retriever: { kind: 'bm25', spec, live: true, options: index.status() }, root: index.root, docs: index.status().chunks }),
    status: () => ({ ...index.status() }),
    search(query, k, request, signal) {
      return answerSearch(
        {
          get size() {
            return index.status().chunks;
          },
          documents: () => index.documents(),
          rank: (text: string, depth: number) => index.search(text, depth),
        },
        query,
        k,
        request,
        signal,
      );
    },
    close() {
      void index.close();
    },
  };
}
