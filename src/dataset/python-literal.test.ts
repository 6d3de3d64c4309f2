import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { parsePythonLiteral } from './python-literal.js';

const python = ['/usr/bin/python3', 'python3'].find((p) => spawnSync(p, ['-c', 'pass']).status === 0);

test('hand-written literals: strings with escapes, numbers, nesting, tuples, constants', () => {
  assert.deepEqual(parsePythonLiteral(`[{'input': '3\\n5 6\\n', 'output': ['5\\n']}, ("a", 1, -2.5e3, True, None,)]`), [
    { input: '3\n5 6\n', output: ['5\n'] },
    ['a', 1, -2500, true, null],
  ]);
  assert.equal(parsePythonLiteral(`"it's \\"q\\" \\x41\\u00e9 \\\\"`), 'it\'s "q" Aé \\');
  assert.equal(parsePythonLiteral(`r'\\n'`), '\\n');
  assert.throws(() => parsePythonLiteral(`['a', `), { code: 'PARSE' });
  assert.throws(() => parsePythonLiteral(`[1] 2`), { code: 'PARSE' });
});

test('round trip: whatever python3 repr() prints parses to what json.dumps says', { skip: python ? false : 'python3 not found' }, () => {
  const script =
    "import json,sys\nv=[{'input': 'a\\nb\\t\\\\c\\'\"', 'output': ['x', 'y\\x00z\\u00e9\\U0001F600']}, (1, 2.5, -3), {'k': [True, False, None]}, '\\r\\x7f']\n" +
    'sys.stdout.write(repr(v) + "\\n" + json.dumps(v))';
  const r = spawnSync(python!, ['-c', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const [literal, json] = r.stdout.split('\n');
  assert.deepEqual(parsePythonLiteral(literal), JSON.parse(json));
});
