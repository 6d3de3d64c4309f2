/**
 * Parses `--retriever` specs into plain values: `bm25[?k1=..&b=..]`, `embeddings:FILE`, `run:FILE`,
 * `rrf:SPEC,SPEC[,k=60][,weights=W,W]` and `dense:PROVIDER:MODEL[?...]`. No I/O; see create-retriever.
 */
import { CorebError } from '../core/errors.js';
import { splitTopLevel } from '../core/split-top-level.js';
import { BM25_OPTION_TYPES, BM25_PRESETS } from '../search/bm25.js';
import { RRF_DEFAULT_K } from '../search/rrf.js';

/**
 * A parsed retriever spec. `text` is the spec as written; `name`, when the spec sets `name=`, is
 * the display name (leaderboard row, results `name`, run file names), else `text` is.
 */
export type RetrieverSpec = (
  | { kind: 'bm25'; text: string; params: Record<string, Bm25ParamValue>; bridge?: BridgeSpec }
  | { kind: 'embeddings'; text: string; file: string; search: DenseSearchParams }
  | { kind: 'run'; text: string; file: string }
  | { kind: 'rrf'; text: string; members: RetrieverSpec[]; k: number; weights: number[] | null }
  | { kind: 'dense'; text: string; spec: string; search: DenseSearchParams }
  | { kind: 'top-ranked'; text: string; file: string | null }
  | { kind: 'grep'; text: string; minLength?: number }
  | { kind: 'es'; text: string; index: string; params: Map<string, string[]> }
  | ({ kind: 'hyde' | 'q2d'; text: string; chat: string; member: RetrieverSpec } & ExpansionSpecOptions)
) & {
  name?: string;
  /**
   * `filter=language`: each query's candidates are cut to its own language (text-to-code
   * `language_constraint`, code-to-code target languages) after ranking. Published baselines did
   * not filter; a result that did says so (see docs/eval.md).
   */
  filter?: 'language';
};

/** The values `filter=` takes. */
export const RETRIEVER_FILTERS = ['language'] as const;

/** Options of a `hyde:` / `q2d:` spec (see eval/query-expansion.ts for defaults). */
export interface ExpansionSpecOptions {
  /** RRF weights of [plain, expanded]. */
  weights?: [number, number];
  k?: number;
  prompt?: string;
  repeat?: number;
  concurrency?: number;
  maxTokens?: number;
}

/** `bm25?bridge=FILE[&bridgeTerms=20&bridgeWeight=0.3&bridgeMode=mix&bridgeMaxDf=0.1]`: the vocabulary bridge's file and search settings. */
export interface BridgeSpec {
  file: string;
  /** Expansion terms per query. Default 20. */
  terms?: number;
  /** Weight of the bridge (tlm: the rescored list's RRF weight; mix: lambda; rrf: the expanded pass's weight). Default 0.5. */
  weight?: number;
  /** `tlm` (default), `mix` or `rrf` (see BridgeSearchOptions.mode). */
  mode?: 'mix' | 'rrf' | 'tlm';
  /** Expansion terms in more than this share of the documents are dropped. Default 0.1. */
  maxDf?: number;
}

/** The name a retriever is shown and filed under: its `name=`, else the spec as written. */
export function retrieverLabel(spec: RetrieverSpec): string {
  return spec.name ?? spec.text;
}

/** Checks a `name=` value: non-empty, printable, at most 100 characters. */
function checkName(spec: string, name: string): string {
  const n = name.trim();
  if (n === '' || n.length > 100 || /[\p{Cc}]/u.test(n)) {
    throw new CorebError('USAGE', `retriever \`${spec}\`: name= must be 1 to 100 printable characters, got ${JSON.stringify(name)}`);
  }
  return n;
}

/**
 * Takes `name=X` out of the query string after the last `?` of a (non-rrf) spec: returns the spec
 * without it (the `?` dropped when nothing else is left) and the name, decoded.
 */
