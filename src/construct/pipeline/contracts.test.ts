/** Reply contracts of coreb build: JSON, code extraction, comment stripping, plain texts, the numeric-test rule. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ContractError,
  extractProgram,
  isContextIndependent,
  parseAbbreviation,
  parseJsonObject,
  parseNegative,
  parseSearchQueriesReply,
  parseRewriteReply,
  parseTestsReply,
  stripComments,
} from './contracts.js';
import { loadPromptSet, renderTemplate } from './prompts.js';

test('JSON replies: bare, fenced, or inside prose; errors say what was expected', () => {
  assert.deepEqual(parseJsonObject('{"a": 1}'), { a: 1 });
  assert.deepEqual(parseJsonObject('```json\n{"a": 2}\n```'), { a: 2 });
  assert.deepEqual(parseJsonObject('Sure!\n```json\n{"a": 3}\n```\nDone.'), { a: 3 });
  assert.throws(() => parseJsonObject('no json here'), ContractError);
  assert.throws(() => parseJsonObject('[1, 2]'), /not an object/);
});

test('rewrite contract: fields checked; starter code required only when the original had one', () => {
  const ok = parseRewriteReply('{"title": "T", "statement": "S", "ioChanged": false}', false);
  assert.deepEqual(ok, { title: 'T', statement: 'S', starterCode: '', ioChanged: false });
  assert.throws(() => parseRewriteReply('{"title": "T", "statement": "S"}', false), /"ioChanged" must be true or false/);
  assert.throws(() => parseRewriteReply('{"title": "T", "statement": "S", "ioChanged": true}', true), /"starterCode"/);
  assert.throws(() => parseRewriteReply('{"title": "", "statement": "S", "ioChanged": true}', false), /"title" must be a non-empty string/);
});

test('tests and queries contracts', () => {
  assert.deepEqual(parseTestsReply('{"tests": [{"input": "a", "output": "b"}]}', 1), [{ input: 'a', output: 'b' }]);
  assert.throws(() => parseTestsReply('{"tests": []}', 2), /has 0 cases; expected exactly 2/);
  assert.throws(() => parseTestsReply('{"tests": [{"input": 1, "output": "b"}]}', 1), /tests\[0\]/);
  const variants = ['retro_any', 'retro_python'];
  assert.deepEqual(
    parseSearchQueriesReply('{"queries": {"retro_any": ["a  b", "a b", "c", "d"], "retro_python": ["p"], "retro_go": ["g"]}}', variants, 2),
    {
      retro_any: ['a b', 'c'],
      retro_python: ['p'],
    },
  );
  // The official runner's bare form with {query, best_match} entries, in a fence.
  assert.deepEqual(
    parseSearchQueriesReply('```json\n{"retro_any": [{"query": "x y", "best_match": "lcb_1"}], "retro_python": [{"query": "z"}]}\n```', variants, 2),
    { retro_any: ['x y'], retro_python: ['z'] },
  );
  assert.throws(
    () => parseSearchQueriesReply('{"queries": {"retro_any": ["a"]}}', variants, 2),
    /no queries for "retro_python"; expected an array of strings for each of retro_any, retro_python \(\[\] when none fits\)/,
  );
  // An explicitly empty variant is an answer: it gets no query of this type.
  assert.deepEqual(parseSearchQueriesReply('{"queries": {"retro_any": [], "retro_python": ["p"]}}', variants, 2), {
    retro_any: [],
    retro_python: ['p'],
  });
  assert.throws(
    () => parseSearchQueriesReply('{"retro_any": ["a"], "retro_python": [3]}', variants, 2),
    /retro_python\[0\] must be a non-empty string/,
  );
});

test('abbreviation: 50-150 words; negatives: fence, headers and preambles stripped', () => {
  assert.throws(() => parseAbbreviation('too short'), /has 2 words; it must have 50 to 150/);
  assert.equal(parseAbbreviation('```\n' + 'w '.repeat(60) + '\n```').split(' ').length, 60);
  assert.equal(parseNegative('Modified Problem Description:\n## Task\nFind the **minimum** path.\n'), 'Find the **minimum** path.');
  assert.equal(parseNegative('**New problem:** Count distinct pairs.'), 'Count distinct pairs.');
  assert.throws(() => parseNegative('### Only a header'), /only headers/);
});

test('code extraction: <code> tags or the longest fence, prose ignored; no code is a contract error', () => {
  assert.equal(extractProgram('Here:\n<code>\nprint(1)\n</code>\nbye', 'python'), 'print(1)\n');
  assert.equal(extractProgram('<code>\nprint(2)\n', 'python'), 'print(2)\n', 'a missing closing tag is tolerated');
  assert.equal(extractProgram('a\n```\nx\n```\nand\n```python\nprint(3)\nprint(4)\n```', 'python'), 'print(3)\nprint(4)\n');
  assert.throws(() => extractProgram('I cannot.', 'python'), /no program found/);
  assert.throws(() => extractProgram('```python\n# only a comment\n```', 'python'), /only comments/);
});

test('comment stripping respects strings and each language', () => {
  assert.equal(stripComments('x = "a # b"  # note\n# whole line\ny = 1', 'python'), 'x = "a # b"\ny = 1');
  assert.equal(stripComments('def f():\n    """Docstring."""\n    return 1', 'python'), 'def f():\n    return 1');
  assert.equal(stripComments('def f():\n    """Only a docstring."""', 'python'), 'def f():\n    pass');
  assert.equal(stripComments('s = """keep # this"""\nt = 1', 'python'), 's = """keep # this"""\nt = 1');
  assert.equal(
    stripComments('int a = 1; // one\n/* block\n comment */\nchar c = \'/\'; string s = "//x";', 'cpp'),
    'int a = 1;\nchar c = \'/\'; string s = "//x";',
  );
  assert.equal(stripComments('s := `raw // kept`\n// gone\nx := 1', 'go'), 's := `raw // kept`\nx := 1');
  assert.equal(stripComments('puts "#{x} # in string" # gone\n=begin\nblock\n=end\ny = 2', 'ruby'), 'puts "#{x} # in string"\ny = 2');
});

test('context-independent tests (kept as is): numbers, contest keywords, grids, numeric JSON', () => {
  assert.ok(isContextIndependent('3\n1 2 3\n', '6\n'));
  assert.ok(isContextIndependent('2 -1.5e3\n', 'Yes\n'));
  assert.ok(isContextIndependent('3 3\n.#.\n###\n', 'impossible'));
  assert.ok(isContextIndependent('[1, 2, 3]\n4', '[0, 1]'));
  assert.ok(!isContextIndependent('apple\n', 'elppa\n'));
  assert.ok(!isContextIndependent('"abc"', '3'));
});

test('the default prompt set loads, renders every stage, and refuses unknown variables', () => {
  const set = loadPromptSet();
  assert.equal(Object.keys(set.templates).length, 7);
  assert.ok(Object.values(set.hashes).every((h) => /^[0-9a-f]{64}$/.test(h)));
  assert.equal(renderTemplate('a {{x}}{{#if y}}\nY={{y}}\n{{/if}} b', { x: '1', y: '' }, 't'), 'a 1 b');
  assert.equal(renderTemplate('{{#if y}}Y={{y}}{{/if}}', { y: '2' }, 't'), 'Y=2');
  assert.throws(() => renderTemplate('{{nope}}', {}, 'solve.md'), /solve.md: unknown variable `nope`/);
});
