/**
 * Query expansion through the built CLI and a loopback OpenAI-compatible chat server: HyDE on
 * text-to-code and Query2doc on code-to-text over BM25, on the bundled coreb-mini release. The fused
 * run must equal this test's own computation (BM25 of the plain and of the expanded query, reciprocal
 * ranks summed by hand); a second run makes no call; token usage is in the results.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Query } from '../../src/core/dataset.js';
import { loadRelease, releaseTasks } from '../../src/dataset/index.js';
import { createBm25Index } from '../../src/search/index.js';
import { runCliAsync } from '../support/cli.js';
import { startChatServer, type ChatServer } from '../support/loopback-chat-server.js';
import { projectRoot } from '../support/shared.js';

const MINI = join(projectRoot, 'data', 'coreb-mini', 'release');
let tmp = '';
let server: ChatServer;
/** Prompt -> reply, as the server gave them. */
const replies = new Map<string, string>();

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'coreb-e2e-expansion-'));
  const { release } = await loadRelease(MINI);
  const code = releaseTasks(release).text2code.corpus;
  const texts = releaseTasks(release).code2text.corpus;
  server = await startChatServer({
    format: 'openai',
    answer: (call) => {
      const prompt = call.messages.map((m) => m.content).join('\n');
      const pick = createHash('sha256').update(prompt).digest().readUInt32BE(0);
      // A program for a text query (fenced, with chatter around it), a statement for a code query.
      const reply = prompt.includes('Write a short program')
        ? `Here you go:\n\`\`\`python\n${code[pick % code.length].text}\n\`\`\`\nDone.`
        : `${texts[pick % texts.length].text.slice(0, 400)}`;
      replies.set(prompt, reply);
      return reply;
    },
  });
});
after(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** query id -> docids in rank order, from a TREC run file. */
function readRun(file: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const [qid, , doc] = line.split(/\s+/);
    if (!out.has(qid)) out.set(qid, []);
    out.get(qid)!.push(doc);
  }
  return out;
}

/** The reply the server gave for the prompt holding `marker` (the method's wording) and `query`. */
function replyFor(marker: string, query: string): string {
  const hits = [...replies].filter(([prompt]) => prompt.includes(marker) && prompt.includes(query.trim()));
  assert.equal(hits.length, 1, `one prompt holds the query ${JSON.stringify(query.slice(0, 40))}`);
  return hits[0][1];
}

/** Wording of each default prompt (prompts/expansion/), telling the methods and tasks apart. */
const MARKERS = {
  hyde: { text2code: 'Write a short program', code2text: 'Write the programming problem it solves' },
  q2d: { text2code: 'Someone searches', code2text: 'Someone has the program' },
} as const;

/** RRF of two lists by hand: 1/(60 + r1) + 1/(60 + r2), float32, ties by docid descending; top `depth`. */
function rrfByHand(a: readonly string[], b: readonly string[], depth: number): string[] {
  const score = new Map<string, number>();
  a.forEach((d, i) => score.set(d, (score.get(d) ?? 0) + 1 / (60 + i + 1)));
  b.forEach((d, i) => score.set(d, (score.get(d) ?? 0) + 1 / (60 + i + 1)));
  return [...score]
    .map(([d, s]) => [d, Math.fround(s)] as const)
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? 1 : -1))
    .slice(0, depth)
    .map(([d]) => d);
}

test('hyde on text-to-code and q2d on code-to-text: the fused runs equal an independent computation; a rerun calls nothing', async () => {
  const chat = `(openai:fake-model?baseUrl=${server.baseUrl})`;
  const env = { ...process.env, COREB_CACHE_DIR: join(tmp, 'cache') };
  const args = (out: string) => [
    'eval',
    '--tasks',
    't2c,c2t',
    '--retriever',
    `hyde:${chat},bm25,name=hyde`,
    '--retriever',
    `q2d:${chat},bm25,repeat=2,name=q2d`,
    '--depth',
    '20',
    '--runs',
    'plain',
    '--quiet',
    '--out',
    out,
  ];
  const r = await runCliAsync(args(join(tmp, 'one')), { env });
  assert.equal(r.status, 0, r.stderr);
  const sent = server.calls.length;
  const { release } = await loadRelease(MINI);
  const tasks = releaseTasks(release);
  // Each retriever asks once per distinct query text (identical requests are sent once).
  const distinct = new Set(tasks.text2code.queries.map((q) => q.text)).size + new Set(tasks.code2text.queries.map((q) => q.text)).size;
  assert.equal(sent, 2 * distinct);

  const check = async (name: 'hyde' | 'q2d', task: 'text2code' | 'code2text') => {
    const t = tasks[task];
    const index = createBm25Index(t.corpus);
    const plain = await index.search(t.queries, 100, { task });
    const expandedQueries: Query[] = t.queries.map((q) => {
      const reply = replyFor(MARKERS[name][task], q.text);
      const doc = name === 'hyde' ? (/```[^\n]*\n([\s\S]*?)```/.exec(reply)?.[1].trim() ?? reply.trim()) : reply.trim();
      return { ...q, text: name === 'hyde' ? doc : `${q.text} ${q.text} ${doc}` };
    });
    const expanded = await index.search(expandedQueries, 100, { task });
    const run = readRun(join(tmp, 'one', 'runs', `${name}.${task}.trec`));
    let changed = 0;
    for (const q of t.queries) {
      const want = rrfByHand(plain.get(q.id)!.docIds, expanded.get(q.id)!.docIds, 20);
      assert.deepEqual(run.get(q.id) ?? [], want, `${name} ${task} ${q.id}`);
      if (want.join() !== plain.get(q.id)!.docIds.slice(0, 20).join()) changed++;
    }
    assert.ok(changed > 0, `${name} changed some ${task} rankings`);
  };
  await check('hyde', 'text2code');
  await check('q2d', 'code2text');

  const results = JSON.parse(readFileSync(join(tmp, 'one', 'results.json'), 'utf8')) as {
    retrievers: Array<{ name: string; usage?: Record<string, number>; description: Record<string, unknown> }>;
  };
  const hyde = results.retrievers.find((x) => x.name === 'hyde')!;
  assert.equal(hyde.usage?.expanded, tasks.text2code.queries.length + tasks.code2text.queries.length);
  assert.equal(hyde.usage?.calls, distinct);
  assert.equal(hyde.usage?.cached, hyde.usage!.expanded - distinct);
  assert.ok((hyde.usage?.inputTokens ?? 0) > 0 && (hyde.usage?.outputTokens ?? 0) > 0);
  assert.match(String((hyde.description.prompt as { sha256: string }).sha256), /^[0-9a-f]{64}$/);

  const again = await runCliAsync(args(join(tmp, 'two')), { env });
  assert.equal(again.status, 0, again.stderr);
  assert.equal(server.calls.length, sent, 'no call on the rerun');
  const second = JSON.parse(readFileSync(join(tmp, 'two', 'results.json'), 'utf8')) as typeof results;
  const reused = second.retrievers.find((x) => x.name === 'hyde')!.usage!;
  assert.deepEqual([reused.calls, reused.cached, reused.inputTokens], [0, reused.expanded, 0]);
  assert.deepEqual(readRun(join(tmp, 'two', 'runs', 'hyde.text2code.trec')), readRun(join(tmp, 'one', 'runs', 'hyde.text2code.trec')));
});
