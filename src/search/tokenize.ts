/**
 * The code-aware tokeniser behind BM25: one function that turns natural-language text and source
 * code in any of the five CoREB languages into comparable lowercase terms.
 */

/**
 * English stop words: the classic SMART-derived short list used by Lucene's `EnglishAnalyzer`
 * (33 words) extended with pronouns, auxiliaries and determiners that carry no topic. Problem
 * statements are full of them ("you are given an array of ..."), so they only add noise to long
 * queries.
 */
export const ENGLISH_STOP_WORDS: readonly string[] = [
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'but',
  'by',
  'for',
  'if',
  'in',
  'into',
  'is',
  'it',
  'no',
  'not',
  'of',
  'on',
  'or',
  'such',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'they',
  'this',
  'to',
  'was',
  'will',
  'with',
  'we',
  'you',
  'your',
  'our',
  'its',
  'he',
  'she',
  'him',
  'her',
  'them',
  'i',
  'me',
  'my',
  'am',
  'were',
  'been',
  'being',
  'have',
  'has',
  'had',
  'do',
  'does',
  'did',
  'can',
  'could',
  'should',
  'would',
  'may',
  'might',
  'must',
  'shall',
  'which',
  'who',
  'whom',
  'what',
  'when',
  'where',
  'why',
  'how',
  'than',
  'so',
  'also',
  'each',
  'any',
  'all',
  'both',
  'some',
  'from',
  'about',
  'after',
  'before',
  'over',
  'under',
  'up',
  'down',
  'out',
  'off',
  'again',
  'only',
  'own',
  'same',
  'other',
  'too',
  'very',
  'just',
  'here',
  'those',
  'while',
  'because',
  'until',
  'above',
  'below',
  'between',
  'through',
  'during',
  'further',
  'once',
  'most',
  'more',
  'few',
  'nor',
];

/**
 * Syntax keywords of Python, Java, C++, Ruby and Go, plus each language's ubiquitous boilerplate
 * (`self`, `std`, `cout`, `fmt`, `puts`, `main`, `args`...). They occur in nearly every solution of
 * their language and say nothing about the problem solved; kept, they make a code query match
 * same-language code of any problem. Deliberately NOT listed: type and container names that also
 * describe problems (`string`, `map`, `vector`, `list`, `set`, `array`, `queue`, `long`, `double`),
 * and operations (`sort`, `max`, `min`, `sum`).
 */
export const CODE_STOP_WORDS: readonly string[] = [
  // shared control flow and literals
  'if',
  'else',
  'for',
  'while',
  'do',
  'break',
  'continue',
  'return',
  'switch',
  'case',
  'default',
  'true',
  'false',
  'null',
  'nil',
  'none',
  'new',
  'this',
  'self',
  'class',
  'import',
  'in',
  'not',
  'and',
  'or',
  'is',
  'try',
  'catch',
  'finally',
  'throw',
  'throws',
  'raise',
  // python
  'def',
  'elif',
  'lambda',
  'pass',
  'yield',
  'from',
  'as',
  'with',
  'global',
  'nonlocal',
  'del',
  'assert',
  'async',
  'await',
  'except',
  'print',
  'sys',
  'stdin',
  'readline',
  'input',
  'main',
  'name',
  // java
  'public',
  'private',
  'protected',
  'static',
  'final',
  'void',
  'extends',
  'implements',
  'package',
  'interface',
  'abstract',
  'instanceof',
  'super',
  'system',
  'out',
  'println',
  'args',
  'java',
  'util',
  'io',
  'scanner',
  'buffered',
  'reader',
  'bufferedreader',
  'inputstreamreader',
  'stream',
  // c++
  'include',
  'bits',
  'stdc',
  'using',
  'namespace',
  'std',
  'const',
  'auto',
  'struct',
  'template',
  'typename',
  'typedef',
  'unsigned',
  'signed',
  'sizeof',
  'nullptr',
  'cout',
  'cin',
  'endl',
  'iostream',
  'ios',
  'sync',
  'tie',
  'stdio',
  'cstdio',
  'printf',
  'scanf',
  // ruby
  'end',
  'then',
  'elsif',
  'unless',
  'until',
  'begin',
  'rescue',
  'ensure',
  'module',
  'puts',
  'gets',
  'chomp',
  'attr',
  'require',
  // go
  'func',
  'var',
  'package',
  'defer',
  'go',
  'chan',
  'select',
  'fallthrough',
  'goto',
  'fmt',
  'bufio',
  'os',
  'strconv',
  'println',
  'printf',
  'sprintf',
  'fscan',
  'scan',
];