function takeName(spec: string): { body: string; name?: string; filter?: 'language' } {
  const q = spec.lastIndexOf('?');
  if (q < 0) return { body: spec };
  const all = spec.slice(q + 1).split('&');
  const filters = all.filter((p) => p.startsWith('filter='));
  const filter = filters.length === 0 ? undefined : checkFilter(spec, filters);
  const parts = all.filter((p) => !p.startsWith('filter='));
  const named = parts.filter((p) => p.startsWith('name='));
  if (named.length === 0) {
    const body = spec.slice(0, q) + (parts.length > 0 ? `?${parts.join('&')}` : '');
    return filter === undefined ? { body: spec } : { body, filter };
  }
  if (named.length > 1) throw new CorebError('USAGE', `retriever \`${spec}\`: name= given ${named.length} times`);
  const others = parts.filter((p) => !p.startsWith('name='));
  let raw: string;
  try {
    raw = decodeURIComponent(named[0].slice(5).replace(/\+/g, ' '));
  } catch {
    throw new CorebError('USAGE', `retriever \`${spec}\`: name= is not valid percent-encoding`);
  }
  return {
    body: spec.slice(0, q) + (others.length > 0 ? `?${others.join('&')}` : ''),
    name: checkName(spec, raw),
    ...(filter !== undefined ? { filter } : {}),
  };
}

/** Checks the `filter=` parts of a spec: one, with a known value. */
function checkFilter(spec: string, parts: readonly string[]): 'language' {
  if (parts.length > 1) throw new CorebError('USAGE', `retriever \`${spec}\`: filter= given ${parts.length} times`);
  const value = parts[0].slice(7);
  if (!(RETRIEVER_FILTERS as readonly string[]).includes(value)) {
    throw new CorebError('USAGE', `retriever \`${spec}\`: unknown filter \`${value}\`; valid: ${RETRIEVER_FILTERS.join(', ')}`);
  }
  return value as 'language';
}

/** Dense search settings of an `embeddings:` or `dense:` spec (`?dtype=float16&threads=2`). */
export interface DenseSearchParams {
  /** Storage of the document vectors (`float32` or `float16`). */
  dtype?: 'float32' | 'float16';
  /** Worker threads (default: all cores). */
  threads?: number;
  /**
   * `embeddings:` only (`memory=512MB`): bytes the document matrix of a `.npy` directory may take in
   * memory (in its storage dtype); a larger one is searched streamed from the file. Default: half
   * of the machine's memory (`loadEmbeddings`).
   */
  memoryBytes?: number;
  /**
   * Dot-product kernel (`kernel=ort`): `ort` scores with onnxruntime's SGEMM (the optional
   * onnxruntime-node package, ~5x faster on AVX-512; scores differ from the default's in the last
   * bits); `wasm` or `js` as in dense search. Default: `wasm` (exact, bit-identical across threads).
   */
  kernel?: 'wasm' | 'js' | 'ort';
}

/** The keys {@link takeDenseParams} takes out of a spec's query string (`memory` only with `only`). */
const DENSE_KEYS = ['dtype', 'threads', 'memory', 'kernel'];

const BYTE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };

/**
 * Parses a size such as `512MB`, `1.5G`, `2GiB`, `1048576`: a number and an optional unit B, K, M,
 * G or T (KB/KiB, MB/MiB... the same; binary multiples: 1 MB = 2^20 bytes; case-insensitive).
 * @returns whole bytes, or undefined when `text` is not such a size.
 */
export function parseByteSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([bkmgt]?)(?:i?b)?\s*$/i.exec(text);
  if (m === null) return undefined;
  const unit = BYTE_UNITS[m[2].toLowerCase()];
  return Math.floor(Number(m[1]) * unit);
}

/**
 * Splits `rest` (what follows `kind:`) at its last `?` and takes the dense search keys out of the
 * query string; the other keys stay in `rest` (a `dense:` model's parameters). With `only`, any
 * other key is an error (an `embeddings:` file has no other parameters).
 */
