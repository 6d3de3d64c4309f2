/**
 * A sixth judged language, added the way the house says: one module (the `perl` object below, all
 * of Perl's facts behind {@link JudgeLanguage}) and one row in the table (`registerJudgeLanguage`,
 * the same table the five built-in modules sit in). Nothing else in the judge changes, and real Perl
 * programs are then judged in the sandbox: accepted, wrong answers, an early exit caught by the
 * proof token, a runtime error, functional tests through the module's JSON driver, a missing
 * function refused before running.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestCase } from '../../core/execution.js';
import { createTestJudge, toolchainSkipReason } from '../../../test/support/judge.js';
import { findJudgeLanguage, judgeLanguageIds, missingPackages, registerJudgeLanguage } from './index.js';
import { appendTestProgram, interpretedCommands, type JudgeLanguage } from './language.js';
import { BASE_LIMITS, findTool, type Tool } from './tools.js';

/** The module: Perl 5, run from source. */
const perlTool: Tool = { paths: ['/usr/bin/perl'], package: 'perl' };
const perl: JudgeLanguage = {
  id: 'perl',
  label: 'Perl',
  tools: [perlTool],
  limits: BASE_LIMITS,
  treeAllowanceMb: 64,
  residentMemoryIsLimit: true,
  fileName: 'main.pl',
  comments: 'hash',
  sealProgram: (code, test, proof) =>
    appendTestProgram(
      code,
      test,
      proof.channel === 'fd'
        ? `open(my $coreb_f, '<', '/proc/self/fd/${proof.fd}'); seek($coreb_f, ${proof.offset}, 0); read($coreb_f, my $coreb_t, ${proof.length}); print "\\n" . ($coreb_t // '') . "\\n";`
        : `print "\\n${proof.token}\\n";`,
    ),
  declaration: (name) => new RegExp(`\\bsub\\s+${name}\\b[^{]*\\{`),
  declarationPlace: 'sub',
  functional: (code, funcName) => ({
    text: `${code}\n;\npackage main;\nuse JSON::PP ();\nmy @coreb_args = map { JSON::PP->new->allow_nonref->decode($_) } grep { /\\S/ } split /\\n/, do { local $/; <STDIN> };\nprint JSON::PP->new->allow_nonref->canonical->encode(${funcName}(@coreb_args));\n`,
    extraFiles: [],
    note: `perl: functional driver calling ${funcName} with JSON arguments added`,
  }),
  ...interpretedCommands(perlTool, 'Perl'),
};

/** The row in the table. */
registerJudgeLanguage(perl);

const missing = findTool(perlTool) === undefined ? 'needs Debian package perl' : undefined;
const skip = missing ?? toolchainSkipReason([]);
const made = skip === undefined ? await createTestJudge({ timeLimitMs: 2000, wallTimeFactor: 3 }) : skip;
const skipReason = typeof made === 'string' ? made : false;

const SUM: TestCase[] = [
  { kind: 'stdin', input: '1 2\n', outputs: ['3\n'] },
  { kind: 'stdin', input: '40 2\n', outputs: ['42'] },
];

test('the sixth language sits in the one table beside the built-in five', () => {
  assert.deepEqual(judgeLanguageIds(), ['python', 'cpp', 'java', 'go', 'ruby', 'perl']);
  assert.equal(findJudgeLanguage('perl'), perl);
  assert.deepEqual(missingPackages(['perl'], false), findTool(perlTool) === undefined ? ['perl'] : []);
  assert.throws(() => registerJudgeLanguage({ ...perl, id: 'Perl 5' }), /lowercase word/);
});

test('Perl programs are judged in the sandbox: accepted, wrong answer, early exit, runtime error', { skip: skipReason }, async () => {
  const judge = typeof made === 'string' ? undefined : made;
  assert.ok(judge !== undefined);
  const ok = await judge.judge(
    { id: 'ok', problemId: 'sum', language: 'perl', code: 'my ($a, $b) = split " ", <STDIN>;\nprint $a + $b, "\\n";\n' },
    SUM,
  );
  assert.equal(ok.verdict, 'accepted', JSON.stringify(ok));
  assert.equal(ok.language, 'perl');
  assert.equal(ok.sandboxed, true);
  assert.equal(ok.passRate, 1);
  const wrong = await judge.judge(
    { id: 'wrong', problemId: 'sum', language: 'perl', code: 'my ($a, $b) = split " ", <STDIN>;\nprint $a - $b, "\\n";\n' },
    SUM,
  );
  assert.equal(wrong.verdict, 'wrong_answer');
  const died = await judge.judge({ id: 'died', problemId: 'sum', language: 'perl', code: 'die "no input\\n";\n' }, SUM);
  assert.equal(died.verdict, 'runtime_error');
  assert.match(died.tests[0].detail ?? '', /no input/);

  // A program test: the test program is appended and prints the run's proof token at its end,
  // so a solution that exits with status 0 before the tests finish is not a pass.
  const assertTest: TestCase[] = [{ kind: 'program', input: 'die "bad" unless add(2, 3) == 5;\n', outputs: [] }];
  const honest = await judge.judge({ id: 'honest', problemId: 'add', language: 'perl', code: 'sub add { return $_[0] + $_[1]; }\n' }, assertTest);
  assert.equal(honest.verdict, 'accepted', JSON.stringify(honest));
  const early = await judge.judge({ id: 'early', problemId: 'add', language: 'perl', code: 'sub add { return 0; }\nexit 0;\n' }, assertTest);
  assert.equal(early.verdict, 'wrong_answer', JSON.stringify(early.tests[0]));
  await judge.close();
});

test('functional tests run through the module driver; a missing sub is refused before running', { skip: skipReason }, async () => {
  const judge = typeof made === 'string' ? undefined : await createTestJudge({ timeLimitMs: 2000, wallTimeFactor: 3 });
  assert.ok(judge !== undefined && typeof judge !== 'string');
  const tests: TestCase[] = [
    { kind: 'functional', funcName: 'twoMax', input: '[3, 9, 4]\n2\n', outputs: ['[9,4]'] },
    { kind: 'functional', funcName: 'twoMax', input: '[1]\n1\n', outputs: ['[1]'] },
  ];
  const code = 'sub twoMax {\n  my ($xs, $k) = @_;\n  my @s = sort { $b <=> $a } @$xs;\n  return [@s[0 .. $k - 1]];\n}\n';
  const r = await judge.judge({ id: 'f', problemId: 'top', language: 'perl', code }, tests);
  assert.equal(r.verdict, 'accepted', JSON.stringify(r));
  assert.ok(r.normalisations.some((n) => n.startsWith('perl: functional driver')));
  const none = await judge.judge({ id: 'none', problemId: 'top', language: 'perl', code: 'sub other { 1 }\n' }, tests);
  assert.equal(none.verdict, 'compile_error');
  assert.match(none.compileOutput ?? '', /defines no sub named twoMax/);
  await judge.close();
});
