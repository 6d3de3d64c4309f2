import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileKeys, fileList, fileQrels } from './file-level.js';

test('file level: a file at its best chunk, labelled with its best chunk; corpora without paths have none', () => {
  const docs = [
    { id: 'r:a.py:1-5', text: '', meta: { path: 'a.py', repo: 'r' } },
    { id: 'r:a.py:6-9', text: '', meta: { path: 'a.py', repo: 'r' } },
    { id: 'r:b.py:1-3', text: '', meta: { path: 'b.py', repo: 'r' } },
    { id: 's:a.py:1-2', text: '', meta: { path: 'a.py', repo: 's' } },
  ];
  const fileOf = fileKeys(docs)!;
  const list = { docIds: ['r:b.py:1-3', 'r:a.py:6-9', 's:a.py:1-2', 'r:a.py:1-5'], scores: Float32Array.from([9, 8, 7, 6]) };
  const files = fileList(list, fileOf);
  assert.deepEqual(files.docIds, ['r:b.py', 'r:a.py', 's:a.py']);
  assert.deepEqual([...files.scores], [9, 8, 7]);
  const qrels = fileQrels(
    new Map([
      [
        'q',
        new Map([
          ['r:a.py:1-5', 2],
          ['r:a.py:6-9', 1],
          ['r:b.py:1-3', 1],
        ]),
      ],
    ]),
    fileOf,
  );
  assert.deepEqual(
    [...qrels.get('q')!],
    [
      ['r:a.py', 2],
      ['r:b.py', 1],
    ],
  );
  assert.equal(fileKeys([{ id: 'x', text: '' }]), undefined);
});
