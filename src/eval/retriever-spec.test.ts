import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCorebError } from '../core/errors.js';
import { parseByteSize, parseRetrieverSpec } from './retriever-spec.js';

test('bm25 specs carry typed parameters and reject unknown or malformed ones', () => {
  assert.deepEqual(parseRetrieverSpec('bm25'), { kind: 'bm25', text: 'bm25', params: {} });
  const s = parseRetrieverSpec('bm25?k1=0.9&b=0.4&stem=false&fields=text,meta.abbreviatedText&queryTf=raw');
  assert.equal(s.kind, 'bm25');
  assert.deepEqual(s.kind === 'bm25' && s.params, { k1: 0.9, b: 0.4, stem: false, fields: ['text', 'meta.abbreviatedText'], queryTf: 'raw' });
  assert.throws(
    () => parseRetrieverSpec('bm25?k1=abc'),
    (e) => isCorebError(e, 'USAGE') && /k1/.test(e.message),
  );
  assert.throws(
    () => parseRetrieverSpec('bm25?kk=1'),
    (e) => isCorebError(e, 'USAGE') && /unknown bm25 parameter `kk`/.test(e.message),
  );
});

test('file and model specs keep the text after the first colon', () => {
  assert.deepEqual(parseRetrieverSpec('run:/tmp/a:b.trec'), { kind: 'run', text: 'run:/tmp/a:b.trec', file: '/tmp/a:b.trec' });
  assert.deepEqual(parseRetrieverSpec('embeddings:vec.jsonl'), { kind: 'embeddings', text: 'embeddings:vec.jsonl', file: 'vec.jsonl', search: {} });
  assert.deepEqual(parseRetrieverSpec('embeddings:vecs/?dtype=float16&threads=2').valueOf(), {
    kind: 'embeddings',
    text: 'embeddings:vecs/?dtype=float16&threads=2',
    file: 'vecs/',
    search: { dtype: 'float16', threads: 2 },
  });
  assert.deepEqual(parseRetrieverSpec('embeddings:vecs/?memory=512MB').valueOf(), {
    kind: 'embeddings',
    text: 'embeddings:vecs/?memory=512MB',
    file: 'vecs/',
    search: { memoryBytes: 512 * 2 ** 20 },
  });
  for (const [text, bytes] of [
    ['0', 0],
    ['1048576', 2 ** 20],
    ['1.5g', 1.5 * 2 ** 30],
    ['2GiB', 2 ** 31],
    ['64 KB', 2 ** 16],
  ] as const) {
    assert.equal(parseByteSize(text), bytes, text);
  }
  assert.throws(
    () => parseRetrieverSpec('embeddings:vecs/?memory=lots'),
    (e) => isCorebError(e, 'USAGE') && /memory must be a size such as 512MB/.test(e.message) && /`lots`/.test(e.message),
  );
  // memory= belongs to embeddings:; a dense: model keeps it as its own parameter.
  const dense = parseRetrieverSpec('dense:openai:m?memory=1GB');
  assert.equal(dense.kind === 'dense' ? dense.spec : '', 'openai:m?memory=1GB');
  assert.deepEqual(parseRetrieverSpec('embeddings:vecs/?kernel=ort&threads=1').valueOf(), {
    kind: 'embeddings',
    text: 'embeddings:vecs/?kernel=ort&threads=1',
    file: 'vecs/',
    search: { kernel: 'ort', threads: 1 },
  });
  const ortDense = parseRetrieverSpec('dense:openai:m?dimensions=256&kernel=ort');
  assert.deepEqual(ortDense.kind === 'dense' ? [ortDense.spec, ortDense.search] : [], ['openai:m?dimensions=256', { kernel: 'ort' }]);
  assert.throws(
    () => parseRetrieverSpec('embeddings:vecs/?kernel=blas'),
    (e) => isCorebError(e, 'USAGE') && /kernel must be wasm, js or ort, got `blas`/.test(e.message),
  );
  assert.throws(
    () => parseRetrieverSpec('embeddings:v.jsonl?dtype=int8'),
    (e) => isCorebError(e, 'USAGE') && /dtype must be float32 or float16/.test(e.message),
  );
  assert.throws(
    () => parseRetrieverSpec('embeddings:v.jsonl?k1=2'),
    (e) => isCorebError(e, 'USAGE') && /unknown parameter `k1`/.test(e.message),
  );
  assert.deepEqual(parseRetrieverSpec('dense:openai:m?dimensions=256&dtype=float16'), {
    kind: 'dense',
    text: 'dense:openai:m?dimensions=256&dtype=float16',
    spec: 'openai:m?dimensions=256',
    search: { dtype: 'float16' },
  });
  assert.deepEqual(parseRetrieverSpec('dense:openai:text-embedding-3-small?dimensions=256'), {
    kind: 'dense',
    text: 'dense:openai:text-embedding-3-small?dimensions=256',
    spec: 'openai:text-embedding-3-small?dimensions=256',
    search: {},
  });
  assert.throws(
    () => parseRetrieverSpec('run:'),
    (e) => isCorebError(e, 'USAGE'),
  );
  assert.throws(
    () => parseRetrieverSpec('splade'),
    (e) => isCorebError(e, 'USAGE') && /valid forms/.test(e.message),
  );
});

