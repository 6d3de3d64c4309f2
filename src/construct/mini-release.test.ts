import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outcomeKey, type AuthoredProblem, type SolutionOutcome } from './mini-authored.js';
import { planMiniRelease } from './mini-release.js';
import { renderWireRow } from './wire-row.js';

const problem = (id: string): AuthoredProblem => ({
  id,
  title: `Title ${id}`,
  statement: `Title ${id}\n\nFull statement of ${id}.`,
  abbreviated: `Short ${id}.`,
  tests: [{ input: '1\n', output: '1\n' }],
  hardNegatives: ['operation_type', 'optimization_objective', 'algorithmic_approach', 'problem_domain'].map((s) => ({
    strategy: s,
    text: `${id} negative ${s}`,
  })),
  searchQueries: [
    { type: 'description_search', text: `${id} description` },
    { type: 'algorithm_search', text: `${id} algorithm` },
    { type: 'language_agnostic', text: `${id} agnostic` },
  ],
  solutions: [
    { file: 'ok.py', language: 'python', author: 'author-a', intent: 'correct', code: `print(1) # ${id}` },
    { file: 'ok.java', language: 'java', author: 'author-b', intent: 'correct', code: `class Main {} // ${id}` },
    { file: 'wa.py', language: 'python', author: 'author-b', intent: 'incorrect', code: `print(2) # ${id}` },
  ],
});

const outcomes = (javaPasses: boolean): Map<string, SolutionOutcome> =>
  new Map([
    [outcomeKey('cm_001', 'ok.py'), { passed: true, testsPassed: 1, testsTotal: 1 }],
    [outcomeKey('cm_001', 'ok.java'), { passed: javaPasses, testsPassed: javaPasses ? 1 : 0, testsTotal: 1 }],
    [outcomeKey('cm_001', 'wa.py'), { passed: false, testsPassed: 0, testsTotal: 1 }],
    [outcomeKey('cm_002', 'ok.py'), { passed: true, testsPassed: 1, testsTotal: 1 }],
    [outcomeKey('cm_002', 'ok.java'), { passed: true, testsPassed: 1, testsTotal: 1 }],
    [outcomeKey('cm_002', 'wa.py'), { passed: false, testsPassed: 0, testsTotal: 1 }],
  ]);

const plan = (javaPasses = true) =>
  planMiniRelease([problem('cm_002'), problem('cm_001')], outcomes(javaPasses), { createdAt: '2026-01-01T00:00:00Z' });

test('corpora: one code row per solution, one original plus four hard negatives per problem', () => {
  const { tables } = plan();
  assert.equal(tables.code_corpus.length, 6);
  assert.equal(tables.text_corpus.length, 10);
  assert.equal(tables.code_corpus[0].code_id, 'code_mini_00001');
  assert.equal(tables.code_corpus[0].meta_source_problem_id, 'cm_001');
  assert.equal(tables.text_corpus[0].text_id, 'text_mini_00001');
  assert.ok(tables.text_corpus.some((r) => r.text_id === 'text_mini_00002_noise4' && r.meta_original_problem_id === 'cm_002'));
});

test('labels follow the judge, not the intent: a failing "correct" java solution is no positive', () => {
  const { tables } = plan(false);
  const javaQueries = tables.text2code_queries.filter((q) => q.language_constraint === 'java');
  assert.ok(
    javaQueries.every((q) => q.meta_source_problem_id === 'cm_002'),
    'no java query for cm_001',
  );
  const javaDoc = tables.code_corpus.find((r) => r.meta_source_problem_id === 'cm_001' && r.language === 'java');
  assert.equal(javaDoc?.meta_passed, false);
  const rel2 = tables.text2code_qrels.filter((r) => r.doc_id === javaDoc?.code_id && r.relevance === 2);
  assert.equal(rel2.length, 0);
});

test('every subtask family is present and ids follow the official scheme', () => {
  const { tables, counts } = plan();
  for (const s of [
    't2c_canonical_retro_any',
    't2c_canonical_retro_python',
    't2c_full_retro_java',
    't2c_search_any',
    'c2t_full_retro_any',
    'c2t_canonical_retro_python',
    'c2t_match',
    'c2c_cross_lang',
  ]) {
    assert.ok((counts.subtasks[s] ?? 0) > 0, s);
  }
  assert.match(String(tables.text2code_queries[0].query_id), /^q_t2c_canonical_retro_any_0001$/);
  assert.match(String(tables.code2code_queries[0].query_id), /^q_c2c_cross_lang_0001$/);
  // java anchors target python (later in code-point order); python anchors have no later language
  assert.ok(tables.code2code_queries.every((q) => q.anchor_language === 'java'));
});

test('c2t_match: a positive and a negative pair per anchor, the negative without any positive', () => {
  const { tables } = plan();
  const match = tables.code2text_queries.filter((q) => q.subtask === 'c2t_match');
  assert.equal(match.length, 8);
  const neg = match.find((q) => q.label === 0);
  assert.equal(neg?.meta_pair_type, 'negative_random');
  const negQrels = tables.code2text_qrels.filter((r) => r.query_id === neg?.query_id);
  assert.equal(negQrels.length, 4);
  assert.ok(negQrels.every((r) => r.relevance === 1));
});

test('planning is deterministic and independent of input order', () => {
  const a = plan();
  const b = planMiniRelease([problem('cm_001'), problem('cm_002')], outcomes(true), { createdAt: '2026-01-01T00:00:00Z' });
  assert.deepEqual(a, b);
});

test('a solution without an outcome is a VALIDATION error', () => {
  const o = outcomes(true);
  o.delete(outcomeKey('cm_001', 'wa.py'));
  assert.throws(() => planMiniRelease([problem('cm_001')], o, { createdAt: 'x' }), { code: 'VALIDATION' });
});

test('rows render in the official tables style', () => {
  assert.equal(renderWireRow({ a: 'x', b: 1, c: null, d: ['p', 'q'], e: true }), '{"a": "x", "b": 1, "c": null, "d": ["p", "q"], "e": true}');
  assert.equal(renderWireRow({ t: 'n ≤ 5' }), '{"t": "n ≤ 5"}');
  assert.equal(renderWireRow({ label: 1, meta_pass_rate: 0.5, code_length: 3 }), '{"label": 1.0, "meta_pass_rate": 0.5, "code_length": 3}');
});
