import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedPath } from '../support/shared.js';
import { runCli } from '../support/cli.js';

const DIR = sharedPath('data', 'coreb', 'release_v2602');

test('coreb validate on release_v2602 reports the real counts and no dangling ids', () => {
  const r = runCli(['validate', DIR]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /code_corpus\s+1,670\n/);
  assert.match(r.stdout, /text_corpus\s+835\n/);
  assert.match(r.stdout, /code corpus: 1,670 docs/);
  assert.match(r.stdout, /text corpus: 835 texts/);
  assert.match(r.stdout, /text2code: 1,165 queries/);
  assert.match(r.stdout, /code2code: 169 queries/);
  assert.match(r.stdout, /code2text: 1,270 queries/);
  assert.equal(r.stdout.match(/dangling ids: 0 /g)?.length, 3);
  // The only warnings are label proxies of the text corpus: fields on originals only
  // (abbreviated_text) or on near-miss texts only (is_noise_sample, noise_type, ...).
  assert.match(r.stdout, /0 error\(s\), 8 warning\(s\): valid/);
  assert.match(r.stdout, /by kind: warning label-proxy 8\n/);
  assert.match(
    r.stdout,
    /warning text_corpus: field `meta\.abbreviatedText`: code2text: `meta\.abbreviatedText` is present on 100% of the positive documents \(label 2\) and 0% of the hard negatives/,
  );
});

test('coreb validate --format json on release_v2602', () => {
  const r = runCli(['validate', DIR, '--format', 'json']);
  assert.equal(r.status, 0);
  const out = JSON.parse(r.stdout) as {
    ok: boolean;
    issues: Array<{ severity: string; kind: string; field: string }>;
    stats: { queries: number; tables: Record<string, number> };
  };
  assert.equal(out.ok, true);
  assert.deepEqual(
    out.issues.map((i) => `${i.severity} ${i.kind} ${i.field}`),
    [
      'abbreviatedText',
      'abbreviatedTextLength',
      'isNoiseSample',
      'noiseType',
      'noiseVariation',
      'originalProblemId',
      'originalTextId',
      'textStyle',
    ].map((f) => `warning label-proxy meta.${f}`),
  );
  assert.equal(out.stats.queries, 1165 + 169 + 1270);
  assert.equal(out.stats.tables.code_corpus, 1670);
});

test('coreb validate A B: each release checked, then pooled statistics checked against the two files and the per-release figures', () => {
  const mini = join(process.cwd(), 'data', 'coreb-mini', 'release');
  const r = runCli(['validate', DIR, mini, '--format', 'json']);
  assert.equal(r.status, 0, r.stderr);
  type Stats = {
    queries: number;
    code: { total: number; problems: number };
    tokens: { queryVariants: Record<string, { items: number; meanTokens: number }> };
    tasks: Record<string, { positivesPerQuery: { n: number; mean: number } }>;
  };
  const out = JSON.parse(r.stdout) as { releases: Array<{ split: string; stats: Stats }>; pooled: { splits: string[]; stats: Stats } };
  assert.deepEqual(out.pooled.splits, ['release_v2602', out.releases[1].split]);
  const [a, b] = out.releases.map((x) => x.stats);
  const p = out.pooled.stats;
  assert.equal(p.queries, a.queries + b.queries);
  assert.equal(p.code.total, a.code.total + b.code.total);
  // Seed problems counted from the files: distinct over both.
  const problems = new Set(
    [DIR, mini].flatMap((d) =>
      readFileSync(join(d, 'code_corpus.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => {
          const row = JSON.parse(l) as { meta_source_problem_id?: string; meta?: { source_problem_id?: string } };
          return row.meta_source_problem_id ?? row.meta?.source_problem_id;
        }),
    ),
  );
  assert.equal(p.code.problems, problems.size);
  // Means over every item of both: the per-release means weighted by their items.
  for (const family of ['t2c_search', 't2c_full_retro', 'c2c_cross_lang']) {
    const [x, y] = [a, b].map((s) => s.tokens.queryVariants[family]);
    const pooled = p.tokens.queryVariants[family];
    assert.equal(pooled.items, x.items + y.items, family);
    assert.ok(Math.abs(pooled.meanTokens - (x.items * x.meanTokens + y.items * y.meanTokens) / (x.items + y.items)) < 1e-9, family);
  }
  const t2c = (s: Stats) => s.tasks.text2code.positivesPerQuery;
  assert.ok(Math.abs(t2c(p).mean - (t2c(a).n * t2c(a).mean + t2c(b).n * t2c(b).mean) / (t2c(a).n + t2c(b).n)) < 1e-12);
  const text = runCli(['validate', DIR, mini, '--no-tokens']).stdout;
  assert.match(text, /Pooled over 2 releases \(release_v2602, coreb_mini_v1\)/);
});
