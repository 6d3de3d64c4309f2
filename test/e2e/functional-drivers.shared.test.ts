/**
 * Functional drivers on real data from ../shared: the 62 LiveCodeBench v5 functional (LeetCode)
 * problems CoREB v202602 was built from. (1) For each distinct signature of their starter code, a
 * program in C++, Java, Go and Ruby declaring that signature (its body returns the type's zero) is
 * judged on that problem's public tests: every argument type decodes and every return type prints
 * as JSON, so each test is accepted or wrong_answer, never a build or driver failure. (2) CoREB's
 * own corpus programs for those problems that still define the original method are judged; none is
 * a sandbox_error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ExecLanguage, Verdict } from '../../src/core/execution.js';
import { loadLcbProblems, type LcbProblem } from '../../src/dataset/lcb.js';
import { sharedPath } from '../support/shared.js';
import { createTestJudge, toolchainSkipReason } from '../support/judge.js';
import { checkFunctional } from '../../src/sandbox/functional.js';

type Compiled = 'cpp' | 'java' | 'go' | 'ruby';
const LANGS: Compiled[] = ['cpp', 'java', 'go', 'ruby'];
const skip = toolchainSkipReason(LANGS) ?? false;

interface Signature {
  params: Array<{ name: string; type: string }>;
  returns: string;
}

/** The typed signature of `def <func>(self, a: T, ...) -> R:` in LiveCodeBench's Python starter code. */
function pythonSignature(p: LcbProblem): Signature {
  const m = new RegExp(`def ${p.funcName}\\(self,?([\\s\\S]*?)\\)\\s*->\\s*(.*?):`).exec(p.starterCode ?? '');
  assert.ok(m !== null, `${p.questionId}: no typed signature in the starter code`);
  const params = m[1]
    .split(/,(?![^[]*\])/)
    .map((a) => a.trim())
    .filter((a) => a !== '')
    .map((a) => {
      const [name, type] = a.split(':').map((x) => x.trim());
      return { name, type };
    });
  return { params, returns: m[2].trim() };
}

/** A Python type hint in `language` (LeetCode's spellings: arrays for Java's 1-D/2-D primitives, List for strings). */
function typeIn(language: Compiled, t: string, param: boolean): string {
  const list = /^List\[(.*)\]$/.exec(t);
  if (list !== null) {
    const e = typeIn(language, list[1], false);
    if (language === 'cpp') return `vector<${e}>${param ? '&' : ''}`;
    if (language === 'go') return `[]${e}`;
    if (/^(int|double|boolean)(\[\])*$/.test(e) && !(param === false && /^(boolean)$/.test(e))) return `${e}[]`;
    const boxed: Record<string, string> = { int: 'Integer', double: 'Double', boolean: 'Boolean' };
    return `List<${boxed[e] ?? e}>`;
  }
  const scalars: Record<string, Record<Compiled, string>> = {
    int: { cpp: 'int', java: 'int', go: 'int', ruby: '' },
    float: { cpp: 'double', java: 'double', go: 'float64', ruby: '' },
    bool: { cpp: 'bool', java: 'boolean', go: 'bool', ruby: '' },
    str: { cpp: 'string', java: 'String', go: 'string', ruby: '' },
  };
  const s = scalars[t];
  assert.ok(s !== undefined, `type ${t} has no translation`);
  return s[language];
}

/** The zero value of a Python return type in Ruby. */
function rubyZero(t: string): string {
  return t.startsWith('List[') ? '[]' : ({ int: '0', float: '0.0', bool: 'false', str: '""' } as Record<string, string>)[t];
}

/** A program declaring `p`'s method with the starter code's types in `language`, returning the return type's zero. */
function stubProgram(language: Compiled, p: LcbProblem, sig: Signature): string {
  const f = p.funcName as string;
  if (language === 'ruby')
    return `class Solution\n  def ${f}(${sig.params.map((a) => a.name).join(', ')})\n    ${rubyZero(sig.returns)}\n  end\nend\n`;
  const ps = sig.params.map((a) => (language === 'go' ? `${a.name} ${typeIn('go', a.type, true)}` : `${typeIn(language, a.type, true)} ${a.name}`));
  const ret = typeIn(language, sig.returns, false);
  if (language === 'cpp') return `class Solution {\npublic:\n    ${ret} ${f}(${ps.join(', ')}) {\n        return ${ret}();\n    }\n};\n`;
  if (language === 'go') return `package main\n\nfunc ${f}(${ps.join(', ')}) ${ret} {\n\tvar stubZero ${ret}\n\treturn stubZero\n}\n`;
  const zero = ret.endsWith('[]')
    ? `new ${ret.replace(/\[\]/, '[0]')}`
    : ret.startsWith('List<')
      ? 'new java.util.ArrayList<>()'
      : ({ int: '0', double: '0.0', boolean: 'false', String: '""' } as Record<string, string>)[ret];
  return `import java.util.*;\n\nclass Solution {\n    public ${ret} ${f}(${ps.join(', ')}) {\n        return ${zero};\n    }\n}\n`;
}

