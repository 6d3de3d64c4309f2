import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTrecQrels, renderTrecRun } from './trec-render.js';
import { parseTrecRun, trecRunToMap } from './trec.js';

test('renderTrecRun writes score-descending lines with 1-based ranks and the tag; round-trips exactly', () => {
  const run = new Map([
    [
      'q1',
      new Map([
        ['d1', 0.1],
        ['d2', 0.30000000000000004],
        ['d3', -2],
      ]),
    ],
    ['q2', new Map([['d9', 1e-300]])],
  ]);
  const text = renderTrecRun(run, 'mine');
  assert.equal(text, 'q1 Q0 d2 1 0.30000000000000004 mine\nq1 Q0 d1 2 0.1 mine\nq1 Q0 d3 3 -2 mine\nq2 Q0 d9 1 1e-300 mine\n');
  assert.deepEqual(trecRunToMap(parseTrecRun(text)).get('q1')?.get('d2'), 0.30000000000000004);
  assert.match(renderTrecRun(new Map([['q', new Map([['d', 1]])]])), / coreb\n$/);
});

test('renderTrecQrels writes qid 0 docid rel per judgement', () => {
  assert.equal(
    renderTrecQrels(
      new Map([
        [
          'q',
          new Map([
            ['a', 2],
            ['b', -1],
          ]),
        ],
      ]),
    ),
    'q 0 a 2\nq 0 b -1\n',
  );
});
