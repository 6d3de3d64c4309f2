import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseContaminationSummary, renderContaminationTable, summarizeContamination, type ContaminationOutcome } from './contamination.js';
import { mcnemarExactP, passAtK } from './significance.js';

test('McNemar exact p matches hand-computed binomial tails', () => {
  assert.equal(mcnemarExactP(0, 0), 1);
  assert.equal(mcnemarExactP(0, 5), 2 / 32); // 2 * 0.5^5
  assert.equal(mcnemarExactP(6, 1), (2 * 8) / 128); // n=7: 2 * (1 + 7) / 2^7
  assert.ok(Math.abs(mcnemarExactP(2, 10) - (2 * (1 + 12 + 66)) / 4096) < 1e-15); // 0.0385742...
  assert.equal(mcnemarExactP(3, 3), 1); // capped at 1
  assert.ok(Math.abs(mcnemarExactP(4, 5) - 1) < 1e-15); // 2 * (1+9+36+84+126)/512 = 1
  // Symmetric, and finite for thousands of discordant pairs (no underflow of 0.5^n).
  const p = mcnemarExactP(600, 700);
  assert.ok(p > 0 && p < 0.01, String(p));
  assert.equal(mcnemarExactP(700, 600), p);
  assert.throws(() => mcnemarExactP(-1, 2), RangeError);
});

test('pass@k unbiased estimator matches hand-computed values', () => {
  assert.ok(Math.abs(passAtK(10, 3, 1) - 0.3) < 1e-15);
  assert.ok(Math.abs(passAtK(5, 2, 2) - 0.7) < 1e-15); // 1 - C(3,2)/C(5,2) = 1 - 3/10
  assert.ok(Math.abs(passAtK(10, 2, 3) - (1 - 56 / 120)) < 1e-15); // 1 - C(8,3)/C(10,3)
  assert.equal(passAtK(4, 4, 1), 1);
  assert.equal(passAtK(4, 0, 1), 0);
  assert.equal(passAtK(4, 3, 2), 1); // n - c < k
  assert.throws(() => passAtK(3, 4, 1), RangeError);
});

test('the summary: per model and per language, pairs by sample, a missing outcome fails', () => {
  const o = (
    model: string,
    problem: string,
    language: string,
    arm: 'original' | 'rewritten',
    sample: number,
    passed: boolean,
  ): ContaminationOutcome => ({ model, problem, language, arm, sample, passed });
  const outcomes = [
    o('m', 'p1', 'python', 'original', 0, true),
    o('m', 'p1', 'python', 'rewritten', 0, true),
    o('m', 'p1', 'python', 'original', 1, true),
    o('m', 'p1', 'python', 'rewritten', 1, false),
    o('m', 'p2', 'python', 'original', 0, true),
    o('m', 'p2', 'python', 'rewritten', 0, false),
    o('m', 'p2', 'python', 'original', 1, false),
    o('m', 'p2', 'python', 'rewritten', 1, false),
    o('m', 'p1', 'cpp', 'original', 0, false),
    o('m', 'p1', 'cpp', 'rewritten', 0, true),
    o('m', 'p1', 'cpp', 'original', 1, false),
    // p1/cpp rewritten sample 1 missing: counts as failing
  ];
  const s = summarizeContamination(outcomes, 2);
  const m = s.models.m;
  // units: p1/python (2/2, 1/2), p2/python (1/2, 0/2), p1/cpp (0/2, 1/2)
  assert.ok(Math.abs(m.original.passAt1 - (1 + 0.5 + 0) / 3) < 1e-15);
  assert.ok(Math.abs(m.rewritten.passAt1 - (0.5 + 0 + 0.5) / 3) < 1e-15);
  assert.ok(Math.abs(m.delta - (1 / 3 - 1.5 / 3)) < 1e-15);
  assert.deepEqual(m.table, { bothPass: 1, originalOnly: 2, rewrittenOnly: 1, neither: 2 });
  assert.equal(m.mcnemarP, 1);
  assert.deepEqual(Object.keys(m.languages), ['cpp', 'python']);
  assert.deepEqual(m.languages.python.table, { bothPass: 1, originalOnly: 2, rewrittenOnly: 0, neither: 1 });
  assert.equal(m.languages.python.mcnemarP, 0.5);
  assert.deepEqual(m.languages.cpp.table, { bothPass: 0, originalOnly: 0, rewrittenOnly: 1, neither: 1 });
  const text = renderContaminationTable(s);
  assert.match(text, /^model\s+language\s+orig Pass@1/);
  assert.match(text, /m\s+all\s+50\.0%\s+33\.3%\s+-16\.7\s+1\s+2\s+1\s+2\s+1\.000/);
});

test('parseContaminationSummary names the file and the first wrong field', () => {
  const ok = summarizeContamination([
    { model: 'm', problem: 'p', language: 'python', arm: 'original', sample: 0, passed: true },
    { model: 'm', problem: 'p', language: 'python', arm: 'rewritten', sample: 0, passed: false },
  ]);
  assert.deepEqual(parseContaminationSummary(JSON.parse(JSON.stringify(ok)), 'c.json'), ok);
  assert.throws(() => parseContaminationSummary({}, 'c.json'), /c\.json: field `models`: missing or not an object/);
  const bad = JSON.parse(JSON.stringify(ok));
  bad.models.m.languages.python.table.neither = 'x';
  assert.throws(() => parseContaminationSummary(bad, 'c.json'), /field `models\.m\.languages\.python\.table\.neither`: expected a number, got "x"/);
});
