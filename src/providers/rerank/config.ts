/**
 * Reranker specs: `PROVIDER:MODEL[?key=value&...]` (`yesno:openai:MODEL`, `yesno:ollama:MODEL`,
 * `onnx:DIR`, `vllm:MODEL`, ...), checked into a {@link RerankerConfig}. Pure (no I/O).
 */
import { TASK_SHORT, TASKS, type TaskName } from '../../core/dataset.js';
import { CorebError } from '../../core/errors.js';
import { parseValue, SPEC_PARAMS, splitEmbedderSpec, type ParamKind } from '../config.js';
import type { HttpTransportSettings } from '../types.js';
import { TEMPLATE_NAMES, type TemplateName } from './template.js';

/** Everything that configures one reranker. Only `provider` and `model` are required. */
export interface RerankerConfig extends HttpTransportSettings {
  /** Registry name: `vllm`, `tei`, `llamacpp`, `jina`, `cohere`, `voyage`, `yesno:openai`, `yesno:ollama`, `onnx`. */
  provider: string;
  /** Model name as the server knows it (for `onnx`: a local model directory). */
  model: string;
  /** Model revision; part of the cache key. Default: none. */
  revision?: string;
  /** One or more base URLs (several = replicas). Default: the provider's public API (hosted ones). */
  baseUrl?: string[];
  /** Name of the environment variable holding the API key (never the key). Default: per provider. */
  apiKeyEnv?: string;
  /**
   * Prompt template: `qwen3` (Qwen3-Reranker layout with the empty think block), `qwen3-nothink`
   * (same without it), `plain` (texts sent unchanged). Default: `qwen3` for `yesno:*`, `plain` otherwise.
   */
  template?: TemplateName;
  /** Overrides the template's system sentence. Default: the Qwen3-Reranker one. */
  system?: string;
  /** Instructions per task (`default` for calls without a task). Default: coreb's own, see template.ts. */
  instructions?: Partial<Record<TaskName | 'default', string>>;
  /** Estimated tokens (UTF-16 length / 3) one pair may take; longer pairs are cut, prefix and suffix kept. Default: 4096 for yes/no, none for rerank APIs (the server truncates), the tokenizer's limit (at most 512) for onnx. */
  maxTokens?: number;
  /** yes/no: top log-probs requested (OpenAI allows at most 20). Default 20. */
  topLogprobs?: number;
  /** yes/no: the positive answer token, matched exactly. Default `yes`. */
  yesToken?: string;
  /** yes/no: the negative answer token, matched exactly. Default `no`. */
  noToken?: string;
  /** onnx: weights dtype. Default `fp32`. */
  dtype?: string;
}

/** Query parameters a reranker spec may carry. `instruction` sets every task; `t2cInstruction` etc. one task. */
const SHARED = [
  'revision',
  'baseUrl',
  'apiKeyEnv',
  'maxTokens',
  'batchSize',
  'maxBatchTokens',
  'concurrency',
  'requestsPerMinute',
  'balance',
  'timeoutMs',
  'maxRetries',
  'backoffMs',
  'maxBackoffMs',
  'dtype',
] as const;
const PARAMS: Readonly<Record<string, ParamKind | 'template' | 'instruction'>> = {
  ...Object.fromEntries(SHARED.map((k) => [k, SPEC_PARAMS[k]])),
  template: 'template',
  system: 'string',
  instruction: 'instruction',
  t2cInstruction: 'instruction',
  c2tInstruction: 'instruction',
  c2cInstruction: 'instruction',
  defaultInstruction: 'instruction',
  topLogprobs: 'int',
  yesToken: 'string',
  noToken: 'string',
};

const FORMS = 'PROVIDER:MODEL[?key=value&...] with PROVIDER one of vllm, tei, llamacpp, jina, cohere, voyage, yesno:openai, yesno:ollama, onnx';

/**
 * Parses a reranker spec. The model may contain `:` and `/`. Unknown keys and malformed values are
 * USAGE errors naming the key and what is valid.
 */
