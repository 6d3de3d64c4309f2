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
  const o = resolveTokenizerOptions(options);
  const stop = new Set(STOP_LISTS[o.stopwords]);
  const cache = new Map<string, string[]>();

  const normalise = (raw: string): string | undefined => {
    const isNumber = DIGITS.test(raw);
    if (isNumber) return o.keepNumbers ? raw : undefined;
    let t = raw.toLowerCase();
    if (t.length < o.minLength || stop.has(t)) return undefined;
    if (o.stem) t = sStem(t);
    return t;
  };

  const wordTerms = (word: string): string[] => {
    const hit = cache.get(word);
    if (hit !== undefined) return hit;
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
    if (cache.size < 200_000) cache.set(word, out);
    return out;
  };

  return (text: string): string[] => {
    const terms: string[] = [];
    for (const m of text.matchAll(WORD)) {
      for (const t of wordTerms(m[0])) terms.push(t);
    }
    return terms;
  };
}