const problems = await loadLcbProblems(sharedPath('data', 'lcb_v5_problems.jsonl'));
const functional = [...problems.values()].filter((p) => p.funcName !== undefined);

test('62 LiveCodeBench v5 problems are functional; every one has a driver in every language', () => {
  assert.equal(functional.length, 62);
  for (const p of functional) {
    const sig = pythonSignature(p);
    for (const language of LANGS) {
      const refusal = checkFunctional(language, stubProgram(language, p, sig), p.funcName as string);
      assert.equal(refusal, undefined, `${p.questionId} ${language}: ${refusal?.reason}`);
    }
  }
});

test('every real signature decodes its arguments and prints its result in C++, Java, Go and Ruby', { skip }, async () => {
  const bySignature = new Map<string, LcbProblem>();
  for (const p of functional) {
    const sig = pythonSignature(p);
    const key = JSON.stringify([sig.params.map((a) => a.type), sig.returns]);
    if (!bySignature.has(key)) bySignature.set(key, p);
  }
  assert.ok(bySignature.size >= 20, `${bySignature.size} distinct signatures`);
  const judge = await createTestJudge({ timeLimitMs: 4000 });
  assert.ok(typeof judge !== 'string', String(judge));
  const jobs: Array<Promise<void>> = [];
  const counts: Record<string, number> = {};
  for (const p of bySignature.values()) {
    const sig = pythonSignature(p);
    for (const language of LANGS) {
      const code = stubProgram(language, p, sig);
      jobs.push(
        judge.judge({ id: `${p.questionId}-${language}`, problemId: p.questionId, language, code }, p.publicTests).then((r) => {
          const bad = r.tests.filter((t) => (t.verdict !== 'accepted' && t.verdict !== 'wrong_answer') || /not JSON/.test(t.detail ?? ''));
          assert.ok(
            r.compileOutput === undefined && bad.length === 0 && r.tests.length === p.publicTests.length,
            `${p.questionId} ${language}: ${JSON.stringify({ code, r })}`,
          );
          counts[language] = (counts[language] ?? 0) + 1;
        }),
      );
    }
  }
  await Promise.all(jobs);
  assert.deepEqual(counts, Object.fromEntries(LANGS.map((l) => [l, bySignature.size])));
  await judge.close();
});

interface CorpusRow {
  code_id: string;
  language: ExecLanguage;
  code: string;
  meta_source_problem_id: string;
}

test("CoREB's corpus programs that keep the original method are judged, none a sandbox_error", { skip }, async () => {
  const rows = readFileSync(sharedPath('data', 'coreb', 'release_v2602', 'code_corpus.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as CorpusRow);
  const byId = new Map(functional.map((p) => [`lcb_${p.questionId}`, p]));
  const chosen = rows.filter(
    (r) => r.language !== 'python' && byId.has(r.meta_source_problem_id) && r.code.includes(`${byId.get(r.meta_source_problem_id)?.funcName}(`),
  );
  assert.ok(chosen.length >= 20, `${chosen.length} programs`);
  const judge = await createTestJudge({ timeLimitMs: 4000 });
  assert.ok(typeof judge !== 'string', String(judge));
  const verdicts: Record<string, Partial<Record<Verdict, number>>> = {};
  await Promise.all(
    chosen.map(async (row) => {
      const p = byId.get(row.meta_source_problem_id) as LcbProblem;
      const r = await judge.judge({ id: row.code_id, problemId: p.questionId, language: row.language, code: row.code }, p.publicTests);
      assert.notEqual(r.verdict, 'sandbox_error', `${row.code_id}: ${r.compileOutput ?? JSON.stringify(r.tests)}`);
      const c = (verdicts[row.language] ??= {});
      c[r.verdict] = (c[r.verdict] ?? 0) + 1;
    }),
  );
  console.log(`# corpus programs defining the original method (${chosen.length}): ${JSON.stringify(verdicts)}`);
  await judge.close();
});
