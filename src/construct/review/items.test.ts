/** Review items from a build's work folder: partial builds, failed items, torn lines, old builds without originals in load.jsonl. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createReviewState } from './decisions.js';
import { createReviewItems, currentText, loadBuildWork } from './items.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-review-items-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const jsonl = (rows: unknown[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
function build(name: string, files: Record<string, string>): string {
  const dir = join(tmp, name);
  mkdirSync(join(dir, 'work'), { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  return dir;
}
const load = [
  { id: 'p2', title: 'Two', statement: 'Read 2 numbers.', starter_code: '', samples: [] },
  { id: 'p1', title: 'One', statement: 'Alice reads 1 number.', starter_code: '', samples: [{ input: '1\n', output: '1\n' }] },
];

test('a build stopped after rewrite: items in id order, diff and the checks that can run; a failed rewrite is said', async () => {
  const dir = build('partial', {
    'work/load.jsonl': jsonl(load),
    'work/rewrite.jsonl':
      jsonl([
        { id: 'p1', title: 'Uno', statement: 'Marcus reads 1 number.', starter_code: '', io_changed: false },
        { id: 'p2', failed: 'the reply is not JSON' },
      ]) + '{"id":"p3","tit', // torn by a kill
  });
  const work = await loadBuildWork(dir);
  const items = createReviewItems(work, createReviewState([]));
  assert.deepEqual(
    items.map((i) => i.id),
    ['p1', 'p2'],
  );
  assert.deepEqual(items[0].diff, [
    { op: 'del', text: 'Alice ' },
    { op: 'ins', text: 'Marcus ' },
    { op: 'eq', text: 'reads 1 number.' },
  ]);
  assert.deepEqual(
    items[0].checks.map((c) => c.name),
    ['numbers', 'samples'],
  );
  assert.equal(items[1].failed, 'rewrite failed: the reply is not JSON');
  assert.equal(items[1].rewrite, undefined);
  assert.equal(currentText(work, createReviewState([]), { problem: 'p2', part: 'statement' }), undefined);
  assert.equal(
    currentText(work, createReviewState([{ item: 'p1', decision: 'edit', who: 'a', when: 't', after: 'Edited.' }]), {
      problem: 'p1',
      part: 'statement',
    }),
    'Edited.',
  );
});

test('not a build folder, a malformed middle line, and an old build whose originals come from the problems file', async () => {
  await assert.rejects(loadBuildWork(build('empty', {})), /not a coreb build folder: work\/load\.jsonl is missing/);
  const bad = build('bad', { 'work/load.jsonl': jsonl(load), 'work/queries.jsonl': '{"id":"p1","queries":[]}\nnope\n{"id":"p2","queries":[]}\n' });
  await assert.rejects(loadBuildWork(bad), /queries\.jsonl:2: malformed stage output/);
  const problems = join(tmp, 'lcb.jsonl');
  writeFileSync(
    problems,
    jsonl([
      {
        question_id: 'p1',
        question_title: 'One',
        question_content: 'Alice reads 1 number.',
        platform: 'atcoder',
        public_test_cases: '[{"input":"1\\n","output":"1\\n","testtype":"stdin"}]',
        private_test_cases: '[]',
        metadata: '{}',
      },
    ]),
  );
  const old = build('old', { 'work/load.jsonl': jsonl([{ id: 'p1', title: 'One', platform: 'atcoder', public_tests: 1, private_tests: 0 }]) });
  await assert.rejects(loadBuildWork(old), /give the source problems with --problems FILE/);
  writeFileSync(join(old, 'manifest.json'), JSON.stringify({ source: { problems_file: problems } }));
  const work = await loadBuildWork(old);
  assert.deepEqual(work.originals.get('p1'), {
    title: 'One',
    statement: 'Alice reads 1 number.',
    starterCode: '',
    samples: [{ input: '1\n', output: '1\n' }],
  });
});
