/**
 * `coreb review` end to end: a build made through a loopback chat server (three problems, one with
 * HTML in its statement), then the review server as a user starts it — token and body checks,
 * path traversal, Host check — the page in headless Chromium (escaping, approve with `a`, edit with
 * `e` + typing + Ctrl-Enter, reject with `r`, review.jsonl read back), a clean stop on SIGINT, and
 * the release stage rerun honouring the decisions with 0 model calls.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromiumAvailable, openUrlInChromium } from '../support/browser.js';
import { createBuildFake } from '../support/build-fake.js';
import { authoredBuildProblems, PROGRAMS, stdinTest } from '../support/build-problems.js';
import { cliPath, runCli, runCliAsync } from '../support/cli.js';
import { startChatServer, type ChatServer } from '../support/loopback-chat-server.js';

// The page's globals, for the functions Playwright runs inside it (the page's CSP forbids string evaluation).
declare const document: { querySelector(selector: string): { textContent: string | null } | null };
declare const window: { __pwned?: number };

const tmp = mkdtempSync(join(tmpdir(), 'coreb-review-e2e-'));
const out = join(tmp, 'build');
const problemsFile = join(tmp, 'problems.jsonl');
let chat: ChatServer;
let review: ChildProcessWithoutNullStreams | undefined;
let url = '';
let token = '';
let port = 0;

const XSS = 'Print the number N. <script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> & that is all.';
const { problems, fakeProblems } = authoredBuildProblems('rv');
problems.push({
  question_id: 'rv_xss',
  question_title: 'Echo <b>Tag</b>',
  question_content: XSS,
  platform: 'atcoder',
  starter_code: '',
  metadata: '{}',
  public_test_cases: JSON.stringify([stdinTest('5\n', '5\n')]),
  private_test_cases: JSON.stringify([stdinTest('7\n', '7\n')]),
});
fakeProblems.set('rv_xss', { title: 'Echo <b>Tag</b>', statement: XSS });
const solutions = new Map([
  ['model-a|rv_sum/python', PROGRAMS.SUM_PY],
  ['model-a|rv_rev/python', PROGRAMS.REV_PY],
  ['model-a|rv_xss/python', 'print(input().strip())\n'],
  ['model-a|rv_sum/cpp', PROGRAMS.SUM_CPP],
  ['model-a|rv_rev/cpp', PROGRAMS.REV_CPP],
  ['model-a|rv_xss/cpp', '#include <iostream>\nint main() { long long n; std::cin >> n; std::cout << n << "\\n"; }\n'],
]);

const buildArgs = (extra: string[] = []): string[] => {
  const o = encodeURIComponent(chat.baseUrl);
  return [
    'build',
    '--problems',
    problemsFile,
    '--out',
    out,
    '--rewriter',
    `openai:rewriter-1?baseUrl=${o}&concurrency=2&backoffMs=5`,
    '--solver',
    `openai:model-a?baseUrl=${o}&concurrency=2&backoffMs=5`,
    '--languages',
    'python,cpp',
    '--release-name',
    'v202612',
    '--created-at',
    '2026-12-01T00:00:00Z',
    '--jobs',
    '2',
    ...extra,
  ];
};

before(async () => {
  writeFileSync(problemsFile, problems.map((p) => JSON.stringify(p)).join('\n') + '\n');
  chat = await startChatServer({ format: 'openai', answer: createBuildFake({ problems: fakeProblems, solutions }) });
  const r = await runCliAsync(buildArgs());
  assert.equal(r.status, 0, r.stderr + r.stdout);
});

after(async () => {
  review?.kill('SIGKILL');
  await chat.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Starts `coreb review` and waits for the URL it prints. */
function startReview(extra: string[] = []): Promise<ChildProcessWithoutNullStreams> {
  const child = spawn(process.execPath, [cliPath, 'review', out, '--port', '0', '--reviewer', 'tester', ...extra], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      text += d;
      const m = /open (http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]{64}))\n/.exec(text);
      if (m !== null && url === '') {
        url = m[1];
        port = Number(m[2]);
        token = m[3];
        resolve(child);
      }
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('exit', (c) => reject(new Error(`coreb review exited ${c}: ${err}${text}`)));
  });
}

