import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { projectRoot } from '../../test/support/shared.js';
import { TASKS, type RetrievalTask, type TaskName } from '../core/dataset.js';
import { isCorebError } from '../core/errors.js';
import type { RankedList } from '../core/retrieval.js';
import { loadRelease } from '../dataset/release.js';
import { releaseTasks } from '../dataset/release-tasks.js';
import { createBm25Retriever } from '../search/bm25.js';
import { disjointnessWarning, mineRerankRecords, taskProblems } from './mine.js';

const MINI = join(projectRoot, 'data', 'coreb-mini', 'release');

/** The bundled sample's tasks and BM25 lists (top 100, c2c anchor excluded), computed once. */
const fixture = (async () => {
  const { release } = await loadRelease(MINI);
  const all = releaseTasks(release);
  const tasks = new Map<TaskName, RetrievalTask>(TASKS.map((t) => [t, all[t]]));
  const lists = new Map<string, Map<string, RankedList>>();
  for (const [name, task] of tasks) {
    const index = await createBm25Retriever().index(task.corpus);
    const exclude = new Map(task.queries.filter((q) => q.anchorId).map((q) => [q.id, [q.anchorId!]]));
    lists.set(name, await index.search(task.queries, 100, { exclude }));
  }
  return { tasks, lists };
})();

test('one record per rel-2 qrel; positives rel 2; hard negatives qrels rel 1 or window-ranked non-positives; easy negatives other problems', async () => {
  const { tasks, lists } = await fixture;
  const { records, stats } = mineRerankRecords({ tasks, lists });
  const label = { text2code: 'T2C', code2text: 'C2T', code2code: 'C2C' } as const;
  for (const [name, task] of tasks) {
    let rel2 = 0;
    for (const m of task.qrels.values()) for (const l of m.values()) if (l === 2) rel2++;
    const mine = records.filter((r) => r.task === label[name]);
    assert.equal(mine.length, rel2, name);
    assert.equal(stats[{ text2code: 't2c', code2text: 'c2t', code2code: 'c2c' }[name]].records, rel2);
    const docs = new Map(task.corpus.map((d) => [d.id, d]));
    const queries = new Map(task.queries.map((q) => [q.id, q]));
    let fromRun = 0;
    for (const r of mine) {
      const q = queries.get(r.queryId)!;
      const qrels = task.qrels.get(r.queryId)!;
      const rank = new Map(
        lists
          .get(name)!
          .get(r.queryId)!
          .docIds.map((id, i) => [id, i + 1]),
      );
      assert.equal(r.pos.length, 1);
      assert.equal(qrels.get(r.pos[0].id), 2, `${r.queryId}: positive ${r.pos[0].id}`);
      assert.equal(r.pos[0].text, docs.get(r.pos[0].id)!.text);
      assert.equal(r.query, q.text);
      assert.ok(r.hardNeg.length <= 8 && r.hardNeg.length > 0);
      assert.equal(r.easyNeg.length, 8);
      const ids = [...r.hardNeg, ...r.easyNeg].map((p) => p.id);
      assert.equal(new Set(ids).size, ids.length, 'no document twice');
      for (const h of r.hardNeg) {
        const l = qrels.get(h.id);
        assert.notEqual(h.id, q.anchorId);
        if (l === 1) continue;
        fromRun++;
        const k = rank.get(h.id);
        assert.ok(k !== undefined && k >= 10 && k <= 100, `${r.queryId}: hard negative ${h.id} at rank ${k}`);
        assert.ok(l === undefined || l < 1, `${h.id} labelled ${l}`);
        assert.ok(l !== undefined || docs.get(h.id)!.problemId !== q.problemId, `${h.id}: unjudged same-problem document`);
      }
      // judged hard negatives come first, best-ranked first
      const judged = r.hardNeg.filter((h) => qrels.get(h.id) === 1).map((h) => rank.get(h.id) ?? Infinity);
      assert.deepEqual(
        judged,
        [...judged].sort((a, b) => a - b),
      );
      assert.deepEqual(
        r.hardNeg.slice(0, judged.length).map((h) => qrels.get(h.id)),
        judged.map(() => 1),
      );
      for (const e of r.easyNeg) {
        assert.equal(qrels.get(e.id), undefined, `easy negative ${e.id} is judged`);
        assert.notEqual(docs.get(e.id)!.problemId, q.problemId);
      }
    }
    assert.ok(fromRun > 0, `${name}: some hard negatives come from the run`);
  }
});

