import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, runCli } from '../support/cli.js';
import { fixtureTables, tempDir, writeJsonlRelease } from './validate-fixture.js';

test('coreb help eval prints the eval usage, not the top-level help', () => {
  const r = runCli(['help', 'eval']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Usage: coreb eval/);
  assert.equal(r.stdout, runCli(['eval', '--help']).stdout);
});

test('a mistyped option or command gets a "did you mean"', () => {
  const r = runCli(['validate', '.', '--formt', 'json']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown option --formt; did you mean --format\?/);
  const c = runCli(['evl']);
  assert.equal(c.status, 2);
  assert.match(c.stderr, /unknown command `evl`; did you mean `eval`\?/);
});

test('eval --quiet writes no progress or informational lines (warnings only) to stderr', () => {
  const out = mkdtempSync(join(tmpdir(), 'coreb-quiet-'));
  try {
    const r = runCli(['eval', '--quiet', '--tasks', 't2c', '--out', join(out, 'res')]);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    assert.deepEqual(
      lines.filter((l) => !l.startsWith('warning: ')),
      [],
      r.stderr,
    );
    const loud = runCli(['eval', '--tasks', 't2c', '--out', join(out, 'res2')]);
    assert.match(loud.stderr, /wrote .*results\.json/, 'without --quiet the informational line is there');
    assert.match(r.stdout, /bm25/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('validate | head: a closed stdout ends quietly, without a stack trace', () => {
  const t = fixtureTables();
  // Thousands of warnings: far more output than a pipe buffer holds.
  const base = t.code_corpus[0];
  for (let i = 0; i < 3000; i++) t.code_corpus.push({ ...base, id: `extra${i}`, language: 'cobol' });
  const dir = writeJsonlRelease(tempDir(), t);
  const r = spawnSync('sh', ['-c', `"${process.execPath}" "${cliPath}" validate "${dir}" | head -n 2; exit 0`], { encoding: 'utf8' });
  assert.equal(r.stdout.split('\n').length, 3, r.stdout);
  assert.equal(r.stderr, '', 'no error output');
});

test('every command documents the exit statuses; the top-level help lines its commands up and lists them too', () => {
  const top = runCli(['--help']);
  assert.equal(top.status, 0);
  const commands = top.stdout.split('Commands:\n')[1].split('\n\n')[0].split('\n');
  const column = commands.map((l) => /^ {2}\S+ +/.exec(l)![0].length);
  assert.equal(new Set(column).size, 1, `summaries start in one column:\n${commands.join('\n')}`);
  assert.match(top.stdout, /Exit status \(every command\):\n +0 +done\n +1 +a check the command was asked to make failed/);
  for (const line of commands) {
    const name = line.trim().split(/\s+/)[0];
    const r = runCli([name, '--help']);
    assert.equal(r.status, 0, `${name} --help`);
    for (const code of [0, 1, 2, 3, 4, 5, 6, 7, 8, 70, 130])
      assert.match(r.stdout, new RegExp(`\\n +${code}  \\S`), `${name} --help lists exit status ${code}`);
  }
  const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8').split('## Exit status')[1];
  for (const code of [0, 1, 2, 3, 4, 5, 6, 7, 8, 70, 130])
    assert.match(readme, new RegExp(`\\n\\| ${code} \\| \\S`), `README lists exit status ${code}`);
});

test('--format: the same names in every command (table, markdown, latex, json; text means table)', () => {
  const mini = join(process.cwd(), 'data', 'coreb-mini', 'release');
  const text = runCli(['validate', mini, '--format', 'text']);
  assert.equal(text.status, 0, text.stderr);
  assert.equal(text.stdout, runCli(['validate', mini, '--format', 'table']).stdout);
  const latex = runCli(['eval', '--tasks', 't2c', '--format', 'latex', '--quiet']);
  assert.equal(latex.status, 0, latex.stderr);
  assert.match(latex.stdout, /^% coreb eval/);
  assert.match(latex.stdout, /\\begin\{tabular\}/);
  const audit = runCli(['audit', mini, '--format', 'markdown', '--no-language-check', '--quiet']);
  assert.equal(audit.status, 0, audit.stderr);
  assert.match(audit.stdout, /^\| task \| queries \|/m);
  const bad = runCli(['audit', mini, '--format', 'csv']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--format must be one of table, markdown, latex, json, got `csv`/);
});
