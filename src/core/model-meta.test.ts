import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CorebError } from './errors.js';
import { describedModel, formatParameters, mergeModelMeta, parseModelMetaFile } from './model-meta.js';

test('a --model-meta file: coreb names and MTEB names, by row or model; a model_meta.json of MTEB as it is', () => {
  const m = parseModelMetaFile(
    JSON.stringify({
      mine: { parameters: 7, embedDim: 8, codeSpecialised: true },
      'org/x': { n_parameters: 9, open_weights: false, release_date: '2025-06-05T00:00:00' },
    }),
    'meta.json',
  );
  assert.deepEqual(m.get('mine'), { parameters: 7, embedDim: 8, codeSpecialised: true });
  assert.deepEqual(m.get('org/x'), { parameters: 9, openWeights: false, releaseDate: '2025-06-05' });
  const mteb = parseModelMetaFile(JSON.stringify({ name: 'org/y', revision: 'r', n_parameters: 3, framework: ['PyTorch'] }), 'model_meta.json');
  assert.deepEqual([...mteb.entries()], [['org/y', { parameters: 3 }]]);
});

test('bad metadata is refused naming the file and the field', () => {
  const err = (text: string) => {
    try {
      parseModelMetaFile(text, 'meta.json');
    } catch (e) {
      assert.ok(e instanceof CorebError);
      return `${e.code} ${e.location.file} ${e.message}`;
    }
    assert.fail('accepted');
  };
  assert.match(
    err('{"a": {"parameters": "7B"}}'),
    /^VALIDATION meta\.json meta\.json: field `a\.parameters`: must be a non-negative integer or null, got "7B"/,
  );
  assert.match(err('{"a": {"releaseDate": "June"}}'), /field `a\.releaseDate`: must be an ISO date/);
  // a malformed date is refused, not cut to its first ten characters
  assert.match(err('{"a": {"releaseDate": "2024-13-45"}}'), /must be an ISO date/);
  assert.match(err('{"a": {"releaseDate": "2024-02-30"}}'), /must be an ISO date/);
  assert.match(err('{"a": {"releaseDate": "2024-05-01garbage"}}'), /must be an ISO date/);
  assert.equal(parseModelMetaFile('{"a": {"releaseDate": "2024-05-01T12:00:00Z"}}', 'm.json').get('a')?.releaseDate, '2024-05-01');
  // a field coreb does not know is named in a warning, not dropped in silence
  const warnings: string[] = [];
  parseModelMetaFile('{"a": {"parameters": 5, "paramters": 7}}', 'meta.json', (w) => warnings.push(w));
  assert.deepEqual(warnings.length, 1);
  assert.match(warnings[0], /meta\.json: a: `paramters` is not a metadata field coreb knows, ignored \(known: parameters, /);
  assert.match(err('{"a": 3}'), /field `a`: must be an object of metadata fields/);
  assert.match(err('[1]'), /must be a JSON object keyed by retriever name or model id/);
  assert.match(err('{'), /^PARSE meta\.json meta\.json: model metadata is not valid JSON/);
});

test('merging keeps what is not overridden and names both sources; the model of a description; parameter counts for people', () => {
  const base = { ...mergeModelMeta(undefined, { parameters: 5, license: 'mit' }, 'preset') };
  const merged = mergeModelMeta(base, { parameters: 6 }, 'file.json');
  assert.equal(merged.parameters, 6);
  assert.equal(merged.license, 'mit');
  assert.equal(merged.source, 'preset; file.json');
  assert.equal(describedModel({ kind: 'dense', encoder: { provider: 'tei', model: 'BAAI/bge' } }), 'BAAI/bge');
  assert.equal(describedModel({ kind: 'rerank', firstStage: { kind: 'bm25' }, reranker: { model: 'r' } }), undefined);
  assert.equal(describedModel({ kind: 'bm25' }), undefined);
  assert.deepEqual(
    [formatParameters(595_776_512), formatParameters(7_567_295_488), formatParameters(1e9), formatParameters(0), formatParameters(null)],
    ['595.8M', '7.57B', '1B', '0', '?'],
  );
});
