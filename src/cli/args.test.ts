import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCorebError } from '../core/errors.js';
import { parseChoiceOption, parseIntOption } from './args.js';

test('parseChoiceOption returns the value, or the fallback when the option is absent', () => {
  assert.equal(parseChoiceOption('format', 'json', ['trec', 'json'] as const, 'trec'), 'json');
  assert.equal(parseChoiceOption('format', undefined, ['trec', 'json'] as const, 'trec'), 'trec');
  assert.equal(parseChoiceOption('protocol', undefined, ['coreb', 'beir'] as const, undefined), undefined);
});

test('parseChoiceOption rejects other values with a USAGE error naming the option and the valid values', () => {
  assert.throws(
    () => parseChoiceOption('ndcg', 'graded', ['trec', 'strict'] as const, 'trec'),
    (e: unknown) => isCorebError(e, 'USAGE') && e.message === '--ndcg must be one of trec, strict, got `graded`',
  );
});

test('parseIntOption checks integers and their lower bound', () => {
  assert.equal(parseIntOption('depth', '10', 1000, 1), 10);
  assert.equal(parseIntOption('depth', undefined, 1000, 1), 1000);
  assert.throws(() => parseIntOption('depth', '0', 1000, 1), /--depth must be an integer >= 1, got `0`/);
  assert.throws(() => parseIntOption('depth', '2.5', 1000, 1), /--depth must be an integer >= 1/);
});
