/**
 * `coreb serve --repo PATH`: a working tree served while it changes. Edits, new files, deletions,
 * renames and a new folder are seen by the next queries; a restart loads the saved index and
 * re-reads only what changed meanwhile; MCP `initialize` is answered before the first build ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { cliPath } from '../support/cli.js';
import { projectRoot } from '../support/shared.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-serve-live-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const env = { ...process.env, COREB_CACHE_DIR: join(tmp, 'cache') };

interface Hit {
  path: string;
  symbol?: string;
  text: string;
}

/** Starts `coreb serve --repo` and resolves with its port once it listens. */
function startServer(tree: string, state: string): Promise<{ child: ChildProcess; port: number; stderr: () => string }> {
  const child = spawn(process.execPath, [cliPath, 'serve', '--repo', tree, '--state-dir', state, '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  return new Promise((ok, fail) => {
    child.stderr?.on('data', (b: Buffer) => {
      err += b.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m !== null) ok({ child, port: Number(m[1]), stderr: () => err });
    });
    child.on('exit', (code) => fail(new Error(`serve exited ${code}: ${err}`)));
  });
}

async function get(port: number, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

async function search(port: number, q: string): Promise<Hit[]> {
  const r = await get(port, `/search?q=${encodeURIComponent(q)}&k=5`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.hits as Hit[];
}

/** Polls until `check` holds (or fails after `ms`); returns the milliseconds it took. */
async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    if (await check()) return Date.now() - t0;
    if (Date.now() - t0 > ms) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitReady(port: number): Promise<Record<string, unknown>> {
  let index: Record<string, unknown> = {};
  await until(
    'the index is ready',
    async () => {
      index = (await get(port, '/health')).body.index as Record<string, unknown>;
      return index.state === 'ready';
    },
    60_000,
  );
  return index;
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((ok) => {
    child.once('exit', (code) => ok(code));
    child.kill('SIGTERM');
  });
}

const paths = (hits: Hit[]) => hits.map((h) => h.path);

test('serve --repo: edits, new files, deletions, renames and a new folder are seen by the next query; a restart loads the saved index', async () => {
  const tree = join(tmp, 'tree');
  mkdirSync(join(tree, 'pkg'), { recursive: true });
  writeFileSync(join(tree, 'pkg', 'parse.py'), 'def parse_rows(text):\n    return [r.split(",") for r in text.splitlines()]\n');
  writeFileSync(join(tree, 'pkg', 'render.py'), 'def render_table(rows):\n    return "\\n".join(",".join(r) for r in rows)\n');
  writeFileSync(join(tree, 'README.md'), '# tables\n\nParse and render comma separated rows.\n');
  const state = join(tmp, 'state');
  const s = await startServer(tree, state);
  try {
    const first = await waitReady(s.port);
    assert.equal((first.start as { from: string }).from, 'built');
    assert.equal(first.files, 3);
    assert.deepEqual(paths(await search(s.port, 'parse_rows')).slice(0, 1), ['pkg/parse.py']);
    // An edit: a new word in an existing function.
    writeFileSync(
      join(tree, 'pkg', 'render.py'),
      'def render_table(rows):\n    # zebraquux alignment\n    return "\\n".join(",".join(r) for r in rows)\n',
    );
    const edit = await until('the edit', async () => paths(await search(s.port, 'zebraquux')).includes('pkg/render.py'));
    // A new file.
    writeFileSync(join(tree, 'pkg', 'flux.py'), 'def flux_capacitor(speed):\n    return speed * 88\n');
    await until('the new file', async () => paths(await search(s.port, 'flux_capacitor')).includes('pkg/flux.py'));
    // A rename: the chunk is found under its new path only.
    renameSync(join(tree, 'pkg', 'flux.py'), join(tree, 'pkg', 'time_travel.py'));
    await until('the rename', async () => {
      const p = paths(await search(s.port, 'flux_capacitor'));
      return p.includes('pkg/time_travel.py') && !p.includes('pkg/flux.py');
    });
    // A deletion.
    rmSync(join(tree, 'pkg', 'parse.py'));
    await until('the deletion', async () => !paths(await search(s.port, 'parse_rows')).includes('pkg/parse.py'));
    // A new folder with a file in it.
    mkdirSync(join(tree, 'lib', 'deep'), { recursive: true });
    writeFileSync(join(tree, 'lib', 'deep', 'quasar.py'), 'def quasar_signal():\n    return 42\n');
    await until('the new folder', async () => paths(await search(s.port, 'quasar_signal')).includes('lib/deep/quasar.py'));
    const health = (await get(s.port, '/health')).body.index as { updates: number; files: number };
    assert.ok(health.updates >= 5, JSON.stringify(health));
    assert.equal(health.files, 4);
    assert.ok(edit < 5000, `the edit was seen after ${edit} ms`);
  } finally {
    assert.equal(await stop(s.child), 0);
  }
  // Changed while the server was down: only that file is read again.
  writeFileSync(join(tree, 'README.md'), '# tables\n\nParse and render rows; see nebulawhisper.\n');
  const again = await startServer(tree, state);
  try {
    const index = await waitReady(again.port);
    const start = index.start as { from: string; ms: number; reindexedFiles: number };
    assert.equal(start.from, 'loaded');
    assert.equal(start.reindexedFiles, 1);
    assert.equal(index.files, 4);
    assert.deepEqual(paths(await search(again.port, 'nebulawhisper')), ['README.md']);
    assert.ok(paths(await search(again.port, 'zebraquux')).includes('pkg/render.py'), 'what was indexed before the restart is there');
  } finally {
    assert.equal(await stop(again.child), 0);
  }
});

test('serve --repo --mcp: initialize is answered before the first build ends; a search then says how far it is', async () => {
  // A tree big enough to take a while (a second or two of chunking): the project's own sources.
  const tree = join(tmp, 'big');
  cpSync(join(projectRoot, 'src'), join(tree, 'a'), { recursive: true });
  const child = spawn(process.execPath, [cliPath, 'serve', '--repo', tree, '--state-dir', join(tmp, 'big-state'), '--mcp'], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events: string[] = [];
  let out = '';
  let err = '';
  const answers: Array<Record<string, unknown>> = [];
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString();
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const msg = JSON.parse(out.slice(0, nl)) as Record<string, unknown>;
      out = out.slice(nl + 1);
      answers.push(msg);
      events.push(`answer ${String(msg.id)}`);
    }
  });
  child.stderr?.on('data', (b: Buffer) => {
    err += b.toString();
    if (/indexed: \d+ files/.test(b.toString())) events.push('indexed');
  });
  const send = (m: object) => child.stdin?.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await until('initialize answered', async () => answers.some((a) => a.id === 1), 10_000);
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'tokenize', k: 3 } } });
  await until('the early search answered', async () => answers.some((a) => a.id === 2), 10_000);
  await until('the build ends', async () => events.includes('indexed'), 60_000);
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'tokenize', k: 3 } } });
  await until('the late search answered', async () => answers.some((a) => a.id === 3), 10_000);
  child.stdin?.end();
  await new Promise((ok) => child.once('exit', ok));
  assert.ok(events.indexOf('answer 1') < events.indexOf('indexed'), `initialize before the build ended: ${events.join(', ')}\n${err}`);
  const early = answers.find((a) => a.id === 2)!.result as { isError: boolean; content: Array<{ text: string }> };
  if (events.indexOf('answer 2') < events.indexOf('indexed')) {
    assert.equal(early.isError, true);
    assert.match(early.content[0].text, /still being built \((starting|loading|indexing): [\d,]+ of [\d,]+ files read\)/);
  }
  const late = answers.find((a) => a.id === 3)!.result as { isError: boolean; structuredContent: { hits: Hit[] } };
  assert.equal(late.isError, false);
  assert.ok(late.structuredContent.hits.length === 3);
});
