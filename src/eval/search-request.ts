/**
 * What an agent asks of `coreb serve` beside a query's text: hits only under some paths or in some
 * languages, hits grouped by file, and `symbol:NAME` queries that look a definition up by name. One
 * implementation over any ranking (a corpus indexed once, a live index), so every way of serving
 * answers alike.
 */
import type { Doc } from '../core/dataset.js';
import { CorebError } from '../core/errors.js';
import { chunkLocation } from './file-level.js';

/** One search hit. */
export interface SearchHit {
  rank: number;
  id: string;
  score: number;
  /** `meta_path` of a repository chunk (else undefined). */
  path?: string;
  startLine?: number;
  endLine?: number;
  symbol?: string;
  language?: string;
  text: string;
}

/** One file of a grouped answer: its rank among files, its best chunk's score, and its chunks. */
export interface FileHit {
  rank: number;
  path: string;
  /** The score of its best chunk. */
  score: number;
  language?: string;
  /** Its chunks among the hits, best first (at most {@link SearchRequest.perFile}). */
  hits: SearchHit[];
}

/** What a search may ask beside its text and `k`. */
export interface SearchRequest {
  /**
   * Path patterns; a hit's file must match one. `*` any characters but `/`, `**` any path (also
   * none), `?` one character; a pattern ending in `/` is a folder and everything under it; a
   * pattern without `/` is matched against the file's name in any folder (`*.py`, `test_*`).
   */
  paths?: readonly string[];
  /** Languages (as chunks name them: `python`, `go`, `java`, ...; any case); a hit must be in one. */
  languages?: readonly string[];
  /** Answer with `k` files (each at its best chunk's place) instead of `k` chunks. Default false. */
  groupByFile?: boolean;
  /** With {@link groupByFile}: chunks listed per file. Default 3. */
  perFile?: number;
}

/** An answer: `k` chunks, or with {@link SearchRequest.groupByFile} `k` files. */
export type SearchAnswer = { hits: SearchHit[] } | { files: FileHit[] };

/** The largest `k` a search takes. */
export const MAX_SEARCH_K = 1000;

/** A ranking to answer from: the top `depth` documents for a text, a document by id, all documents. */
export interface RankSource {
  rank(text: string, depth: number, signal?: AbortSignal): Promise<{ docs: Doc[]; scores: ArrayLike<number> }>;
  documents(): Iterable<Doc>;
  /** Number of documents. */
  readonly size: number;
}

/** A predicate over paths matching any of `patterns` (see {@link SearchRequest.paths}). */
export function pathMatcher(patterns: readonly string[]): (path: string) => boolean {
  const res = patterns.map((p) => {
    const folder = p.endsWith('/');
    const pat = folder ? `${p}**` : p;
    const anyFolder = !pat.includes('/');
    let re = '';
    for (let i = 0; i < pat.length; i++) {
      const c = pat[i];
      if (c === '*' && pat[i + 1] === '*') {
        // `**/` any folders (also none); `**` at the end anything
        if (pat[i + 2] === '/') {
          re += '(?:.*/)?';
          i += 2;
        } else {
          re += '.*';
          i += 1;
        }
      } else if (c === '*') re += '[^/]*';
      else if (c === '?') re += '[^/]';
      else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    return new RegExp(anyFolder ? `(?:^|/)${re}$` : `^${re.replace(/^\//, '')}$`);
  });
  return (path) => res.some((r) => r.test(path));
}

/** The symbol a `symbol:NAME [words]` query looks up and the words after it; undefined for another query. */
export function parseSymbolQuery(text: string): { symbol: string; rest: string } | undefined {
  const m = /^\s*symbol:(\S+)\s*([\s\S]*)$/.exec(text);
  return m === null ? undefined : { symbol: m[1], rest: m[2].trim() };
}

/**
 * How closely a chunk's symbol answers `want` (lower is closer), undefined when not at all: 0 the
 * same name (`Parser.parse` for `Parser.parse`), 1 its last part (`Parser.parse`, `Parser::parse`
 * for `parse`), 2 either ignoring case, 3 containing it ignoring case.
 */
export function symbolMatch(symbol: string | undefined, want: string): number | undefined {
  if (symbol === undefined || symbol === '') return undefined;
  if (symbol === want) return 0;
  const last = symbol.split(/\.|::|#/).pop() as string;
  if (last === want) return 1;
  const s = symbol.toLowerCase();
  const w = want.toLowerCase();
  if (s === w || last.toLowerCase() === w) return 2;
  return s.includes(w) ? 3 : undefined;
}

/** Checks a request's fields (a `USAGE` error naming the field otherwise). */
export function checkSearchRequest(k: unknown, request: SearchRequest = {}): void {
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 1 || k > MAX_SEARCH_K)
    throw new CorebError('USAGE', `k must be an integer from 1 to ${MAX_SEARCH_K}, got ${JSON.stringify(k)}`);
  for (const field of ['paths', 'languages'] as const) {
    const v = request[field];
    if (v !== undefined && (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x === '')))
      throw new CorebError('USAGE', `${field} must be a list of non-empty strings, got ${JSON.stringify(v)}`);
  }
  if (request.perFile !== undefined && (!Number.isInteger(request.perFile) || request.perFile < 1 || request.perFile > 100))
    throw new CorebError('USAGE', `perFile must be an integer from 1 to 100, got ${JSON.stringify(request.perFile)}`);
}