export function parseRerankerSpec(spec: string): RerankerConfig {
  const { head, params } = splitEmbedderSpec(spec.trim());
  let provider: string;
  let model: string;
  const parts = head.split(':');
  if (parts[0] === 'yesno') {
    provider = parts.length > 1 ? `yesno:${parts[1]}` : '';
    model = parts.slice(2).join(':');
  } else {
    provider = parts.length > 1 ? parts[0] : '';
    model = parts.slice(1).join(':');
  }
  if (!provider || !model) throw new CorebError('USAGE', `reranker spec \`${spec}\` must look like ${FORMS}`);
  return normalizeRerankerConfig({ provider, model, ...params }, `reranker \`${provider}:${model}\``);
}

/** Checks a loosely typed reranker config (spec parameters or a config file entry). */
export function normalizeRerankerConfig(input: Record<string, unknown>, where: string): RerankerConfig {
  const { provider, model, instructions, ...rest } = input;
  if (typeof provider !== 'string' || !provider) throw new CorebError('CONFIG', `${where}: \`provider\` must be a non-empty string`);
  if (typeof model !== 'string' || !model) throw new CorebError('CONFIG', `${where}: \`model\` must be a non-empty string`);
  const out: RerankerConfig = { provider, model };
  const o = out as unknown as Record<string, unknown>;
  const table: Partial<Record<TaskName | 'default', string>> = {};
  if (instructions !== undefined) {
    if (typeof instructions !== 'object' || instructions === null)
      throw new CorebError('CONFIG', `${where}: \`instructions\` must be an object keyed by task`);
    for (const [k, v] of Object.entries(instructions as Record<string, unknown>)) {
      if (![...TASKS, 'default'].includes(k))
        throw new CorebError('CONFIG', `${where}: \`instructions\` has unknown task \`${k}\`; valid: ${[...TASKS, 'default'].join(', ')}`);
      if (typeof v !== 'string') throw new CorebError('CONFIG', `${where}: \`instructions.${k}\` must be a string`);
      table[k as TaskName] = v;
    }
  }
  for (const [key, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    const kind = PARAMS[key];
    if (kind === undefined)
      throw new CorebError('USAGE', `${where}: unknown parameter \`${key}\`; valid parameters: ${Object.keys(PARAMS).join(', ')}`);
    const values = (Array.isArray(value) ? value : [value]).map(String);
    if (kind === 'template') {
      if (values.length !== 1 || !(TEMPLATE_NAMES as readonly string[]).includes(values[0])) {
        throw new CorebError('USAGE', `${where}: parameter \`template\` must be one of ${TEMPLATE_NAMES.join(', ')}, got \`${values.join(',')}\``);
      }
      out.template = values[0] as TemplateName;
    } else if (kind === 'instruction') {
      if (values.length !== 1) throw new CorebError('USAGE', `${where}: parameter \`${key}\` given ${values.length} times; give it once`);
      if (key === 'instruction') for (const t of [...TASKS, 'default'] as const) table[t] ??= values[0];
      else if (key === 'defaultInstruction') table.default = values[0];
      else table[TASK_SHORT[key.slice(0, 3) as keyof typeof TASK_SHORT]] = values[0];
    } else o[key] = parseValue(key, kind, values, where);
  }
  // A per-task parameter wins over `instruction` whatever the order they were given in.
  if (typeof rest.instruction === 'string') {
    for (const [short, task] of Object.entries(TASK_SHORT)) {
      const own = rest[`${short}Instruction`];
      table[task] = typeof own === 'string' ? own : rest.instruction;
    }
  }
  if (Object.keys(table).length > 0) out.instructions = table;
  if (out.topLogprobs !== undefined && out.topLogprobs > 20 && provider === 'yesno:openai') {
    throw new CorebError('USAGE', `${where}: topLogprobs must be at most 20 (the OpenAI logprobs limit), got ${out.topLogprobs}`);
  }
  return out;
}
