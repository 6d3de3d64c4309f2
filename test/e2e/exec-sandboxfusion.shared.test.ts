/**
 * The real SandboxFusion server (../shared/tools/sandboxfusion, its own source, started on loopback)
 * against coreb's local judge on the same CoREB v202602 AtCoder programs (every fifth by code id: the
 * first 24 per language in CI, 40 with COREB_EXEC_FULL=1) and the LiveCodeBench v5 public tests, through `coreb exec --judge
 * sandboxfusion:URL --compare local` as a user runs it: the two must agree on pass/fail in every
 * language (>= 99%), and every remote result must say what it could not honour and `sandboxed: false`.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import type { JudgeRecord } from '../../src/sandbox/judge-run.js';
import { runCliAsync } from '../support/cli.js';
import { tempDir, toolchainSkipReason } from '../support/judge.js';
import { sharedPath } from '../support/shared.js';

const START = sharedPath('tools', 'sandboxfusion', 'start.sh');
const skip = toolchainSkipReason(['python', 'cpp', 'java', 'go', 'ruby']) ?? (existsSync(START) ? false : `no ${START}`);

/** A free loopback port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a !== null ? a.port : 0));
    });
  });
}

/** Starts the server and resolves with its URL once `/v1/ping` answers (its first start builds a venv, ~1 min). */
async function startSandboxFusion(): Promise<{ url: string; child: ChildProcess; log: () => string }> {
  const port = await freePort();
  const child = spawn('bash', [START, String(port)], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let log = '';
  child.stdout?.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-4000)));
  child.stderr?.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  for (const t0 = Date.now(); Date.now() - t0 < 240_000; ) {
    if (child.exitCode !== null) throw new Error(`sandboxfusion exited ${child.exitCode}: ${log}`);
    const ok = await fetch(`${url}/v1/ping`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return { url, child, log: () => log };
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`sandboxfusion did not answer on ${url} within 240 s: ${log}`);
}

function stop(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
  } catch {
    // gone already
  }
}

/** Programs per language: the first 24 of every fifth by code id in CI (120), 40 (200) with COREB_EXEC_FULL=1. */
const PER_LANGUAGE = process.env.COREB_EXEC_FULL === '1' ? 40 : 24;

test(`the real SandboxFusion server and the local judge agree on ${5 * PER_LANGUAGE} v202602 AtCoder programs, per language`, {
  skip,
  timeout: 1_200_000,
}, async (t) => {
  const server = await startSandboxFusion();
  try {
    const dir = tempDir('coreb-sandboxfusion-');
    const byLanguage = new Map<string, Array<Record<string, unknown>>>();
    for (const line of readFileSync(sharedPath('data', 'coreb', 'release_v2602', 'code_corpus.jsonl'), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const row = JSON.parse(line) as Record<string, unknown>;
      if (!/^lcb_(abc|arc|agc)\d+_/.test(String(row.meta_source_problem_id))) continue;
      const l = String(row.language);
      byLanguage.set(l, [...(byLanguage.get(l) ?? []), row]);
    }
    const chosen = [...byLanguage.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .flatMap(([, rows]) =>
        rows
          .sort((a, b) => (String(a.code_id) < String(b.code_id) ? -1 : 1))
          .filter((_, i) => i % 5 === 0)
          .slice(0, PER_LANGUAGE),
      );
    assert.equal(chosen.length, 5 * PER_LANGUAGE, `${PER_LANGUAGE} programs in each of the five languages`);
    const candidates = join(dir, 'candidates.jsonl');
    writeFileSync(candidates, `${chosen.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const out = join(dir, 'sandboxfusion.jsonl');
    const summary = join(dir, 'summary.json');
    const r = await runCliAsync([
      'exec',
      '--problems',
      sharedPath('data', 'lcb_v5_problems.jsonl'),
      '--candidates',
      candidates,
      '--out',
      out,
      '--tests',
      'public',
      '--stop-early',
      '--judge',
      `sandboxfusion:${server.url}`,
      '--compare',
      'local',
      '--summary-json',
      summary,
    ]);
    assert.equal(r.status, 0, r.stderr.slice(-2000) + server.log());
    const agreement = (
      JSON.parse(readFileSync(summary, 'utf8')) as { agreement: { local: Array<{ language: string; n: number; agree: number; rate: number }> } }
    ).agreement.local;
    t.diagnostic(agreement.map((a) => `${a.language}: ${a.agree}/${a.n} (${(100 * a.rate).toFixed(1)}%)`).join('\n'));
    for (const a of agreement) assert.ok(a.rate >= 0.99, `${a.language}: ${a.agree}/${a.n} agree with the local judge`);
    const recs = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as JudgeRecord);
    assert.equal(recs.length, chosen.length);
    for (const rec of recs) {
      assert.equal(rec.backend?.name, 'sandboxfusion');
      assert.equal(rec.sandboxed, false, 'coreb cannot know how a remote service isolates code');
      assert.ok(
        rec.backend?.unhonoured?.some((u) => u.includes('memory limit')),
        JSON.stringify(rec.backend),
      );
    }
    const local = readFileSync(out.replace(/\.jsonl$/, '.local.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as JudgeRecord);
    assert.ok(local.every((l) => l.sandboxed && l.backend === undefined));
    // not a vacuous agreement: both judges pass some programs and fail others in every language
    for (const l of ['python', 'cpp', 'java', 'go', 'ruby']) {
      const mine = recs.filter((x) => x.language === l);
      assert.ok(mine.some((x) => x.passed) && mine.some((x) => !x.passed), `${l}: both passes and failures`);
    }
  } finally {
    stop(server.child);
  }
});
