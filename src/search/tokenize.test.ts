import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTokenizer, sStem } from './tokenize.js';

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
