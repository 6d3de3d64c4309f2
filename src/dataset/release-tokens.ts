/**
 * The paper's descriptive tables that need texts: average token lengths in cl100k_base (Tables 1,
 * 9 and 16: per subtask, per corpus) and verified-correct programs per model x language (§A.8,
 * Table 13's "complementary strengths"). cl100k_base comes from `gpt-tokenizer` (pure JS, the
 * vocabulary bundled, offline), loaded only when token statistics are asked for.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableLines } from '../core/table.js';
import type { Release } from '../core/dataset.js';
import type { ReleaseTokenStats, TokenMean, VerifiedByModelLanguage } from '../core/eval-results.js';
import { CorebError } from '../core/errors.js';
import { corebVersion } from '../core/version.js';
import { EventLoopTurns } from '../core/event-loop-turns.js';
import { saveAtomic } from './atomic-write.js';
import { subtaskFamilyName } from './release-schema.js';

/** A counter of cl100k_base tokens. */
export type TokenCounter = (text: string) => number;

/**
 * Loads the cl100k_base counter (`gpt-tokenizer`).
 * @throws CorebError `UNSUPPORTED` when the package is not installed.
 */
export async function loadCl100kCounter(): Promise<TokenCounter> {
  let mod: { countTokens: (text: string, options?: { disallowedSpecial?: Set<string> }) => number };
  try {
    mod = (await import('gpt-tokenizer/encoding/cl100k_base')) as typeof mod;
  } catch (e) {
    throw new CorebError(
      'UNSUPPORTED',
      'token statistics need the npm package gpt-tokenizer (cl100k_base); install it with `npm install gpt-tokenizer`',
      {
        cause: e,
      },
    );
  }
  const none = new Set<string>();
  return (text) => mod.countTokens(text, { disallowedSpecial: none });
}

class Means {
  private readonly sums = new Map<string, { n: number; tokens: number }>();
  add(key: string, tokens: number): void {
    const s = this.sums.get(key) ?? { n: 0, tokens: 0 };
    s.n++;
    s.tokens += tokens;
    this.sums.set(key, s);
  }
  result(): Record<string, TokenMean> {
    const out: Record<string, TokenMean> = {};
    for (const k of [...this.sums.keys()].sort()) {
      const s = this.sums.get(k)!;
      out[k] = { items: s.n, meanTokens: s.tokens / s.n };
    }
    return out;
  }
}

/** The tables a counted text is averaged into: query subtasks, tasks and variants; code corpus; text corpus. */
type TokenTable = 'querySubtasks' | 'queryTasks' | 'queryVariants' | 'codeCorpus' | 'textCorpus';

/**
 * Every text the token tables count, each with the (table, row) pairs it is averaged into, in one
 * fixed order: queries by task, the code corpus, the text corpus (an abbreviated text after its
 * original). {@link releaseTokenStats} counts them; {@link releaseTokenDigest} hashes them.
 */
function* countedTexts(release: Release): Generator<{ text: string; into: ReadonlyArray<readonly [TokenTable, string]> }> {
  for (const [task, t] of Object.entries(release.tasks)) {
    for (const q of t.queries) {
      yield {
        text: q.query,
        into: [
          ['querySubtasks', q.subtask],
          ['queryTasks', task],
          ['queryVariants', subtaskFamilyName(q.subtask)],
        ],
      };
    }
  }
  for (const c of release.codeCorpus) {
    yield {
      text: c.code,
      into: [
        ['codeCorpus', c.language],
        ['codeCorpus', 'all'],
      ],
    };
  }
  for (const t of release.textCorpus) {
    yield {
      text: t.text,
      into: [
        ['textCorpus', 'all'],
        ['textCorpus', t.abbreviatedText != null ? 'originals' : 'near-miss'],
      ],
    };
    if (t.abbreviatedText != null) yield { text: t.abbreviatedText, into: [['textCorpus', 'abbreviated']] };
  }
}

/**
 * Mean cl100k_base token lengths of a release's queries (per subtask and task) and corpora (code per
 * language, text originals / near-miss / abbreviated). Gives the event loop a turn every 50 ms and
 * stops when `signal` aborts (v202602: about 1.5 s of tokenizing).
 * @throws CorebError `INTERRUPTED` when aborted.
 */
export async function releaseTokenStats(release: Release, count: TokenCounter, signal?: AbortSignal): Promise<ReleaseTokenStats> {
  const turns = new EventLoopTurns(signal);
  let done = 0;
  const tables: Record<TokenTable, Means> = {
    querySubtasks: new Means(),
    queryTasks: new Means(),
    queryVariants: new Means(),
    codeCorpus: new Means(),
    textCorpus: new Means(),
  };
  for (const { text, into } of countedTexts(release)) {
    if (turns.due()) await turns.take(() => `token statistics stopped after ${done} texts`);
    done++;
    const n = count(text);
    for (const [table, row] of into) tables[table].add(row, n);
  }
  return {
    encoding: 'cl100k_base',
    querySubtasks: tables.querySubtasks.result(),
    queryTasks: tables.queryTasks.result(),
    queryVariants: tables.queryVariants.result(),
    codeCorpus: tables.codeCorpus.result(),
    textCorpus: tables.textCorpus.result(),
  };
}

