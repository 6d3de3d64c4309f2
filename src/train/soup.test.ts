import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { matmul, TOY_MODULES, writeToyAdapter, type ToyTensors } from '../../test/support/adapters.js';
import { isCorebError } from '../core/errors.js';
import { openSafetensors } from '../tensors/safetensors.js';
import { checkSoup, soupAdapters } from './soup.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'coreb-soup-'));

async function readAdapter(dir: string) {
  const config = JSON.parse(readFileSync(join(dir, 'adapter_config.json'), 'utf8')) as Record<string, unknown>;
  const r = await openSafetensors(join(dir, 'adapter_model.safetensors'));
  const t = new Map<string, Float64Array>();
  for (const info of r.header.tensors) t.set(info.name, await r.readFloats(info.name));
  const out = { config, tensors: t, metadata: r.header.metadata, dtypes: new Set(r.header.tensors.map((x) => x.dtype)) };
  await r.close();
  return out;
}

/** max |x − y| and max |y|. */
function maxDiff(x: Float64Array, y: Float64Array): { err: number; ref: number } {
  let err = 0;
  let ref = 0;
  for (let i = 0; i < x.length; i++) {
    err = Math.max(err, Math.abs(x[i] - y[i]));
    ref = Math.max(ref, Math.abs(y[i]));
  }
  return { err, ref };
}

/** Σ wᵢ·sᵢ·Bᵢ·Aᵢ for one module, computed from the inputs as written. */
function meanDelta(inputs: ToyTensors[], weights: number[], s: number, m: (typeof TOY_MODULES)[number], r: number): Float64Array {
  const out = new Float64Array(m.out * m.in);
  inputs.forEach((t, i) => {
    const d = matmul(t.get(`${m.name}.lora_B.weight`)!.values, t.get(`${m.name}.lora_A.weight`)!.values, m.out, r, m.in);
    for (let k = 0; k < d.length; k++) out[k] += weights[i] * s * d[k];
  });
  return out;
}

for (const dtype of ['F32', 'BF16'] as const) {
  test(`cat (${dtype}): the merged delta equals the weighted mean of the merged deltas`, async () => {
    const dir = tmp();
    const inputs = [await writeToyAdapter(join(dir, 'a'), { seed: 1, dtype }), await writeToyAdapter(join(dir, 'b'), { seed: 2, dtype })];
    for (const weights of [
      [0.5, 0.5],
      [0.25, 0.75],
    ]) {
      const out = join(dir, `cat-${weights.join('-')}`);
      const res = await soupAdapters({ adapters: [join(dir, 'a'), join(dir, 'b')], outDir: out, method: 'cat', weights });
      assert.equal(res.r, 8);
      const soup = await readAdapter(out);
      assert.deepEqual([soup.config.r, soup.config.lora_alpha, soup.config.use_rslora], [8, 8, false]);
      assert.deepEqual([...soup.dtypes], [dtype]);
      const sOut = (soup.config.lora_alpha as number) / (soup.config.r as number);
      for (const m of TOY_MODULES) {
        const got = matmul(soup.tensors.get(`${m.name}.lora_B.weight`)!, soup.tensors.get(`${m.name}.lora_A.weight`)!, m.out, 8, m.in).map(
          (x) => x * sOut,
        );
        const { err, ref } = maxDiff(got, meanDelta(inputs, weights, 8 / 4, m, 4));
        // F32: B entries wᵢ·sᵢ·Bᵢ rounded to float32. BF16: exact when wᵢ·sᵢ is a power of two
        // (0.5·2), else each B entry is rounded to bf16 (8 significant bits).
        const tol = dtype === 'F32' ? 1e-6 : weights[0] === 0.5 ? 1e-12 : 2 ** -7;
        assert.ok(err <= tol * Math.max(1, ref), `${m.name} ${weights}: error ${err} (max |delta| ${ref})`);
      }
      // A full tensor is averaged elementwise.
      const full = 'base_model.model.score.weight';
      const want = inputs[0].get(full)!.values.map((x, k) => weights[0] * x + weights[1] * inputs[1].get(full)!.values[k]);
      assert.ok(maxDiff(soup.tensors.get(full)!, want).err <= (dtype === 'F32' ? 1e-7 : 2 ** -8));
    }
  });
}

