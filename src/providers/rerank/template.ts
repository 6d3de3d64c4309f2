/**
 * Prompt templates of rerankers that read one formatted (instruction, query, document) input: the
 * Qwen3-Reranker layout (the input format that model family, the CoREB reranker included, was
 * trained on) in its two published suffix variants, and `plain` for servers that format
 * themselves. Truncation shortens the pair, never the prefix or the suffix that carries the
 * yes/no question.
 */
import type { TaskName } from '../../core/dataset.js';
import { estimateTokens } from '../http/batching.js';

/** Template names accepted by `template=`. */
export const TEMPLATE_NAMES = ['qwen3', 'qwen3-nothink', 'plain'] as const;
/** A template name. */
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

/**
 * The system sentence of the Qwen3-Reranker input format, reproduced verbatim because the model
 * was trained on it (a model input format, like a tokenizer's special tokens).
 */
export const QWEN3_SYSTEM =
  'Judge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the answer can only be "yes" or "no".';

/** The assistant turn that follows the pair: with the empty think block (Qwen3-Reranker card) ... */
export const QWEN3_SUFFIX_THINK = '<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n';
/** ... or without it (the CoREB reranker card's first version). */
export const QWEN3_SUFFIX_NOTHINK = '<|im_end|>\n<|im_start|>assistant\n';

/**
 * coreb's default instructions per task (its own wording). `default` is used when a call names no
 * task (BEIR directories, MTEB reranking tasks).
 */
export const DEFAULT_INSTRUCTIONS: Readonly<Record<TaskName | 'default', string>> = {
  text2code: 'Given a programming task written in natural language, decide whether the code implements a solution to it',
  code2text: 'Given a program, decide whether the text is the problem statement or description that this program solves',
  code2code: 'Given a program, decide whether the other program solves the same problem',
  default: 'Given a code search query, decide whether the document is a relevant result for it',
};

/** A resolved template: how one pair becomes the text a model reads. */
export interface PromptTemplate {
  name: TemplateName;
  /** System sentence ('' for `plain`). */
  system: string;
  /** Everything before the pair. */
  prefix: string;
  /** Everything after the pair (ends where the model's answer token starts). */
  suffix: string;
}

/** Builds a template; `system` overrides the Qwen3 system sentence. */
export function resolveTemplate(name: TemplateName, system?: string): PromptTemplate {
  if (name === 'plain') return { name, system: '', prefix: '', suffix: '' };
  const sys = system ?? QWEN3_SYSTEM;
  return {
    name,
    system: sys,
    prefix: `<|im_start|>system\n${sys}<|im_end|>\n<|im_start|>user\n`,
    suffix: name === 'qwen3' ? QWEN3_SUFFIX_THINK : QWEN3_SUFFIX_NOTHINK,
  };
}

/** The pair in the Qwen3 layout: `<Instruct>: …\n<Query>: …\n<Document>: …`. */
export function qwen3Pair(instruction: string, query: string, doc: string): string {
  return `<Instruct>: ${instruction}\n<Query>: ${query}\n<Document>: ${doc}`;
}

/**
 * Cuts `query` and `doc` to at most `budget` estimated tokens together (UTF-16 length / 3, as the
 * HTTP batching estimates), longest first: the longer text gives way until both fit or both are
 * equally long (the reference implementation's `longest_first`). Returns the texts and whether
 * anything was cut.
 */
export function truncatePair(query: string, doc: string, budget: number): { query: string; doc: string; truncated: boolean } {
  const q = estimateTokens(query);
  const d = estimateTokens(doc);
  if (q + d <= budget) return { query, doc, truncated: false };
  const b = Math.max(2, budget);
  let qb: number;
  let db: number;
  if (q <= b / 2) {
    qb = q;
    db = b - q;
  } else if (d <= b / 2) {
    db = d;
    qb = b - d;
  } else {
    qb = Math.floor(b / 2);
    db = b - qb;
  }
  const cut = (s: string, tokens: number): string => (estimateTokens(s) <= tokens ? s : s.slice(0, Math.max(1, tokens * 3)));
  return { query: cut(query, qb), doc: cut(doc, db), truncated: true };
}

/**
 * The full prompt of a yes/no reranker for one pair, truncated to `maxTokens` estimated tokens
 * with the prefix and suffix kept whole. `plain` joins query and document with a blank line.
 */
export function formatPrompt(
  t: PromptTemplate,
  instruction: string,
  query: string,
  doc: string,
  maxTokens: number | undefined,
): { prompt: string; truncated: boolean } {
  const scaffold = t.name === 'plain' ? '\n\n' : qwen3Pair(instruction, '', '');
  let cut = { query, doc, truncated: false };
  if (maxTokens !== undefined) {
    const fixed = estimateTokens(t.prefix + scaffold + t.suffix);
    cut = truncatePair(query, doc, maxTokens - fixed);
  }
  const pair = t.name === 'plain' ? `${cut.query}\n\n${cut.doc}` : qwen3Pair(instruction, cut.query, cut.doc);
  return { prompt: t.prefix + pair + t.suffix, truncated: cut.truncated };
}

/**
 * The query and document texts for a rerank API serving an original Qwen3 reranker (vLLM's
 * `query_template` / `document_template` split): the query carries prefix, instruction and query;
 * each document carries its text and the suffix. `plain` sends both unchanged.
 */
export function splitForRerankApi(t: PromptTemplate, instruction: string, query: string): { query: string; doc: (d: string) => string } {
  if (t.name === 'plain') return { query, doc: (d) => d };
  return { query: `${t.prefix}<Instruct>: ${instruction}\n<Query>: ${query}\n`, doc: (d) => `<Document>: ${d}${t.suffix}` };
}
