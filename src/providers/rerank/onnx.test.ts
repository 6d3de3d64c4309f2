/**
 * The onnx cross-encoder on a tiny sequence-classification model the test builds (no download):
 * scores are the sigmoid of the model's single logit (or of l1 − l0 for two labels), computed here
 * independently from the token weights; padding in mixed-length batches changes nothing; pairs
 * over maxTokens are counted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Reranker } from '../../core/rerank.js';
import { tinyTokenWeight, tinyVocab, writeTinyModel } from '../../../test/support/tiny-model.js';
import { createReranker } from './registry.js';

let root = '';
before(() => {
  root = mkdtempSync(join(tmpdir(), 'coreb-onnx-rerank-'));
  writeTinyModel(join(root, 'ce1'), { classifierLabels: 1, maxPositions: 64 });
  writeTinyModel(join(root, 'ce2'), { classifierLabels: 2, maxPositions: 64 });
});
after(() => rmSync(root, { recursive: true, force: true }));

const PAIRS = [
  { query: 'sum the numbers', doc: 'def sum return' },
  { query: 'find max', doc: 'for int in list if max return max else min while count pairs' },
  { query: 'sort a list of string', doc: 'sort' },
];

/** logit the tiny model computes: weights of [CLS] query [SEP] doc [SEP] (words are whole tokens). */
function logit(q: string, d: string): number {
  const vocab = tinyVocab();
  const tokens = ['[CLS]', ...q.split(' '), '[SEP]', ...d.split(' '), '[SEP]'];
  return tokens.reduce((s, t) => {
    const id = vocab.lastIndexOf(t); // the tokenizer's vocab map keeps the last of duplicate entries ('a')
    assert.ok(id >= 0, t);
    return s + tinyTokenWeight(id);
  }, 0);
}

const sig = (x: number): number => 1 / (1 + Math.exp(-x));

test('onnx cross-encoder: sigmoid of the single logit, same in mixed-length batches as alone', async () => {
  const r = await createReranker({ provider: 'onnx', model: join(root, 'ce1'), batchSize: 2 }, { env: {} });
  const scores = await r.score(PAIRS);
  PAIRS.forEach((p, i) =>
    assert.ok(Math.abs(scores[i] - sig(logit(p.query, p.doc))) < 1e-5, `pair ${i}: ${scores[i]} vs ${sig(logit(p.query, p.doc))}`),
  );
  assert.ok(new Set(scores).size === 3 && scores.every((s) => s < 1), 'not the pipeline mistake (every pair 1.0)');
  for (let i = 0; i < PAIRS.length; i++) assert.ok(Math.abs((await r.score([PAIRS[i]]))[0] - scores[i]) < 1e-6);
  assert.equal(r.describe().score, 'sigmoid(logit)');
});

test('onnx cross-encoder with two labels: sigmoid(l1 - l0)', async () => {
  const r = await createReranker({ provider: 'onnx', model: join(root, 'ce2') }, { env: {} });
  const scores = await r.score(PAIRS);
  PAIRS.forEach((p, i) => assert.ok(Math.abs(scores[i] - sig(2 * logit(p.query, p.doc))) < 1e-5));
});

test('onnx cross-encoder: pairs over maxTokens are truncated and counted; a missing model is NOT_FOUND', async () => {
  const warnings: string[] = [];
  const r = (await createReranker(
    { provider: 'onnx', model: join(root, 'ce1'), maxTokens: 12 },
    { env: {}, logger: { info() {}, debug() {}, warn: (m) => warnings.push(m) } },
  )) as Reranker & { stats(): { truncated: number } };
  await r.score(PAIRS);
  assert.equal(r.stats().truncated, 1);
  assert.match(warnings[0], /1 pairs truncated to 12 tokens/);
  await assert.rejects(createReranker({ provider: 'onnx', model: join(root, 'absent') }, { env: {} }), /cannot load onnx cross-encoder/);
});
