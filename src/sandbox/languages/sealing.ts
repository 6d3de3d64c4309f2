/**
 * Sealed `program` tests: the pieces every language uses to join a candidate's code and a test
 * program so that the candidate cannot fake the tests' end. The proof that the tests ran to their
 * end is a token the candidate never sees (read from a descriptor only the test's end reads, or, for
 * remote judges that take one source file, written into it), and the test program's checks and exits
 * are rewritten to names the candidate's code cannot reach. Each language module (cpp.ts, python.ts,
 * …) builds its sealed program from these; docs/exec.md "Threat model" says what stays possible.
 */
import { randomBytes } from 'node:crypto';

/**
 * How a sealed test program proves it reached its end: `fd`, the local judge, which gives the run's
 * token on descriptor `fd` (sandbox.ts `ProcessSpec.secret`), read only at the end; `literal`, remote
 * judges, which run one source as given (the token is then in the source, see docs/exec.md).
 */
export type TestProof = { channel: 'fd'; fd: number; offset: number; length: number } | { channel: 'literal'; token: string };

/**
 * The version of the sealing rules, in every judge's settings (`describe()`): results judged under
 * an older version (the proof token in the environment, version 0) are judged again on resume.
 */
export const SEALING_VERSION = 1;

/** Length of a run's proof token, hex digits (96 bits). */
export const PROOF_TOKEN_LENGTH = 24;
/** Length of the proof file the token hides in, hex digits. */
export const PROOF_FILE_LENGTH = 160;

/**
 * A descriptor proof for one build: the descriptor (64–191, below the sandbox's open-files limit of
 * 256) and where in the run's proof file the token is. The file is random hex with the token at
 * `offset`; only the sealed test's end knows where, and a program that prints what it finds on its
 * descriptors shows the rest of the file, which the verdict refuses (verdict.ts).
 */
export function createFdProof(): TestProof {
  const b = randomBytes(2);
  return { channel: 'fd', fd: 64 + (b[0] & 127), offset: b[1] % (PROOF_FILE_LENGTH - PROOF_TOKEN_LENGTH + 1), length: PROOF_TOKEN_LENGTH };
}

/** A run's proof token and the file holding it at `offset` (random hex both). */
export function createProofFile(offset: number): { token: string; file: string } {
  const file = randomBytes(PROOF_FILE_LENGTH / 2).toString('hex');
  return { token: file.slice(offset, offset + PROOF_TOKEN_LENGTH), file };
}

/** What a language's `sealProgram` returns: the whole program of one `program` test. */
export interface SealedProgram {
  /** The main source: the candidate's code with the sealed test program. */
  text: string;
  /** The main file's name when the sealing decides it (default: the language's). */
  fileName?: string;
  /** Other files beside the main one (Go's test files, a module the test imports). */
  extraFiles?: Array<{ name: string; text: string }>;
  /** Java: the class to run (the test program's, never one the candidate declares). */
  mainClass?: string;
  /** False when the test program has no end to prove (no `main`): its exit status alone decides. */
  checked: boolean;
  /** What was done, in words (the result's `normalisations`). */
  notes: string[];
}

/** A fresh suffix for the names a sealed program adds (the candidate cannot guess them before it is built). */
export function sealSuffix(): string {
  return randomBytes(6).toString('hex');
}

/**
 * `text` with comments and the insides of string and character literals blanked (same length, line
 * breaks kept), for finding code by pattern: C-style comments, `"…"`, `'…'` and Go's raw `` `…` ``.
 */
export function maskCode(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to && k < out.length; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') {
      const e = text.indexOf('\n', i);
      const end = e < 0 ? text.length : e;
      blank(i, end);
      i = end - 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const e = text.indexOf('*/', i + 2);
      const end = e < 0 ? text.length : e + 2;
      blank(i, end);
      i = end - 1;
    } else if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      for (; j < text.length && text[j] !== c; j++) {
        if (text[j] === '\\' && c !== '`') j++;
        else if (text[j] === '\n' && c !== '`') break;
      }
      blank(i + 1, j);
      i = j;
    }
  }
  return out.join('');
}

/** The index of the `}` closing the `{` at `open` in masked text; -1 when unbalanced. */
export function closingBrace(masked: string, open: number): number {
  let depth = 0;
  for (let i = open; i < masked.length; i++) {
    if (masked[i] === '{') depth++;
    else if (masked[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/** One edit of a source text: replace `[from, to)` with `text`. */
export interface Edit {
  from: number;
  to: number;
  text: string;
}

/** `text` with `edits` applied (non-overlapping, any order). */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.from - a.from)) out = out.slice(0, e.from) + e.text + out.slice(e.to);
  return out;
}

/**
 * Edits replacing each match of `pattern` (global) in the code of a text (comments and literals
 * excluded: matched on its `masked` form, {@link maskCode}) with `replacement`.
 */
export function replaceInCode(masked: string, pattern: RegExp, replacement: string): Edit[] {
  const edits: Edit[] = [];
  for (const m of masked.matchAll(pattern)) edits.push({ from: m.index, to: m.index + m[0].length, text: replacement });
  return edits;
}

/** Where a function's declaration and body are, found by {@link findFunction}. */
export interface FunctionSpan {
  /** Index of the function's name. */
  nameAt: number;
  /** Length of the name. */
  nameLength: number;
  /** Index of the body's `{`. */
  open: number;
  /** Index of the body's `}`. */
  close: number;
  /** The whole match of the declaration, up to and with `{`. */
  declaration: string;
}

/**
 * The first declaration matching `decl` (which must end at the body's `{` and capture the name in
 * a group named `name`) in the code of `masked`, with its body's braces; undefined when none.
 */
export function findFunction(masked: string, decl: RegExp): FunctionSpan | undefined {
  const re = new RegExp(decl.source, decl.flags.includes('g') ? decl.flags : `${decl.flags}g`);
  for (const m of masked.matchAll(re)) {
    const name = m.groups?.name;
    if (name === undefined) continue;
    const open = m.index + m[0].length - 1;
    if (masked[open] !== '{') continue;
    const close = closingBrace(masked, open);
    if (close < 0) continue;
    return { nameAt: m.index + m[0].lastIndexOf(name, m[0].indexOf('(')), nameLength: name.length, open, close, declaration: m[0] };
  }
  return undefined;
}

/** Patterns in a candidate's code worth recording on its verdict, each with what it means. */
export type SuspicionRule = readonly [RegExp, string];

/**
 * What the candidate's code does that a program written to forge a test would do, by `rules`
 * (matched on the code with comments and literals blanked, `masked`, unless a rule is marked
 * to read the raw text by a leading `raw:` in its description); each description at most once.
 */
export function findSuspicions(code: string, masked: string, rules: readonly SuspicionRule[]): string[] {
  const out: string[] = [];
  for (const [re, what] of rules) {
    const raw = what.startsWith('raw:');
    if (re.test(raw ? code : masked)) out.push(raw ? what.slice(4) : what);
  }
  return out;
}