/** One raw HTTP request (the path is sent as given, no normalisation). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let b = '';
      res.setEncoding('utf8').on('data', (d: string) => (b += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
const post = (body: unknown, headers: Record<string, string> = { 'X-Coreb-Token': token }): ReturnType<typeof raw> =>
  raw('POST', '/api/decisions', { 'Content-Type': 'application/json', ...headers }, typeof body === 'string' ? body : JSON.stringify(body));

const reviewFile = join(out, 'review.jsonl');
const decisions = (): Array<Record<string, string>> =>
  existsSync(reviewFile)
    ? readFileSync(reviewFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

test('coreb review prints a loopback URL with a session token; the page carries a CSP; items need the token', async () => {
  review = await startReview();
  const page = await raw('GET', '/');
  assert.equal(page.status, 200);
  const csp = String(page.headers['content-security-policy']);
  assert.match(csp, /default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]+'; style-src 'nonce-/);
  assert.ok(!page.body.includes('rv_sum'), 'the page holds no build data; it is fetched with the token');
  assert.equal((await raw('GET', '/api/items')).status, 403);
  assert.equal((await raw('GET', '/api/items', { 'X-Coreb-Token': 'f'.repeat(64) })).status, 403);
  const items = await raw('GET', '/api/items', { 'X-Coreb-Token': token });
  assert.equal(items.status, 200);
  const j = JSON.parse(items.body);
  assert.deepEqual(
    j.items.map((i: { id: string }) => i.id),
    ['rv_rev', 'rv_sum', 'rv_xss'],
  );
  const sum = j.items[1];
  assert.equal(sum.original.statement, problems[0].question_content);
  assert.ok(sum.diff.some((s: { op: string; text: string }) => s.op === 'ins' && s.text.includes('Veltmark')));
  assert.equal(sum.negatives.length, 4);
  assert.ok(sum.negatives.every((n: { similarity: number }) => typeof n.similarity === 'number'));
  assert.equal(sum.solutions[0].verdict, 'accepted');
  assert.ok(
    sum.queries.texts.every((q: { kind?: string }) => /^[a-z_]+ · (any|python|cpp)$/.test(q.kind ?? '')),
    JSON.stringify(sum.queries),
  );
  // The fake's first query (title_search, language-agnostic) names the original title: the leak check says so.
  const leak = sum.checks.find((c: { name: string }) => c.name === 'query_leaks');
  assert.equal(leak.ok, false);
  assert.match(leak.message, /^query 1 contains the title "Sum of Pairs"$/);
  assert.deepEqual(j.counts, { problems: 3, approved: 0, rejected: 0, edited: 0, unreviewed: 3, decisions: 0 });
});

test('POST /api/decisions: 403 without or with a wrong token, 400/404/415 with a clear message on bad bodies; nothing written', async () => {
  assert.equal((await post({ item: 'rv_sum', decision: 'approve' }, {})).status, 403);
  assert.equal(
    (await post({ item: 'rv_sum', decision: 'approve' }, { 'X-Coreb-Token': token.slice(0, -1) + (token.endsWith('0') ? '1' : '0') })).status,
    403,
  );
  const cases: Array<[unknown, number, RegExp]> = [
    ['{not json', 400, /not JSON/],
    [{ item: 'rv_sum', decision: 'maybe' }, 400, /field `decision`: must be one of approve, reject, edit/],
    [{ item: 'rv_sum', decision: 'edit' }, 400, /an edit needs the new text/],
    [{ item: '../../etc/passwd', decision: 'approve' }, 400, /does not start with a problem id/],
    [{ item: 'nope_1', decision: 'approve' }, 404, /no problem `nope_1` in this build/],
    [{ item: 'rv_sum/queries/99', decision: 'edit', text: 'x' }, 404, /does not exist in this build/],
  ];
  for (const [body, status, msg] of cases) {
    const r = await post(body);
    assert.equal(r.status, status, `${JSON.stringify(body)}: ${r.body}`);
    assert.match(JSON.parse(r.body).error, msg);
  }
  const form = await raw(
    'POST',
    '/api/decisions',
    { 'X-Coreb-Token': token, 'Content-Type': 'text/plain' },
    '{"item":"rv_sum","decision":"approve"}',
  );
  assert.equal(form.status, 415);
  const cross = await post({ item: 'rv_sum', decision: 'approve' }, { 'X-Coreb-Token': token, Origin: 'http://evil.example' });
  assert.equal(cross.status, 403);
  assert.deepEqual(decisions(), []);
});

test('no path outside the page and the API is served: traversal, build files, a foreign Host', async () => {
  for (const p of [
    '/../../etc/passwd',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/..%2f..%2fmanifest.json',
    '/manifest.json',
    '/work/rewrite.jsonl',
    '/review.jsonl',
    '/api/../manifest.json',
    '/%00',
  ]) {
    const r = await raw('GET', p, { 'X-Coreb-Token': token });
    assert.ok(r.status === 400 || r.status === 404, `${p}: ${r.status}`);
    assert.ok(!r.body.includes('root:') && !r.body.includes('"problems_sha256"') && !r.body.includes('Veltmark'), p);
  }
  const rebinding = await raw('GET', '/api/items', { 'X-Coreb-Token': token, Host: `evil.example:${port}` });
  assert.equal(rebinding.status, 400);
});

test('in Chromium: content is escaped; a approves, e + typing + Ctrl-Enter edits, r rejects; review.jsonl has the lines', async (t) => {
  if (!chromiumAvailable()) {
    // Without a browser the same three decisions go through the API the page uses, so the tests
    // after this one (restart read-back, the release stage) still run and can fail.
    for (const body of [
      { item: 'rv_rev', decision: 'approve' },
      { item: 'rv_sum', decision: 'edit', text: EDITED },
      { item: 'rv_xss', decision: 'reject' },
    ]) {
      const r = await post(body);
      assert.equal(r.status, 200, r.body);
    }
    assertDecisions();
    return t.skip('chromium not installed: the page was not driven; the decisions were posted to its API');
  }
  const shots = process.env.COREB_REVIEW_SCREENSHOTS;
  const opened = await openUrlInChromium(url, { width: 1400, height: 1000 });
  const { page } = opened;
  try {
    await page.waitForSelector('body[data-ready="1"]', { timeout: 20_000 });
    assert.equal(new URL(page.url()).search, '', 'the token is taken out of the address bar');
    assert.equal(await page.textContent('nav .row.cur .pid'), 'rv_rev');
    assert.match((await page.textContent('#progress')) ?? '', /0 \/ 3 reviewed/);
    if (shots !== undefined) {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: join(shots, 'review-1-item.png'), fullPage: false });
    }
    // a: approve rv_rev, the cursor moves on to rv_sum.
    await page.keyboard.press('a');
    await page.waitForFunction(() => document.querySelector('nav .row.cur .pid')?.textContent === 'rv_sum');
    assert.equal(await page.textContent('nav .row[data-id="rv_rev"] .badge'), 'approved');
    // e: edit rv_sum's rewritten statement, type, Ctrl-Enter.
    await page.keyboard.press('e');
    await page.waitForSelector('#editor:not(.hidden)');
    const before = await page.inputValue('#editor-text');
    assert.match(before, /^In the harbour of Veltmark, Alice has N integers/);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('A lighthouse keeper logs N integers. Print their sum.\n\nConstraints: 1 <= N <= 100.');
    if (shots !== undefined) await page.screenshot({ path: join(shots, 'review-2-edit.png') });
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('#editor.hidden', { state: 'attached' });
    await page.waitForFunction(() => document.querySelector('nav .row[data-id="rv_sum"] .badge')?.textContent === 'edited');
    assert.match((await page.textContent('#rewrite')) ?? '', /A lighthouse keeper logs N integers/);
    // The HTML in rv_xss's statement is shown as text and never runs.
    await page.keyboard.press('j');
    await page.waitForFunction(() => document.querySelector('nav .row.cur .pid')?.textContent === 'rv_xss');
    const shown = (await page.textContent('#rewrite')) ?? '';
    assert.ok(shown.includes('<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'), shown);
    assert.equal(await page.evaluate(() => typeof window.__pwned), 'undefined');
    assert.equal(await page.locator('#item script, #item img, h2 b').count(), 0);
    assert.match((await page.textContent('h2')) ?? '', /Echo <b>Tag<\/b>/);
    await page.keyboard.press('r');
    await page.waitForFunction(() => document.querySelector('nav .row[data-id="rv_xss"] .badge')?.textContent === 'rejected');
    await page.keyboard.press('4');
    if (shots !== undefined) {
      await page.keyboard.press('1');
      await page.keyboard.press('k');
      await page.screenshot({ path: join(shots, 'review-3-after.png'), fullPage: true });
    }
    assert.deepEqual(opened.errors, []);
  } finally {
    await opened.close();
  }
  assertDecisions();
});

const EDITED = 'A lighthouse keeper logs N integers. Print their sum.\n\nConstraints: 1 <= N <= 100.';

/** The three decisions the browser test makes, as review.jsonl must hold them. */
function assertDecisions(): void {
  const d = decisions();
  assert.equal(d.length, 3, JSON.stringify(d));
  assert.deepEqual(
    d.map((x) => [x.item, x.decision, x.who]),
    [
      ['rv_rev', 'approve', 'tester'],
      ['rv_sum', 'edit', 'tester'],
      ['rv_xss', 'reject', 'tester'],
    ],
  );
  assert.match(d[1].before, /^In the harbour of Veltmark, Alice has N integers/);
  assert.equal(d[1].after, EDITED);
  assert.ok(d.every((x) => !Number.isNaN(Date.parse(x.when))));
}

