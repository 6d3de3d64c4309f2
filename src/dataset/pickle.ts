/**
 * A small reader for Python pickles (protocols 0–5), enough for plain data: strings, bytes, numbers,
 * booleans, None, lists, tuples and dicts. LiveCodeBench stores private tests as a pickled JSON
 * string, and coreb must read them without Python. Class instances and globals are rejected.
 */
import { CorebError } from '../core/errors.js';

const MARK = Symbol('mark');
type Item = unknown;

/**
 * Parses a pickle of plain data.
 * @throws CorebError `PARSE` naming the opcode and offset when the pickle uses anything else
 * (objects, globals, persistent ids) or is truncated.
 */
export function parsePickle(bytes: Uint8Array): unknown {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dec = new TextDecoder('utf-8');
  const latin1 = new TextDecoder('latin1');
  const stack: Item[] = [];
  const memo = new Map<number, Item>();
  let pos = 0;
  const fail = (msg: string): never => {
    throw new CorebError('PARSE', `pickle: ${msg} at byte ${pos}; only plain data (str, bytes, int, float, list, tuple, dict) is supported`);
  };
  const need = (n: number): void => {
    if (pos + n > bytes.length) fail('truncated');
  };
  const u8 = (): number => {
    need(1);
    return bytes[pos++];
  };
  const u16 = (): number => {
    need(2);
    const v = view.getUint16(pos, true);
    pos += 2;
    return v;
  };
  const u32 = (): number => {
    need(4);
    const v = view.getUint32(pos, true);
    pos += 4;
    return v;
  };
  const u64 = (): number => {
    need(8);
    const v = Number(view.getBigUint64(pos, true));
    pos += 8;
    return v;
  };
  const take = (n: number): Uint8Array => {
    need(n);
    const b = bytes.subarray(pos, pos + n);
    pos += n;
    return b;
  };
  const line = (): string => {
    const end = bytes.indexOf(10, pos);
    if (end < 0) fail('unterminated line');
    const s = latin1.decode(bytes.subarray(pos, end));
    pos = end + 1;
    return s;
  };
  const pop = (): Item => {
    if (stack.length === 0) fail('stack underflow');
    return stack.pop();
  };
  const popMark = (): Item[] => {
    const i = stack.lastIndexOf(MARK);
    if (i < 0) fail('no MARK');
    const items = stack.splice(i);
    items.shift();
    return items;
  };
  const top = (): Item => {
    if (stack.length === 0) fail('stack underflow');
    return stack[stack.length - 1];
  };
  const setItems = (d: Item, kv: Item[]): void => {
    if (d === null || typeof d !== 'object' || Array.isArray(d)) fail('SETITEM on a non-dict');
    for (let i = 0; i + 1 < kv.length; i += 2) (d as Record<string, Item>)[String(kv[i])] = kv[i + 1];
  };
  const longFrom = (b: Uint8Array): number => {
    let v = 0n;
    for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]);
    if (b.length > 0 && b[b.length - 1] & 0x80) v -= 1n << BigInt(8 * b.length);
    return Number(v);
  };
  for (;;) {
    const op = u8();
    switch (op) {
      case 0x80: // PROTO
        u8();
        break;
      case 0x95: // FRAME
        u64();
        break;
      case 0x2e: // STOP
        return pop();
      case 0x8c: // SHORT_BINUNICODE
        stack.push(dec.decode(take(u8())));
        break;
      case 0x58: // BINUNICODE
        stack.push(dec.decode(take(u32())));
        break;
      case 0x8d: // BINUNICODE8
        stack.push(dec.decode(take(u64())));
        break;
      case 0x56: // UNICODE (protocol 0, raw-unicode-escape)
        stack.push(
          line().replace(/\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})/g, (_, a: string, b: string) => String.fromCodePoint(parseInt(a ?? b, 16))),
        );
        break;
      case 0x43: // SHORT_BINBYTES
        stack.push(take(u8()).slice());
        break;
      case 0x42: // BINBYTES
        stack.push(take(u32()).slice());
        break;
      case 0x8e: // BINBYTES8
        stack.push(take(u64()).slice());
        break;
      case 0x4e: // NONE
        stack.push(null);
        break;
      case 0x88: // NEWTRUE
        stack.push(true);
        break;
      case 0x89: // NEWFALSE
        stack.push(false);
        break;
      case 0x4a: // BININT
        need(4);
        stack.push(view.getInt32(pos, true));
        pos += 4;
        break;
      case 0x4b: // BININT1
        stack.push(u8());
        break;
      case 0x4d: // BININT2
        stack.push(u16());
        break;
      case 0x8a: // LONG1
        stack.push(longFrom(take(u8())));
        break;
      case 0x8b: // LONG4
        stack.push(longFrom(take(u32())));
        break;
      case 0x49: {
        // INT (protocol 0; also True/False as 01/00)
        const s = line();
        stack.push(s === '01' ? true : s === '00' ? false : Number(s));
        break;
      }
      case 0x4c: // LONG (protocol 0: digits then `L`)
        stack.push(Number(line().replace(/L$/, '')));
        break;
      case 0x47: // BINFLOAT (big-endian)
        need(8);
        stack.push(view.getFloat64(pos, false));
        pos += 8;
        break;
      case 0x46: // FLOAT (protocol 0)
        stack.push(Number(line()));
        break;
      case 0x5d: // EMPTY_LIST
        stack.push([]);
        break;
      case 0x7d: // EMPTY_DICT
        stack.push({});
        break;
      case 0x29: // EMPTY_TUPLE
        stack.push([]);
        break;
      case 0x28: // MARK
        stack.push(MARK);
        break;
      case 0x61: {
        // APPEND
        const v = pop();
        (top() as Item[]).push(v);
        break;
      }
      case 0x65: {
        // APPENDS
        const items = popMark();
        (top() as Item[]).push(...items);
        break;
      }
      case 0x6c: // LIST
      case 0x74: // TUPLE
        stack.push(popMark());
        break;
      case 0x85: // TUPLE1
        stack.push([pop()]);
        break;
      case 0x86: {
        // TUPLE2
        const b = pop();
        stack.push([pop(), b]);
        break;
      }
      case 0x87: {
        // TUPLE3
        const c = pop();
        const b = pop();
        stack.push([pop(), b, c]);
        break;
      }
      case 0x64: {
        // DICT
        const d: Record<string, Item> = {};
        setItems(d, popMark());
        stack.push(d);
        break;
      }
      case 0x73: {
        // SETITEM
        const v = pop();
        const k = pop();
        setItems(top(), [k, v]);
        break;
      }
      case 0x75: {
        // SETITEMS
        const kv = popMark();
        setItems(top(), kv);
        break;
      }
      case 0x94: // MEMOIZE
        memo.set(memo.size, top());
        break;
      case 0x71: // BINPUT
        memo.set(u8(), top());
        break;
      case 0x72: // LONG_BINPUT
        memo.set(u32(), top());
        break;
      case 0x70: // PUT
        memo.set(Number(line()), top());
        break;
      case 0x68: // BINGET
        stack.push(memo.get(u8()));
        break;
      case 0x6a: // LONG_BINGET
        stack.push(memo.get(u32()));
        break;
      case 0x67: // GET
        stack.push(memo.get(Number(line())));
        break;
      case 0x30: // POP
        pop();
        break;
      default:
        fail(`unsupported opcode 0x${op.toString(16).padStart(2, '0')}`);
    }
  }
}
