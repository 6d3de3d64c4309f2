import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILD_STAGES } from '../types.js';
import { LOCAL_STAGES, STAGE_MODULES } from './index.js';

test('every stage after load has its module, under its own name, in the order the build runs them', () => {
  assert.deepEqual(Object.keys(STAGE_MODULES), BUILD_STAGES.slice(1));
  for (const [name, m] of Object.entries(STAGE_MODULES)) {
    assert.equal(m.name, name);
    assert.equal(typeof m.run, 'function');
    assert.equal(typeof m.resume, 'function');
  }
  assert.deepEqual([...LOCAL_STAGES], ['qrels', 'release']);
});
