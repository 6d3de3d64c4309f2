import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvalResults } from '../../src/core/eval-results.js';
import { chromiumAvailable, openInChromium } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { sharedPath } from '../support/shared.js';

// Screenshots go to $COREB_SCREENSHOT_DIR when set (for a human to look at), else to a temp dir.
test('coreb report of BM25 and classic BM25 on CoREB v202602, opened in Chromium (screenshots)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-report-v2602-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const data = sharedPath('data', 'coreb', 'release_v2602');
  const ev = runCli(['eval', '--data', data, '--retriever', 'bm25', '--retriever', 'bm25?k1=1.2&b=0.75', '--out', join(dir, 'eval'), '--quiet']);
  assert.equal(ev.status, 0, ev.stderr);
  const resultsFile = join(dir, 'eval', 'results.json');
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as EvalResults;
  const out = join(dir, 'report');
  const r = runCli(['report', resultsFile, '--out', out, '--title', 'CoREB v202602: BM25 vs classic BM25']);
  assert.equal(r.status, 0, r.stderr);
  if (!chromiumAvailable()) return;
  const shots = process.env.COREB_SCREENSHOT_DIR ?? join(dir, 'shots');
  mkdirSync(shots, { recursive: true });
  const page = await openInChromium(join(out, 'index.html'));
  try {
    const p = page.page;
    assert.ok((await p.locator('figure.chart svg').count()) >= 4);
    const text = (await p.locator('#leaderboard-0 table').first().textContent()) ?? '';
    for (const rr of results.retrievers) assert.ok(text.includes(rr.overall.metrics['ndcg@10'].toFixed(4)));
    assert.match((await p.locator('#languages-0').textContent()) ?? '', /python/);
    await p.screenshot({ path: join(shots, 'report-v2602-top.png') });
    const sections = p.locator('section');
    const n = await sections.count();
    for (let i = 0; i < n; i++) {
      const id = await sections.nth(i).getAttribute('id');
      await sections.nth(i).screenshot({ path: join(shots, `report-v2602-${id}.png`) });
    }
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});
