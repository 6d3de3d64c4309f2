/**
 * Model presets: pooling, normalisation, length limits, instruction templates per task and role,
 * and provider-native input types for the models the CoREB paper evaluates and the usual code
 * embedders. Each entry cites the documentation it was taken from; users can override every field.
 */
import type { TaskName } from '../core/dataset.js';
import { describedModel, emptyModelMeta, mergeModelMeta, type GivenModelMeta, type ModelMeta } from '../core/model-meta.js';
import type { InputTypes, Pooling, TaskTemplates } from './types.js';

/** One model preset. */
export interface ModelPreset {
  /** Canonical id (hub id or API model name). */
  id: string;
  /** Other names the model is served under (Ollama tags, short names); matched case-insensitively. */
  aliases: readonly string[];
  /** Pooling the model was trained with (for local execution). */
  pooling?: Pooling;
  /** Padding side of the reference implementation. */
  paddingSide?: 'left' | 'right';
  /** Whether the reference implementation L2-normalises. */
  normalize?: boolean;
  /** Maximum input tokens documented for the model. */
  maxTokens?: number;
  /** Native output dimension. */
  dimensions?: number;
  /** Supported reduced dimensions (Matryoshka), if documented. */
  matryoshka?: readonly number[];
  /** Text instruction templates (`{text}` marks the input). */
  templates: TaskTemplates;
  /** Provider-native input types, keyed by provider name. */
  inputTypes?: Readonly<Record<string, InputTypes>>;
  /** Trained or tuned for code retrieval, as its card or vendor says. */
  codeSpecialised: boolean;
  /**
   * What a model card or MTEB's `ModelMeta` says of the model, for `coreb export mteb`'s
   * `model_meta.json`: parameter count, open weights, license, reference page, release date (ISO
   * date). Absent where coreb knows no source.
   */
  card?: ModelCard;
  /** Where the values come from. */
  source: string;
  /** What was chosen by coreb rather than taken from the source, and caveats. */
  notes: string;
}

/** Model facts from a card or MTEB's `ModelMeta` (see {@link ModelPreset.card}). */
export interface ModelCard {
  /** Parameter count; null when the vendor does not publish it (API models). */
  parameters: number | null;
  openWeights: boolean;
  /** SPDX-like license id (`apache-2.0`); null for API models. */
  license: string | null;
  reference: string;
  /** ISO date. */
  releaseDate: string;
}

/** Where the {@link ModelCard} values come from: MTEB's model metadata (mteb commit a905523d0, 2026-08-22). */
const MTEB_META = "MTEB's ModelMeta (mteb/models/model_implementations, commit a905523d0)";

/** An open-weights card on the Hub under apache-2.0. */
function hubCard(id: string, parameters: number, releaseDate: string): ModelCard {
  return { parameters, openWeights: true, license: 'apache-2.0', reference: `https://huggingface.co/${id}`, releaseDate };
}

const T2C: TaskName = 'text2code';
const C2T: TaskName = 'code2text';
const C2C: TaskName = 'code2code';

/**
 * Qwen3-Embedding: `Instruct: {task}\nQuery:{query}` for queries, documents without instruction,
 * last-token pooling with left padding, L2-normalised (model card's `get_detailed_instruct` and
 * `last_token_pool`). The task sentences are coreb's, written in the card's recommended style.
 */
const QWEN3_TEMPLATES: TaskTemplates = {
  [T2C]: {
    query: 'Instruct: Given a programming problem description, retrieve code that solves the problem\nQuery:{text}',
    document: '{text}',
  },
  [C2T]: {
    query: 'Instruct: Given a code solution, retrieve the programming problem description it solves\nQuery:{text}',
    document: '{text}',
  },
  [C2C]: {
    query: 'Instruct: Given a code solution, retrieve solutions to the same problem, possibly in other programming languages\nQuery:{text}',
    document: '{text}',
  },
  default: {
    query: 'Instruct: Given a query, retrieve relevant code or text that answers it\nQuery:{text}',
    document: '{text}',
  },
};