function takeDenseParams(spec: string, rest: string, only: boolean): { rest: string; search: DenseSearchParams } {
  const q = rest.lastIndexOf('?');
  if (q < 0) return { rest, search: {} };
  const params = new URLSearchParams(rest.slice(q + 1));
  const search: DenseSearchParams = {};
  const dtype = params.get('dtype');
  if (dtype !== null) {
    if (dtype !== 'float32' && dtype !== 'float16')
      throw new CorebError('USAGE', `retriever \`${spec}\`: dtype must be float32 or float16, got \`${dtype}\``);
    search.dtype = dtype;
  }
  const threads = params.get('threads');
  if (threads !== null) {
    const n = Number(threads);
    if (!Number.isInteger(n) || n < 1) throw new CorebError('USAGE', `retriever \`${spec}\`: threads must be an integer >= 1, got \`${threads}\``);
    search.threads = n;
  }
  const kernel = params.get('kernel');
  if (kernel !== null) {
    if (kernel !== 'wasm' && kernel !== 'js' && kernel !== 'ort')
      throw new CorebError('USAGE', `retriever \`${spec}\`: kernel must be wasm, js or ort, got \`${kernel}\``);
    search.kernel = kernel;
  }
  const memory = only ? params.get('memory') : null;
  if (memory !== null) {
    const bytes = parseByteSize(memory);
    if (bytes === undefined) {
      throw new CorebError(
        'USAGE',
        `retriever \`${spec}\`: memory must be a size such as 512MB, 2GB or 0 (bytes; K, M, G, T are powers of 1024), got \`${memory}\``,
      );
    }
    search.memoryBytes = bytes;
  }
  for (const k of DENSE_KEYS) if (k !== 'memory' || only) params.delete(k);
  const others = [...params.keys()];
  if (only && others.length > 0) {
    throw new CorebError('USAGE', `retriever \`${spec}\`: unknown parameter \`${others[0]}\`; valid: ${DENSE_KEYS.join(', ')}`);
  }
  const left = params.toString();
  return { rest: rest.slice(0, q) + (left === '' ? '' : `?${left}`), search };
}

/** A BM25 parameter value from a spec's query string. */
export type Bm25ParamValue = number | boolean | string | string[];

/**
 * Parses one `bm25?key=value` parameter by its type in the search area's `BM25_OPTION_TYPES` (so
 * every option BM25 has, RM3 feedback included, is settable from a spec).
 */
function parseBm25Param(spec: string, key: string, value: string): Bm25ParamValue {
  const type = (BM25_OPTION_TYPES as Record<string, string>)[key];
  if (type === undefined) {
    throw new CorebError(
      'USAGE',
      `retriever \`${spec}\`: unknown bm25 parameter \`${key}\`; valid: ${Object.keys(BM25_OPTION_TYPES).join(', ')}, preset, name`,
    );
  }
  if (type === 'number') {
    const n = Number(value);
    if (value === '' || !Number.isFinite(n)) {
      throw new CorebError('USAGE', `retriever \`${spec}\`: parameter \`${key}\` must be a number, got \`${value}\``);
    }
    return n;
  }
  if (type === 'boolean') {
    if (value !== 'true' && value !== 'false') {
      throw new CorebError('USAGE', `retriever \`${spec}\`: parameter \`${key}\` must be true or false, got \`${value}\``);
    }
    return value === 'true';
  }
  if (type === 'list')
    return value
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
  return value;
}

/** Reads one `bridge`, `bridgeTerms` or `bridgeWeight` parameter into `current`. */
function parseBridgeParam(spec: string, current: BridgeSpec | undefined, key: string, value: string): BridgeSpec {
  const b: BridgeSpec = { ...(current ?? { file: '' }) };
  if (key === 'bridge') {
    if (value === '') throw new CorebError('USAGE', `retriever \`${spec}\`: bridge= needs a file made by \`coreb bridge train\``);
    b.file = value;
    return b;
  }
  const n = Number(value);
  if (key === 'bridgeMode') {
    if (value !== 'mix' && value !== 'rrf' && value !== 'tlm')
      throw new CorebError('USAGE', `retriever \`${spec}\`: bridgeMode must be mix, rrf or tlm, got \`${value}\``);
    b.mode = value;
  } else if (key === 'bridgeMaxDf') {
    if (value === '' || !Number.isFinite(n) || n <= 0 || n > 1)
      throw new CorebError('USAGE', `retriever \`${spec}\`: bridgeMaxDf must be a number in (0, 1], got \`${value}\``);
    b.maxDf = n;
  } else if (key === 'bridgeTerms') {
    if (!Number.isInteger(n) || n < 1) throw new CorebError('USAGE', `retriever \`${spec}\`: bridgeTerms must be an integer >= 1, got \`${value}\``);
    b.terms = n;
  } else if (key === 'bridgeWeight') {
    if (value === '' || !Number.isFinite(n) || n < 0)
      throw new CorebError('USAGE', `retriever \`${spec}\`: bridgeWeight must be a number >= 0, got \`${value}\``);
    b.weight = n;
  } else {
    throw new CorebError(
      'USAGE',
      `retriever \`${spec}\`: unknown bridge parameter \`${key}\`; valid: bridge, bridgeTerms, bridgeWeight, bridgeMode, bridgeMaxDf`,
    );
  }
  return b;
}

