import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTokenizer, sStem, TermInterner } from './tokenize.js';

const keepAll = createTokenizer({ stopwords: 'none', stem: false, minLength: 1, keepNumbers: true });

test('tokeniser splits camelCase, snake_case, acronyms and digits and keeps the whole identifier', () => {
  assert.deepEqual(keepAll('maxValue'), ['max', 'value', 'maxvalue']);
  assert.deepEqual(keepAll('max_value'), ['max', 'value', 'maxvalue']);
  assert.deepEqual(keepAll('HTTPServer2'), ['http', 'server', '2', 'httpserver2']);
  assert.deepEqual(keepAll('__init__'), ['init']);
  assert.deepEqual(createTokenizer({ stopwords: 'none', stem: false, keepWhole: false, minLength: 1 })('maxValue'), ['max', 'value']);
  assert.deepEqual(createTokenizer({ stopwords: 'none', stem: false, splitIdentifiers: false, minLength: 1 })('maxValue x_y'), ['maxvalue', 'xy']);
});

test('tokeniser drops code punctuation and operators', () => {
  assert.deepEqual(keepAll('std::vector<int> a{1,2}; a->b << 3;'), ['std', 'vector', 'int', 'a', '1', '2', 'a', 'b', '3']);
  assert.deepEqual(keepAll('1 ≤ n ≤ 10^5'), ['1', 'n', '10', '5']);
});

test('tokeniser drops English and code stop words but keeps problem words like map and string', () => {
  const t = createTokenizer({ stopwords: 'english+code', stem: false, minLength: 1 });
  assert.deepEqual(t('public static void main(String[] args)'), ['string']);
  assert.deepEqual(t('You are given a map of the city'), ['given', 'map', 'city']);
  assert.deepEqual(t('func main() { fmt.Println(x) }'), ['x']);
  assert.deepEqual(t('def solve(self): return None'), ['solve']);
});

test('tokeniser handles minimum length, numbers, stemming and non-ASCII letters', () => {
  const t = createTokenizer({ stopwords: 'none', minLength: 2, stem: true, keepNumbers: true });
  assert.deepEqual(t('a b 7 queries Indices'), ['7', 'query', 'indice']);
  assert.deepEqual(createTokenizer({ stopwords: 'none', keepNumbers: false, minLength: 1 })('n 1000000007'), ['n']);
  assert.deepEqual(keepAll('Größe café'), ['größe', 'café']);
});

test('S-stemmer conflates plurals only', () => {
  assert.equal(sStem('arrays'), 'array');
  assert.equal(sStem('queries'), 'query');
  assert.equal(sStem('matches'), 'matche');
  assert.equal(sStem('class'), 'class');
  assert.equal(sStem('status'), 'status');
  assert.equal(sStem('is'), 'is');
});

test('TermInterner gives the terms of the string tokeniser as interned ids, on code, Unicode, surrogates and random text', () => {
  const texts = [
    'int favoriteSequence; maxRemovals(x) HTTPServer2 __init__ max_value maxValue',
    'Größe café naïve ÉTÉ résumé İstanbul ǅemal 1 ≤ n ≤ 10^5 ٣٤ x²',
    'emoji 😀 math 𝐱𝐲 mixed a𝐱b 𝟙𝟚 lone \ud800 x\udc00y end\ud83d',
    'std::vector<int> a{1,2}; a->b << 3; queries Indices classes the THE The',
  ];
  const alphabet = ['a', 'B', 'z', '_', '1', ' ', '\n', '.', 'é', 'Ä', '𝐱', '\ud800', '\udc00', '٣', 'ß', 'İ', 'x'];
  let seed = 7;
  for (let i = 0; i < 300; i++) {
    let t = '';
    const len = seed % 40;
    for (let k = 0; k < len; k++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      t += alphabet[(seed >>> 8) % alphabet.length];
    }
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    texts.push(t);
  }
  for (const options of [
    {},
    { stopwords: 'none', stem: false, keepNumbers: true },
    { splitIdentifiers: false, minLength: 3 },
    { keepWhole: false },
  ] as const) {
    const tokenize = createTokenizer(options);
    const interner = new TermInterner(options);
    for (const pass of [0, 1]) {
      for (const text of texts) {
        interner.reset();
        interner.scan(text);
        const terms = [...interner.vocabulary.keys()];
        const got = Array.from(interner.ids.subarray(0, interner.length), (id) => terms[id]);
        assert.deepEqual(got, tokenize(text), `pass ${pass}, options ${JSON.stringify(options)}: ${JSON.stringify(text)}`);
      }
    }
    // Ids are dense, in order of first occurrence.
    assert.deepEqual([...interner.vocabulary.values()], [...Array(interner.vocabulary.size).keys()]);
  }
});

test('TermInterner keeps words apart across hash-table growth and appends several texts', () => {
  const interner = new TermInterner({ stopwords: 'none', stem: false });
  const letters = (i: number): string => (i < 26 ? '' : letters(Math.floor(i / 26) - 1)) + String.fromCharCode(97 + (i % 26));
  const words = Array.from({ length: 40_000 }, (_, i) => `w${letters(i)}`);
  interner.scan(words.join(' '));
  assert.equal(interner.length, 40_000);
  assert.equal(interner.wordCount, 40_000);
  interner.reset();
  interner.scan('wa wzz');
  interner.scan(' wb');
  const terms = [...interner.vocabulary.keys()];
  assert.deepEqual(
    Array.from(interner.ids.subarray(0, interner.length), (id) => terms[id]),
    ['wa', 'wzz', 'wb'],
  );
});

test('a frozen TermInterner looks terms up in a given vocabulary, skips unknown ones and never changes it', () => {
  const options = { stopwords: 'none', stem: false } as const;
  const vocabulary = new Map([
    ['max', 0],
    ['value', 1],
    ['queue', 2],
  ]);
  const frozen = new TermInterner(options, vocabulary, true);
  for (const pass of [0, 1]) {
    frozen.reset();
    frozen.scan('maxValue unknownWord queue max');
    assert.deepEqual(Array.from(frozen.ids.subarray(0, frozen.length)), [0, 1, 2, 0], `pass ${pass}`);
  }
  assert.equal(vocabulary.size, 3);
  const tokenize = createTokenizer(options);
  assert.deepEqual(
    Array.from(frozen.ids.subarray(0, frozen.length)),
    tokenize('maxValue unknownWord queue max')
      .map((t) => vocabulary.get(t))
      .filter((t) => t !== undefined),
  );
});
