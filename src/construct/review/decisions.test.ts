/** Review decisions: validation messages, item ids, the append (one line each, torn tail cut), folding and applying. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  appendReviewDecision,
  applyReviewInPlace,
  createReviewState,
  loadReviewDecisions,
  parseReviewItem,
  reviewStatus,
  summarizeReview,
  validateReviewDecision,
  type ReviewRecord,
} from './decisions.js';

test('item ids: problem, title, abbreviation, queries (1-based), negatives; anything else is refused', () => {
  assert.deepEqual(parseReviewItem('abc387_a'), { problem: 'abc387_a', part: 'statement' });
  assert.deepEqual(parseReviewItem('3674/queries/2'), { problem: '3674', part: 'query', index: 1 });
  assert.deepEqual(parseReviewItem('x/negatives/problem_domain'), { problem: 'x', part: 'negative', strategy: 'problem_domain' });
  for (const bad of ['', '../etc', 'a/queries/0', 'a/b', 'a/negatives/../x', '/a'])
    assert.throws(() => parseReviewItem(bad), /expected PID, PID\/title/);
});

test('decision bodies: each mistake gets a message naming the field', () => {
  const v = (b: unknown): string => {
    try {
      validateReviewDecision(b);
      return 'ok';
    } catch (e) {
      return (e as Error).message;
    }
  };
  assert.equal(v({ item: 'a', decision: 'approve' }), 'ok');
  assert.match(v([]), /JSON object/);
  assert.match(v({ item: 'a', decision: 'maybe' }), /field `decision`: must be one of approve, reject, edit/);
  assert.match(v({ item: 3, decision: 'approve' }), /field `item`: must be a non-empty string/);
  assert.match(v({ item: 'a', decision: 'edit' }), /field `text`: an edit needs the new text/);
  assert.match(v({ item: 'a', decision: 'approve', text: 'x' }), /only an edit carries a text/);
  assert.match(v({ item: 'a', decision: 'approve', extra: 1 }), /unknown key `extra`/);
  assert.match(v({ item: 'a/abbreviation', decision: 'reject' }), /cannot be rejected on its own.*reject the problem `a`/);
  assert.match(v({ item: 'a', decision: 'edit', text: 'x'.repeat(100_001) }), /at most 100000/);
  assert.equal(validateReviewDecision({ item: 'a', decision: 'edit', text: 'l1\r\nl2' }).text, 'l1\nl2');
});

test('appends are whole lines; a torn tail from a crash is cut before the next one; malformed lines are named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-review-dec-'));
  try {
    const file = join(dir, 'review.jsonl');
    const rec = (item: string, decision: ReviewRecord['decision'], after?: string): ReviewRecord => ({
      item,
      decision,
      who: 'ann',
      when: '2026-12-01T00:00:00.000Z',
      ...(after === undefined ? {} : { before: 'old', after }),
    });
    await Promise.all([appendReviewDecision(file, rec('p1', 'approve')), appendReviewDecision(file, rec('p2', 'reject'))]);
    writeFileSync(file, readFileSync(file, 'utf8') + '{"item":"p3","deci', { flag: 'w' });
    assert.equal(loadReviewDecisions(file).length, 2, 'the torn line is ignored when reading');
    await appendReviewDecision(file, rec('p3', 'edit', 'new text'));
    const lines = readFileSync(file, 'utf8').split('\n');
    assert.equal(lines.length, 4);
    assert.equal(lines[3], '');
    assert.deepEqual(
      lines.slice(0, 3).map((l) => JSON.parse(l).item),
      lines
        .slice(0, 2)
        .map((l) => JSON.parse(l).item)
        .concat('p3'),
    );
    writeFileSync(file, '{"item":"p1","decision":"approve"}\nnot json\n{"item":"p2","decision":"approve"}\n');
    assert.throws(() => loadReviewDecisions(file), /review\.jsonl:2: not JSON/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('folding: the last decision per item wins; statuses and counts; edits applied to stage rows', () => {
  const r = (item: string, decision: ReviewRecord['decision'], after?: string): ReviewRecord => ({
    item,
    decision,
    who: 'ann',
    when: 't',
    ...(after === undefined ? {} : { after }),
  });
  const state = createReviewState([
    r('p1', 'reject'),
    r('p1', 'approve'),
    r('p2', 'approve'),
    r('p2', 'reject'),
    r('p3', 'edit', 'Edited statement'),
    r('p4', 'approve'),
    r('p4/abbreviation', 'edit', 'short'),
    r('p4/queries/2', 'reject'),
    r('p4/queries/1', 'edit', 'new q1'),
    r('p4/negatives/problem_domain', 'edit', 'new neg'),
    r('p4/title', 'edit', 'New Title'),
  ]);
  assert.deepEqual(
    ['p1', 'p2', 'p3', 'p4', 'p5'].map((p) => reviewStatus(state, p)),
    ['approved', 'rejected', 'edited', 'edited', 'unreviewed'],
  );
  assert.deepEqual(summarizeReview(state, ['p1', 'p2', 'p3', 'p4', 'p5']), { approved: 1, rejected: 1, edited: 2, unreviewed: 1, decisions: 11 });
  const rewrites = new Map([
    ['p3', { title: 'T3', statement: 'S3' }],
    ['p4', { title: 'T4', statement: 'S4' }],
  ]);
  const abbreviations = new Map([['p4', { abbreviated: 'long' }]]);
  const queries = new Map<string, { queries: string[]; variants?: unknown[] }>([
    ['p4', { queries: ['q1', 'q2', 'q3'], variants: ['any', 'python', 'cpp'] }],
  ]);
  const negatives = [
    { id: 'p4', strategy: 'problem_domain', text: 'old' },
    { id: 'p4', strategy: 'operation_type', text: 'kept' },
  ];
  applyReviewInPlace(state, { rewrites, abbreviations, queries, negatives });
  assert.deepEqual(rewrites.get('p3'), { title: 'T3', statement: 'Edited statement' });
  assert.deepEqual(rewrites.get('p4'), { title: 'New Title', statement: 'S4' });
  assert.equal(abbreviations.get('p4')?.abbreviated, 'short');
  assert.deepEqual(queries.get('p4')?.queries, ['new q1', 'q3']);
  assert.deepEqual(queries.get('p4')?.variants, ['any', 'cpp'], 'the variants of the build stay aligned with the queries kept');
  assert.deepEqual(
    negatives.map((n) => n.text),
    ['new neg', 'kept'],
  );
});
