/**
 * Parses Python literal syntax (what `repr()` of plain data prints and `ast.literal_eval` reads):
 * strings, numbers, True/False/None, lists, tuples and dicts. Some datasets (codescope's `testcases`)
 * store tests this way instead of JSON.
 */
import { CorebError } from '../core/errors.js';

const ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '0': '\0',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '\n': '',
};

/**
 * Parses one Python literal. Tuples become arrays; dict keys become strings.
 * @throws CorebError `PARSE` with the offset and what was expected.
 */
export function parsePythonLiteral(text: string): unknown {
  let i = 0;
  const fail = (what: string): never => {
    throw new CorebError('PARSE', `Python literal: expected ${what} at offset ${i}, found ${JSON.stringify(text.slice(i, i + 20))}`);
  };
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const str = (raw: boolean): string => {
    const q = text[i];
    const triple = text.startsWith(q.repeat(3), i);
    const close = triple ? q.repeat(3) : q;
    i += close.length;
    let out = '';
    for (;;) {
      if (i >= text.length) fail(`closing ${close}`);
      if (text.startsWith(close, i)) {
        i += close.length;
        return out;
      }
      const c = text[i];
      if (c === '\\' && !raw) {
        const e = text[i + 1];
        if (e === 'x') {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 4), 16));
          i += 4;
        } else if (e === 'u') {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else if (e === 'U') {
          out += String.fromCodePoint(parseInt(text.slice(i + 2, i + 10), 16));
          i += 10;
        } else if (e !== undefined && e in ESCAPES) {
          out += ESCAPES[e];
          i += 2;
        } else {
          out += '\\';
          i += 1;
        }
      } else {
        out += c;
        i++;
      }
    }
  };
  const seq = (close: string): unknown[] => {
    const items: unknown[] = [];
    i++;
    for (;;) {
      ws();
      if (text[i] === close) {
        i++;
        return items;
      }
      items.push(value());
      ws();
      if (text[i] === ',') i++;
      else if (text[i] !== close) fail(`',' or '${close}'`);
    }
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '[') return seq(']');
    if (c === '(') return seq(')');
    if (c === '{') {
      const d: Record<string, unknown> = {};
      i++;
      for (;;) {
        ws();
        if (text[i] === '}') {
          i++;
          return d;
        }
        const k = value();
        ws();
        if (text[i] !== ':') fail("':'");
        i++;
        d[String(k)] = value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] !== '}') fail("',' or '}'");
      }
    }
    const prefix = /^([rRbBuU]{0,2})(['"])/.exec(text.slice(i, i + 3));
    if (prefix) {
      i += prefix[1].length;
      return str(/r/i.test(prefix[1]));
    }
    for (const [word, v] of [
      ['True', true],
      ['False', false],
      ['None', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    const num = /^[+-]?(?:\d[\d_]*\.?[\d_]*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (num) {
      i += num[0].length;
      return Number(num[0].replace(/_/g, ''));
    }
    return fail('a value');
  };
  const v = value();
  ws();
  if (i < text.length) fail('end of input');
  return v;
}