test('easy negatives are seeded: same seed same records, another seed other easy negatives', async () => {
  const { tasks, lists } = await fixture;
  const a = mineRerankRecords({ tasks, lists, seed: 7 }).records;
  const b = mineRerankRecords({ tasks, lists, seed: 7 }).records;
  const c = mineRerankRecords({ tasks, lists, seed: 8 }).records;
  assert.deepEqual(a, b);
  assert.deepEqual(
    a.map((r) => r.hardNeg),
    c.map((r) => r.hardNeg),
  );
  assert.notDeepEqual(
    a.map((r) => r.easyNeg),
    c.map((r) => r.easyNeg),
  );
  const few = mineRerankRecords({ tasks, lists, hardNegatives: 2, easyNegatives: 1, window: [1, 5] }).records;
  assert.ok(few.every((r) => r.hardNeg.length <= 2 && r.easyNeg.length === 1));
});

test('excluded problems: overlap refused with the problems listed; --drop-overlap leaves them out entirely', async () => {
  const { tasks, lists } = await fixture;
  const all = [...taskProblems(tasks.values())].sort();
  const excluded = new Set([all[0], all[3], 'not_in_this_release']);
  assert.throws(
    () => mineRerankRecords({ tasks, lists, excludeProblems: excluded }),
    (e: unknown) =>
      isCorebError(e, 'VALIDATION') &&
      (e as Error).message.includes(
        `shares 2 problem(s) with --exclude-problems, so its records would not be problem-disjoint: ${all[0]}, ${all[3]}.`,
      ),
  );
  const { records, overlap, stats } = mineRerankRecords({ tasks, lists, excludeProblems: excluded, dropOverlap: true });
  assert.deepEqual(overlap, [all[0], all[3]]);
  assert.ok(Object.values(stats).some((s) => s.droppedQueries > 0));
  const problemOf = new Map<string, string | undefined>();
  for (const t of tasks.values()) {
    for (const d of t.corpus) problemOf.set(d.id, d.problemId);
    for (const q of t.queries) problemOf.set(q.id, q.problemId);
  }
  for (const r of records) {
    for (const id of [r.queryId, ...r.pos.map((p) => p.id), ...r.hardNeg.map((p) => p.id), ...r.easyNeg.map((p) => p.id)]) {
      assert.ok(!excluded.has(problemOf.get(id)!), `${r.queryId}: ${id} belongs to an excluded problem`);
    }
  }
  // A disjoint exclusion set mines everything.
  assert.equal(
    mineRerankRecords({ tasks, lists, excludeProblems: new Set(['x']) }).records.length,
    mineRerankRecords({ tasks, lists }).records.length,
  );
});

test('warnings and bad options', () => {
  assert.match(disjointnessWarning('release_v2602', false)!, /evaluated on v202603; name that release/);
  assert.match(disjointnessWarning('v202602', false)!, /v202603/);
  assert.equal(disjointnessWarning('release_v2602', true), undefined);
  assert.throws(() => mineRerankRecords({ tasks: new Map(), lists: new Map(), window: [5, 2] }), /window must be ranks FROM-TO/);
});

test('a near-miss text belongs to the problem it was written from: its own noise id is not counted as a problem', () => {
  const task = {
    name: 'code2text',
    task: 'code2text' as const,
    corpus: [
      { id: 't1', text: 'a', problemId: 'lcb_1' },
      { id: 't1n1', text: 'b', problemId: 'lcb_1_noise1', meta: { originalProblemId: 'lcb_1' } },
      { id: 't1n2', text: 'c', problemId: 'lcb_1_noise2', meta: { originalProblemId: 'lcb_1' } },
      { id: 't2', text: 'd', problemId: 'lcb_2' },
    ],
    queries: [{ id: 'q1', text: 'x', task: 'code2text' as const, subtask: 'c2t_full_retro_any', problemId: 'lcb_1' }],
    qrels: new Map(),
  };
  assert.deepEqual([...taskProblems([task])].sort(), ['lcb_1', 'lcb_2']);
});