test('rrf splits members at top-level commas, reads k and one weight per member', () => {
  const s = parseRetrieverSpec('rrf:bm25,run:a.trec,(rrf:bm25?k1=2,run:b.trec),k=10,weights=1,0.5,2');
  assert.equal(s.kind, 'rrf');
  if (s.kind !== 'rrf') return;
  assert.equal(s.k, 10);
  assert.deepEqual(s.weights, [1, 0.5, 2]);
  assert.deepEqual(
    s.members.map((m) => m.kind),
    ['bm25', 'run', 'rrf'],
  );
  const d = parseRetrieverSpec('rrf:bm25,run:a.trec');
  assert.equal(d.kind === 'rrf' && d.k, 60);
  assert.equal(d.kind === 'rrf' && d.weights, null);
  assert.throws(
    () => parseRetrieverSpec('rrf:bm25'),
    (e) => isCorebError(e, 'USAGE') && /two member/.test(e.message),
  );
  assert.throws(
    () => parseRetrieverSpec('rrf:bm25,run:x,weights=1'),
    (e) => isCorebError(e, 'USAGE') && /1 weights for 2 members/.test(e.message),
  );
});

test('es specs keep the index and every URL-decoded parameter value; an index is required', () => {
  const s = parseRetrieverSpec('es:coreb-{task}?url=http://a:9200&url=http%3A%2F%2Fb%3A9200&fields=title^2,text');
  assert.equal(s.kind, 'es');
  assert.equal(s.kind === 'es' && s.index, 'coreb-{task}');
  assert.deepEqual(s.kind === 'es' && [...s.params], [
    ['url', ['http://a:9200', 'http://b:9200']],
    ['fields', ['title^2,text']],
  ]);
  assert.throws(
    () => parseRetrieverSpec('es:?url=http://a:9200'),
    (e) => isCorebError(e, 'USAGE') && /needs an index/.test(e.message),
  );
  const r = parseRetrieverSpec('rrf:bm25,(es:code?fields=title,text)');
  assert.equal(r.kind === 'rrf' && r.members[1].kind, 'es');
});

test('name= is taken out of any spec (query string, or an rrf part) and checked', () => {
  assert.deepEqual(parseRetrieverSpec('bm25?name=lexical'), { kind: 'bm25', text: 'bm25?name=lexical', params: {}, name: 'lexical' });
  const b = parseRetrieverSpec('bm25?k1=1.2&name=bm25%20classic&b=0.75');
  assert.deepEqual(b.kind === 'bm25' && b.params, { k1: 1.2, b: 0.75 });
  assert.equal(b.name, 'bm25 classic');
  assert.equal(b.text, 'bm25?k1=1.2&name=bm25%20classic&b=0.75');
  assert.deepEqual(parseRetrieverSpec('run:/tmp/a.trec?name=mine'), {
    kind: 'run',
    text: 'run:/tmp/a.trec?name=mine',
    file: '/tmp/a.trec',
    name: 'mine',
  });
  const d = parseRetrieverSpec('dense:openai:m?baseUrl=http://127.0.0.1:8000/v1&name=e5&maxRetries=1');
  assert.equal(d.name, 'e5');
  const params = new URLSearchParams(d.kind === 'dense' ? d.spec.split('?')[1] : '');
  assert.deepEqual([...params.keys()], ['baseUrl', 'maxRetries'], 'name= is not passed to the provider');
  assert.equal(params.get('baseUrl'), 'http://127.0.0.1:8000/v1');
  assert.deepEqual(parseRetrieverSpec('top-ranked?name=mteb'), { kind: 'top-ranked', text: 'top-ranked?name=mteb', file: null, name: 'mteb' });
  const r = parseRetrieverSpec('rrf:bm25?name=a,run:x.trec?name=b,k=10,name=hybrid');
  assert.equal(r.name, 'hybrid');
  assert.deepEqual(r.kind === 'rrf' && r.members.map((m) => m.name), ['a', 'b']);
  for (const bad of ['bm25?name=', 'bm25?name=a&name=b', 'rrf:bm25,bm25?k1=1,name=a,name=b']) {
    assert.throws(
      () => parseRetrieverSpec(bad),
      (e) => isCorebError(e, 'USAGE') && /name=/.test(e.message),
      bad,
    );
  }
});

test('bm25 presets: classic and anserini one parameter away, explicit parameters win, unknown names listed', () => {
  const p = (s: string) => {
    const x = parseRetrieverSpec(s);
    return x.kind === 'bm25' ? x.params : undefined;
  };
  assert.deepEqual(p('bm25?preset=classic'), { k1: 1.2, b: 0.75, queryTf: 'raw' });
  assert.deepEqual(p('bm25?preset=anserini'), { k1: 0.9, b: 0.4, queryTf: 'raw' });
  assert.deepEqual(p('bm25?preset=tuned'), {});
  assert.deepEqual(p('bm25?b=0.5&preset=classic'), { k1: 1.2, b: 0.5, queryTf: 'raw' });
  assert.throws(
    () => parseRetrieverSpec('bm25?preset=okapi'),
    (e) => isCorebError(e, 'USAGE') && /unknown bm25 preset `okapi`; valid: tuned, classic, anserini/.test(e.message),
  );
});
