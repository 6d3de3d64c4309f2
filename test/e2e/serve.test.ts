/**
 * `coreb serve` on the bundled coreb-mini release: the HTTP endpoint answers a query with the ranking
 * `coreb eval` scores for the same spec, refuses bad requests with 400, and stops on SIGINT; the MCP
 * server speaks JSON-RPC on stdio (initialize, tools/list, tools/call search_code).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadRelease, releaseTasks } from '../../src/dataset/index.js';
import { cliPath, runCli } from '../support/cli.js';
import { startServe as startServeWith } from '../support/serve.js';
import { projectRoot } from '../support/shared.js';

const MINI = join(projectRoot, 'data', 'coreb-mini', 'release');

/** Ends the MCP server's stdin, waits for it to exit 0 and parses each line it wrote. */
async function closeAndRead(child: ReturnType<typeof spawn>, out: () => string): Promise<unknown[]> {
  child.stdin?.end();
  const code = await new Promise<number | null>((ok) => child.on('exit', ok));
  assert.equal(code, 0);
  return out()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
}
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
  const msgs = (await closeAndRead(child, () => out)) as Array<{ id: number; result?: Record<string, unknown>; error?: { code: number } }>;
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
  // wrong arguments are invalid params (JSON-RPC -32602), as the MCP specification has them
  assert.equal(msgs[3].error?.code, -32602);
  assert.equal(msgs[4].error?.code, -32601);
});

test('MCP: every JSON-RPC error case gets its error object and the server keeps serving', async () => {
  const child = spawn(process.execPath, [cliPath, 'serve', '--data', MINI, '--mcp'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const line = (s: string) => child.stdin.write(`${s}\n`);
  line(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  );
  line('null');
  line('42');
  line('"a string"');
  line('{"jsonrpc": "2.0", "id": 2, "method": ');
  line('[]');
  line(JSON.stringify([{ jsonrpc: '2.0', id: 3, method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/initialized' }, 7]));
  line(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'no/such/method' }));
  line(JSON.stringify({ jsonrpc: '1.0', id: 5, method: 'ping' }));
  line(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'sum', k: 1000 } } }));
  line(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'sum', k: [5] } } }));
  line(`{"jsonrpc": "2.0", "id": 8, "method": "ping", "params": {"pad": "${'x'.repeat(5 << 20)}"}}`);
  line(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'search_code', arguments: { query: 'sum of two numbers', k: 2 } },
    }),
  );
  const msgs = await closeAndRead(child, () => out);
  type Reply = { id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
  const r = msgs as Reply[];
  // an unknown protocol version is answered with coreb's newest, not echoed
  assert.equal(r[0].result?.protocolVersion, '2025-06-18');
  assert.deepEqual(
    r.slice(1, 6).map((m) => [m.id, m.error?.code]),
    [
      [null, -32600],
      [null, -32600],
      [null, -32600],
      [null, -32700],
      [null, -32600],
    ],
  );
  // a batch is answered as an array: the ping, the invalid member; the notification gets nothing
  const batch = msgs[6] as Reply[];
  assert.ok(Array.isArray(batch));
  assert.deepEqual(
    batch.map((m) => [m.id, m.error?.code ?? 'ok']),
    [
      [3, 'ok'],
      [null, -32600],
    ],
  );
  assert.deepEqual(
    r.slice(7, 11).map((m) => [m.id, m.error?.code]),
    [
      [4, -32601],
      [5, -32600],
      [6, -32602],
      [7, -32602],
    ],
  );
  assert.match(r[9].error?.message ?? '', /k must be a whole number from 1 to 100, got 1000/);
  // the huge line is refused once, unread
  assert.deepEqual([r[11].id, r[11].error?.code], [null, -32600]);
  assert.match(r[11].error?.message ?? '', /over \d+ bytes/);
  // and the next request is answered
  assert.equal(r[12].id, 9);
  assert.equal((r[12].result as { structuredContent: { hits: unknown[] } }).structuredContent.hits.length, 2);
  assert.equal(r.length, 13);
});

test('MCP: the official SDK client lists and calls search_code, structured content matching the output schema', async () => {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const client = new Client({ name: 'coreb-test', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, 'serve', '--data', MINI, '--mcp'], stderr: 'ignore' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['search_code'],
    );
    assert.ok(tools[0].outputSchema !== undefined, 'the tool declares its structured output');
    const res = (await client.callTool({ name: 'search_code', arguments: { query: 'sum of two numbers read from input', k: 3 } })) as {
      isError?: boolean;
      structuredContent?: { hits: Array<{ rank: number; id: string }> };
      content: Array<{ type: string; text: string }>;
    };
    assert.equal(res.isError, false);
    assert.deepEqual(
      res.structuredContent?.hits.map((h) => h.rank),
      [1, 2, 3],
    );
    assert.match(res.content[0].text, /^1\. /);
    await assert.rejects(client.callTool({ name: 'search_code', arguments: { query: 'x', k: 500 } }), /k must be a whole number/);
  } finally {
    await client.close();
  }
});

