import { test } from 'node:test';
import assert from 'node:assert/strict';
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