/** Spec kinds, for messages. */
const KINDS =
  'bm25[?k1=..&b=..&bridge=FILE], grep[?minLength=3], embeddings:FILE, run:FILE, rrf:SPEC,SPEC[,k=60][,weights=1,1], dense:PROVIDER:MODEL, top-ranked[:FILE], es:INDEX[?url=..], hyde:CHAT,SPEC, q2d:CHAT,SPEC (each may add name=NAME: ?name=NAME, or ,name=NAME in rrf)';

/**
 * Parses one retriever spec.
 * - `bm25`, `bm25?k1=0.9&b=0.4`: numeric parameters passed to the BM25 retriever.
 * - `embeddings:PATH[?dtype=float16&threads=N&memory=SIZE&kernel=ort]`: precomputed vectors, a JSONL file or a
 *   directory of `.npy` matrices + ids files (see docs/eval.md); `dtype` stores the documents as
 *   float16; a `.npy` document matrix larger than `memory` (default half the machine's memory) is
 *   searched streamed from its file, with the same results; `kernel=ort` scores with onnxruntime's
 *   SGEMM on `threads` threads (see {@link DenseSearchParams.kernel}).
 * - `run:FILE`: a TREC run file (plain or .gz).
 * - `rrf:A,B[,k=60][,weights=1,0.5]`: reciprocal-rank fusion of member specs. Members are split at
 *   top-level commas; wrap a member containing commas (e.g. a nested rrf) in parentheses. After
 *   `weights=` the following bare numbers are further weights, one per member.
 * - `dense:...`: a live embedding model, resolved by the providers' `createDenseEmbedder`; the
 *   `dtype`, `threads` and `kernel` parameters are dense search's, the others the model's.
 * - `top-ranked[:FILE]`: fixed MTEB candidate lists (`{"query-id", "corpus-ids"}` JSONL), in file
 *   order; without FILE, the data directory's `top_ranked.jsonl` (or `top_ranked/<split>.jsonl`).
 * - `es:INDEX[?url=..&fields=..]`: an Elasticsearch/OpenSearch index searched over HTTP; the
 *   parameters (URL-decoded, a repeated key keeps all values) are checked when it is created.
 * - `name=NAME` in any spec's query string (`bm25?k1=1.2&name=lexical`, `run:my.trec?name=mine`,
 *   `dense:openai:m?baseUrl=..&name=e5`) or as an rrf part (`rrf:bm25,run:x.trec,name=hybrid`)
 *   sets the display name; the rest of the spec is parsed without it.
 * @throws CorebError `USAGE` naming the spec and the valid forms.
 */
