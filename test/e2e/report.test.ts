import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvalResults } from '../../src/core/eval-results.js';
import { chromiumAvailable, openInChromium } from '../support/browser.js';
import { runCli } from '../support/cli.js';

test('coreb report on two BM25 runs of the sample: files written, page opens in Chromium with charts and numbers, no console error', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-report-e2e-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ev = runCli(['eval', '--retriever', 'bm25', '--retriever', 'bm25?k1=1.2&b=0.75', '--out', join(dir, 'eval'), '--quiet']);
  assert.equal(ev.status, 0, ev.stderr);
  const resultsFile = join(dir, 'eval', 'results.json');
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as EvalResults;
  const out = join(dir, 'report');
  const r = runCli(['report', resultsFile, '--out', out, '--permutations', '2000']);
  assert.equal(r.status, 0, r.stderr);
  const index = join(out, 'index.html');
  const html = readFileSync(index, 'utf8');
  assert.equal(/<script/i.test(html), false);
  for (const id of ['tasks-ndcg-0', 'languages-0', 'intrusion-0', 'recall-curve-0']) {
    assert.ok(existsSync(join(out, 'charts', `${id}.svg`)), id);
    assert.ok(
      readFileSync(join(out, 'charts', `${id}.png`))
        .subarray(1, 4)
        .toString() === 'PNG',
      id,
    );
  }
  if (!chromiumAvailable()) {
    t.diagnostic('chromium not installed: browser part skipped');
    return;
  }
  const page = await openInChromium(index);
  try {
    const p = page.page;
    assert.ok((await p.locator('figure.chart svg').count()) >= 4);
    // Every chart has a text alternative the browser exposes.
    for (const label of await p.locator('figure.chart svg').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? '')))
      assert.ok(label.length > 20);
    const board = p.locator('#leaderboard-0 table').first();
    const text = (await board.textContent()) ?? '';
    for (const rr of results.retrievers) {
      assert.ok(text.includes(rr.name), rr.name);
      assert.ok(text.includes(rr.overall.metrics['ndcg@10'].toFixed(4)), `${rr.name} overall nDCG@10 shown`);
    }
    assert.ok((await p.locator('#provenance details').count()) >= 1);
    assert.match((await p.locator('#provenance').textContent()) ?? '', new RegExp(results.dataset.sha256.slice(0, 16)));
    // Bars were drawn: the grouped bar chart has one rect-like path per (task, retriever).
    const bars = await p.locator('#fig-tasks-ndcg-0 .mark-rect path').count();
    assert.equal(bars, Object.keys(results.retrievers[0].tasks).length * results.retrievers.length);
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});