/** Named stop lists a tokeniser can use. */
export const STOP_LISTS = {
  none: [] as readonly string[],
  english: ENGLISH_STOP_WORDS,
  code: CODE_STOP_WORDS,
  'english+code': [...ENGLISH_STOP_WORDS, ...CODE_STOP_WORDS],
} as const;

/** A named stop list. */
export type StopListName = keyof typeof STOP_LISTS;

/** Options of {@link createTokenizer}. All have defaults tuned on CoREB v202602 (see bm25.ts). */
export interface TokenizerOptions {
  /** Which stop list to drop. Default `'code'`. */
  stopwords?: StopListName;
  /** Split identifiers at camelCase, snake_case and letter/digit boundaries. Default true. */
  splitIdentifiers?: boolean;
  /** Also emit the whole lowercased identifier when it was split into parts. Default true. */
  keepWhole?: boolean;
  /** Minimum term length in characters (shorter terms dropped; digits exempt). Default 1. */
  minLength?: number;
  /** Keep number tokens (runs of digits). Default false (constants shared by unrelated code). */
  keepNumbers?: boolean;
  /** Apply the light English "S-stemmer" (Harman 1991) to alphabetic terms. Default true. */
  stem?: boolean;
}

/** The resolved options, as recorded in a retriever description. */
export type ResolvedTokenizerOptions = Required<TokenizerOptions>;

/** Fills tokeniser defaults. */
export function resolveTokenizerOptions(options: TokenizerOptions = {}): ResolvedTokenizerOptions {
  return {
    stopwords: options.stopwords ?? 'code',
    splitIdentifiers: options.splitIdentifiers ?? true,
    keepWhole: options.keepWhole ?? true,
    minLength: options.minLength ?? 1,
    keepNumbers: options.keepNumbers ?? false,
    stem: options.stem ?? true,
  };
}

/** A word: letters, digits and underscores (Unicode-aware), i.e. an identifier or a number. */
const WORD = /[\p{L}\p{N}_]+/gu;
/**
 * Parts of one identifier: an upper-case run not followed by lower case (`HTTP` in `HTTPServer`),
 * a capitalised or lower-case word, or a digit run. Underscores separate parts.
 */
const PART = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}|\p{N}+|[\p{L}\p{N}]+/gu;
const DIGITS = /^\p{N}+$/u;

/**
 * The "S-stemmer" of Harman (1991), "How effective is suffixing?", JASIS 42(1): `-ies` -> `-y`
 * (not `-eies`/`-aies`), `-es` -> `-e` (not `-aes`/`-ees`/`-oes`), `-s` -> `` (not `-us`/`-ss`).
 * It conflates plurals only ("indices"/"index" stay apart), which keeps identifiers readable.
 */
export function sStem(term: string): string {
  const n = term.length;
  if (n < 4 || term.charCodeAt(n - 1) !== 115 /* s */) return term;
  if (term.endsWith('ies') && !term.endsWith('eies') && !term.endsWith('aies')) return term.slice(0, -3) + 'y';
  if (term.endsWith('es') && !term.endsWith('aes') && !term.endsWith('ees') && !term.endsWith('oes')) {
    return term.slice(0, -1);
  }
  if (term.endsWith('us') || term.endsWith('ss')) return term;
  return term.slice(0, -1);
}

/** A function from text to terms (in text order, duplicates kept). */
export type Tokenizer = (text: string) => string[];

/**
 * Creates the code-aware tokeniser.
 *
 * For each word (maximal run of letters, digits and `_`): when `splitIdentifiers`, the word is cut
 * at `_`, lower->Upper (`maxValue`), acronym->Word (`HTTPServer` -> `HTTP`, `Server`) and
 * letter<->digit boundaries, each part is lowercased and emitted, and (with `keepWhole`) the whole
 * lowercased word without underscores is emitted too when it had more than one part, so
 * `favoriteSequence` matches the text "favorite sequence", and `max_value` (Python) matches
 * `maxValue` (Java) as a whole as well as by its parts. Punctuation and operators
 * (`->`, `::`, `<<`, `{}`) separate words and are dropped: they mark syntax, not the problem.
 * Then terms shorter than `minLength` (numbers exempt) and stop words are dropped and, with `stem`,
 * alphabetic terms are S-stemmed.
 */
