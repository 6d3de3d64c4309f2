import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLI_INTERRUPT_BUDGET, wantsTierUpBudget } from './v8-tier-up.js';

test('the CLI sets its tier-up budget on V8 11 only, never over a budget the user gave or asked to keep', () => {
  assert.equal(wantsTierUpBudget('11.3.244.8-node.38', [], {}), true);
  assert.equal(wantsTierUpBudget('12.4.254.21-node.33', [], {}), false);
  assert.equal(wantsTierUpBudget('13.6.233.10-node.27', [], {}), false);
  assert.equal(wantsTierUpBudget('11.3.244.8-node.38', ['--interrupt-budget=50000'], {}), false);
  assert.equal(wantsTierUpBudget('11.3.244.8-node.38', ['--interrupt_budget', '50000'], {}), false);
  assert.equal(wantsTierUpBudget('11.3.244.8-node.38', [], { COREB_V8_TIER_UP: 'default' }), false);
  assert.equal(wantsTierUpBudget('11.3.244.8-node.38', ['--max-old-space-size=4096'], { COREB_V8_TIER_UP: 'other' }), true);
});

test('coreb runs with the budget set and with V8 own (COREB_V8_TIER_UP=default), the same output', () => {
  const main = fileURLToPath(new URL('./main.js', import.meta.url));
  const probe = `import { applyTierUpBudget } from ${JSON.stringify(new URL('./v8-tier-up.js', import.meta.url).href)}; process.stdout.write(String(applyTierUpBudget()));`;
  const run = (value: string, args: string[]) =>
    spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, COREB_V8_TIER_UP: value } });
  assert.equal(run('', ['--input-type=module', '-e', probe]).stdout, String(/^11\./.test(process.versions.v8)));
  assert.equal(run('default', ['--input-type=module', '-e', probe]).stdout, 'false');
  const tuned = run('', [main, 'metrics', '--help']);
  const plain = run('default', [main, 'metrics', '--help']);
  assert.equal(tuned.status, 0, tuned.stderr);
  assert.equal(tuned.stdout, plain.stdout);
  assert.ok(CLI_INTERRUPT_BUDGET > 132 * 1024, 'later than V8 own budget');
});