export function parseRetrieverSpec(text: string): RetrieverSpec {
  const trimmed = text.trim();
  if (trimmed === '') throw new CorebError('USAGE', `empty retriever spec; valid forms: ${KINDS}`);
  if (trimmed.startsWith('rrf:')) return parseRrf(trimmed, trimmed.slice(4));
  if (trimmed.startsWith('hyde:') || trimmed.startsWith('q2d:')) return parseBody(trimmed);
  const { body, name, filter } = takeName(trimmed);
  const parsed = parseBody(body);
  return {
    ...parsed,
    ...(name !== undefined || filter !== undefined ? { text: trimmed } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(filter !== undefined ? { filter } : {}),
  };
}

/** Parses a spec without its `name=`. */
function parseBody(spec: string): RetrieverSpec {
  if (spec === '') throw new CorebError('USAGE', `empty retriever spec; valid forms: ${KINDS}`);
  if (spec === 'bm25' || spec.startsWith('bm25?')) {
    const params: Record<string, Bm25ParamValue> = {};
    let preset: Record<string, Bm25ParamValue> = {};
    let bridge: BridgeSpec | undefined;
    const query = spec.slice(5);
    if (query !== '') {
      for (const [key, value] of new URLSearchParams(query)) {
        if (key === 'bridge' || key.startsWith('bridge')) {
          bridge = parseBridgeParam(spec, bridge, key, value);
          continue;
        }
        if (key !== 'preset') {
          params[key] = parseBm25Param(spec, key, value);
          continue;
        }
        if (!Object.hasOwn(BM25_PRESETS, value)) {
          throw new CorebError('USAGE', `retriever \`${spec}\`: unknown bm25 preset \`${value}\`; valid: ${Object.keys(BM25_PRESETS).join(', ')}`);
        }
        preset = { ...BM25_PRESETS[value as keyof typeof BM25_PRESETS] };
      }
    }
    if (bridge !== undefined && bridge.file === '') throw new CorebError('USAGE', `retriever \`${spec}\`: bridgeTerms/bridgeWeight need bridge=FILE`);
    // Parameters given beside the preset win over it.
    return { kind: 'bm25', text: spec, params: { ...preset, ...params }, ...(bridge !== undefined ? { bridge } : {}) };
  }
  if (spec === 'grep' || spec.startsWith('grep?')) {
    const out: RetrieverSpec = { kind: 'grep', text: spec };
    for (const [key, value] of new URLSearchParams(spec.slice(5))) {
      const n = Number(value);
      if (key !== 'minLength') throw new CorebError('USAGE', `retriever \`${spec}\`: unknown grep parameter \`${key}\`; valid: minLength, name`);
      if (!Number.isInteger(n) || n < 1) throw new CorebError('USAGE', `retriever \`${spec}\`: minLength must be an integer >= 1, got \`${value}\``);
      out.minLength = n;
    }
    return out;
  }
  const colon = spec.indexOf(':');
  const kind = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1);
  switch (kind) {
    case 'embeddings': {
      const t = takeDenseParams(spec, rest, true);
      if (t.rest === '') throw new CorebError('USAGE', `retriever \`${spec}\` needs a file: \`embeddings:FILE\``);
      return { kind, text: spec, file: t.rest, search: t.search };
    }
    case 'run':
      if (rest === '') throw new CorebError('USAGE', `retriever \`${spec}\` needs a file: \`${kind}:FILE\``);
      return { kind, text: spec, file: rest };
    case 'dense': {
      const t = takeDenseParams(spec, rest, false);
      if (t.rest === '') throw new CorebError('USAGE', `retriever \`${spec}\` needs a model: \`dense:PROVIDER:MODEL\``);
      return { kind: 'dense', text: spec, spec: t.rest, search: t.search };
    }
    case 'rrf':
      return parseRrf(spec, rest);
    case 'hyde':
    case 'q2d':
      return parseExpansion(spec, kind, rest);
    case 'top-ranked':
      return { kind: 'top-ranked', text: spec, file: rest === '' ? null : rest };
    case 'es': {
      const q = rest.indexOf('?');
      const params = new Map<string, string[]>();
      for (const [key, value] of new URLSearchParams(q < 0 ? '' : rest.slice(q + 1))) params.set(key, [...(params.get(key) ?? []), value]);
      const index = q < 0 ? rest : rest.slice(0, q);
      if (index === '') throw new CorebError('USAGE', `retriever \`${spec}\` needs an index: \`es:INDEX[?url=http://127.0.0.1:9200&fields=text]\``);
      return { kind: 'es', text: spec, index, params };
    }
    default:
      throw new CorebError('USAGE', `unknown retriever \`${spec}\`; valid forms: ${KINDS}`);
  }
}

