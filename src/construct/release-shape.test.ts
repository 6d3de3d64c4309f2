import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outcomeKey, type AuthoredProblem, type AuthoredSolution, type SolutionOutcome } from './mini-authored.js';
import { planMiniRelease } from './mini-release.js';
import { RELEASE_SHAPES, resolveReleaseShape } from './release-shape.js';

/** A problem with programs of model A (`ma`) and model B (`mb`); `pass` lists `<model>_<lang>` that pass. */
function problem(id: string, programs: string[], queries = 0): AuthoredProblem {
  const solutions: AuthoredSolution[] = programs.map((p) => {
    const [author, language] = p.split('_');
    return { file: p, language, author, intent: 'correct', code: `// ${id} ${p}` };
  });
  return {
    id,
    title: id,
    statement: `${id}\n\nStatement.`,
    abbreviated: `Short ${id}.`,
    tests: [],
    hardNegatives: ['operation_type', 'optimization_objective', 'algorithmic_approach', 'problem_domain'].map((s) => ({
      strategy: s,
      text: `${id} ${s}`,
    })),
    searchQueries: Array.from({ length: queries }, (_, i) => ({
      type: 'title_search',
      text: `${id} q${i}`,
      language: 'python',
      subQueryType: 'algorithm_search',
    })),
    solutions,
  };
}

const ALL = ['ma_python', 'ma_cpp', 'ma_java', 'mb_python', 'mb_cpp', 'mb_java'];

function plan(problems: AuthoredProblem[], pass: (pid: string, file: string) => boolean, shape = RELEASE_SHAPES['coreb-v202603'], seed = 7) {
  const outcomes = new Map<string, SolutionOutcome>();
  for (const p of problems) {
    for (const s of p.solutions) {
      const ok = pass(p.id, s.file);
      outcomes.set(outcomeKey(p.id, s.file), { passed: ok, testsPassed: ok ? 1 : 0, testsTotal: 1 });
    }
  }
  return planMiniRelease(problems, outcomes, { createdAt: '2026-12-01T00:00:00Z', shape, seed, roles: { primary: 'ma', secondary: 'mb' } });
}

test('official code-to-code: the three subtasks by model role, each pair of model A once, in the maker order with a skipped id between subtasks', () => {
  // p1: everything passes except mb_cpp; p2: model B fails in Python, so no mono_lang/cross_model anchor.
  const problems = [problem('p1', ALL), problem('p2', ALL)];
  const { tables, counts } = plan(problems, (pid, f) => !(f === 'mb_cpp' || (pid === 'p2' && f === 'mb_python')));
  const q = tables.code2code_queries;
  const code = new Map(tables.code_corpus.map((r) => [r.code_id as string, r]));
  const qrels = (id: unknown) => tables.code2code_qrels.filter((r) => r.query_id === id);
  assert.deepEqual(
    q.map((r) => r.subtask),
    ['c2c_mono_lang', 'c2c_cross_lang', 'c2c_cross_lang', 'c2c_cross_lang', 'c2c_cross_lang', 'c2c_cross_model'],
  );
  // Ids: 1 for mono, then 3.. for cross_lang (2 skipped), then cross_model after another gap.
  assert.deepEqual(
    q.map((r) => r.query_id),
    [
      'q_c2c_mono_lang_0001',
      'q_c2c_cross_lang_0003',
      'q_c2c_cross_lang_0004',
      'q_c2c_cross_lang_0005',
      'q_c2c_cross_lang_0006',
      'q_c2c_cross_model_0008',
    ],
  );
  const mono = q[0];
  assert.equal(code.get(mono.meta_anchor_code_id as string)?.model, 'mb');
  assert.equal(mono.anchor_language, 'python');
  const monoPos = qrels(mono.query_id)
    .filter((r) => r.relevance === 2)
    .map((r) => code.get(r.doc_id as string));
  assert.deepEqual(
    monoPos.map((d) => `${d?.model}_${d?.language}`),
    ['ma_python'],
  );
  // cross_lang: model A only; in corpus order cpp < java < python, so cpp -> java, python; java -> python.
  for (const c of q.filter((r) => r.subtask === 'c2c_cross_lang')) {
    assert.equal(c.anchor_model, 'ma');
    const pos = qrels(c.query_id).filter((r) => r.relevance === 2);
    assert.ok(pos.every((r) => code.get(r.doc_id as string)?.model === 'ma' && (r.doc_id as string) > (c.meta_anchor_code_id as string)));
  }
  const cm = q[5];
  assert.equal(cm.anchor_model, 'mb');
  const cmPos = qrels(cm.query_id)
    .filter((r) => r.relevance === 2)
    .map((r) => code.get(r.doc_id as string));
  assert.deepEqual(cmPos.map((d) => `${d?.model}_${d?.language}`).sort(), ['ma_cpp', 'ma_java']);
  // Hard negatives: three per query, the failed program first when there is one (tier 1 of cross_model: model B outside Python).
  const cmHn = qrels(cm.query_id)
    .filter((r) => r.relevance === 1)
    .map((r) => code.get(r.doc_id as string));
  assert.equal(cmHn.length, 3);
  assert.ok(
    cmHn.some((d) => d?.model === 'mb' && d.language === 'cpp'),
    'the failing mb_cpp is always in the pool (first tier)',
  );
  assert.ok(cmHn.every((d) => d?.code_id !== cm.meta_anchor_code_id));
  assert.equal(counts.subtasks.c2c_mono_lang, 1);
});

