/**
 * Ctrl-C on long commands: `leaderboard` (text and `--site`), `compare` and `report` on a big
 * results file, and `repo build` on this repository's history, stop within 2 s of SIGINT mid-work
 * (their long loops give the event loop a turn every 50 ms and stop there), exit 130, and leave no
 * half-written file behind. (eval, exec, serve, metrics and validate have theirs beside their tests.)
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { cliPath, runCli } from '../support/cli.js';
import { projectRoot } from '../support/shared.js';

const tmp = mkdtempSync(join(tmpdir(), 'coreb-report-interrupt-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const big = join(tmp, 'big.json');

/** A results file of 20 rows on the sample's 840 queries: the sample's BM25 row, its per-query values moved by a seeded amount per row. */
before(() => {
  const out = join(tmp, 'template');
  const e = runCli(['eval', '--retriever', 'bm25', '--out', out, '--quiet', '--runs', 'none']);
  assert.equal(e.status, 0, e.stderr);
  // biome-ignore lint/suspicious/noExplicitAny: a results file edited in place
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as any;
  const row = results.retrievers[0];
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  results.retrievers = Array.from({ length: 20 }, (_, m) => {
    const r = structuredClone(row);
    r.name = `model-${m}`;
    r.spec = `bm25?name=model-${m}`;
    for (const q of Object.values(r.perQuery) as Array<{ metrics: Record<string, number> }>) {
      for (const k of Object.keys(q.metrics)) q.metrics[k] = Math.min(1, Math.max(0, q.metrics[k] + 0.1 * (rand() - 0.5) + m * 0.001));
    }
    return r;
  });
  writeFileSync(big, JSON.stringify(results));
});

/** Runs `coreb ARGS`, sends SIGINT once `ready` matches its stderr (or after `afterMs`), and resolves with its exit and the time it took to exit. */
function interrupt(
  args: string[],
  ready: RegExp | undefined,
  afterMs: number,
): Promise<{ code: number | null; exitMs: number; sent: boolean; stderr: string }> {
  const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let sentAt = 0;
  const send = () => {
    if (sentAt !== 0 || child.exitCode !== null) return;
    sentAt = performance.now();
    child.kill('SIGINT');
  };
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (ready?.test(stderr)) send();
  });
  child.stdout.resume();
  const timer = setTimeout(send, afterMs);
  return new Promise((ok) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      ok({ code, exitMs: sentAt === 0 ? Number.NaN : performance.now() - sentAt, sent: sentAt !== 0, stderr });
    }),
  );
}

/** Files under `dir` (relative), empty when it does not exist. */
function filesUnder(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : [];
}

for (const [name, args, ready] of [
  ['leaderboard', ['leaderboard', big, '--permutations', '800000'], undefined],
  ['leaderboard --site', ['leaderboard', big, '--permutations', '800000', '--site', join(tmp, 'site')], undefined],
  ['compare', ['compare', big, '--bootstrap', '400000', '--permutations', '800000'], undefined],
  ['report', ['report', big, '--permutations', '800000', '--out', join(tmp, 'report'), '--no-png'], undefined],
] as const) {
  test(`coreb ${name}: SIGINT mid-work stops it within 2 s, exit 130, no half-written file`, async (t) => {
    // a second in: the file is read (13 MB) and the tests have begun
    const r = await interrupt([...args], ready, 1000);
    t.diagnostic(`exit ${r.exitMs.toFixed(0)} ms after SIGINT`);
    assert.ok(r.sent, `the command ended before the interrupt: ${r.stderr}`);
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, /SIGINT received, stopping cleanly/);
    assert.ok(r.exitMs < 2000, `exited ${r.exitMs.toFixed(0)} ms after SIGINT`);
    const out = args.includes('--site') ? join(tmp, 'site') : args.includes('--out') ? join(tmp, 'report') : undefined;
    if (out !== undefined) {
      const left = filesUnder(out);
      assert.deepEqual(
        left.filter((f) => /\.tmp$|^\.|\/\./.test(f)),
        [],
        'no temporary file left',
      );
      assert.ok(!left.includes('index.html'), 'no index page of an unfinished output');
    }
  });
}

test('coreb repo build --corpus-at parent: SIGINT mid-work stops it within 2 s, exit 130, nothing written', async (t) => {
  let since: string;
  try {
    // a window of this repository's last 200 commits
    since = execFileSync('git', ['-C', projectRoot, 'log', '-1', '--skip=200', '--format=%cI'], { encoding: 'utf8' }).trim();
  } catch {
    return; // not a git checkout (an installed package)
  }
  if (since === '') return;
  const out = join(tmp, 'repo-bench');
  // interrupted as it chunks the snapshot
  const r = await interrupt(
    ['repo', 'build', '--repo', projectRoot, '--since', since, '--out', out, '--corpus-at', 'parent', '--max-files', '40'],
    /chunking the snapshot/,
    3000,
  );
  t.diagnostic(`exit ${r.exitMs.toFixed(0)} ms after SIGINT`);
  assert.ok(r.sent, `the build ended before the interrupt: ${r.stderr}`);
  assert.equal(r.code, 130, r.stderr);
  assert.ok(r.exitMs < 2000, `exited ${r.exitMs.toFixed(0)} ms after SIGINT`);
  assert.deepEqual(filesUnder(out), [], 'nothing written');
});
