import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAtolBytes, parseStrtod, parseStrtodBytes } from './strtod.js';

const bytes = (s: string): [Buffer, number, number] => {
  const b = Buffer.from(`  ${s}  `);
  return [b, 2, b.length - 2];
};

test('parseStrtodBytes (fast path and fallback) equals parseStrtod on the same token', () => {
  const tokens = [
    '0.1',
    '-0',
    '+7',
    '1.5E+3',
    '1e-46',
    '0x1p-2',
    '-inf',
    'Infinity',
    'x',
    '.25',
    '5.',
    '0.5abc',
    '123456789012345678',
    '9007199254740993',
    '1e23',
    '2.2250738585072014e-308',
    '1e400',
    '000123.4500',
    '1e',
    '-',
  ];
  for (const t of tokens) {
    const got = parseStrtodBytes(...bytes(t));
    assert.ok(Object.is(got, parseStrtod(t)), `${t}: ${got} vs ${parseStrtod(t)}`);
  }
  assert.ok(Number.isNaN(parseStrtodBytes(...bytes('nan(0x1)'))));
});

test('decimals are correctly rounded like strtod (Number), hex floats exact, garbage ignored', () => {
  for (const s of ['0.30000001', '16777217', '0.000123456789012345678', '1e22', '4.9e-324', '1.7976931348623157e308']) {
    assert.equal(parseStrtodBytes(...bytes(s)), Number(s), s);
  }
  assert.equal(parseStrtod('0x1.8p1'), 3);
  assert.equal(parseStrtod('0x.1'), 1 / 16);
  assert.equal(parseStrtod('0x1fffffffffffff'), 2 ** 53 - 1);
  assert.equal(parseStrtod('  7.0e1xyz'), 70);
  assert.equal(parseStrtod(''), 0);
});

test('parseAtolBytes reads sign and leading digits only, like C atol', () => {
  const cases: Array<[string, number]> = [
    ['2', 2],
    ['2.7', 2],
    ['-1', -1],
    ['+3x', 3],
    ['x', 0],
    ['', 0],
    ['007', 7],
  ];
  for (const [s, v] of cases) assert.ok(Object.is(parseAtolBytes(...bytes(s)) + 0, v), s);
});
