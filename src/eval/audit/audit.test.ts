import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Doc } from '../../core/dataset.js';
import { distribution, idSuffix, runAudit } from './audit.js';
import { findLabelProxies } from './label-proxies.js';
import type { LanguageDetector } from './language-detector.js';
import { writeCoirLikeBeir } from '../../../test/support/coir-like.js';

test('idSuffix reads the trailing number, ignoring leading zeros', () => {
  assert.equal(idSuffix('q17'), '17');
  assert.equal(idSuffix('doc-0017'), '17');
  assert.equal(idSuffix('abc'), null);
});

test('distribution: quantiles interpolate like numpy', () => {
  const d = distribution([1, 2, 3, 4, 10]);
  assert.deepEqual(d, { count: 5, min: 1, p10: 1.4, median: 3, mean: 4, p90: d.p90, max: 10 });
  assert.ok(Math.abs(d.p90 - 7.6) < 1e-12);
});

test('label proxies: presence and value fields that separate positives from the others', () => {
  const doc = (i: number, meta: Record<string, unknown>, title?: string): Doc => ({ id: `d${i}`, text: 'x', ...(title ? { title } : {}), meta });
  const pos = Array.from({ length: 6 }, (_, i) => doc(i, { short: 'abc', passed: true, lang: 'py' }, 'T'));
  const neg = Array.from({ length: 8 }, (_, i) => doc(10 + i, { short: null, passed: false, lang: i % 2 ? 'py' : 'go', noise: 'x' }));
  const p = findLabelProxies(pos, neg, 'judged-negatives');
  assert.deepEqual(
    p.map((x) => [x.field, x.kind, x.value]),
    [
      ['meta.noise', 'presence', undefined],
      ['meta.passed', 'value', true],
      ['meta.short', 'presence', undefined],
      ['title', 'presence', undefined],
    ],
  );
  assert.deepEqual(findLabelProxies(pos.slice(0, 3), neg, 'unjudged'), [], 'fewer than 5 in a class: no verdict');
});

test('audit of a CoIR-like BEIR directory finds what was planted', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-audit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeCoirLikeBeir(dir);
  const detector: LanguageDetector = {
    name: 'keyword test detector',
    detect: async (code) =>
      code.length < 20
        ? { languageId: null, confidence: 0, top: [] }
        : code.includes('public class')
          ? { languageId: 'java', confidence: 0.9, top: ['java', 'cs', 'kt'] }
          : { languageId: 'py', confidence: 0.8, top: ['py'] },
    dispose: () => {},
  };
  const r = await runAudit({ data: dir, detector });
  assert.equal(r.dataset.kind, 'beir');
  const [name] = Object.keys(r.tasks);
  const task = r.tasks[name];
  assert.equal(task.queries, 6);
  assert.equal(task.relevanceLevel, 1);
  assert.deepEqual(task.labels, { '1': 6 });
  assert.equal(task.oneToOneShare, 1);
  assert.equal(task.alignedIdShare, 1);
  assert.equal(task.identicalIdShare, 0);
  assert.deepEqual(task.relevantPerQuery.histogram, { '0': 0, '1': 6, '2-10': 0, '>10': 0 });
  assert.ok(task.lexical.rank1Share >= 0.5, `BM25 finds most aligned docs at rank 1 (${task.lexical.rank1Share})`);
  assert.ok(task.lexical.ndcg10 > 0.5 && task.lexical.ndcg10 <= 1);
  assert.equal(task.queryLength.words.max, 5);
  // `title` is on every relevant document and on none of the unjudged ones.
  assert.deepEqual(
    task.labelProxies.map((p) => [p.field, p.against]),
    [['title', 'unjudged']],
  );
  const c = r.corpora.corpus;
  assert.equal(c.documents, 11);
  assert.equal(c.exactDuplicates, 1); // d7 = d1 up to whitespace
  assert.equal(c.nearDuplicates.pairs, 1); // d2 ~ d8
  assert.deepEqual(
    c.nearDuplicates.examples.map((e) => [e[0], e[1]]),
    [['d2', 'd8']],
  );
  assert.equal(c.nearDuplicates.crossProblemPairs, null);
  assert.equal(c.proseOnly, 1); // d5
  assert.equal(c.noLetters, 1); // d6
  assert.deepEqual(c.noCodeExamples, ['d5', 'd6']);
  assert.deepEqual(c.languages, { python: 11 });
  assert.equal(c.languageCheck!.checked, 11);
  assert.equal(c.languageCheck!.abstained, 1); // d6 is shorter than 20 characters
  assert.equal(c.languageCheck!.confidentDisagreements, 1);
  assert.deepEqual(c.languageCheck!.examples, [['d4', 'python', 'java', 0.9]]);
});