test('cat of BF16 adapters written as F32 is within 1e-6 for any weights', async () => {
  const dir = tmp();
  const inputs = [
    await writeToyAdapter(join(dir, 'a'), { seed: 1, dtype: 'BF16' }),
    await writeToyAdapter(join(dir, 'b'), { seed: 2, dtype: 'BF16' }),
  ];
  await soupAdapters({ adapters: [join(dir, 'a'), join(dir, 'b')], outDir: join(dir, 'o'), method: 'cat', weights: [0.3, 0.7], dtype: 'F32' });
  const soup = await readAdapter(join(dir, 'o'));
  assert.deepEqual([...soup.dtypes], ['F32']);
  for (const m of TOY_MODULES) {
    const got = matmul(soup.tensors.get(`${m.name}.lora_B.weight`)!, soup.tensors.get(`${m.name}.lora_A.weight`)!, m.out, 8, m.in);
    const { err, ref } = maxDiff(got, meanDelta(inputs, [0.3, 0.7], 2, m, 4));
    assert.ok(err <= 1e-6 * Math.max(1, ref), `${m.name}: ${err}`);
  }
});

test('linear: A and B are each the weighted average (rank and alpha kept); its delta is not the mean delta', async () => {
  const dir = tmp();
  const inputs = [await writeToyAdapter(join(dir, 'a'), { seed: 3 }), await writeToyAdapter(join(dir, 'b'), { seed: 4 })];
  const out = join(dir, 'lin');
  await soupAdapters({ adapters: [join(dir, 'a'), join(dir, 'b')], outDir: out });
  const soup = await readAdapter(out);
  assert.deepEqual([soup.config.r, soup.config.lora_alpha], [4, 8]);
  for (const [name, t] of inputs[0]) {
    const want = t.values.map((x, k) => Math.fround(0.5 * x + 0.5 * inputs[1].get(name)!.values[k]));
    assert.deepEqual([...soup.tensors.get(name)!], [...want], name);
  }
  const m = TOY_MODULES[0];
  const lin = matmul(soup.tensors.get(`${m.name}.lora_B.weight`)!, soup.tensors.get(`${m.name}.lora_A.weight`)!, m.out, 4, m.in).map((x) => 2 * x);
  const { err, ref } = maxDiff(lin, meanDelta(inputs, [0.5, 0.5], 2, m, 4));
  assert.ok(err > 1e-3 * ref, `independent random adapters: linear differs by cross terms (${err})`);
});

test('outputs record method, weights, dtype and input hashes in the config and __metadata__', async () => {
  const dir = tmp();
  await writeToyAdapter(join(dir, 'a'), { seed: 5 });
  await writeToyAdapter(join(dir, 'b'), { seed: 6 });
  await soupAdapters({
    adapters: [join(dir, 'a'), join(dir, 'b')],
    outDir: join(dir, 'o'),
    method: 'cat',
    weights: [0.4, 0.6],
    corebVersion: '9.9.9',
  });
  const soup = await readAdapter(join(dir, 'o'));
  const rec = soup.config.coreb_soup as {
    method: string;
    weights: number[];
    dtype: string;
    tool: string;
    inputs: Array<{ dir: string; adapter_model_sha256: string }>;
  };
  assert.deepEqual([rec.method, rec.weights, rec.dtype, rec.tool], ['cat', [0.4, 0.6], 'F32', 'coreb 9.9.9']);
  assert.equal(rec.inputs.length, 2);
  assert.match(rec.inputs[0].adapter_model_sha256, /^[0-9a-f]{64}$/);
  assert.notEqual(rec.inputs[0].adapter_model_sha256, rec.inputs[1].adapter_model_sha256);
  assert.equal(soup.metadata.format, 'pt');
  assert.deepEqual(JSON.parse(soup.metadata.coreb_soup), rec);
  assert.equal(soup.config.base_model_name_or_path, 'toy/base-model');
});