/** `coreb serve` over the sample release with `args`. */
function startServe(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return startServeWith(['--data', MINI, ...args], env);
}

/** One raw HTTP/1.1 exchange on 127.0.0.1:`port` (Host and Origin as given); the status and body. */
function raw(port: number, request: string): Promise<{ status: number; body: string }> {
  return new Promise((ok, fail) => {
    const s = connect(port, '127.0.0.1', () => s.end(request));
    let data = '';
    s.on('data', (d: Buffer) => (data += d.toString()));
    s.on('error', fail);
    s.on('close', () => ok({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1] ?? 0), body: data.slice(data.indexOf('\r\n\r\n') + 4) }));
  });
}

test('HTTP: a foreign Host (DNS rebinding) and a cross-origin POST are refused; bad k and bodies are 400 with a message', async () => {
  const { url, port, child } = await startServe([]);
  try {
    const body = JSON.stringify({ query: 'sum of a list', k: 3 });
    const post = (headers: string, b = body) =>
      raw(
        port,
        `POST /search HTTP/1.1\r\n${headers}Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(b)}\r\nConnection: close\r\n\r\n${b}`,
      );
    assert.equal((await post(`Host: 127.0.0.1:${port}\r\n`)).status, 200);
    const rebound = await post(`Host: evil.example:${port}\r\n`);
    assert.equal(rebound.status, 400);
    assert.match(rebound.body, /unexpected Host header/);
    const cross = await post(`Host: 127.0.0.1:${port}\r\nOrigin: https://evil.example\r\n`);
    assert.equal(cross.status, 403);
    assert.match(cross.body, /cross-origin request from https:\/\/evil\.example refused/);
    for (const [b, why] of [
      [JSON.stringify({ query: 'x', k: [5] }), /k must be a whole number from 1 to 100, got \[5\]/],
      [JSON.stringify({ query: 'x', k: true }), /got true/],
      [JSON.stringify({ query: 'x', k: 1000 }), /got 1000/],
      [JSON.stringify({ query: 'x', k: 0 }), /got 0/],
      ['null', /must be a JSON object/],
      ['[1]', /must be a JSON object/],
      ['{"query": 5}', /query must be a non-empty string, got 5/],
    ] as const) {
      const r = await fetch(`${url}/search`, { method: 'POST', body: b });
      assert.equal(r.status, 400, b);
      assert.match(((await r.json()) as { error: string }).error, why);
    }
    assert.equal((await fetch(`${url}/search?q=x&k=abc`)).status, 400);
  } finally {
    child.kill('SIGKILL');
  }
});

test('HTTP beyond loopback needs a bearer token; with one, requests without it are 401', async () => {
  const refused = runCli(['serve', '--data', MINI, '--host', '0.0.0.0', '--port', '0'], { env: { ...process.env, COREB_SERVE_TOKEN: '' } });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /--host 0\.0\.0\.0 serves beyond this machine: set a bearer token in COREB_SERVE_TOKEN/);
  assert.doesNotMatch(refused.stderr, /\n\s+at /, 'no stack trace');
  const { port, child } = await startServe(['--host', '0.0.0.0', '--token-env', 'MY_TOKEN'], { ...process.env, MY_TOKEN: 'tok-123' });
  try {
    const get = (auth: string) => raw(port, `GET /search?q=sum&k=2 HTTP/1.1\r\nHost: search.lan:${port}\r\n${auth}Connection: close\r\n\r\n`);
    assert.equal((await get('')).status, 401);
    assert.equal((await get('Authorization: Bearer nope\r\n')).status, 401);
    assert.equal((await get('Authorization: Bearer tok-123\r\n')).status, 200);
  } finally {
    child.kill('SIGKILL');
  }
});

test('SIGTERM stops serve within seconds while a client holds a half-sent request; --port 99999 is a usage error', { timeout: 30_000 }, async () => {
  const { port, child } = await startServe([]);
  const held = connect(port, '127.0.0.1');
  await new Promise<void>((ok) => held.on('connect', () => ok()));
  held.write(`POST /search HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 1000\r\n\r\n{"query": "half`);
  held.on('error', () => {});
  await new Promise((r) => setTimeout(r, 200));
  const t0 = performance.now();
  child.kill('SIGTERM');
  const code = await new Promise<number | null>((ok) => child.on('exit', ok));
  const ms = performance.now() - t0;
  held.destroy();
  assert.ok(ms < 5000, `stopped after ${Math.round(ms)} ms`);
  assert.ok(code === 0 || code === 143, `exit ${code}`);
  const bad = runCli(['serve', '--data', MINI, '--port', '99999']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--port must be from 0 to 65535, got 99999/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /);
});
