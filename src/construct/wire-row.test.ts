import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLOAT_COLUMNS, renderWireRow } from './wire-row.js';

test('renderWireRow spaces like Python json.dumps, keeps non-ASCII, renders float columns with .0', () => {
  assert.equal(
    renderWireRow({ query_id: 'q1', meta_pass_rate: 1, label: 0, meta_test_total: 3, text: 'é "x"', langs: ['go', 'ruby'], none: null, ok: true }),
    '{"query_id": "q1", "meta_pass_rate": 1.0, "label": 0.0, "meta_test_total": 3, "text": "é \\"x\\"", "langs": ["go", "ruby"], "none": null, "ok": true}',
  );
  assert.equal(renderWireRow({ meta_pass_rate: 0.5 }), '{"meta_pass_rate": 0.5}');
  assert.equal(renderWireRow({}), '{}');
  assert.ok(FLOAT_COLUMNS.has('abbreviated_text_length') && !FLOAT_COLUMNS.has('code_length'));
});