/**
 * jina-code-embeddings: task-specific prefixes (nl2code, code2code, code2nl) for queries and
 * passages, last-token pooling, Matryoshka dimensions 64..896 (0.5b) / 128..1536 (1.5b).
 */
const JINA_CODE_TEMPLATES: TaskTemplates = {
  [T2C]: {
    query: 'Find the most relevant code snippet given the following query:\n{text}',
    document: 'Candidate code snippet:\n{text}',
  },
  [C2C]: {
    query: 'Find an equivalent code snippet given the following code snippet:\n{text}',
    document: 'Candidate code snippet:\n{text}',
  },
  [C2T]: {
    query: 'Find the most relevant comment given the following code snippet:\n{text}',
    document: 'Candidate comment:\n{text}',
  },
};

/** Jina API `task` values for jina-code-embeddings (the API applies the prefixes itself). */
const JINA_CODE_API_TASKS: InputTypes = {
  [T2C]: { query: 'nl2code.query', document: 'nl2code.passage' },
  [C2C]: { query: 'code2code.query', document: 'code2code.passage' },
  [C2T]: { query: 'code2nl.query', document: 'code2nl.passage' },
};

const NONE: TaskTemplates = {};

/** Every preset coreb ships, in display order. */
export const MODEL_PRESETS: readonly ModelPreset[] = [
  ...(['0.5B', '7B'] as const).map(
    (size): ModelPreset => ({
      id: `codefuse-ai/C2LLM-${size}`,
      aliases: [`c2llm-${size.toLowerCase()}`],
      codeSpecialised: true,
      normalize: true,
      dimensions: size === '0.5B' ? 896 : 3584,
      templates: NONE,
      card: hubCard(`codefuse-ai/C2LLM-${size}`, size === '0.5B' ? 497_252_096 : 7_667_028_992, '2025-12-22'),
      source: `https://huggingface.co/codefuse-ai/C2LLM-${size} (model card, "How to use"); arXiv:2512.21332; card: ${MTEB_META}`,
      notes:
        'Pools with a learned multi-head attention (PMA) module in custom code, so it is served over HTTP ' +
        '(sentence-transformers / vLLM) rather than run by the generic onnx provider. No instruction template is ' +
        'applied by default; set templates if your serving stack expects one.',
    }),
  ),
  ...(['0.6B', '1.7B', '4B'] as const).map(
    (size): ModelPreset => ({
      id: `codefuse-ai/F2LLM-${size}`,
      aliases: [`f2llm-${size.toLowerCase()}`],
      codeSpecialised: false,
      pooling: 'last-token',
      normalize: true,
      templates: NONE,
      card: hubCard(`codefuse-ai/F2LLM-${size}`, { '0.6B': 596_049_920, '1.7B': 1_720_574_976, '4B': 4_022_468_096 }[size], '2025-09-18'),
      source: `https://huggingface.co/codefuse-ai/F2LLM-${size} (model card, Usage); arXiv:2510.02294; card: ${MTEB_META}`,
      notes:
        'Qwen3 backbone; embedding = hidden state of the EOS token the tokenizer appends (last-token pooling). ' +
        'No instruction template by default.',
    }),
  ),
  ...(['0.5b', '1.5b'] as const).map(
    (size): ModelPreset => ({
      id: `jinaai/jina-code-embeddings-${size}`,
      aliases: [`jina-code-embeddings-${size}`],
      codeSpecialised: true,
      pooling: 'last-token',
      normalize: true,
      maxTokens: 32768,
      dimensions: size === '0.5b' ? 896 : 1536,
      matryoshka: size === '0.5b' ? [64, 128, 256, 512, 896] : [128, 256, 512, 1024, 1536],
      templates: JINA_CODE_TEMPLATES,
      inputTypes: { jina: JINA_CODE_API_TASKS },
      source:
        `https://huggingface.co/jinaai/jina-code-embeddings-${size} (model card, instruction prefixes); ` +
        'https://jina.ai/news/jina-code-embeddings-sota-code-retrieval-at-0-5b-and-1-5b/ ; arXiv:2508.21290',
      notes: 'Through the Jina API the prefixes are applied by the API from the `task` parameter, not by coreb.',
    }),
  ),
  {
    id: 'jinaai/jina-embeddings-v2-base-code',
    aliases: ['jina-embeddings-v2-base-code'],
    codeSpecialised: true,
    pooling: 'mean',
    normalize: true,
    maxTokens: 8192,
    dimensions: 768,
    templates: NONE,
    source: 'https://huggingface.co/jinaai/jina-embeddings-v2-base-code (model card: mean pooling, 8192 tokens)',
    notes: 'Symmetric model: no instructions. Cosine similarity (coreb normalises).',
  },
  ...(['0.6B', '4B', '8B'] as const).map(
    (size): ModelPreset => ({
      id: `Qwen/Qwen3-Embedding-${size}`,
      aliases: [`qwen3-embedding-${size.toLowerCase()}`, `qwen3-embedding:${size.toLowerCase()}`],
      codeSpecialised: false,
      pooling: 'last-token',
      paddingSide: 'left',
      normalize: true,
      maxTokens: 8192,
      dimensions: size === '0.6B' ? 1024 : size === '4B' ? 2560 : 4096,
      templates: QWEN3_TEMPLATES,
      card: hubCard(`Qwen/Qwen3-Embedding-${size}`, { '0.6B': 595_776_512, '4B': 4_021_774_336, '8B': 7_567_295_488 }[size], '2025-06-05'),
      source: `https://huggingface.co/Qwen/Qwen3-Embedding-${size} (model card: get_detailed_instruct, last_token_pool, max_length 8192); arXiv:2506.05176; card: ${MTEB_META}`,
      notes: "Template format from the card; the task sentences are coreb's (the card asks users to write one per task).",
    }),
  ),
  ...(['gemini-embedding-001', 'gemini-embedding-2-preview'] as const).map(
    (id): ModelPreset => ({
      id,
      aliases: [],
      codeSpecialised: false,
      dimensions: 3072,
      matryoshka: [768, 1536, 3072],
      templates: NONE,
      inputTypes: {
        gemini: {
          [T2C]: { query: 'CODE_RETRIEVAL_QUERY', document: 'RETRIEVAL_DOCUMENT' },
          [C2T]: { query: 'RETRIEVAL_QUERY', document: 'RETRIEVAL_DOCUMENT' },
          [C2C]: { query: 'RETRIEVAL_QUERY', document: 'RETRIEVAL_DOCUMENT' },
          default: { query: 'RETRIEVAL_QUERY', document: 'RETRIEVAL_DOCUMENT' },
        },
      },
      card: {
        parameters: null,
        openWeights: false,
        license: null,
        reference: 'https://ai.google.dev/gemini-api/docs/embeddings',
        releaseDate: id === 'gemini-embedding-001' ? '2025-07-14' : '2026-03-10',
      },
      source: `https://ai.google.dev/gemini-api/docs/embeddings (task types) and https://ai.google.dev/api/embeddings (batchEmbedContents); card: ${MTEB_META}`,
      notes:
        'CODE_RETRIEVAL_QUERY is documented for natural-language queries over code blocks embedded as RETRIEVAL_DOCUMENT; ' +
        "code queries (c2t, c2c) use RETRIEVAL_QUERY (coreb's choice). Vectors below 3072 dimensions are not normalised by the API: set normalize=true.",
    }),
  ),
  ...(['voyage-code-3', 'voyage-code-2'] as const).map(
    (id): ModelPreset => ({
      id,
      aliases: [],
      codeSpecialised: true,
      maxTokens: id === 'voyage-code-3' ? 32000 : 16000,
      dimensions: id === 'voyage-code-3' ? 1024 : 1536,
      matryoshka: id === 'voyage-code-3' ? [256, 512, 1024, 2048] : undefined,
      templates: NONE,
      inputTypes: { voyage: { default: { query: 'query', document: 'document' } } },
      card: {
        parameters: null,
        openWeights: false,
        license: null,
        reference:
          id === 'voyage-code-3'
            ? 'https://blog.voyageai.com/2024/12/04/voyage-code-3/'
            : 'https://blog.voyageai.com/2024/01/23/voyage-code-2-elevate-your-code-retrieval/',
        releaseDate: id === 'voyage-code-3' ? '2024-12-04' : '2024-01-23',
      },
      source: `https://docs.voyageai.com/docs/embeddings (input_type, output_dimension, context length); card: ${MTEB_META}`,
      notes: 'The API prepends its own retrieval prompt from input_type.',
    }),
  ),
  ...(['text-embedding-3-small', 'text-embedding-3-large'] as const).map(
    (id): ModelPreset => ({
      id,
      aliases: [],
      codeSpecialised: false,
      maxTokens: 8191,
      dimensions: id === 'text-embedding-3-small' ? 1536 : 3072,
      templates: NONE,
      card: {
        parameters: null,
        openWeights: false,
        license: null,
        reference: 'https://openai.com/index/new-embedding-models-and-api-updates/',
        releaseDate: '2024-01-25',
      },
      source: `https://platform.openai.com/docs/guides/embeddings (dimensions parameter, 8191 max input tokens); card: ${MTEB_META}`,
      notes: 'No instructions; vectors are returned normalised.',
    }),
  ),
];

