/**
 * The three ways to evaluate a TREC run agree on a seeded synthetic collection large enough to
 * grow every table (>8k ids, many score ties, interleaved query lines): the plain parse, the CLI's
 * known-docs-only parse, and the map-based evaluate().
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IdTable, parseTrecQrels, parseTrecRun, trecQrelsToMap, trecRunToMap } from '../../src/dataset/index.js';
import { evaluate, evaluateColumns, parseMeasures, renderTrec } from '../../src/metrics/index.js';
import { createUniform } from '../../src/core/random.js';

/** Deterministic uniform [0, 1) generator (mulberry32) so failures reproduce. */
const prng = createUniform;

function collection(): { qrels: string; run: string; anchors: Map<string, string> } {
  const rand = prng(7);
  const runLines: string[] = [];
  const qrelsLines: string[] = [];
  const anchors = new Map<string, string>();
  for (let q = 0; q < 300; q++) {
    const picked = new Set<number>();
    while (picked.size < 150) picked.add(Math.floor(rand() * 30000));
    const docs = [...picked];
    anchors.set(`q${q}`, `d${docs[Math.floor(rand() * 20)]}`);
    for (const d of docs) runLines.push(`q${q} Q0 d${d} 0 ${(rand() * 3).toFixed(2)} synth`);
    for (let j = 0; j < 40; j++) {
      const d = rand() < 0.6 ? docs[Math.floor(rand() * docs.length)] : Math.floor(rand() * 30000);
      qrelsLines.push(`q${q} 0 d${d} ${Math.floor(rand() * 3)}`);
    }
  }
  // Interleave: move every 7th line to the end so queries are not contiguous.
  const moved = runLines.filter((_, i) => i % 7 === 0);
  const kept = runLines.filter((_, i) => i % 7 !== 0);
  const uniqueQrels = [
    ...new Map(
      qrelsLines.map((l) => [
        l
          .split(' ')
          .filter((_, i) => i !== 1 && i !== 3)
          .join(' '),
        l,
      ]),
    ).values(),
  ];
  return { qrels: uniqueQrels.join('\n'), run: [...kept, ...moved].join('\n'), anchors };
}

test('plain parse, known-docs-only parse and map evaluate() give identical results', () => {
  const { qrels: qrelsText, run: runText, anchors } = collection();
  const specs = parseMeasures(['all', 'mrr_beir@10']);
  for (const options of [{}, { relevanceLevel: 2, ndcg: 'strict' as const, anchors }, { scores: 'float64' as const, complete: true }]) {
    const docsA = new IdTable();
    const qa = parseTrecQrels(qrelsText, { docs: docsA });
    const ra = parseTrecRun(runText, { docs: docsA });
    const plain = evaluateColumns(qa, ra, { specs, ...options });
    assert.ok(docsA.size > 8192);

    const docsB = new IdTable();
    const qb = parseTrecQrels(qrelsText, { docs: docsB });
    for (const a of anchors.values()) docsB.intern(a);
    const rb = parseTrecRun(runText, { docs: docsB, knownDocsOnly: true, judged: qb, anchors });
    const fast = evaluateColumns(qb, rb, { specs, ...options });
    assert.equal(renderTrec(fast, { perQuery: true }), renderTrec(plain, { perQuery: true }));
    assert.deepEqual(fast.values, plain.values);
    assert.deepEqual(fast.aggregate, plain.aggregate);

    const viaMaps = evaluate(trecQrelsToMap(qa), trecRunToMap(ra), { measures: ['all', 'mrr_beir@10'], ...options });
    for (let row = 0; row < plain.queryIds.length; row++) {
      const rec = viaMaps.perQuery.get(plain.queryIds[row]) ?? {};
      plain.columns.forEach((c, i) => {
        if (c.perQuery) assert.equal(rec[c.key], plain.values[row * plain.columns.length + i], `${plain.queryIds[row]} ${c.key}`);
      });
    }
  }
});
