/**
 * The paper's descriptive tables that need texts: average token lengths in cl100k_base (Tables 1,
 * 9 and 16: per subtask, per corpus) and verified-correct programs per model x language (§A.8,
 * Table 13's "complementary strengths"). cl100k_base comes from `gpt-tokenizer` (pure JS, the
 * vocabulary bundled, offline), loaded only when token statistics are asked for.
 */
import { tableLines } from '../core/table.js';
import type { Release } from '../core/dataset.js';
import type { ReleaseTokenStats, TokenMean, VerifiedByModelLanguage } from '../core/eval-results.js';
import { CorebError } from '../core/errors.js';
import { EventLoopTurns } from '../core/event-loop-turns.js';
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

/**
 * Mean cl100k_base token lengths of a release's queries (per subtask and task) and corpora (code per
 * language, text originals / near-miss / abbreviated). Gives the event loop a turn every 50 ms and
 * stops when `signal` aborts (v202602: about 1.5 s of tokenizing).
 * @throws CorebError `INTERRUPTED` when aborted.
 */
export async function releaseTokenStats(release: Release, count: TokenCounter, signal?: AbortSignal): Promise<ReleaseTokenStats> {
  const turns = new EventLoopTurns(signal);
  let done = 0;
  const counted = async (text: string): Promise<number> => {
    if (turns.due()) await turns.take(() => `token statistics stopped after ${done} texts`);
    done++;
    return count(text);
  };
  const subtasks = new Means();
  const tasks = new Means();
  const variants = new Means();
  for (const [task, t] of Object.entries(release.tasks)) {
    for (const q of t.queries) {
      const n = await counted(q.query);
      subtasks.add(q.subtask, n);
      tasks.add(task, n);
      variants.add(subtaskFamilyName(q.subtask), n);
    }
  }
  const code = new Means();
  for (const c of release.codeCorpus) {
    const n = await counted(c.code);
    code.add(c.language, n);
    code.add('all', n);
  }
  const text = new Means();
  for (const t of release.textCorpus) {
    const n = await counted(t.text);
    text.add('all', n);
    text.add(t.abbreviatedText != null ? 'originals' : 'near-miss', n);
    if (t.abbreviatedText != null) text.add('abbreviated', await counted(t.abbreviatedText));
  }
  return {
    encoding: 'cl100k_base',
    querySubtasks: subtasks.result(),
    queryTasks: tasks.result(),
    queryVariants: variants.result(),
    codeCorpus: code.result(),
    textCorpus: text.result(),
  };
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
