/**
 * Model metadata: what a leaderboard needs to know of a model besides its scores (size, embedding
 * dimension, context, weights, licence, whether it was trained for code, when it came out and
 * where it is described), for the parameter-efficiency view (paper Figures 9, 10, 13) and MTEB's
 * `model_meta.json`. Pure: parsing and merging only; the presets that fill it live in providers.
 */
import { CorebError } from './errors.js';

/** Facts of one model; `null` where unknown. */
export interface ModelMeta {
  /** Parameter count (0 for a model without learned weights such as BM25); null when unpublished (API models). */
  parameters: number | null;
  /** Embedding dimension of the vectors scored. */
  embedDim: number | null;
  /** Maximum input tokens. */
  maxTokens: number | null;
  openWeights: boolean | null;
  /** SPDX-like licence id (`apache-2.0`). */
  license: string | null;
  /** Trained or tuned for code (as its card says). */
  codeSpecialised: boolean | null;
  /** ISO date (`2025-06-05`). */
  releaseDate: string | null;
  /** A page describing the model. */
  reference: string | null;
  /** Where these values come from (`coreb preset Qwen/Qwen3-Embedding-8B`, a `--model-meta` file, an MTEB `model_meta.json`). */
  source: string;
}

/** Metadata given by the user (`--model-meta FILE`): the file and its entries by row name or model id. */
export interface GivenModelMeta {
  file: string;
  entries: ReadonlyMap<string, Partial<ModelMeta>>;
}

/** The fields of {@link ModelMeta} a file may set, with MTEB's `ModelMeta` names accepted beside coreb's. */
const FIELDS: ReadonlyArray<{ key: Exclude<keyof ModelMeta, 'source'>; aliases: readonly string[]; type: 'count' | 'boolean' | 'string' | 'date' }> =
  [
    { key: 'parameters', aliases: ['n_parameters'], type: 'count' },
    { key: 'embedDim', aliases: ['embed_dim'], type: 'count' },
    { key: 'maxTokens', aliases: ['max_tokens'], type: 'count' },
    { key: 'openWeights', aliases: ['open_weights'], type: 'boolean' },
    { key: 'license', aliases: [], type: 'string' },
    { key: 'codeSpecialised', aliases: ['codeSpecialized', 'code_specialised', 'code_specialized'], type: 'boolean' },
    { key: 'releaseDate', aliases: ['release_date'], type: 'date' },
    { key: 'reference', aliases: [], type: 'string' },
  ];

/** Every name a metadata file may use for a field (coreb's and MTEB's). */
const KNOWN_NAMES: ReadonlySet<string> = new Set(FIELDS.flatMap((f) => [f.key, ...f.aliases]));

/** A {@link ModelMeta} with every field unknown. */
export function emptyModelMeta(source: string): ModelMeta {
  return {
    parameters: null,
    embedDim: null,
    maxTokens: null,
    openWeights: null,
    license: null,
    codeSpecialised: null,
    releaseDate: null,
    reference: null,
    source,
  };
}

/**
 * Reads the known fields of one metadata object (coreb's names or MTEB's: `n_parameters`,
 * `embed_dim`, `max_tokens`, `open_weights`, `release_date`); other keys are ignored (MTEB's file
 * has many). Only the fields present are returned.
 * @throws CorebError `VALIDATION` naming `where` and the field, for a value of the wrong type.
 */
export function parseModelMetaFields(value: Record<string, unknown>, where: { file: string; field: string }): Partial<ModelMeta> {
  const out: Partial<Record<keyof ModelMeta, unknown>> = {};
  for (const f of FIELDS) {
    const name = [f.key, ...f.aliases].find((k) => Object.hasOwn(value, k));
    if (name === undefined) continue;
    const v = value[name];
    const field = `${where.field}.${name}`;
    if (v === null) {
      out[f.key] = null;
      continue;
    }
    const bad = (expected: string) =>
      new CorebError('VALIDATION', `must be ${expected} or null, got ${JSON.stringify(v)}`, { file: where.file, field });
    if (f.type === 'count') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw bad('a non-negative integer');
    } else if (f.type === 'boolean') {
      if (typeof v !== 'boolean') throw bad('true or false');
    } else if (f.type === 'date') {
      if (typeof v !== 'string' || !isIsoDate(v)) throw bad('an ISO date (YYYY-MM-DD, optionally with a time: 2024-05-01T00:00:00Z)');
    } else if (typeof v !== 'string') throw bad('a string');
    out[f.key] = f.type === 'date' ? (v as string).slice(0, 10) : v;
  }
  return out as Partial<ModelMeta>;
}

