/**
 * The only source changes the judge makes, each recorded in the result: `program` tests join the
 * candidate and the test program, sealed so that only the test's end can print the run's proof token
 * (each language's `sealProgram`, languages/sealing.ts), `functional` tests add a driver; then the
 * language's own changes (each module's
 * `prepare` in languages/: C++ snippets without any `#include` get `<bits/stdc++.h>`, Java files are
 * named after their public class, Go files without a package clause become `package main`). Nothing
 * else is "fixed": code that does not compile is a `compile_error`.
 */
import type { TestKind } from '../core/execution.js';
import type { FunctionalSource, PreparedSource } from './languages/language.js';

export type { PreparedSource };
import { judgeLanguage } from './languages/index.js';
import { createFdProof, type SealedProgram, type TestProof } from './languages/sealing.js';
import { OFFICIAL_CXX_FLAGS, officialSource } from './official-harness.js';

/**
 * Which source changes the judge makes: `coreb` (default: only those listed in this file's header)
 * or `official`, the official CoREB harness's (official-harness.ts: comment stripping, C++ headers
 * and `main` rewrites, `g++ -std=c++17`), for re-judging a release the way its labels were made.
 */
export const NORMALISATIONS = ['coreb', 'official'] as const;
/** A normalisation name. */
export type NormalisationName = (typeof NORMALISATIONS)[number];

/** Options of {@link prepareSource}. */
export interface PrepareOptions {
  /** Source changes to make; default `coreb`. */
  normalise?: NormalisationName;
  /**
   * `program` tests: how the sealed test's end gets its proof token (languages/sealing.ts): a
   * descriptor the local judge fills per run, or a literal for remote services that run one source
   * as given. Default: a descriptor chosen at random (64–191).
   */
  proof?: TestProof;
}

/**
 * Prepares `code` for `language` and test `kind`; `extra` is the test program (`program`) or the
 * method name (`functional`).
 */
export function prepareSource(language: string, source: string, kind: TestKind, extra = '', options: PrepareOptions = {}): PreparedSource {
  const lang = judgeLanguage(language);
  const notes: string[] = [];
  const official = options.normalise === 'official';
  let code = source;
  if (official) {
    const o = officialSource(language, source);
    code = o.text;
    notes.push(...o.changes);
  }
  let text = code;
  let driver: FunctionalSource | undefined;
  let sealed: SealedProgram | undefined;
  let proof: TestProof | undefined;
  if (kind === 'program') {
    proof = options.proof ?? createFdProof();
    sealed = lang.sealProgram(code, extra, proof);
    text = sealed.text;
    notes.push(...sealed.notes);
  } else if (kind === 'functional') {
    driver = lang.functional(code, extra);
    text = driver.text;
    notes.push(driver.note);
  }
  const own = lang.prepare?.(text, kind, official) ?? { text, notes: [] };
  notes.push(...own.notes);
  const out: PreparedSource = {
    fileName: sealed?.fileName ?? driver?.fileName ?? own.fileName ?? lang.fileName,
    text: own.text,
    mainClass: sealed?.mainClass ?? driver?.mainClass ?? own.mainClass,
    normalisations: notes,
  };
  if (sealed !== undefined && proof !== undefined) {
    if (sealed.checked) {
      if (proof.channel === 'fd') out.proofFd = { fd: proof.fd, offset: proof.offset };
      else out.proofToken = proof.token;
    }
    const seen = lang.suspicions?.(code) ?? [];
    if (seen.length > 0) out.suspicions = seen;
    const files = (sealed.extraFiles ?? []).map((f) =>
      f.name.endsWith('.go') && !f.name.startsWith('.gopath/') ? { ...f, text: lang.prepare?.(f.text, kind, official).text ?? f.text } : f,
    );
    if (files.length > 0) out.extraFiles = files;
  }
  if (official && language === 'cpp') {
    out.cxxFlags = OFFICIAL_CXX_FLAGS;
    notes.push(`cpp (official): compiled with g++ ${OFFICIAL_CXX_FLAGS.join(' ')} (no -O2, no ONLINE_JUDGE, no precompiled header)`);
  }
  if (driver !== undefined && driver.extraFiles.length > 0) out.extraFiles = driver.extraFiles;
  return out;
}
