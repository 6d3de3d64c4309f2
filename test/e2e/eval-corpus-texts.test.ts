/**
 * `coreb eval --corpus-texts file` on a BEIR directory: the texts stay in corpus.jsonl and are read
 * again when a retriever needs them; the runs and metrics are the ones of the in-memory corpus.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { projectRoot } from '../support/shared.js';

const mini = join(projectRoot, 'data', 'coreb-mini', 'release');
const lines = (f: string): Array<Record<string, unknown>> =>
  readFileSync(join(mini, f), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** coreb-mini's text-to-code task as a BEIR directory (code documents with a title, a CRLF line). */
function beirFromMini(): string {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-corpus-texts-'));
  mkdirSync(join(dir, 'qrels'));
  const corpus = lines('code_corpus.jsonl').map((r, i) =>
    JSON.stringify({ _id: r.code_id, title: i % 3 === 0 ? `solution ${i}` : '', text: r.code, language: r.language }),
  );
  writeFileSync(join(dir, 'corpus.jsonl'), `${corpus.slice(0, 10).join('\n')}\r\n${corpus.slice(10).join('\n')}\n`);
  writeFileSync(
    join(dir, 'queries.jsonl'),
    lines('text2code_queries.jsonl')
      .map((r) => `${JSON.stringify({ _id: r.query_id, text: r.query })}\n`)
      .join(''),
  );
  const qrels = lines('text2code_qrels.jsonl').map((r) => `${String(r.query_id)}\t${String(r.doc_id)}\t${String(r.relevance)}\n`);
  writeFileSync(join(dir, 'qrels', 'test.tsv'), `query-id\tcorpus-id\tscore\n${qrels.join('')}`);
  return dir;
}

test('coreb eval --corpus-texts file: the same runs and metrics as memory, byte for byte', () => {
  const dir = beirFromMini();
  const work = mkdtempSync(join(tmpdir(), 'coreb-corpus-texts-out-'));
  try {
    const retrievers = ['--retriever', 'bm25', '--retriever', 'bm25?fields=title,text', '--retriever', 'rrf:bm25,bm25?k1=0.9&b=0.4'];
    const outs: Record<string, string> = {};
    for (const where of ['memory', 'file']) {
      const out = join(work, where);
      const r = runCli(['eval', '--data', dir, ...retrievers, '--corpus-texts', where, '--out', out, '--runs', 'plain', '--quiet']);
      assert.equal(r.status, 0, r.stderr);
      outs[where] = out;
    }
    // Every run file the same, byte for byte.
    const runs = readdirSync(join(outs.memory, 'runs')).sort();
    assert.equal(runs.length, 3);
    assert.deepEqual(readdirSync(join(outs.file, 'runs')).sort(), runs);
    for (const f of runs) assert.equal(readFileSync(join(outs.file, 'runs', f), 'utf8'), readFileSync(join(outs.memory, 'runs', f), 'utf8'), f);
    // The metrics the same (the timings aside).
    const metrics = (w: string): string =>
      JSON.stringify(JSON.parse(readFileSync(join(outs[w], 'results.json'), 'utf8')), (k, v: unknown) =>
        k === 'timings' || k === 'createdAt' || k === 'startedAt' ? undefined : v,
      );
    assert.equal(metrics('file'), metrics('memory'));
    // An unknown value is a usage error naming the choices.
    const bad = runCli(['eval', '--data', dir, '--corpus-texts', 'disk']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--corpus-texts.*(auto|memory|file)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});
