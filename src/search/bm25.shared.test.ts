import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Doc, Qrels, Query } from '../core/dataset.js';
import { sharedPath } from '../../test/support/shared.js';
import { createBm25Index, createBm25Retriever } from './bm25.js';

type Row = Record<string, unknown>;
const dir = () => sharedPath('data', 'coreb', 'release_v2602');
const rows = (file: string): Row[] =>
  readFileSync(join(dir(), file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row);

/**
 * CoREB protocol for one query, written out here (search may not import metrics): strict nDCG@10
 * (only label 2 gains), Recall@10 and MAP@10 at relevance level 2; the list is in trec order.
 */
function score(docIds: readonly string[], labels: ReadonlyMap<string, number>): [number, number, number] {
  const numRel = [...labels.values()].filter((v) => v >= 2).length;
  if (numRel === 0) return [0, 0, 0];
  let dcg = 0;
  let idcg = 0;
  let hits = 0;
  let ap = 0;
  for (let i = 0; i < Math.min(10, docIds.length); i++) {
    if ((labels.get(docIds[i]) ?? 0) >= 2) {
      hits++;
      dcg += 1 / Math.log2(i + 2);
      ap += hits / (i + 1);
    }
  }
  for (let i = 0; i < Math.min(10, numRel); i++) idcg += 1 / Math.log2(i + 2);
  return [dcg / idcg, hits / numRel, ap / numRel];
}

test('default BM25 beats the third-party code-aware BM25 on release_v2602 under the CoREB protocol', async () => {
  const code: Doc[] = rows('code_corpus.jsonl').map((r) => ({ id: String(r.code_id), text: String(r.code) }));
  const text: Doc[] = rows('text_corpus.jsonl').map((r) => ({
    id: String(r.text_id),
    text: String(r.text),
    meta: { abbreviatedText: r.abbreviated_text },
  }));
  const retriever = createBm25Retriever();
  const indexes = { code: await retriever.index(code), text: await retriever.index(text) };
  const sums = { ndcg: 0, recall: 0, map: 0, n: 0 };
  for (const [file, corpus] of [
    ['text2code', 'code'],
    ['code2text', 'text'],
    ['code2code', 'code'],
  ] as const) {
    const qrels: Qrels = new Map();
    for (const r of rows(`${file}_qrels.jsonl`)) {
      const q = String(r.query_id);
      if (!qrels.has(q)) qrels.set(q, new Map());
      qrels.get(q)?.set(String(r.doc_id), Number(r.relevance));
    }
    const queries: Query[] = [];
    const anchors = new Map<string, string>();
    for (const r of rows(`${file}_queries.jsonl`)) {
      if (r.subtask === 'c2t_match' && r.meta_pair_type !== 'positive') continue; // excluded (protocol default)
      queries.push({ id: String(r.query_id), text: String(r.query) });
      if (file === 'code2code') anchors.set(String(r.query_id), String(r.meta_anchor_code_id));
    }
    const exclude = new Map([...anchors].map(([q, d]) => [q, [d]]));
    const ranked = await indexes[corpus].search(queries, 100, { exclude });
    for (const [q, l] of ranked) {
      assert.ok(!l.docIds.includes(anchors.get(q) ?? ''), 'anchor excluded');
      const [n, r, m] = score(l.docIds, qrels.get(q) ?? new Map());
      sums.ndcg += n;
      sums.recall += r;
      sums.map += m;
      sums.n++;
    }
  }
  assert.equal(sums.n, 1165 + 1064 + 169, 'every non-negative query evaluated');
  // Third-party code-aware BM25 on the same release and protocol: 0.3256 / 0.4647 / 0.2707.
  assert.ok(sums.ndcg / sums.n > 0.3256, `nDCG@10 ${sums.ndcg / sums.n}`);
  assert.ok(sums.recall / sums.n > 0.4647, `Recall@10 ${sums.recall / sums.n}`);
  assert.ok(sums.map / sums.n > 0.2707, `MAP@10 ${sums.map / sums.n}`);
});

test('BM25 ranks every v202602 query exactly as the string-keyed index did (ids and float32 scores, three configurations)', async () => {
  // SHA-256 over every query's top-100 ids and float32 score bytes, recorded from the index that
  // interned terms through a string Map per token (before the integer-id interner); any change of
  // a term, an id, a weight or a summation order changes them.
  const expected = [
    [{}, '7e301ebbd2aa099ed0e88eae5f7521d14ee847b32131cda0bafbf0d11c1deb07'],
    [{ feedbackDocs: 5, feedbackTerms: 20, feedbackWeight: 0.3 }, '715fc7be4e2ff1b354d07f1cb83d315199d5ff0362a4d69a2700cd6131eed94f'],
    [
      { fields: ['text', 'meta.abbreviatedText'], k1: 1.2, b: 0.75, stopwords: 'english+code', keepNumbers: true, queryTf: 'raw' },
      '35a52da8d2e0f096d859367fae44a4a2808bf5a3a956a7dbc8860c9b376b00fc',
    ],
  ] as const;
  const code: Doc[] = rows('code_corpus.jsonl').map((r) => ({ id: String(r.code_id), text: String(r.code) }));
  const text: Doc[] = rows('text_corpus.jsonl').map((r) => ({
    id: String(r.text_id),
    text: String(r.text),
    meta: { abbreviatedText: r.abbreviated_text },
  }));
  for (const [options, digest] of expected) {
    const h = createHash('sha256');
    for (const [file, corpus] of [
      ['text2code', code],
      ['code2text', text],
      ['code2code', code],
    ] as const) {
      const queries: Query[] = rows(`${file}_queries.jsonl`).map((r) => ({ id: String(r.query_id), text: String(r.query) }));
      const lists = await createBm25Index(corpus, options).search(queries, 100);
      for (const [q, l] of lists) {
        h.update(`${q}\0${l.docIds.join('\0')}\0`);
        h.update(Buffer.from(l.scores.buffer, l.scores.byteOffset, l.scores.byteLength));
      }
    }
    assert.equal(h.digest('hex'), digest, JSON.stringify(options));
  }
});
