/**
 * Resolving `dense:` specs: provider specs parse directly; a named config-file entry takes query
 * parameters as overrides, with a repeated `baseUrl` kept whole as in a provider spec.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { resolveDenseSpec } from './dense-embedder.js';

function withConfig(config: unknown, fn: (cwd: string) => Promise<void>): Promise<void> {
  const cwd = mkdtempSync(join(tmpdir(), 'coreb-dense-spec-'));
  writeFileSync(join(cwd, 'coreb.config.json'), JSON.stringify(config));
  return fn(cwd).finally(() => rmSync(cwd, { recursive: true, force: true }));
}

test('a provider spec is parsed as given, even when a config file exists', async () => {
  await withConfig({ embedders: { mine: { provider: 'tei', model: 'm' } } }, async (cwd) => {
    const c = await resolveDenseSpec('dense:ollama:qwen3-embedding:0.6b?dimensions=256', { cwd, env: {} });
    assert.equal(c.provider, 'ollama');
    assert.equal(c.model, 'qwen3-embedding:0.6b');
    assert.equal(c.dimensions, 256);
  });
});

test('a named entry takes query parameters as overrides; a repeated baseUrl keeps every URL', async () => {
  const config = { embedders: { mine: { provider: 'openai', model: 'm', baseUrl: 'http://127.0.0.1:1/v1', dimensions: 64 } } };
  await withConfig(config, async (cwd) => {
    const plain = await resolveDenseSpec('dense:mine', { cwd, env: {} });
    assert.deepEqual(plain.baseUrl, ['http://127.0.0.1:1/v1']);
    assert.equal(plain.dimensions, 64);
    const c = await resolveDenseSpec('dense:mine?baseUrl=http://127.0.0.1:2/v1&baseUrl=http://127.0.0.1:3/v1&dimensions=32', {
      cwd,
      env: {},
    });
    assert.equal(c.provider, 'openai');
    assert.deepEqual(c.baseUrl, ['http://127.0.0.1:2/v1', 'http://127.0.0.1:3/v1']);
    assert.equal(c.dimensions, 32);
  });
});

test('an unknown name says which names the config file has', async () => {
  await withConfig({ embedders: { mine: { provider: 'tei', model: 'm' } } }, async (cwd) => {
    await assert.rejects(resolveDenseSpec('dense:yours', { cwd, env: {} }), /named embedder in .*coreb\.config\.json \(names: mine\)/);
  });
});
