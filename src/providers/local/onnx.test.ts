/**
 * The onnx provider on a tiny model the test builds (ONNX graph + WordPiece tokenizer written in
 * TypeScript, no download): loading offline, pooling over the attention mask for left and right
 * padding, normalisation, truncation reporting, and the pure pooling kernel on a hand-made case.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Embedder } from '../../core/embedding.js';
import { createEmbedder } from '../registry.js';
import type { EmbedderConfig } from '../types.js';
import { poolHidden } from './pooling.js';
import { writeTinyModel } from '../../../test/support/tiny-model.js';

let root = '';
let modelDir = '';
before(() => {
  root = mkdtempSync(join(tmpdir(), 'coreb-onnx-'));
  modelDir = writeTinyModel(join(root, 'tiny-bert'), { hidden: 16, maxPositions: 64 });
});
after(() => rmSync(root, { recursive: true, force: true }));

async function onnx(extra: Partial<EmbedderConfig> = {}, warnings: string[] = []): Promise<Embedder> {
  return createEmbedder(
    { provider: 'onnx', model: modelDir, ...extra },
    { env: {}, logger: { info() {}, debug() {}, warn: (m) => warnings.push(m) } },
  );
}

function row(m: { dim: number; data: Float32Array }, i: number): number[] {
  return Array.from(m.data.subarray(i * m.dim, (i + 1) * m.dim));
}

function close(a: number[], b: number[], eps = 1e-5): boolean {
  return a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= eps);
}

const SHORT = 'sum';
const LONG = 'given a list of numbers find the max sum of pairs and print it';

test('pooling kernel: mean, cls and last-token follow the mask on either padding side', () => {
  // batch 2, seq 3, dim 2; row 0 right-padded (2 real tokens), row 1 left-padded (2 real tokens).
  const hidden = Float32Array.of(1, 2, 3, 4, 99, 99, /* row 1 */ 99, 99, 5, 6, 7, 8);
  const mask = [1, 1, 0, 0, 1, 1];
  assert.deepEqual(Array.from(poolHidden(hidden, mask, 2, 3, 2, 'mean')), [2, 3, 6, 7]);
  assert.deepEqual(Array.from(poolHidden(hidden, mask, 2, 3, 2, 'cls')), [1, 2, 5, 6]);
  assert.deepEqual(Array.from(poolHidden(hidden, mask, 2, 3, 2, 'last-token')), [3, 4, 7, 8]);
});

for (const paddingSide of ['right', 'left'] as const) {
  for (const pooling of ['mean', 'cls', 'last-token'] as const) {
    test(`${pooling} pooling, ${paddingSide} padding: a text gets the same vector alone and batched with longer texts`, async () => {
      const e = await onnx({ pooling, paddingSide, normalize: false });
      const alone = await e.embed([SHORT], { role: 'document' });
      const batched = await e.embed([LONG, SHORT, 'def main'], { role: 'document' });
      assert.equal(batched.dim, 16);
      assert.ok(close(row(alone, 0), row(batched, 1)), `${pooling}/${paddingSide}: padding leaked into the vector`);
    });
  }
}

test('cls pooling of this linear model is the same for every text ([CLS] at position 0); mean is not', async () => {
  const cls = await onnx({ pooling: 'cls', normalize: false });
  const m = await cls.embed([SHORT, LONG], { role: 'document' });
  assert.ok(close(row(m, 0), row(m, 1)));
  const mean = await onnx({ pooling: 'mean', normalize: false });
  const m2 = await mean.embed([SHORT, LONG], { role: 'document' });
  assert.ok(!close(row(m2, 0), row(m2, 1)));
});

test('normalize (default true) gives unit vectors; results keep input order', async () => {
  const e = await onnx();
  const texts = [LONG, SHORT, 'def main', SHORT];
  const m = await e.embed(texts, { role: 'document' });
  for (let i = 0; i < m.rows; i++) {
    const n = row(m, i).reduce((a, x) => a + x * x, 0);
    assert.ok(Math.abs(n - 1) < 1e-5);
  }
  assert.ok(close(row(m, 1), row(m, 3)));
  assert.ok(!close(row(m, 0), row(m, 1)));
});

test('texts longer than maxTokens are truncated and reported', async () => {
  const warnings: string[] = [];
  const e = (await onnx({ maxTokens: 8 }, warnings)) as Embedder & { stats(): { truncated: number } };
  const m = await e.embed([LONG, SHORT], { role: 'document' });
  assert.equal(m.rows, 2);
  assert.equal(e.stats().truncated, 1);
  assert.match(warnings.join('\n'), /1 of 2 texts truncated to 8 tokens/);
});

test('templates apply to the onnx provider too, and describe() names pooling and normalisation', async () => {
  const e = await onnx({ templates: { default: { query: 'find {text}' } } });
  assert.equal(e.prepare?.('x', { role: 'query' }).text, 'find x');
  assert.equal(e.prepare?.('x', { role: 'document' }).text, 'x');
  const d = e.describe();
  assert.equal(d.pooling, 'mean');
  assert.equal(d.normalize, true);
});

test('a missing model directory is NOT_FOUND with a hint, offline (no download attempted)', async () => {
  await assert.rejects(
    createEmbedder({ provider: 'onnx', model: 'no-such-model', localModelPath: root }, { env: {} }),
    (e: Error & { code?: string }) => e.code === 'NOT_FOUND' && /allowRemoteModels/.test(e.message),
  );
});
