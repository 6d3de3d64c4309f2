import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createProgressBar } from './progress-bar.js';

function capture(): { out: PassThrough; text: () => string } {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (c: Buffer) => chunks.push(c.toString()));
  return { out, text: () => chunks.join('') };
}

test('not a terminal: a status line every interval while work goes on, plus start and final lines', () => {
  const { out, text } = capture();
  let now = 0;
  const p = createProgressBar(out, false, { intervalMs: 5000, now: () => now });
  p.start('judging', 100);
  for (let i = 0; i < 100; i++) {
    now += 200; // 20 s in all: 3 status lines (after 5.2, 10.4, 15.6 s)
    p.tick();
  }
  p.done();
  const lines = text().trimEnd().split('\n');
  assert.equal(lines[0], 'judging: 100 to do');
  const status = lines.slice(1, -1);
  assert.equal(status.length, 3, text());
  assert.match(status[0], /^judging \[#+\.+\]\s+26% 26\/100 5\.0\/s ETA 14\.8s$/);
  assert.match(lines[lines.length - 1], /^judging \[#{24}\] 100% 100\/100 in 20\.0s \(5\.0\/s\)$/);
  assert.ok(!text().includes('\r'), 'no carriage returns in a log');
});

test('a terminal redraws in place', () => {
  const { out, text } = capture();
  let now = 0;
  const p = createProgressBar(out, true, { now: () => now });
  p.start('x', 2);
  now += 500;
  p.tick();
  p.done();
  assert.ok(text().startsWith('\r\u001b[2Kx ['), JSON.stringify(text()));
  assert.match(text(), / 1\/2 /);
});

test('delayMs: a step that ends sooner writes nothing; a longer one shows from then on, with its final line', () => {
  for (const interactive of [false, true]) {
    const quick = capture();
    let now = 0;
    const p = createProgressBar(quick.out, interactive, { delayMs: 2000, now: () => now });
    p.start('significance tests', 50);
    for (let i = 0; i < 50; i++) {
      now += 30; // 1.5 s in all
      p.tick();
    }
    p.done();
    assert.equal(quick.text(), '', 'a 1.5 s step stays silent');

    const slow = capture();
    now = 0;
    const q = createProgressBar(slow.out, interactive, { delayMs: 2000, intervalMs: 5000, now: () => now });
    q.start('significance tests', 50);
    for (let i = 0; i < 50; i++) {
      now += 100; // 5 s in all: shown from 2 s on
      q.tick();
    }
    q.done();
    assert.match(slow.text(), /significance tests \[#{24}\] 100% 50\/50 in 5\.0s/);
    if (!interactive) assert.match(slow.text(), /^significance tests: 50 to do\n/);
  }
});
