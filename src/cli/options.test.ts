import { test } from 'node:test';
import assert from 'node:assert/strict';
import { opt, parseOptions } from './options.js';

const spec = {
  out: opt.required('DIR'),
  title: opt.string(),
  seed: opt.int(42, 0),
  depth: opt.optionalInt(1),
  alpha: opt.number(0.05, (x) => x > 0 && x < 1, 'a number in (0, 1)'),
  format: opt.choice(['table', 'json'] as const, 'table'),
  languages: opt.list(['python', 'cpp'] as const),
  data: opt.strings(),
  quiet: opt.flag(),
};

test('options parse once into typed values, defaults filled', () => {
  const { values, positionals } = parseOptions('x', ['--out', 'o', '--data', 'a', '--data', 'b', '--languages', 'cpp, python', 'P'], spec, true);
  assert.deepEqual(values, {
    out: 'o',
    title: undefined,
    seed: 42,
    depth: undefined,
    alpha: 0.05,
    format: 'table',
    languages: ['cpp', 'python'],
    data: ['a', 'b'],
    quiet: false,
  });
  assert.deepEqual(positionals, ['P']);
  const typed: 'table' | 'json' = values.format;
  assert.equal(typed, 'table');
});

test('bad values are USAGE errors naming the option, what is valid and the closest value', () => {
  const base = ['--out', 'o'];
  assert.throws(() => parseOptions('x', [], spec), /coreb x needs --out DIR/);
  assert.throws(() => parseOptions('x', [...base, '--seed=-1'], spec), /--seed must be an integer >= 0, got `-1`/);
  assert.throws(() => parseOptions('x', [...base, '--depth', '1.5'], spec), /--depth must be an integer >= 1, got `1.5`/);
  assert.throws(() => parseOptions('x', [...base, '--alpha', '2'], spec), /--alpha must be a number in \(0, 1\), got `2`/);
  assert.throws(
    () => parseOptions('x', [...base, '--format', 'jsno'], spec),
    /--format must be one of table, json, got `jsno`; did you mean `json`\?/,
  );
  assert.throws(
    () => parseOptions('x', [...base, '--languages', 'pyhton'], spec),
    /--languages: `pyhton` is not one of python, cpp; did you mean `python`\?/,
  );
  assert.throws(() => parseOptions('x', [...base, '--qiet'], spec), /unknown option --qiet; did you mean --quiet\?/);
});