test('Ctrl-C stops the server cleanly (exit 0) and the port is released', async () => {
  const child = review as ChildProcessWithoutNullStreams;
  let outText = '';
  child.stdout.on('data', (x: string) => (outText += x));
  const code = await new Promise<number | null>((resolve) => {
    child.on('exit', (c) => resolve(c));
    child.kill('SIGINT');
  });
  review = undefined;
  assert.equal(code, 0);
  assert.match(outText, /coreb review: stopped/);
  await assert.rejects(raw('GET', '/'), /ECONNREFUSED/);
});

test('SIGTERM stops it cleanly too, and the decisions made so far are read back on restart', async () => {
  url = '';
  const child = await startReview();
  review = child; // killed by after() if an assertion below fails
  const items = JSON.parse((await raw('GET', '/api/items', { 'X-Coreb-Token': token })).body);
  assert.deepEqual(items.counts, { problems: 3, approved: 1, rejected: 1, edited: 1, unreviewed: 0, decisions: 3 });
  const code = await new Promise<number | null>((resolve) => {
    child.on('exit', (c) => resolve(c));
    child.kill('SIGTERM');
  });
  review = undefined;
  assert.equal(code, 0);
});

test('the release stage honours review.jsonl with 0 model calls: rejected left out, edit used, manifest counts', async () => {
  const calls = chat.calls.length;
  const r = await runCliAsync(buildArgs(['--stages', 'release']));
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.equal(chat.calls.length, calls, 'no request sent');
  const released = readFileSync(join(out, 'problems.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    released.map((p) => p.question_id),
    ['rv_rev', 'rv_sum'],
  );
  assert.equal(released[1].question_content, 'A lighthouse keeper logs N integers. Print their sum.\n\nConstraints: 1 <= N <= 100.');
  const text = readFileSync(join(out, 'text_corpus.jsonl'), 'utf8');
  assert.ok(text.includes('A lighthouse keeper logs N integers'));
  assert.ok(!text.includes('window.__pwned'), 'the rejected problem is not in the text corpus');
  assert.ok(!readFileSync(join(out, 'code_corpus.jsonl'), 'utf8').includes('rv_xss'));
  const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.deepEqual(m.review, { file: 'review.jsonl', approved: 1, rejected: 1, edited: 1, unreviewed: 0, decisions: 3 });
  assert.deepEqual(m.dropped_problems, [{ id: 'rv_xss', reason: 'rejected in review' }]);
  assert.deepEqual(m.problems, ['lcb_rv_rev', 'lcb_rv_sum']);
  const v = runCli(['validate', out]);
  assert.equal(v.status, 0, v.stdout + v.stderr);
});