export function createTokenizer(options: TokenizerOptions = {}): Tokenizer {
  const wordTerms = createWordTerms(options);
  const cache = new Map<string, string[]>();
  const cachedWordTerms = (word: string): string[] => {
    const hit = cache.get(word);
    if (hit !== undefined) return hit;
    const out = wordTerms(word);
    if (cache.size < 200_000) cache.set(word, out);
    return out;
  };
  return (text: string): string[] => {
    const terms: string[] = [];
    for (const m of text.matchAll(WORD)) {
      for (const t of cachedWordTerms(m[0])) terms.push(t);
    }
    return terms;
  };
}

/** The terms of one word (a maximal run of letters, digits and `_`), uncached; see {@link createTokenizer}. */
function createWordTerms(options: TokenizerOptions): (word: string) => string[] {
  const o = resolveTokenizerOptions(options);
  const stop = new Set(STOP_LISTS[o.stopwords]);
  const normalise = (raw: string): string | undefined => {
    const isNumber = DIGITS.test(raw);
    if (isNumber) return o.keepNumbers ? raw : undefined;
    let t = raw.toLowerCase();
    if (t.length < o.minLength || stop.has(t)) return undefined;
    if (o.stem) t = sStem(t);
    return t;
  };
  return (word: string): string[] => {
    const out: string[] = [];
    const parts = o.splitIdentifiers ? (word.match(PART) ?? []) : [word];
    if (parts.length <= 1) {
      const t = normalise(word.replace(/_/g, ''));
      if (t !== undefined && t.length > 0) out.push(t);
    } else {
      for (const p of parts) {
        const t = normalise(p);
        if (t !== undefined) out.push(t);
      }
      if (o.keepWhole) {
        const whole = word.replace(/_/g, '').toLowerCase();
        if (!stop.has(whole)) out.push(whole);
      }
    }
    return out;
  };
}

/** One code point that may be part of a word (letter or number; `_` is handled separately). */
const WORD_CHAR = /^[\p{L}\p{N}]$/u;

/** Returns a typed array of at least `need` elements holding `a`'s first `used` elements (doubling). */
function grown<T extends Int32Array | Uint16Array>(a: T, need: number, used: number): T {
  if (need <= a.length) return a;
  let size = Math.max(16, a.length);
  while (size < need) size *= 2;
  const out = new (a.constructor as new (n: number) => T)(size);
  out.set(a.subarray(0, used));
  return out;
}

/**
 * The tokeniser of {@link createTokenizer} as an interner of integer term ids, for indexing large
 * corpora (and, `frozen`, for looking query terms up in an index's vocabulary): {@link scan} finds the words of a text by their UTF-16 code units (exactly the words of
 * `[\p{L}\p{N}_]+`), looks each word up in an open-addressing hash table keyed by its code units
 * (no substring, no string hashing), and appends the ids of its terms to {@link ids}. Only a word
 * seen for the first time is cut into terms as a string (by the same rules as
 * {@link createTokenizer}, so the terms are identical) and its new terms get the next free ids, in
 * order of first occurrence. Memory: the distinct words (2 bytes per code unit plus 16 bytes each)
 * and the term vocabulary, independent of the number of tokens.
 */
export class TermInterner {
  /** term -> id, ids dense from 0 in order of first occurrence. */
  readonly vocabulary: Map<string, number>;
  /** When true, terms not in {@link vocabulary} are skipped instead of added. */
  readonly frozen: boolean;
  /** Term ids of the scanned texts since the last {@link reset}: `ids[0 .. length)`. */
  ids = new Int32Array(1024);
  /** Number of ids in {@link ids}. */
  length = 0;
  private readonly wordTerms: (word: string) => string[];
  private slots = new Int32Array(1 << 16); // word id + 1, 0 = empty
  private words = 0;
  private wordHash = new Int32Array(1024);
  private wordCharStart = new Int32Array(1025);
  private chars = new Uint16Array(1 << 16);
  private wordTermStart = new Int32Array(1025);
  private wordTermIds = new Int32Array(4096);
  /** BMP code unit -> 0 unknown, 1 word character, 2 not; ASCII prefilled. */
  private readonly charClass = new Uint8Array(65536);

  /**
   * @param options tokeniser options (the terms are those of {@link createTokenizer} with them).
   * @param vocabulary an existing term -> id map to extend (or, when `frozen`, to look terms up
   *   in: query terms against a built index; the map is then never changed). Default: a new map.
   * @param frozen skip terms missing from `vocabulary` instead of adding them. Default false.
   */
  constructor(options: TokenizerOptions = {}, vocabulary: Map<string, number> = new Map(), frozen = false) {
    this.vocabulary = vocabulary;
    this.frozen = frozen;
    this.wordTerms = createWordTerms(options);
    for (let c = 0; c < 128; c++) {
      const w = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
      this.charClass[c] = w ? 1 : 2;
    }
  }