/** `hyde:CHAT,SPEC[,weights=1,1][,k=60][,prompt=FILE][,repeat=5][,concurrency=4][,maxTokens=512][,name=N]`. */
function parseExpansion(spec: string, kind: 'hyde' | 'q2d', body: string): RetrieverSpec {
  const usage = `${kind}:CHAT,SPEC[,weights=1,1][,k=60][,prompt=FILE][,repeat=5][,concurrency=4][,maxTokens=512]`;
  const parts = splitTopLevel(body)
    .filter((p) => p.trim() !== '')
    .map((p) => p.trim());
  const unwrap = (p: string) => (p.startsWith('(') && p.endsWith(')') ? p.slice(1, -1) : p);
  const option = /^(weights|k|prompt|repeat|concurrency|maxTokens|name)=/;
  if (parts.length < 2 || option.test(parts[0]) || option.test(parts[1]))
    throw new CorebError(
      'USAGE',
      `retriever \`${spec}\`: needs a chat model and a retriever: ${usage}, e.g. ${kind}:(openai:qwen?baseUrl=http://127.0.0.1:8000/v1),bm25`,
    );
  const out: RetrieverSpec & { kind: 'hyde' | 'q2d' } = { kind, text: spec, chat: unwrap(parts[0]), member: parseRetrieverSpec(unwrap(parts[1])) };
  const num = (key: string, value: string, min: number, integer: boolean): number => {
    const n = Number(value);
    if (value === '' || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n)))
      throw new CorebError('USAGE', `retriever \`${spec}\`: ${key} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got \`${value}\``);
    return n;
  };
  for (let i = 2; i < parts.length; i++) {
    const [key, ...v] = parts[i].split('=');
    const value = v.join('=');
    if (key === 'weights') {
      const next = parts[i + 1];
      if (next === undefined || next.includes('='))
        throw new CorebError('USAGE', `retriever \`${spec}\`: weights= takes two numbers (plain, expanded): weights=1,1`);
      out.weights = [num('weights', value, 0, false), num('weights', next, 0, false)];
      i++;
    } else if (key === 'k') out.k = num('k', value, 1e-9, false);
    else if (key === 'prompt') out.prompt = value;
    else if (key === 'repeat') out.repeat = num('repeat', value, 0, true);
    else if (key === 'concurrency') out.concurrency = num('concurrency', value, 1, true);
    else if (key === 'maxTokens') out.maxTokens = num('maxTokens', value, 1, true);
    else if (key === 'name') out.name = checkName(spec, value);
    else throw new CorebError('USAGE', `retriever \`${spec}\`: unknown option \`${parts[i]}\`; ${usage}`);
  }
  return out;
}

function parseRrf(spec: string, body: string): RetrieverSpec {
  const members: RetrieverSpec[] = [];
  let k = RRF_DEFAULT_K;
  let weights: number[] | null = null;
  let inWeights = false;
  let name: string | undefined;
  let filter: 'language' | undefined;
  for (const raw of splitTopLevel(body).filter((p) => p.trim() !== '')) {
    const part = raw.trim();
    if (part.startsWith('filter=')) {
      if (filter !== undefined) throw new CorebError('USAGE', `retriever \`${spec}\`: filter= given twice`);
      filter = checkFilter(spec, [part]);
      inWeights = false;
      continue;
    }
    if (part.startsWith('name=')) {
      if (name !== undefined) throw new CorebError('USAGE', `retriever \`${spec}\`: name= given twice`);
      name = checkName(spec, part.slice(5));
      inWeights = false;
      continue;
    }
    if (part.startsWith('k=')) {
      k = Number(part.slice(2));
      if (!Number.isFinite(k) || k < 0) throw new CorebError('USAGE', `retriever \`${spec}\`: k must be a number >= 0, got \`${part.slice(2)}\``);
      inWeights = false;
      continue;
    }
    if (part.startsWith('weights=')) {
      weights = [];
      inWeights = true;
      pushWeight(spec, weights, part.slice(8));
      continue;
    }
    if (inWeights && weights !== null && /^[-+]?[0-9.]/.test(part)) {
      pushWeight(spec, weights, part);
      continue;
    }
    inWeights = false;
    const member = part.startsWith('(') && part.endsWith(')') ? part.slice(1, -1) : part;
    members.push(parseRetrieverSpec(member));
  }
  if (members.length < 2) throw new CorebError('USAGE', `retriever \`${spec}\`: rrf needs at least two member specs`);
  if (weights !== null && weights.length !== members.length) {
    throw new CorebError('USAGE', `retriever \`${spec}\`: ${weights.length} weights for ${members.length} members; give one weight per member`);
  }
  return { kind: 'rrf', text: spec, members, k, weights, ...(name !== undefined ? { name } : {}), ...(filter !== undefined ? { filter } : {}) };
}

function pushWeight(spec: string, weights: number[], value: string): void {
  const w = Number(value);
  if (value === '' || !Number.isFinite(w) || w < 0) {
    throw new CorebError('USAGE', `retriever \`${spec}\`: weights must be numbers >= 0, got \`${value}\``);
  }
  weights.push(w);
}
