import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeToyAdapter } from '../support/adapters.js';
import { runCli } from '../support/cli.js';
import { numpySkipReason, runPython } from '../support/python.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'coreb-soup-e2e-'));

/**
 * numpy's reading of the soup, from the documented safetensors layout only: for every module,
 * s_out·B·A of the output against Σ wᵢ·sᵢ·Bᵢ·Aᵢ of the inputs; prints the worst relative error.
 */
const PY_CHECK = String.raw`
import sys, json, struct, numpy as np
def load(d):
    cfg = json.load(open(d + '/adapter_config.json'))
    raw = open(d + '/adapter_model.safetensors', 'rb').read()
    (n,) = struct.unpack('<Q', raw[:8])
    assert (8 + n) % 8 == 0
    h = json.loads(raw[8:8 + n]); meta = h.pop('__metadata__', {})
    buf = raw[8 + n:]
    t = {}
    for k, e in h.items():
        b, end = e['data_offsets']
        if e['dtype'] == 'BF16':
            a = (np.frombuffer(buf[b:end], '<u2').astype(np.uint32) << 16).view(np.float32)
        else:
            a = np.frombuffer(buf[b:end], {'F32': '<f4', 'F16': '<f2', 'F64': '<f8'}[e['dtype']])
        t[k] = a.reshape(e['shape']).astype(np.float64)
    return cfg, t, meta
out, inputs, weights = sys.argv[1], sys.argv[2:4], [float(w) for w in sys.argv[4].split(',')]
cfg, t, meta = load(out)
worst = 0.0
for k in t:
    if not k.endswith('lora_A.weight'): continue
    kb = k.replace('lora_A', 'lora_B')
    got = (cfg['lora_alpha'] / cfg['r']) * t[kb] @ t[k]
    want = 0
    for w, d in zip(weights, inputs):
        c, ti, _ = load(d)
        want = want + w * (c['lora_alpha'] / c['r']) * ti[kb] @ ti[k]
    worst = max(worst, float(np.abs(got - want).max() / max(1.0, np.abs(want).max())))
print(json.dumps({'worst': worst, 'method': json.loads(meta['coreb_soup'])['method'], 'r': cfg['r']}))
`;

test('coreb soup --method cat writes an adapter numpy reads as the mean of the merged deltas; --check passes', async (t) => {
  const dir = tmp();
  await writeToyAdapter(join(dir, 'a'), { seed: 21 });
  await writeToyAdapter(join(dir, 'b'), { seed: 22 });
  const r = runCli([
    'soup',
    join(dir, 'a'),
    join(dir, 'b'),
    '--out',
    join(dir, 'o'),
    '--method',
    'cat',
    '--weights',
    '0.5,0.5',
    '--check',
    '--sample',
    '3',
  ]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /cat OK: max relative error \S+ \(tolerance 1\.000e-6\); linear is \S+ away/);
  assert.match(r.stdout, /^overall\t/m);
  assert.match(r.stderr, /wrote .*\/o \(cat, rank 8, 9 tensors, F32, weights 0\.5,0\.5\)/);
  const skip = numpySkipReason();
  if (skip) return t.skip(skip);
  const py = JSON.parse(runPython(PY_CHECK, [join(dir, 'o'), join(dir, 'a'), join(dir, 'b'), '0.5,0.5'])) as {
    worst: number;
    method: string;
    r: number;
  };
  assert.equal(py.method, 'cat');
  assert.equal(py.r, 8);
  assert.ok(py.worst <= 1e-6, `numpy finds ${py.worst}`);
});

test('coreb soup --check --json reports linear far from the mean delta; bad input exits with the mismatch', async () => {
  const dir = tmp();
  await writeToyAdapter(join(dir, 'a'), { seed: 23, dtype: 'BF16' });
  await writeToyAdapter(join(dir, 'b'), { seed: 24, dtype: 'BF16' });
  const r = runCli(['soup', join(dir, 'a'), join(dir, 'b'), '--check', '--json', '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const rep = JSON.parse(r.stdout) as { ok: boolean; dtype: string; overall: Record<string, { maxRelError: number; relFrobeniusError: number }> };
  assert.equal(rep.dtype, 'BF16');
  assert.ok(rep.overall.cat.maxRelError <= 2 ** -7);
  assert.ok(rep.overall.linear.relFrobeniusError > 0.01);
  await writeToyAdapter(join(dir, 'c'), { seed: 25, alpha: 16 });
  const bad = runCli(['soup', join(dir, 'a'), join(dir, 'c'), '--out', join(dir, 'o')]);
  assert.equal(bad.status, 4);
  assert.match(bad.stderr, /lora_alpha differs: .*\/a: 8; .*\/c: 16/);
  const usage = runCli(['soup', join(dir, 'a'), join(dir, 'b')]);
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /needs --out DIR \(or --check\)/);
});
