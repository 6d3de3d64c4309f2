/**
 * `coreb eval --measures`: measures beside the protocol's own, any cutoff, recorded in results and
 * shown as leaderboard columns; each value checked against the run file and the qrels directly.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { projectRoot } from '../support/shared.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-measures-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const env = { ...process.env, COREB_CACHE_DIR: join(tmp, 'cache') };

test('--measures p@7,recall@3: values equal a count over the run file and the rel-2 qrels; columns and options.measures follow', () => {
  const out = join(tmp, 'out');
  const r = runCli(['eval', '--runs', 'plain', '--out', out, '--measures', 'p@7,recall@3', '--measures', 'P@7', '--tasks', 't2c', '--quiet'], {
    env,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^#\s+retriever\s+ndcg@10\s+recall@10\s+map@10\s+mrr@10\s+p@7\s+recall@3\s/m);
  const res = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  assert.deepEqual(res.options.measures, ['p@7', 'recall@3']);
  assert.ok(res.measures.includes('p@7') && res.measures.includes('recall@3'));
  // Independently: the run file's top 7 / top 3 against the documents judged 2 (the coreb protocol's relevance level).
  const rel = new Map<string, Set<string>>();
  for (const line of readFileSync(join(projectRoot, 'data', 'coreb-mini', 'release', 'text2code_qrels.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)) {
    const q = JSON.parse(line) as { query_id: string; doc_id: string; relevance: number };
    if (q.relevance >= 2) rel.set(q.query_id, (rel.get(q.query_id) ?? new Set()).add(q.doc_id));
  }
  const ranked = new Map<string, string[]>();
  for (const line of readFileSync(join(out, res.retrievers[0].tasks.text2code.runFile), 'utf8').split('\n').filter(Boolean)) {
    const [qid, , doc] = line.split(/\s+/);
    ranked.set(qid, [...(ranked.get(qid) ?? []), doc]);
  }
  let p7 = 0;
  let r3 = 0;
  let n = 0;
  for (const [qid, docs] of rel) {
    const list = ranked.get(qid) ?? [];
    p7 += list.slice(0, 7).filter((d) => docs.has(d)).length / 7;
    r3 += list.slice(0, 3).filter((d) => docs.has(d)).length / docs.size;
    n++;
  }
  const t2c = res.retrievers[0].tasks.text2code.metrics;
  assert.ok(Math.abs(t2c['p@7'] - p7 / n) < 1e-12, `${t2c['p@7']} vs ${p7 / n}`);
  assert.ok(Math.abs(t2c['recall@3'] - r3 / n) < 1e-12, `${t2c['recall@3']} vs ${r3 / n}`);
  const bad = runCli(['eval', '--measures', 'fancy@3', '--quiet'], { env });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown measure `fancy`/);
});
