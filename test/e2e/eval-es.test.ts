/**
 * `coreb eval --retriever es:...` on the bundled sample against a loopback Elasticsearch that
 * answers `_msearch` with coreb's own BM25: every number and every run line must equal `bm25`'s, the
 * API key must reach the server and appear in no output file, and a missing index fails clearly.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadRelease, releaseTasks } from '../../src/dataset/index.js';
import { runCliAsync } from '../support/cli.js';
import { startEsServer } from '../support/es-server.js';
import { projectRoot } from '../support/shared.js';

const MINI = join(projectRoot, 'data', 'coreb-mini', 'release');
const KEY = 'VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==';
const tmp = mkdtempSync(join(tmpdir(), 'coreb-eval-es-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

interface Row {
  name: string;
  description: Record<string, unknown>;
  overall: unknown;
  taskMean: unknown;
  tasks: Record<string, { metrics: unknown; runFile?: string; emptyQueries?: unknown }>;
  subtasks: unknown;
  perQuery: unknown;
}

test('es: over a loopback ES ranking with coreb BM25 gives exactly the bm25 numbers and runs', async () => {
  const { release } = await loadRelease(MINI);
  const tasks = releaseTasks(release);
  const server = await startEsServer({
    indices: { 'coreb-code': { docs: tasks.text2code.corpus }, 'coreb-text': { docs: tasks.code2text.corpus } },
    auth: { apiKey: KEY },
  });
  try {
    const out = join(tmp, 'out');
    const spec = `es:coreb-{corpus}?url=${server.url}&fields=text&apiKeyEnv=ES_API_KEY&batch=50&name=es-bm25`;
    const r = await runCliAsync(['eval', '--runs', 'plain', '--retriever', 'bm25', '--retriever', spec, '--out', out, '--quiet'], {
      env: { ...process.env, ES_API_KEY: KEY },
    });
    assert.equal(r.status, 0, r.stderr);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { retrievers: Row[] };
    const [bm25, es] = results.retrievers;
    assert.equal(es.name, 'es-bm25');
    assert.equal(es.description.kind, 'es');
    for (const k of ['overall', 'taskMean', 'subtasks', 'perQuery'] as const) assert.deepEqual(es[k], bm25[k], k);
    for (const t of ['text2code', 'code2text', 'code2code']) {
      assert.deepEqual(es.tasks[t].metrics, bm25.tasks[t].metrics, t);
      const lines = (f: string) =>
        readFileSync(join(out, f), 'utf8')
          .split('\n')
          .map((l) => l.split(' ').slice(0, 5).join(' '));
      const esRun = lines(es.tasks[t].runFile!);
      assert.ok(esRun.length > 1000, `${t}: a full run`);
      assert.deepEqual(esRun, lines(bm25.tasks[t].runFile!), `${t}: the same run, line for line`);
    }
    // Both leaderboard rows print the same figures (all but rank, name and time).
    const board = r.stdout.split('\n').filter((l) => /^\d+\s+(bm25|es-bm25)\s/.test(l));
    assert.equal(board.length, 2, r.stdout);
    const figures = (l: string) => l.trim().split(/\s+/).slice(2, -1);
    assert.ok(figures(board[0]).length >= 8, board[0]);
    assert.deepEqual(figures(board[1]), figures(board[0]));
    const searches = server.calls.filter((c) => c.path.endsWith('/_msearch'));
    assert.ok(searches.length >= 18, `batched: ${searches.length} _msearch calls for 840 queries`);
    assert.ok(server.calls.every((c) => c.headers.authorization === `ApiKey ${KEY}`));
    for (const f of ['results.json', 'leaderboard.md', ...readdirSync(join(out, 'runs')).map((x) => join('runs', x))]) {
      assert.doesNotMatch(readFileSync(join(out, f), 'utf8'), new RegExp(KEY.slice(0, 20)), `${f} holds no key`);
    }
    assert.doesNotMatch(r.stdout + r.stderr, new RegExp(KEY.slice(0, 20)));

    const missing = await runCliAsync(['eval', '--retriever', `es:nope?url=${server.url}&apiKeyEnv=ES_API_KEY`, '--quiet'], {
      env: { ...process.env, ES_API_KEY: KEY },
    });
    assert.equal(missing.status, 3, missing.stderr);
    assert.match(missing.stderr, /index `nope`: index_not_found_exception: no such index \[nope\]/);
    assert.doesNotMatch(missing.stderr, new RegExp(KEY.slice(0, 20)));
  } finally {
    await server.close();
  }
});