test('the subtask set and the roles are options: cross_lang only, or model B as primary', () => {
  const problems = [problem('p1', ALL)];
  const only = plan(problems, () => true, resolveReleaseShape('coreb-v202603', { code2code: ['cross_lang'] }));
  assert.deepEqual([...new Set(only.tables.code2code_queries.map((r) => r.subtask))], ['c2c_cross_lang']);
  assert.equal(resolveReleaseShape('coreb-v202603', { code2code: ['cross_lang'] }).name, 'custom:coreb-v202603');
  assert.equal(resolveReleaseShape('coreb-v202603', { code2code: ['mono_lang', 'cross_lang', 'cross_model'] }).name, 'coreb-v202603');
  assert.throws(
    () => resolveReleaseShape('coreb-v209901'),
    /unknown release shape 'coreb-v209901'; expected one of coreb-v202603, coreb-v202602, coreb-mini/,
  );
  assert.throws(() => resolveReleaseShape(undefined, { code2code: ['cross_repo' as never] }), /unknown code-to-code subtask 'cross_repo'/);
});

test('official code-to-text: three of the four near-miss texts, per-language queries only when two languages pass, the any anchor is model A in Python', () => {
  const problems = [problem('p1', ALL), problem('p2', ['ma_cpp', 'mb_python', 'mb_cpp'])];
  const { tables } = plan(problems, (pid, f) => pid === 'p1' || f === 'mb_python');
  const q = tables.code2text_queries;
  const code = new Map(tables.code_corpus.map((r) => [r.code_id as string, r]));
  const texts = new Map(tables.text_corpus.map((r) => [r.text_id as string, r]));
  for (const row of q) {
    const rels = tables.code2text_qrels.filter((r) => r.query_id === row.query_id);
    const near = rels.filter((r) => r.relevance === 1);
    assert.equal(near.length, 3, `${row.query_id}`);
    assert.ok(near.every((r) => texts.get(r.doc_id as string)?.meta_original_problem_id === row.meta_source_problem_id));
  }
  // p2 passes in Python only (model B): an any query anchored on it, no per-language query.
  const p2 = q.filter((r) => r.meta_source_problem_id === 'p2' && r.subtask !== 'c2t_match');
  assert.deepEqual(
    p2.map((r) => r.subtask),
    ['c2t_full_retro_any', 'c2t_canonical_retro_any'],
  );
  assert.equal(code.get(p2[0].meta_anchor_code_id as string)?.model, 'mb');
  const p1any = q.find((r) => r.meta_source_problem_id === 'p1' && r.subtask === 'c2t_full_retro_any');
  assert.equal(`${p1any?.anchor_model}_${p1any?.anchor_language}`, 'ma_python');
  assert.deepEqual(
    q
      .filter((r) => r.meta_source_problem_id === 'p1' && String(r.subtask).startsWith('c2t_full_retro_') && r.subtask !== 'c2t_full_retro_any')
      .map((r) => r.subtask),
    ['c2t_full_retro_cpp', 'c2t_full_retro_java', 'c2t_full_retro_python'],
  );
  // The samples differ between queries (seeded per query id), so all four texts are used somewhere.
  const used = new Set(tables.code2text_qrels.filter((r) => r.relevance === 1).map((r) => r.doc_id));
  assert.equal([...used].filter((d) => String(d).includes('00001_noise')).length, 4);
});

test('official search cap: each t2c_search subtask keeps a seeded sample of at most the cap; the seed changes the sample, not the count', () => {
  const problems = Array.from({ length: 8 }, (_, i) => problem(`p${i}`, ['ma_python'], 3));
  const shape = resolveReleaseShape('coreb-v202603', { searchCap: 5 });
  const a = plan(problems, () => true, shape, 1).tables.text2code_queries.filter((r) => r.subtask === 't2c_search_python');
  const b = plan(problems, () => true, shape, 2).tables.text2code_queries.filter((r) => r.subtask === 't2c_search_python');
  assert.equal(a.length, 5);
  assert.equal(b.length, 5);
  assert.notDeepEqual(
    a.map((r) => r.query),
    b.map((r) => r.query),
  );
  assert.deepEqual(plan(problems, () => true, shape, 1).tables.text2code_queries, plan(problems, () => true, shape, 1).tables.text2code_queries);
  const all = plan(problems, () => true, resolveReleaseShape('coreb-v202603', { searchCap: null })).tables.text2code_queries;
  assert.equal(all.filter((r) => r.subtask === 't2c_search_python').length, 24);
  // The retro parts and the search part are numbered with a skipped id between them.
  const ids = all.map((r) => Number(String(r.query_id).slice(-4)));
  assert.equal(ids.at(-1), all.length + 2);
});
