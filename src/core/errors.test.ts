import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CorebError, isCorebError } from './errors.js';

test('CorebError prefixes file, line and field so a user can find the problem', () => {
  const e = new CorebError('PARSE', 'expected a string', { file: 'queries.jsonl', line: 17, field: '_id' });
  assert.equal(e.message, 'queries.jsonl:17: field `_id`: expected a string');
  assert.equal(e.code, 'PARSE');
  assert.ok(isCorebError(e, 'PARSE'));
  assert.ok(!isCorebError(e, 'IO'));
  const r = new CorebError('PARSE', 'bad row', { file: 'x.parquet', row: 3 });
  assert.equal(r.message, 'x.parquet row 3: bad row');
});