function normName(name: string): string {
  return (name.split('/').pop() ?? name).toLowerCase().replace(/[:_]/g, '-');
}

/**
 * Finds the preset for `model` by id or alias, ignoring case, an `org/` prefix and `:`/`_` versus
 * `-` (so `Qwen/Qwen3-Embedding-0.6B`, `qwen3-embedding:0.6b` and `Qwen3-Embedding-0.6B` match).
 * Returns undefined when no preset matches.
 */
export function findPreset(model: string): ModelPreset | undefined {
  const key = normName(model);
  return MODEL_PRESETS.find((p) => normName(p.id) === key || p.aliases.some((a) => normName(a) === key));
}

/**
 * The {@link ModelMeta} coreb's preset of `model` gives (parameters, dimension, max tokens, open
 * weights, licence, code-specialised, release date, reference), or undefined without a preset.
 */
export function presetModelMeta(model: string): ModelMeta | undefined {
  const p = findPreset(model);
  if (p === undefined) return undefined;
  return {
    ...emptyModelMeta(`coreb preset ${p.id}`),
    parameters: p.card?.parameters ?? null,
    embedDim: p.dimensions ?? null,
    maxTokens: p.maxTokens ?? null,
    openWeights: p.card?.openWeights ?? null,
    license: p.card?.license ?? null,
    codeSpecialised: p.codeSpecialised,
    releaseDate: p.card?.releaseDate ?? null,
    reference: p.card?.reference ?? null,
  };
}