/** True when `v` is a real calendar date `YYYY-MM-DD`, alone or followed by an ISO 8601 time. */
export function isIsoDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(v);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return false;
  return m[4] === undefined || (Number(m[4]) < 24 && Number(m[5]) < 60 && (m[6] === undefined || Number(m[6]) < 60));
}

/** `base` with every field `over` sets replaced; `source` names both when both gave something. */
export function mergeModelMeta(base: ModelMeta | undefined, over: Partial<ModelMeta>, source: string): ModelMeta {
  const b = base ?? emptyModelMeta(source);
  const set = Object.keys(over).filter((k) => k !== 'source');
  if (set.length === 0) return b;
  return { ...b, ...over, source: base === undefined || base.source === source ? source : `${base.source}; ${source}` };
}

/**
 * Parses a `--model-meta FILE`: a JSON object keyed by a row's name or a model id, each value an
 * object of metadata fields (coreb's or MTEB's names), e.g.
 * `{"my-e5": {"parameters": 109482240, "embedDim": 768, "openWeights": true}}`; or one MTEB
 * `model_meta.json` (an object with `name`), keyed by that name.
 * Fields coreb does not know in coreb's own format are passed to `warn` (MTEB's file has many and
 * is read quietly).
 * @throws CorebError `PARSE` / `VALIDATION` naming the file and the field.
 */
export function parseModelMetaFile(text: string, file: string, warn: (message: string) => void = () => {}): Map<string, Partial<ModelMeta>> {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new CorebError('PARSE', `model metadata is not valid JSON (${(e as Error).message})`, { file });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CorebError('VALIDATION', 'model metadata must be a JSON object keyed by retriever name or model id, e.g. {"bm25": {"parameters": 0}}', {
      file,
    });
  }
  const rec = value as Record<string, unknown>;
  const out = new Map<string, Partial<ModelMeta>>();
  if (typeof rec.name === 'string' && (Object.hasOwn(rec, 'n_parameters') || Object.hasOwn(rec, 'revision'))) {
    out.set(rec.name, parseModelMetaFields(rec, { file, field: 'model_meta' }));
    return out;
  }
  for (const [key, v] of Object.entries(rec)) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      throw new CorebError('VALIDATION', `must be an object of metadata fields (parameters, embedDim, maxTokens, ...), got ${JSON.stringify(v)}`, {
        file,
        field: key,
      });
    }
    out.set(key, parseModelMetaFields(v as Record<string, unknown>, { file, field: key }));
    const unknown = Object.keys(v).filter((k) => !KNOWN_NAMES.has(k));
    if (unknown.length > 0) {
      warn(
        `${file}: ${key}: ${unknown.map((k) => `\`${k}\``).join(', ')} ${unknown.length === 1 ? 'is not a metadata field' : 'are not metadata fields'} coreb knows, ignored (known: ${FIELDS.map((f) => f.key).join(', ')})`,
      );
    }
  }
  return out;
}

/**
 * The model a retriever description names: its `model` (or, for a dense or reranked row, the
 * encoder's / first stage's), else undefined (BM25, a run file).
 */
export function describedModel(description: Record<string, unknown> | undefined): string | undefined {
  if (description === undefined) return undefined;
  if (typeof description.model === 'string') return description.model;
  for (const key of ['encoder', 'embedder', 'firstStage']) {
    const inner = description[key];
    if (inner !== null && typeof inner === 'object') {
      const m = describedModel(inner as Record<string, unknown>);
      if (m !== undefined) return m;
    }
  }
  return undefined;
}

/** A parameter count for people: `595.8M`, `7.57B`, `0` (BM25), `?` when unknown. */
export function formatParameters(n: number | null | undefined): string {
  if (n === null || n === undefined) return '?';
  if (n === 0) return '0';
  if (n >= 1e9) return `${(n / 1e9).toPrecision(3).replace(/\.?0+$/, '')}B`;
  if (n >= 1e6) return `${(n / 1e6).toPrecision(4).replace(/\.?0+$/, '')}M`;
  return String(n);
}
