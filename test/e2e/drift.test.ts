/**
 * `coreb drift`: the series check of a release against the last one, on coreb-mini and a release
 * grown from it (v202603's new code-to-code subtasks): what moved is flagged, what did not is not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DriftReport } from '../../src/core/drift-report.js';
import { runCli } from '../support/cli.js';
import { writeGrownRelease } from '../support/grown-release.js';
import { tempDir } from '../support/judge.js';
import { projectRoot } from '../support/shared.js';

const mini = join(projectRoot, 'data', 'coreb-mini', 'release');

test('drift of a release against itself: every figure compared, none flagged; --strict exits 0', () => {
  const r = runCli(['drift', mini, mini, '--format', 'json', '--strict']);
  assert.equal(r.status, 0, r.stderr);
  const d = JSON.parse(r.stdout) as DriftReport;
  assert.equal(d.flagged, 0);
  const figures = d.rows.map((x) => x.figure);
  for (const f of [
    'code2code queries',
    't2c_search queries',
    'code2text hard negatives / query',
    't2c_search query tokens',
    'author-a go verified share',
    'code2text BM25 nDCG@10',
    'code2code BM25 hard negatives in top 10 / query',
  ]) {
    assert.ok(figures.includes(f), f);
  }
  assert.ok(d.rows.every((x) => x.delta === 0));
});

test('drift against a grown release flags the new subtasks and the moved count; --strict exits 1; --flagged keeps those rows', () => {
  const grown = writeGrownRelease(join(tempDir('coreb-e2e-drift-'), 'release'));
  const r = runCli(['drift', mini, grown.dir, '--format', 'json', '--no-bm25']);
  assert.equal(r.status, 0, r.stderr);
  const d = JSON.parse(r.stdout) as DriftReport;
  const flag = (f: string) => d.rows.find((x) => x.figure === f)?.flag;
  assert.equal(flag('c2c_mono_lang queries'), 'added');
  assert.equal(flag('c2c_cross_model queries'), 'added');
  assert.match(flag('code2code queries') ?? '', /^moved \d+% \(band ±25%\)$/);
  assert.equal(flag('c2c_cross_lang queries'), null, 'the shared subtask did not move');
  assert.equal(flag('x2y_probe queries'), undefined, 'a query of no known family is not counted');
  assert.ok(!d.rows.some((x) => x.section === 'bm25'));
  const strict = runCli(['drift', mini, grown.dir, '--no-bm25', '--strict', '--flagged']);
  assert.equal(strict.status, 1);
  assert.match(strict.stdout, /^! +c2c_mono_lang queries +- +24 +- +added$/m);
  assert.doesNotMatch(strict.stdout, /c2c_cross_lang queries/);
  const usage = runCli(['drift', mini]);
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /two release directories/);
});

test('a solver renamed between releases is one flagged row, its languages compared across the pair (not five removed and five added)', () => {
  const renamed = join(tempDir('coreb-e2e-drift-rename-'), 'release');
  cpSync(mini, renamed, { recursive: true });
  for (const f of readdirSync(renamed)) {
    const path = join(renamed, f);
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll('"author-a"', '"author-z"'));
  }
  const r = runCli(['drift', mini, renamed, '--format', 'json', '--no-bm25']);
  assert.equal(r.status, 0, r.stderr);
  const d = JSON.parse(r.stdout) as DriftReport;
  assert.equal(d.flagged, 1, JSON.stringify(d.rows.filter((x) => x.flag !== null)));
  assert.equal(d.rows.find((x) => x.flag !== null)?.figure, 'model author-a → author-z');
  const go = d.rows.find((x) => x.figure === 'author-a → author-z go verified share');
  assert.ok(go !== undefined && go.delta === 0 && go.flag === null, JSON.stringify(go));
  assert.ok(!d.rows.some((x) => x.flag === 'added' || x.flag === 'removed'));
});