/**
 * Answers `query` from `source`: the filters applied (searched deeper, four times each round, while
 * fewer than needed pass and the ranking may hold more), a `symbol:` query looked up by name (closest
 * match first, then by the rank of its words when given, then by path and line), and the hits grouped
 * by file when asked.
 */
export async function answerSearch(
  source: RankSource,
  query: string,
  k: number,
  request: SearchRequest = {},
  signal?: AbortSignal,
): Promise<SearchAnswer> {
  if (typeof query !== 'string' || query.trim() === '') throw new CorebError('USAGE', 'the query must be a non-empty string');
  checkSearchRequest(k, request);
  const inPath = request.paths !== undefined && request.paths.length > 0 ? pathMatcher(request.paths) : undefined;
  const languages =
    request.languages !== undefined && request.languages.length > 0 ? new Set(request.languages.map((l) => l.toLowerCase())) : undefined;
  const passes = (d: Doc): boolean => {
    if (inPath === undefined && languages === undefined) return true;
    const at = chunkLocation(d);
    if (inPath !== undefined && (at.path === undefined || !inPath(at.path))) return false;
    return languages === undefined || (at.language !== undefined && languages.has(at.language.toLowerCase()));
  };
  const perFile = request.perFile ?? 3;
  const grouped = request.groupByFile === true;
  // enough chunks for k files: stop once k distinct files passed
  const enough = (hits: readonly Doc[]): boolean => {
    if (!grouped) return hits.length >= k;
    const files = new Set<string>();
    for (const d of hits) files.add(fileOf(d));
    return files.size >= k;
  };
  let ranked: Array<{ doc: Doc; score: number }>;
  const symbolQuery = parseSymbolQuery(query);
  if (symbolQuery !== undefined) ranked = await bySymbol(source, symbolQuery, passes, signal);
  else {
    let depth = Math.min(source.size, grouped || inPath !== undefined || languages !== undefined ? Math.max(4 * k, 100) : k);
    for (;;) {
      const { docs, scores } = await source.rank(query, Math.max(1, depth), signal);
      ranked = [];
      for (let i = 0; i < docs.length; i++) if (passes(docs[i])) ranked.push({ doc: docs[i], score: scores[i] });
      if (enough(ranked.map((r) => r.doc)) || docs.length < depth || depth >= source.size) break;
      depth = Math.min(depth * 4, source.size);
    }
  }
  const hit = (r: { doc: Doc; score: number }, i: number): SearchHit => {
    const { repo: _repo, ...where } = chunkLocation(r.doc);
    return { rank: i + 1, id: r.doc.id, score: r.score, ...where, text: r.doc.text };
  };
  if (!grouped) return { hits: ranked.slice(0, k).map(hit) };
  const files = new Map<string, FileHit>();
  for (const r of ranked) {
    const key = fileOf(r.doc);
    let f = files.get(key);
    if (f === undefined) {
      if (files.size >= k) continue;
      const at = chunkLocation(r.doc);
      f = {
        rank: files.size + 1,
        path: at.path ?? r.doc.id,
        score: r.score,
        ...(at.language !== undefined ? { language: at.language } : {}),
        hits: [],
      };
      files.set(key, f);
    }
    if (f.hits.length < perFile) f.hits.push(hit(r, f.hits.length));
  }
  return { files: [...files.values()] };
}

/** A chunk's file (`repo:path`; the id for a document that names none). */
function fileOf(d: Doc): string {
  const at = chunkLocation(d);
  return at.path === undefined ? d.id : `${at.repo ?? ''}:${at.path}`;
}

/** Documents whose symbol answers a `symbol:` query, closest first (see {@link answerSearch}); the score is 4 − the match class, plus the words' score in [0, 1) when given. */
async function bySymbol(
  source: RankSource,
  q: { symbol: string; rest: string },
  passes: (d: Doc) => boolean,
  signal?: AbortSignal,
): Promise<Array<{ doc: Doc; score: number }>> {
  const found: Array<{ doc: Doc; cls: number; path: string; line: number }> = [];
  for (const d of source.documents()) {
    const at = chunkLocation(d);
    const cls = symbolMatch(at.symbol, q.symbol);
    if (cls !== undefined && passes(d)) found.push({ doc: d, cls, path: at.path ?? d.id, line: at.startLine ?? 0 });
  }
  const wordRank = new Map<string, number>();
  if (q.rest !== '' && found.length > 0) {
    const { docs } = await source.rank(q.rest, source.size, signal);
    for (let i = 0; i < docs.length; i++) wordRank.set(docs[i].id, i);
  }
  const rankOf = (d: Doc) => wordRank.get(d.id) ?? Number.POSITIVE_INFINITY;
  found.sort((a, b) => a.cls - b.cls || rankOf(a.doc) - rankOf(b.doc) || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
  return found.map((f) => {
    const r = rankOf(f.doc);
    return { doc: f.doc, score: 4 - f.cls + (Number.isFinite(r) ? 1 / (2 + r) : 0) };
  });
}
