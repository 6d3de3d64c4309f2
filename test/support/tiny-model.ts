/**
 * Writes a tiny BERT-shaped model directory (ONNX graph, WordPiece tokenizer, configs) that
 * transformers.js loads offline: lets tests and demos run the `onnx` provider with no download.
 * The graph is an embedding lookup plus a position term counted over real tokens, so pooling
 * choices and padding mistakes change the output while correct padding does not.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeOnnxModel, type OnnxNode } from './onnx-proto.js';

/** Options of {@link writeTinyModel}. */
export interface TinyModelOptions {
  /** Hidden size (vector dimension). Default 16. */
  hidden?: number;
  /** Maximum positions (model_max_length). Default 64. */
  maxPositions?: number;
  /** Seed of the deterministic weights. Default 1. */
  seed?: number;
  /** `padding_side` written to tokenizer_config.json. Default `right`. */
  paddingSide?: 'left' | 'right';
  /**
   * Write a sequence-classification (cross-encoder) model instead: output `logits` [batch, labels]
   * where label `labels - 1` is the sum of {@link tinyTokenWeight} over the real tokens and, for 2
   * labels, label 0 is its negation. Default: an encoder with `last_hidden_state`.
   */
  classifierLabels?: 1 | 2;
}

/** The cross-encoder's per-token weight of vocabulary entry `id` (deterministic, in [-0.5, 0.5)). */
export function tinyTokenWeight(id: number): number {
  return ((id * 37) % 101) / 101 - 0.5;
}

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const WORDS = [
  'def',
  'return',
  'for',
  'in',
  'if',
  'else',
  'while',
  'int',
  'sum',
  'print',
  'the',
  'a',
  'of',
  'to',
  'and',
  'is',
  'array',
  'list',
  'sort',
  'find',
  'given',
  'number',
  'numbers',
  'string',
  'count',
  'max',
  'min',
  'pairs',
  'main',
];

/** The vocabulary: special tokens, words, single characters and `##` continuations. */
export function tinyVocab(): string[] {
  const chars = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
  const punct = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'.split('');
  return [...SPECIAL, ...WORDS, ...chars, ...punct, ...chars.map((c) => '##' + c)];
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000 - 0.5;
  };
}

/** Writes the model into `dir` (created) and returns `dir`. */
export function writeTinyModel(dir: string, options: TinyModelOptions = {}): string {
  const hidden = options.hidden ?? 16;
  const maxPos = options.maxPositions ?? 64;
  const vocab = tinyVocab();
  const rand = rng(options.seed ?? 1);
  const emb = new Float32Array(vocab.length * hidden).map(() => rand());
  const pos = new Float32Array(maxPos * hidden).map(() => rand() * 0.1);
  const labels = options.classifierLabels;
  const model =
    labels !== undefined
      ? classifierGraph(vocab.length, labels)
      : encodeOnnxModel({
          inputs: [
            { name: 'input_ids', type: 'int64', shape: ['batch', 'sequence'] },
            { name: 'attention_mask', type: 'int64', shape: ['batch', 'sequence'] },
          ],
          outputs: [{ name: 'last_hidden_state', type: 'float', shape: ['batch', 'sequence', hidden] }],
          initializers: [
            { name: 'word_embeddings', dims: [vocab.length, hidden], data: emb },
            { name: 'position_embeddings', dims: [maxPos, hidden], data: pos },
            { name: 'one', dims: [], data: BigInt64Array.of(1n) },
          ],
          nodes: [
            // last_hidden_state[b, t] = word_embeddings[input_ids[b, t]] + position_embeddings[p(b, t)] where
            // p counts real tokens before t (CumSum(mask) - mask), so padding on either side leaves the
            // states of real tokens unchanged, as in a real encoder.
            { op: 'Gather', inputs: ['word_embeddings', 'input_ids'], outputs: ['words'], intAttrs: { axis: 0 } },
            { op: 'CumSum', inputs: ['attention_mask', 'one'], outputs: ['mask_cumsum'] },
            { op: 'Sub', inputs: ['mask_cumsum', 'attention_mask'], outputs: ['positions'] },
            { op: 'Gather', inputs: ['position_embeddings', 'positions'], outputs: ['pos_rows'], intAttrs: { axis: 0 } },
            { op: 'Add', inputs: ['words', 'pos_rows'], outputs: ['last_hidden_state'] },
          ],
        });
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'onnx', 'model.onnx'), model);
  const id = (t: string): number => vocab.indexOf(t);
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content, i) => ({
      id: i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [id('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [id('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
    },
  };
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: maxPos,
      padding_side: options.paddingSide ?? 'right',
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      mask_token: '[MASK]',
    }),
  );
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'bert',
      architectures: [labels !== undefined ? 'BertForSequenceClassification' : 'BertModel'],
      ...(labels !== undefined
        ? { num_labels: labels, id2label: Object.fromEntries(Array.from({ length: labels }, (_, i) => [i, `LABEL_${i}`])) }
        : {}),
      hidden_size: hidden,
      vocab_size: vocab.length,
      max_position_embeddings: maxPos,
      num_attention_heads: 1,
      num_hidden_layers: 1,
      pad_token_id: 0,
    }),
  );
  return dir;
}

/**
 * A cross-encoder graph: logits[b, labels-1] = sum over t of weight[input_ids[b, t]] * mask[b, t]
 * (and logits[b, 0] = its negation when there are 2 labels), so padding never changes a score.
 */
function classifierGraph(vocabSize: number, labels: 1 | 2): Uint8Array {
  const weights = Float32Array.from({ length: vocabSize }, (_, i) => tinyTokenWeight(i));
  const nodes: OnnxNode[] = [
    { op: 'Gather', inputs: ['token_weight', 'input_ids'], outputs: ['w'], intAttrs: { axis: 0 } },
    { op: 'Cast', inputs: ['attention_mask'], outputs: ['maskf'], intAttrs: { to: 1 } },
    { op: 'Mul', inputs: ['w', 'maskf'], outputs: ['wm'] },
    { op: 'ReduceSum', inputs: ['wm', 'axis1'], outputs: [labels === 1 ? 'logits' : 'pos'], intAttrs: { keepdims: 1 } },
  ];
  if (labels === 2) {
    nodes.push({ op: 'Neg', inputs: ['pos'], outputs: ['neg'] });
    nodes.push({ op: 'Concat', inputs: ['neg', 'pos'], outputs: ['logits'], intAttrs: { axis: 1 } });
  }
  return encodeOnnxModel({
    inputs: [
      { name: 'input_ids', type: 'int64', shape: ['batch', 'sequence'] },
      { name: 'attention_mask', type: 'int64', shape: ['batch', 'sequence'] },
    ],
    outputs: [{ name: 'logits', type: 'float', shape: ['batch', labels] }],
    initializers: [
      { name: 'token_weight', dims: [vocabSize], data: weights },
      { name: 'axis1', dims: [1], data: BigInt64Array.of(1n) },
    ],
    nodes,
  });
}
