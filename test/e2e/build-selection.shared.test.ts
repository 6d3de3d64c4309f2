/**
 * Building the next release leaves out what the last one published: LiveCodeBench v5 (the problems
 * of CoREB v202602) against v202602 itself leaves nothing to build, and says so; the near-duplicate
 * rule for statements, measured on the real originals and rewrites, pairs most problems with their
 * own rewrite and no problem with another's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadExcludedProblems, sameStatement, statementFingerprint } from '../../src/construct/index.js';
import { runCliAsync } from '../support/cli.js';
import { sharedPath } from '../support/shared.js';

const release = sharedPath('data', 'coreb', 'release_v2602');
const problems = sharedPath('data', 'lcb_v5_problems.jsonl');
/** A dry run of a build over the v5 problems (models on a port nothing listens on: nothing is sent). */
const dryRun = (...extra: string[]) =>
  runCliAsync([
    'build',
    '--problems',
    problems,
    '--out',
    '/nonexistent/never-written',
    '--rewriter',
    'openai:never-called?baseUrl=http%3A%2F%2F127.0.0.1%3A9',
    '--solver',
    'openai:never-called?baseUrl=http%3A%2F%2F127.0.0.1%3A9',
    ...extra,
    '--dry-run',
  ]);

test('--exclude-release with the release a problem file built leaves nothing to build, and says so (exit 2, no request)', async () => {
  const r = await dryRun('--exclude-release', release);
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    /nothing to build: all 167 problem\(s\) of .*lcb_v5_problems\.jsonl were left out by the selection \(167 already in .*release_v2602\)/,
  );
  // A date window that v5 does not reach keeps nothing either; one that it does keeps its problems.
  const window = await dryRun('--from', '2024-12-01');
  assert.equal(window.status, 0, window.stderr);
  const kept = /^selection: (\d+) of 167 problem\(s\) kept, (\d+) left out$/m.exec(window.stdout);
  assert.ok(kept !== null, window.stdout);
  const dates = readFileSync(problems, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { contest_date: string }).contest_date.slice(0, 10));
  assert.equal(Number(kept[1]), dates.filter((d) => d >= '2024-12-01').length);
  assert.match(window.stdout, /contest 2024-\d\d-\d\d before --from 2024-12-01/);
});

test('the near-duplicate statement rule on v202602: originals found in their rewrites, no false pair (docs/build.md figures)', async () => {
  const ex = await loadExcludedProblems([release]);
  const rewrites = new Map(ex.statements.map((s) => [s.id, s.fingerprint]));
  const originals = readFileSync(problems, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { question_id: string; question_content: string })
    .map((p) => ({ id: `lcb_${p.question_id}`, fp: statementFingerprint(p.question_content) }))
    .filter((p) => rewrites.has(p.id));
  assert.equal(originals.length, 167);
  let own = 0;
  let falsePairs = 0;
  for (const o of originals) {
    for (const [id, fp] of rewrites) {
      const same = sameStatement(o.fp, fp);
      if (id === o.id && same) own++;
      else if (id !== o.id && same) falsePairs++;
    }
  }
  assert.equal(falsePairs, 0);
  assert.ok(own >= 130, `${own} of 167 originals matched their rewrite`);
});
