/**
 * One embedding-instruction rule for `dense:` and `coreb providers embed`: `embed --data RELEASE`
 * sends the loopback server exactly the texts `eval --retriever dense:` sends (task instructions
 * included) and its embeddings file scores the same; `embed --input` without `--task` is refused
 * for a model whose instructions depend on the task, and with `--task` sends dense:'s text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync } from '../support/cli.js';
import { tempDir } from '../support/judge.js';
import { startLoopbackServer } from '../support/loopback-server.js';
import { writeTinyRelease } from './eval-fixture.js';

interface Results {
  retrievers: Array<{ name: string; tasks: Record<string, { metrics: Record<string, number> }> }>;
}

test('providers embed --data sends the texts dense: sends, and embeddings:FILE scores as dense: does', async (t) => {
  const dir = tempDir('coreb-e2e-embed-data-');
  const release = join(dir, 'release');
  writeTinyRelease(release);
  const server = await startLoopbackServer({ format: 'openai', dim: 16 });
  t.after(() => server.close());
  // A model with per-task query instructions (the Qwen3-Embedding preset).
  const spec = `dense:openai:qwen3-embedding-0.6b?baseUrl=${server.baseUrl}`;
  const env = { ...process.env, COREB_CACHE_DIR: join(dir, 'cache-eval') };
  const sent = (from: number) => [...new Set(server.calls.slice(from).flatMap((c) => c.texts))].sort();

  const dense = await runCliAsync(['eval', '--data', release, '--retriever', `${spec}&name=dense`, '--format', 'json', '--quiet'], { env });
  assert.equal(dense.status, 0, dense.stderr);
  const viaDense = sent(0);
  assert.ok(
    viaDense.some((x) => x.startsWith('Instruct: Given a programming problem description, retrieve code that solves the problem\nQuery:')),
    'dense: applies the t2c query instruction',
  );
  assert.ok(viaDense.some((x) => x.startsWith('Instruct: Given a code solution, retrieve solutions to the same problem')));

  const mark = server.calls.length;
  const vectors = join(dir, 'vectors.jsonl.gz');
  const embed = await runCliAsync(['providers', 'embed', '--spec', spec, '--data', release, '--out', vectors, '--no-cache', '--json']);
  assert.equal(embed.status, 0, embed.stderr);
  assert.deepEqual(sent(mark), viaDense, 'identical request texts');
  const summary = JSON.parse(embed.stdout) as { queries: number; docs: number; corpora: Record<string, { task: string }> };
  assert.deepEqual(summary.corpora.code.task, 'text2code');
  assert.deepEqual(summary.corpora.text.task, 'code2text');

  const file = await runCliAsync(['eval', '--data', release, '--retriever', `embeddings:${vectors}?name=file`, '--format', 'json', '--quiet']);
  assert.equal(file.status, 0, file.stderr);
  const a = (JSON.parse(dense.stdout) as Results).retrievers[0].tasks;
  const b = (JSON.parse(file.stdout) as Results).retrievers[0].tasks;
  for (const task of ['text2code', 'code2text', 'code2code']) assert.deepEqual(b[task].metrics, a[task].metrics, task);
});

test('providers embed --input without --task is refused for task-dependent instructions; with --task it sends what dense: sends', async (t) => {
  const dir = tempDir('coreb-e2e-embed-task-');
  const server = await startLoopbackServer({ format: 'openai', dim: 8 });
  t.after(() => server.close());
  const input = join(dir, 'q.jsonl');
  writeFileSync(input, JSON.stringify({ id: 'q1', text: 'sum of pairs' }) + '\n');
  const spec = `dense:openai:qwen3-embedding-0.6b?baseUrl=${server.baseUrl}`;
  const args = ['providers', 'embed', '--spec', spec, '--input', input, '--out', join(dir, 'v.jsonl'), '--role', 'query', '--no-cache'];
  const refused = await runCliAsync(args);
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(
    refused.stderr,
    /query instructions depend on the task \(t2c, c2t, c2c differ from the generic one\).*--task t2c\|c2t\|c2c, or .*--data DIR/,
  );
  assert.equal(server.calls.length, 0, 'nothing sent');
  const ok = await runCliAsync([...args, '--task', 't2c']);
  assert.equal(ok.status, 0, ok.stderr);
  assert.deepEqual(server.calls[0].texts, [
    'Instruct: Given a programming problem description, retrieve code that solves the problem\nQuery:sum of pairs',
  ]);
  // A model without task instructions needs no --task.
  const plain = await runCliAsync([...args.slice(0, 3), `dense:openai:m?baseUrl=${server.baseUrl}`, ...args.slice(4)]);
  assert.equal(plain.status, 0, plain.stderr);
  assert.deepEqual(server.calls.at(-1)!.texts, ['sum of pairs']);
});