test('mismatched adapters: every mismatch is named with the value per folder', async () => {
  const dir = tmp();
  await writeToyAdapter(join(dir, 'a'), { seed: 1 });
  await writeToyAdapter(join(dir, 'r8'), { seed: 2, r: 8, config: { base_model_name_or_path: 'other/model', target_modules: ['q_proj'] } });
  await writeToyAdapter(join(dir, 'fewer'), { seed: 3, modules: TOY_MODULES.slice(1) });
  await assert.rejects(
    soupAdapters({ adapters: [join(dir, 'a'), join(dir, 'r8')], outDir: join(dir, 'o') }),
    (e: unknown) =>
      isCorebError(e, 'VALIDATION') &&
      /base_model_name_or_path differs: .*\/a: "toy\/base-model"; .*\/r8: "other\/model"/.test((e as Error).message) &&
      /target_modules differs/.test((e as Error).message) &&
      /\br differs: .*\/a: 4; .*\/r8: 8/.test((e as Error).message) &&
      /has shape \[4,10\] in .* but \[8,10\]/.test((e as Error).message),
  );
  await assert.rejects(
    soupAdapters({ adapters: [join(dir, 'a'), join(dir, 'fewer')], outDir: join(dir, 'o') }),
    /tensor names differ between .*: only in the first: base_model\.model\.model\.layers\.0\.self_attn\.q_proj\.lora_A\.weight/,
  );
  writeFileSync(join(dir, 'a', 'adapter_config.json'), JSON.stringify({ peft_type: 'LORA', r: 4, lora_alpha: 8, use_dora: true }));
  await assert.rejects(soupAdapters({ adapters: [join(dir, 'a'), join(dir, 'r8')], outDir: join(dir, 'o') }), /DoRA adapters/);
  await assert.rejects(
    soupAdapters({ adapters: [join(dir, 'nope'), join(dir, 'r8')], outDir: join(dir, 'o') }),
    /not a PEFT adapter folder: adapter_config\.json missing/,
  );
  await assert.rejects(soupAdapters({ adapters: [join(dir, 'r8')], outDir: join(dir, 'o') }), /at least two adapter folders/);
  await assert.rejects(
    soupAdapters({ adapters: [join(dir, 'r8'), join(dir, 'r8')], outDir: join(dir, 'o'), weights: [1] }),
    /weights must be 2 finite numbers/,
  );
});

test('memory stays bounded by the tensors in flight, not the file', async () => {
  const dir = tmp();
  const modules = Array.from({ length: 60 }, (_, i) => ({ name: `base_model.model.model.layers.${i}.mlp.up_proj`, out: 64, in: 48 }));
  await writeToyAdapter(join(dir, 'a'), { seed: 7, modules, fullTensor: false });
  await writeToyAdapter(join(dir, 'b'), { seed: 8, modules, fullTensor: false });
  for (const method of ['linear', 'cat'] as const) {
    const res = await soupAdapters({ adapters: [join(dir, 'a'), join(dir, 'b')], outDir: join(dir, method), method });
    const largest = 64 * 4 * 8; // the largest input tensor, decoded to doubles
    const fileDoubles = 60 * (64 * 4 + 4 * 48) * 8;
    assert.ok(res.peakBytes <= 4 * largest, `${method}: peak ${res.peakBytes} bytes`);
    assert.ok(res.peakBytes * 20 < 2 * fileDoubles, `${method}: peak ${res.peakBytes} vs inputs ${2 * fileDoubles}`);
  }
});

test('checkSoup: cat within 1e-6 of the mean delta, linear reported as far off, a written cat soup checked too', async () => {
  const dir = tmp();
  await writeToyAdapter(join(dir, 'a'), { seed: 11 });
  await writeToyAdapter(join(dir, 'b'), { seed: 12 });
  await soupAdapters({ adapters: [join(dir, 'a'), join(dir, 'b')], outDir: join(dir, 'o'), method: 'cat' });
  const rep = await checkSoup({ adapters: [join(dir, 'a'), join(dir, 'b')], written: join(dir, 'o'), sample: 3 });
  assert.equal(rep.ok, true);
  assert.equal(rep.modules.length, 3);
  assert.ok(rep.overall.cat.maxRelError <= 1e-6, String(rep.overall.cat.maxRelError));
  assert.ok(rep.overall.written.maxRelError <= 1e-6);
  assert.ok(rep.overall.linear.relFrobeniusError > 1e-2, String(rep.overall.linear.relFrobeniusError));
  assert.ok(
    rep.modules.every((m) => m.rowsChecked === m.shape[0]),
    'small modules: every row',
  );
  const few = await checkSoup({ adapters: [join(dir, 'a'), join(dir, 'b')], sample: 2, rows: 3 });
  assert.deepEqual(
    few.modules.map((m) => m.rowsChecked),
    [3, 3],
  );
  assert.equal(few.ok, true);
  // A soup that is not the average fails the check: here the written one is replaced by one input.
  const bad = join(dir, 'bad');
  await writeToyAdapter(bad, { seed: 11, r: 8, config: { coreb_soup: { method: 'cat' }, lora_alpha: 16 } });
  const rep2 = await checkSoup({ adapters: [join(dir, 'a'), join(dir, 'b')], written: bad, sample: 2 });
  assert.equal(rep2.ok, false);
});
