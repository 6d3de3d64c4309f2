/**
 * Numbers read exactly as C reads them, because trec_eval does: `strtod`/`atof` for run scores
 * (correctly rounded decimals, hex floats, inf, nan, trailing garbage ignored) and `atol` for qrels
 * labels, from JS strings or straight from the bytes of a file.
 */

/** Exact powers of ten 10^0..10^22 (every one is a double), for Clinger's fast path. */
export const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

const ATOF_RE =
  /^[+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)/i;

/**
 * Parses the longest numeric prefix of `text` like C `atof`/`strtod`: decimal, hex floats,
 * `inf`/`infinity`, `nan`; trailing garbage ignored (`0.5abc` -> 0.5); no number -> 0.
 */
export function parseStrtod(text: string): number {
  const m = ATOF_RE.exec(text.trimStart());
  if (m === null) return 0;
  const tok = m[0];
  const neg = tok[0] === '-';
  const body = tok[0] === '-' || tok[0] === '+' ? tok.slice(1) : tok;
  const lower = body.toLowerCase();
  if (lower.startsWith('inf')) return neg ? -Infinity : Infinity;
  if (lower.startsWith('nan')) return NaN;
  if (lower.startsWith('0x')) {
    const pm = /^0x([0-9a-f]*)\.?([0-9a-f]*)(?:p([+-]?\d+))?$/.exec(lower) as RegExpExecArray;
    const digits = pm[1] + pm[2];
    const exp = (pm[3] === undefined ? 0 : Number(pm[3])) - 4 * pm[2].length;
    const mant = BigInt('0x' + (digits === '' ? '0' : digits));
    const v = hexScale(mant, exp);
    return neg ? -v : v;
  }
  const v = Number(body.endsWith('.') ? body.slice(0, -1) : body);
  return neg ? -v : v;
}

/** `mant * 2^exp` rounded once to a double (hex floats). */
function hexScale(mant: bigint, exp: number): number {
  if (mant === 0n) return 0;
  // Shift the mantissa into 53+ bits so Number() rounds once, then scale by an exact power of two.
  let m = mant;
  let e = exp;
  const bits = m.toString(2).length;
  if (bits > 64) {
    const drop = bits - 64;
    const sticky = (m & ((1n << BigInt(drop)) - 1n)) !== 0n ? 1n : 0n;
    m = (m >> BigInt(drop)) | sticky;
    e += drop;
  }
  return Number(m) * 2 ** e;
}

/**
 * Parses one score token `bytes[start, end)` exactly like strtod: Clinger's fast path when the
 * decimal has <= 15 significant digits and |exponent| <= 22, else {@link parseStrtod} on the text.
 */
export function parseStrtodBytes(bytes: Buffer, start: number, end: number): number {
  let i = start;
  let neg = false;
  let c = bytes[i];
  if (c === 45 || c === 43) {
    neg = c === 45;
    i++;
  }
  let mant = 0;
  let sig = 0;
  let exp = 0;
  let digits = 0;
  for (; i < end; i++) {
    c = bytes[i] - 48;
    if (c < 0 || c > 9) break;
    digits++;
    if (sig > 0 || c !== 0) {
      mant = mant * 10 + c;
      sig++;
    }
  }
  if (i < end && bytes[i] === 46) {
    i++;
    for (; i < end; i++) {
      c = bytes[i] - 48;
      if (c < 0 || c > 9) break;
      digits++;
      if (sig > 0 || c !== 0) {
        mant = mant * 10 + c;
        sig++;
      }
      exp--;
    }
  }
  if (digits > 0 && i < end && (bytes[i] === 101 || bytes[i] === 69)) {
    let j = i + 1;
    let eneg = false;
    if (j < end && (bytes[j] === 45 || bytes[j] === 43)) {
      eneg = bytes[j] === 45;
      j++;
    }
    let e = 0;
    let ed = 0;
    for (; j < end; j++) {
      c = bytes[j] - 48;
      if (c < 0 || c > 9) break;
      if (e < 100000) e = e * 10 + c;
      ed++;
    }
    if (ed > 0) {
      exp += eneg ? -e : e;
      i = j;
    }
  }
  if (i === end && digits > 0 && sig <= 15) {
    let v: number;
    if (mant === 0) v = 0;
    else if (exp === 0) v = mant;
    else if (exp > 0 && exp <= 22) v = mant * POW10[exp];
    else if (exp < 0 && exp >= -22) v = mant / POW10[-exp];
    else return parseStrtod(bytes.toString('latin1', start, end));
    return neg ? -v : v;
  }
  return parseStrtod(bytes.toString('utf8', start, end));
}

/** C `atol` of a token: optional sign and leading digits; anything else stops (`2.7` -> 2, `x` -> 0). */
export function parseAtolBytes(bytes: Buffer, start: number, end: number): number {
  let i = start;
  let neg = false;
  if (bytes[i] === 45 || bytes[i] === 43) {
    neg = bytes[i] === 45;
    i++;
  }
  let v = 0;
  for (; i < end; i++) {
    const c = bytes[i] - 48;
    if (c < 0 || c > 9) break;
    v = v * 10 + c;
  }
  return neg ? -v : v;
}
