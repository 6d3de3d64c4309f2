import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCorebError } from '../core/errors.js';
import { loadBuildConfig, parseBuildConfig } from './build-config.js';

test('a build.json reads into typed settings: lists split, languages and stages typed', () => {
  const { config, issues } = parseBuildConfig(
    {
      problems: 'p.jsonl',
      solvers: ['openai:a', { provider: 'ollama', model: 'b' }],
      languages: 'python, cpp',
      until: 'solve',
      searchCap: 'all',
      seed: 7,
    },
    'build.json',
  );
  assert.deepEqual(issues, []);
  assert.deepEqual(config, {
    problems: 'p.jsonl',
    solvers: ['openai:a', { provider: 'ollama', model: 'b' }],
    languages: ['python', 'cpp'],
    until: 'solve',
    searchCap: 'all',
    seed: 7,
  });
});

test('every problem of a build.json is reported at once, each naming its field', () => {
  const { config, issues } = parseBuildConfig(
    { problem: 'x', seed: '7', languages: ['python', 'rust'], stages: 'solve,judge', rewriter: 3, out: 'o' },
    'build.json',
  );
  assert.deepEqual(
    issues.map((i) => [i.field, i.kind]),
    [
      ['problem', 'config-key'],
      ['seed', 'config-type'],
      ['rewriter', 'config-type'],
      ['languages', 'config-value'],
      ['stages', 'config-value'],
    ],
  );
  assert.match(issues[0].message, /unknown key; valid keys: problems, .*; did you mean `problems`\?/);
  assert.match(issues[1].message, /expected an integer, got "7"/);
  assert.match(issues[3].message, /`rust` is not one of python, cpp, java, go, ruby/);
  assert.match(issues[4].message, /unknown stage `judge`/);
  assert.deepEqual(config, { out: 'o' }, 'settings in error are left out');
  const dir = mkdtempSync(join(tmpdir(), 'coreb-build-config-'));
  const file = join(dir, 'build.json');
  writeFileSync(file, JSON.stringify({ problem: 'x', seed: '7' }));
  assert.throws(
    () => loadBuildConfig(file),
    (e) => isCorebError(e, 'CONFIG') && e.message.includes('unknown key') && e.message.includes('expected an integer'),
  );
});
