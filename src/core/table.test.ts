import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTable, tableLines } from './table.js';

const t = {
  title: 'scores',
  header: ['retriever', 'queries', 'nDCG@10'],
  rows: [
    ['bm25', '7', '0.4777'],
    ['dense|x', '12', '0.5'],
  ],
  notes: ['a note'],
};

test('text: columns padded to the widest cell, numbers right-aligned, a rule, no trailing spaces', () => {
  assert.equal(
    renderTable(t),
    [
      'scores',
      'retriever  queries  nDCG@10',
      '---------  -------  -------',
      'bm25             7   0.4777',
      'dense|x         12      0.5',
      '',
      'a note',
      '',
    ].join('\n'),
  );
  assert.deepEqual(tableLines({ header: ['a', 'b'], rows: [['x', '']], align: ['left', 'left'], indent: '  ' }), ['  a  b', '  -  -', '  x']);
});

test('markdown escapes pipes and right-aligns numeric columns; LaTeX escapes the header', () => {
  assert.equal(
    renderTable(t, 'markdown'),
    [
      '### scores',
      '',
      '| retriever | queries | nDCG@10 |',
      '|---|---:|---:|',
      '| bm25 | 7 | 0.4777 |',
      '| dense\\|x | 12 | 0.5 |',
      '',
      '_a note_',
      '',
    ].join('\n'),
  );
  const latex = renderTable({ header: ['a_b', 'n'], rows: [['x', '1']] }, 'latex');
  assert.match(latex, /\\begin\{tabular\}\{lr\}\n\\toprule\na\\_b & n \\\\\n\\midrule\nx & 1 \\\\/);
});