/**
 * SHA-256 (hex) of everything {@link releaseTokenStats} reads: each counted text with the rows it
 * is averaged into. Two releases with the same digest have the same token statistics, however
 * they were stored or loaded (a cache key; hashing is about a hundred times cheaper than
 * tokenizing).
 */
export function releaseTokenDigest(release: Release): string {
  const h = createHash('sha256').update('cl100k_base token statistics v1\n');
  for (const { text, into } of countedTexts(release)) {
    for (const [table, row] of into) h.update(`${table}\t${row}\t`);
    h.update(`${Buffer.byteLength(text)}\n`).update(text);
  }
  return h.digest('hex');
}

/**
 * {@link releaseTokenStats} through a cache: read from `<cacheDir>/datasets/<key>.tokens.json`
 * when an earlier command counted the same texts, else counted with cl100k_base and saved there.
 * The key is {@link releaseTokenDigest} (`coreb eval`, `validate` and `drift` share it), or, given
 * `files` (the SHA-256 of the release's files that `coreb eval` computes anyway for results.json),
 * a key made of that digest, the split and coreb's version: the same files loaded by the same coreb
 * are the same texts, and hashing every text again cost `coreb eval --out` ~25 ms of CPU on v202602.
 * Without `cacheDir`, always counted. The bundled sample: about 0.2 s of CPU counted, a few
 * milliseconds read.
 * @throws CorebError `INTERRUPTED` when aborted; `UNSUPPORTED` without gpt-tokenizer.
 */
export async function cachedReleaseTokenStats(
  release: Release,
  cacheDir: string | undefined,
  signal?: AbortSignal,
  files?: string,
): Promise<ReleaseTokenStats> {
  const key = (): string =>
    files === undefined
      ? releaseTokenDigest(release)
      : createHash('sha256')
          .update(`cl100k_base token statistics v1\nfiles ${files}\nsplit ${release.split}\ncoreb ${corebVersion()}\n`)
          .digest('hex');
  const file = cacheDir === undefined ? undefined : join(cacheDir, 'datasets', `${key()}.tokens.json`);
  if (file !== undefined) {
    const cached = await readFile(file, 'utf8').then(
      (t) => JSON.parse(t) as Partial<ReleaseTokenStats>,
      () => undefined,
    );
    if (cached?.encoding === 'cl100k_base' && cached.querySubtasks !== undefined && cached.textCorpus !== undefined)
      return cached as ReleaseTokenStats;
  }
  const stats = await releaseTokenStats(release, await loadCl100kCounter(), signal);
  // A cache: a failed write costs the next run the counting, nothing else (saveAtomic makes the folder).
  if (file !== undefined) await saveAtomic(file, JSON.stringify(stats)).catch(() => undefined);
  return stats;
}

/** Programs and verified-correct programs (`meta.passed` true) per model and language of the code corpus. */
export function verifiedByModelLanguage(release: Release): VerifiedByModelLanguage {
  const out: VerifiedByModelLanguage = {};
  for (const c of release.codeCorpus) {
    const model = c.model ?? '(no model)';
    const cell = ((out[model] ??= {})[c.language] ??= { programs: 0, passed: 0 });
    cell.programs++;
    if (c.meta.passed === true) cell.passed++;
  }
  return out;
}

/** Renders the token and verified-correct tables as plain text (two-space indented, for `coreb validate`). */
export function renderReleaseTokenStats(tokens: ReleaseTokenStats | undefined, verified: VerifiedByModelLanguage): string {
  const lines: string[] = [];
  if (tokens !== undefined) {
    lines.push(
      `average length in ${tokens.encoding} tokens (paper Tables 1, 9, 16; subtasks with their languages pooled; per language in --format json):`,
    );
    const row = (k: string, m: TokenMean) => `  ${k.padEnd(28)} ${m.meanTokens.toFixed(1).padStart(7)} tokens  (${m.items} items)`;
    for (const [k, m] of Object.entries(tokens.queryTasks)) lines.push(row(`${k} queries`, m));
    for (const [k, m] of Object.entries(tokens.queryVariants)) lines.push(row(`  ${k}`, m));
    for (const [k, m] of Object.entries(tokens.codeCorpus)) lines.push(row(`code corpus ${k}`, m));
    for (const [k, m] of Object.entries(tokens.textCorpus)) lines.push(row(`text corpus ${k}`, m));
    lines.push('');
  }
  const models = Object.keys(verified).sort();
  const langs = [...new Set(models.flatMap((m) => Object.keys(verified[m])))].sort();
  if (models.length > 0) {
    lines.push('verified-correct programs per model x language (passed / programs; paper §A.8):');
    const cells = models.map((m) => [
      m,
      ...langs.map((l) => (verified[m][l] === undefined ? '-' : `${verified[m][l].passed}/${verified[m][l].programs}`)),
    ]);
    const header = ['model', ...langs];
    lines.push(...tableLines({ header, rows: cells, indent: '  ' }));
  }
  return lines.join('\n');
}
