/**
 * No label proxies in the defaults: BM25 indexes only what every retriever sees, so stripping
 * `abbreviated_text` (present on original problem texts only) from every row of the bundled
 * coreb-mini changes no line of the default runs; `coreb validate` reports the field as a
 * label-proxy warning, and `coreb eval` warns when a spec indexes it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { projectRoot } from '../support/shared.js';

const sample = join(projectRoot, 'data', 'coreb-mini', 'release');
const root = mkdtempSync(join(tmpdir(), 'coreb-label-proxy-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

/** A copy of coreb-mini with `abbreviated_text` (and its length) set to null on every row of every table. */
function strippedCopy(): string {
  const dir = join(root, 'stripped');
  cpSync(sample, dir, { recursive: true });
  let stripped = 0;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
    const rows = readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const r of rows) {
      if (r.abbreviated_text != null) stripped++;
      if ('abbreviated_text' in r) r.abbreviated_text = null;
      if ('abbreviated_text_length' in r) r.abbreviated_text_length = null;
    }
    writeFileSync(join(dir, f), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }
  assert.ok(stripped > 0, 'coreb-mini has abbreviated texts to strip');
  return dir;
}

test('stripping abbreviated_text from every row changes no line of the default runs', () => {
  const stripped = strippedCopy();
  const outA = join(root, 'out-original');
  const outB = join(root, 'out-stripped');
  for (const [data, out] of [
    [sample, outA],
    [stripped, outB],
  ]) {
    const r = runCli(['eval', '--runs', 'plain', '--data', data, '--out', out, '--quiet']);
    assert.equal(r.status, 0, r.stderr);
  }
  const runs = readdirSync(join(outA, 'runs')).sort();
  assert.deepEqual(runs, ['bm25.code2code.trec', 'bm25.code2text.trec', 'bm25.text2code.trec']);
  for (const f of runs) {
    const a = readFileSync(join(outA, 'runs', f), 'utf8');
    assert.ok(a.length > 0);
    assert.ok(a === readFileSync(join(outB, 'runs', f), 'utf8'), `${f} differs once abbreviated_text is gone`);
  }
});

test('coreb validate reports abbreviated_text as a label-proxy warning; eval warns when a spec indexes it', () => {
  const v = runCli(['validate', sample, '--format', 'json']);
  assert.equal(v.status, 0, v.stderr);
  const issues = (JSON.parse(v.stdout) as { issues: Array<{ severity: string; kind: string; file: string; field: string; message: string }> }).issues;
  const proxies = issues.filter((i) => i.kind === 'label-proxy');
  const abbreviated = proxies.find((i) => i.field === 'meta.abbreviatedText');
  assert.ok(abbreviated !== undefined, JSON.stringify(proxies));
  assert.equal(abbreviated.severity, 'warning');
  assert.equal(abbreviated.file, 'text_corpus');
  assert.match(
    abbreviated.message,
    /^code2text: `meta\.abbreviatedText` is present on 100% of the positive documents \(label 2\) and 0% of the hard negatives/,
  );
  const e = runCli(['eval', '--tasks', 'c2t', '--retriever', 'bm25?fields=title,text,meta.abbreviatedText', '--format', 'json', '--quiet']);
  assert.equal(e.status, 0, e.stderr);
  assert.match(e.stderr, /indexes a label proxy: code2text: `meta\.abbreviatedText` is present on 100%/);
  const warnings = (JSON.parse(e.stdout) as { retrievers: Array<{ warnings?: string[] }> }).retrievers[0].warnings ?? [];
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  const plain = runCli(['eval', '--tasks', 'c2t', '--format', 'json', '--quiet']);
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(
    (JSON.parse(plain.stdout) as { retrievers: Array<{ warnings?: string[] }> }).retrievers[0].warnings,
    undefined,
    'the default spec reads no proxy',
  );
});
