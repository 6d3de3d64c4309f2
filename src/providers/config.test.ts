/**
 * Spec parsing, validation messages (specs and config files), preset matching, template application,
 * and the registry agreeing with the HTTP providers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { findConfigFile, loadEmbedderConfigs } from './config-file.js';
import { applyTemplate, parseEmbedderSpec, resolveEmbedderConfig, selectInputType, selectTemplate } from './config.js';
import { findPreset, MODEL_PRESETS } from './presets.js';
import { COHERE } from './http/cohere.js';
import { GEMINI } from './http/gemini.js';
import { JINA } from './http/jina.js';
import { OLLAMA } from './http/ollama.js';
import { OPENAI } from './http/openai.js';
import { TEI } from './http/tei.js';
import { VOYAGE } from './http/voyage.js';
import { PROVIDERS, type ProviderEntry } from './registry.js';
import { planBatches } from './http/batching.js';
import { backoffMs, parseRetryAfterMs } from '../core/retry.js';

test('a spec gives provider, model (with : and /) and typed parameters', () => {
  const c = parseEmbedderSpec('dense:ollama:qwen3-embedding:0.6b?dimensions=256&normalize=true&baseUrl=http://h:1,http://h:2/&balance=round-robin');
  assert.equal(c.provider, 'ollama');
  assert.equal(c.model, 'qwen3-embedding:0.6b');
  assert.equal(c.dimensions, 256);
  assert.equal(c.normalize, true);
  assert.deepEqual(c.baseUrl, ['http://h:1', 'http://h:2']);
  assert.equal(c.balance, 'round-robin');
  assert.equal(parseEmbedderSpec('dense:tei:Qwen/Qwen3-Embedding-0.6B').model, 'Qwen/Qwen3-Embedding-0.6B');
});

test('bad specs say what is wrong and what is valid', () => {
  assert.throws(() => parseEmbedderSpec('dense:openai'), /dense:<provider>:<model>/);
  assert.throws(() => parseEmbedderSpec('dense:openai:m?colour=red'), /unknown parameter `colour`; valid parameters: .*baseUrl/);
  assert.throws(() => parseEmbedderSpec('dense:openai:m?dimensions=-3'), /`dimensions` must be an integer >= 1, got `-3`/);
  assert.throws(() => parseEmbedderSpec('dense:openai:m?pooling=max'), /one of mean, cls, last-token/);
  assert.throws(() => parseEmbedderSpec('dense:openai:m?baseUrl=http://user:pw@h/v1'), /must not contain credentials/);
  assert.throws(() => parseEmbedderSpec('dense:openai:m?baseUrl=ftp://h'), /http\(s\) URL/);
  assert.throws(() => parseEmbedderSpec('dense:gemini:m?baseUrl=' + encodeURIComponent('https://h/v1beta?key=abc')), /must not have a query string/);
});

test('presets match hub ids, short names and Ollama tags; user values win', () => {
  assert.equal(findPreset('Qwen/Qwen3-Embedding-0.6B')?.id, 'Qwen/Qwen3-Embedding-0.6B');
  assert.equal(findPreset('qwen3-embedding:0.6b')?.id, 'Qwen/Qwen3-Embedding-0.6B');
  assert.equal(findPreset('jina-code-embeddings-1.5b')?.id, 'jinaai/jina-code-embeddings-1.5b');
  assert.equal(findPreset('my-own-model'), undefined);
  const r = resolveEmbedderConfig(parseEmbedderSpec('dense:onnx:Qwen/Qwen3-Embedding-0.6B?pooling=mean'));
  assert.equal(r.pooling, 'mean');
  assert.equal(r.paddingSide, 'left');
  assert.equal(r.normalize, true);
  const none = resolveEmbedderConfig(parseEmbedderSpec('dense:onnx:Qwen/Qwen3-Embedding-0.6B?preset=none'));
  assert.equal(none.pooling, undefined);
  assert.throws(() => resolveEmbedderConfig(parseEmbedderSpec('dense:onnx:x?preset=nope')), /unknown preset `nope`/);
});

test('every preset cites a source and every template keeps a {text} slot', () => {
  for (const p of MODEL_PRESETS) {
    assert.match(p.source, /https:\/\//, p.id);
    for (const roles of Object.values(p.templates)) {
      for (const t of Object.values(roles ?? {})) assert.ok(String(t).includes('{text}'), `${p.id}: ${t}`);
    }
  }
});

test('templates per task and role, overridable from the spec', () => {
  const r = resolveEmbedderConfig(parseEmbedderSpec('dense:openai:jina-code-embeddings-0.5b'));
  assert.equal(
    applyTemplate(selectTemplate(r.templates, 'query', 'code2code'), 'x = 1').text,
    'Find an equivalent code snippet given the following code snippet:\nx = 1',
  );
  assert.equal(applyTemplate(selectTemplate(r.templates, 'document', 'text2code'), 'y').text, 'Candidate code snippet:\ny');
  const o = resolveEmbedderConfig(parseEmbedderSpec('dense:openai:jina-code-embeddings-0.5b?queryTemplate=Q:%20{text}'));
  assert.equal(applyTemplate(selectTemplate(o.templates, 'query', 'text2code'), 'z').text, 'Q: z');
  assert.equal(applyTemplate('prefix: ', 'abc').text, 'prefix: abc');
  assert.equal(applyTemplate('{text}', '$& $1').text, '$& $1');
  const j = resolveEmbedderConfig(parseEmbedderSpec('dense:jina:jina-code-embeddings-0.5b'));
  assert.equal(selectInputType(j.inputTypes, 'document', 'text2code'), 'nl2code.passage');
});

test('batch planning: count and token budget, order kept, an oversized text alone', () => {
  const b = planBatches(['aaa', 'bbb', 'ccc', 'x'.repeat(30), 'd'], 2, 5, (t) => t.length);
  assert.deepEqual(
    b.map((x) => [x.start, x.end]),
    [
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
    ],
  );
  assert.deepEqual(
    planBatches(['a', 'b', 'c', 'd', 'e'], 2, 100, () => 1).map((x) => [x.start, x.end]),
    [
      [0, 2],
      [2, 4],
      [4, 5],
    ],
  );
});

test('Retry-After parsing (seconds, HTTP-date, retry-after-ms) and jittered backoff bounds', () => {
  assert.equal(parseRetryAfterMs(new Headers({ 'retry-after': '2' })), 2000);
  assert.equal(parseRetryAfterMs(new Headers({ 'retry-after-ms': '150', 'retry-after': '9' })), 150);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now), 3000);
  assert.equal(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' })), undefined);
  assert.equal(
    backoffMs(3, 100, 10_000, () => 0),
    400,
  );
  assert.equal(backoffMs(3, 100, 10_000, () => 0.999999) < 800, true);
  assert.equal(
    backoffMs(20, 100, 5000, () => 0),
    2500,
  );
});

test('the registry names the same API key variable as each HTTP provider uses (what `coreb providers` lists)', () => {
  const specs = [OPENAI, TEI, OLLAMA, VOYAGE, GEMINI, JINA, COHERE];
  const http = Object.entries(PROVIDERS)
    .filter(([, p]) => p.kind === 'http')
    .map(([name]) => name);
  assert.deepEqual(specs.map((s) => s.name).sort(), http.sort());
  for (const s of specs) {
    const entry: ProviderEntry = (PROVIDERS as Record<string, ProviderEntry>)[s.name];
    assert.equal(entry.apiKeyEnv, s.defaultApiKeyEnv, `provider ${s.name}`);
  }
});

test('config file errors name the file and the field, and say what is valid', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-config-file-'));
  try {
    const file = join(dir, 'coreb.config.json');
    writeFileSync(file, JSON.stringify({ embedders: { mine: 'openai' } }));
    await assert.rejects(loadEmbedderConfigs(file), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'CONFIG');
      assert.match(e.message, /coreb\.config\.json: field `embedders\.mine`: must be an object with at least `provider` and `model`/);
      return true;
    });
    writeFileSync(file, '{"embedders": ');
    await assert.rejects(loadEmbedderConfigs(file), /coreb\.config\.json: not valid JSON/);
    assert.throws(() => findConfigFile(dir, 'other.json'), /config file other\.json does not exist; give an existing file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