/**
 * What coreb knows of a result row's model without being told: coreb's BM25 (no learned
 * parameters, open), else the preset of the model its description names.
 * Undefined when neither applies (a run file, an unknown model): give `--model-meta`.
 */
export function knownModelMeta(description: Record<string, unknown> | undefined): ModelMeta | undefined {
  const kind = description?.kind;
  if (kind === 'bm25') {
    return {
      ...emptyModelMeta('coreb: BM25 has no learned parameters'),
      parameters: 0,
      openWeights: true,
      reference: 'https://doi.org/10.1561/1500000019',
    };
  }
  const model = describedModel(description);
  return model === undefined ? undefined : presetModelMeta(model);
}

/**
 * A result row's model metadata: what coreb knows ({@link knownModelMeta}, else what the row
 * already carries) with the given entry of its name, else of its model id, on top; undefined when
 * nothing is known.
 */
export function rowModelMeta(
  row: { name: string; description: Record<string, unknown>; model?: ModelMeta },
  given?: GivenModelMeta,
): ModelMeta | undefined {
  const known = row.model ?? knownModelMeta(row.description);
  const model = describedModel(row.description);
  const over = given?.entries.get(row.name) ?? (model !== undefined ? given?.entries.get(model) : undefined);
  return over === undefined ? known : mergeModelMeta(known, over, given!.file);
}