  /** Forgets the ids of previous texts (the vocabulary and the word table stay). */
  reset(): void {
    this.length = 0;
  }

  /** Number of distinct words seen. */
  get wordCount(): number {
    return this.words;
  }

  /** Code units of the word character at `i` of `text` (1 or 2), or 0 when it is not one. */
  private wordCharWidth(text: string, i: number, c: number): number {
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const lo = text.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) return WORD_CHAR.test(text.slice(i, i + 2)) ? 2 : 0;
    }
    let k = this.charClass[c];
    if (k === 0) {
      k = WORD_CHAR.test(String.fromCharCode(c)) ? 1 : 2;
      this.charClass[c] = k;
    }
    return k === 1 ? 1 : 0;
  }

  /** Appends the term ids of `text` to {@link ids} (interning new terms). */
  scan(text: string): void {
    const n = text.length;
    const charClass = this.charClass;
    let i = 0;
    while (i < n) {
      let c = text.charCodeAt(i);
      let w = c < 128 ? (charClass[c] === 1 ? 1 : 0) : this.wordCharWidth(text, i, c);
      if (w === 0) {
        i++;
        continue;
      }
      const start = i;
      let h = -2128831035; // FNV-1a offset basis
      do {
        h = Math.imul(h ^ c, 16777619);
        if (w === 2) h = Math.imul(h ^ text.charCodeAt(i + 1), 16777619);
        i += w;
        if (i >= n) break;
        c = text.charCodeAt(i);
        w = c < 128 ? (charClass[c] === 1 ? 1 : 0) : this.wordCharWidth(text, i, c);
      } while (w !== 0);
      const word = this.findWord(text, start, i, h);
      const from = this.wordTermStart[word];
      const to = this.wordTermStart[word + 1];
      if (this.length + (to - from) > this.ids.length) this.ids = grown(this.ids, this.length + (to - from), this.length);
      const ids = this.ids;
      const termIds = this.wordTermIds;
      for (let k = from; k < to; k++) ids[this.length++] = termIds[k];
    }
  }

  /** The id of the word `text[start .. end)` with hash `h`, added (and cut into terms) when new. */
  private findWord(text: string, start: number, end: number, h: number): number {
    const len = end - start;
    let mask = this.slots.length - 1;
    let s = h & mask;
    for (;;) {
      const e = this.slots[s];
      if (e === 0) break;
      const word = e - 1;
      if (this.wordHash[word] === h) {
        const cs = this.wordCharStart[word];
        if (this.wordCharStart[word + 1] - cs === len) {
          let k = 0;
          while (k < len && this.chars[cs + k] === text.charCodeAt(start + k)) k++;
          if (k === len) return word;
        }
      }
      s = (s + 1) & mask;
    }
    const word = this.words++;
    if (this.words * 2 > this.slots.length) {
      this.rehash();
      mask = this.slots.length - 1;
      s = h & mask;
      while (this.slots[s] !== 0) s = (s + 1) & mask;
    }
    this.slots[s] = word + 1;
    this.wordHash = grown(this.wordHash, word + 1, word);
    this.wordCharStart = grown(this.wordCharStart, word + 2, word + 1);
    this.wordTermStart = grown(this.wordTermStart, word + 2, word + 1);
    const cs = this.wordCharStart[word];
    this.chars = grown(this.chars, cs + len, cs);
    for (let k = 0; k < len; k++) this.chars[cs + k] = text.charCodeAt(start + k);
    this.wordHash[word] = h;
    this.wordCharStart[word + 1] = cs + len;
    const terms = this.wordTerms(text.slice(start, end));
    const ts = this.wordTermStart[word];
    this.wordTermIds = grown(this.wordTermIds, ts + terms.length, ts);
    let te = ts;
    for (let k = 0; k < terms.length; k++) {
      let id = this.vocabulary.get(terms[k]);
      if (id === undefined) {
        if (this.frozen) continue;
        id = this.vocabulary.size;
        this.vocabulary.set(terms[k], id);
      }
      this.wordTermIds[te++] = id;
    }
    this.wordTermStart[word + 1] = te;
    return word;
  }

  /** Doubles the hash table. */
  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let word = 0; word < this.words - 1; word++) {
      let s = this.wordHash[word] & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = word + 1;
    }
    this.slots = slots;
  }
}
