/**
 * `coreb serve` on the bundled coreb-mini release: the HTTP endpoint answers a query with the ranking
 * `coreb eval` scores for the same spec, refuses bad requests with 400, and stops on SIGINT; the MCP
 * server speaks JSON-RPC on stdio (initialize, tools/list, tools/call search_code).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadRelease, releaseTasks } from '../../src/dataset/index.js';
import { cliPath, runCli } from '../support/cli.js';
import { projectRoot } from '../support/shared.js';

const MINI = join(projectRoot, 'data', 'coreb-mini', 'release');
const tmp = mkdtempSync(join(tmpdir(), 'coreb-serve-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('HTTP: the served ranking is the one coreb eval scores; bad requests are 400; SIGINT stops it', async () => {
  const out = join(tmp, 'eval');
  const e = runCli(['eval', '--tasks', 't2c', '--runs', 'plain', '--quiet', '--out', out]);
  assert.equal(e.status, 0, e.stderr);
  const query = releaseTasks((await loadRelease(MINI)).release).text2code.queries[0];
  const expected = readFileSync(join(out, 'runs', 'bm25.text2code.trec'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(`${query.id} `))
    .slice(0, 5)
    .map((l) => l.split(' ')[2]);
  const child = spawn(process.execPath, [cliPath, 'serve', '--data', MINI, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise<string>((ok, fail) => {
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
        if (m !== null) ok(m[1]);
      });
      child.on('exit', (code) => fail(new Error(`serve exited ${code}: ${err}`)));
    });
    const r = await fetch(`${url}/search`, { method: 'POST', body: JSON.stringify({ query: query.text, k: 5 }) });
    assert.equal(r.status, 200);
    const { hits } = (await r.json()) as { hits: Array<{ rank: number; id: string; language?: string; text: string }> };
    assert.deepEqual(
      hits.map((h) => h.id),
      expected,
    );
    assert.deepEqual(
      hits.map((h) => h.rank),
      [1, 2, 3, 4, 5],
    );
    assert.ok(hits.every((h) => h.text.length > 0 && typeof h.language === 'string'));
    const get = (await (await fetch(`${url}/search?q=${encodeURIComponent(query.text)}&k=2`)).json()) as { hits: Array<{ id: string }> };
    assert.deepEqual(
      get.hits.map((h) => h.id),
      expected.slice(0, 2),
    );
    const bad = await fetch(`${url}/search`, { method: 'POST', body: JSON.stringify({ query: '', k: 5 }) });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /non-empty string/);
    assert.equal((await fetch(`${url}/nope`)).status, 404);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((ok) => child.on('exit', ok));
    assert.ok(code === 0 || code === 130, `exit ${code}`);
  } finally {
    child.kill('SIGKILL');
  }
});

test('MCP on stdio: initialize, tools/list, tools/call search_code, unknown methods refused', async () => {
  const child = spawn(process.execPath, [cliPath, 'serve', '--data', MINI, '--mcp'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  send({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'search_code', arguments: { query: 'sum of two numbers read from input', k: 3 } },
  });
  send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'search_code', arguments: { query: '' } } });
  send({ jsonrpc: '2.0', id: 5, method: 'resources/list' });
  child.stdin.end();
  const code = await new Promise<number | null>((ok) => child.on('exit', ok));
  assert.equal(code, 0);
  const msgs = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: number; result?: Record<string, unknown>; error?: { code: number } });
  assert.deepEqual(
    msgs.map((m) => m.id),
    [1, 2, 3, 4, 5],
  );
  assert.equal(msgs[0].result?.protocolVersion, '2025-06-18');
  assert.deepEqual((msgs[0].result as { serverInfo: { name: string } }).serverInfo.name, 'coreb');
  assert.equal((msgs[1].result as { tools: Array<{ name: string }> }).tools[0].name, 'search_code');
  const call = msgs[2].result as { content: Array<{ type: string; text: string }>; structuredContent: { hits: unknown[] }; isError: boolean };
  assert.equal(call.isError, false);
  assert.equal(call.structuredContent.hits.length, 3);
  assert.match(call.content[0].text, /^1\. /);
  assert.equal((msgs[3].result as { isError: boolean }).isError, true);
  assert.equal(msgs[4].error?.code, -32601);
});
