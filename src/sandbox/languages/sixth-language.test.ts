/**
 * A sixth judged language, added the way the house says: one module (the `perl` object below, all
 * of Perl's facts behind {@link JudgeLanguage}) and one row in the table (`registerJudgeLanguage`,
 * the same table the five built-in modules sit in). Nothing else in the judge changes, and real Perl
 * programs are then judged in the sandbox: accepted, wrong answers, an early exit caught by the
 * proof token, a runtime error, running out of memory, functional tests through the module's JSON
 * driver, a missing function refused before running. The rest of coreb knows it from the same record:
 * the remote judges' discovery finds its runtimes, a build stamps its version and names it in prompts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestCase } from '../../core/execution.js';
import { createTestJudge, toolchainSkipReason } from '../../../test/support/judge.js';
import { findJudgeLanguage, judgeLanguageIds, languagePrompt, missingPackages, registerJudgeLanguage, toolchainVersions } from './index.js';
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
  // What the rest of coreb asks of a language, in the same record: its names on the remote judges,
  // its runtime's out-of-memory message, what build prompts call it.
  remote: { piston: ['perl'], judge0: /^Perl \(/, sandboxFusion: { language: 'perl', runtime: 'perl' } },
  outOfMemory: /^Out of memory/m,
  prompt: {
    name: 'Perl 5',
    fence: 'perl',
    functionalRule: "Write a sub named as the starter code's method, taking its parameters in order; do not read input or print.",
  },
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

test('the record gives Perl its remote judge names, its version stamp, its out-of-memory verdict and its build-prompt names', async () => {
  // Three loopback servers answering the services' discovery calls as Piston, Judge0 and SandboxFusion do.
  const serve = async (answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close: () => void }> => {
    const server = createServer(answer);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
  };
  const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const piston = await serve((_req, res) =>
    json(res, [
      { language: 'python', version: '3.12.0', aliases: ['py'] },
      { language: 'perl', version: '5.36.0', aliases: ['pl'] },
    ]),
  );
  const judge0 = await serve((req, res) =>
    req.url === '/about'
      ? json(res, { version: '1.13.1' })
      : json(res, [
          { id: 71, name: 'Python (3.8.1)' },
          { id: 85, name: 'Perl (5.28.1)' },
        ]),
  );
  const fusion = await serve((req, res) => (req.url === '/v1/ping' ? json(res, 'pong') : json(res, { info: { version: '1.0' } })));
  try {
    const { createPistonService } = await import('../remote/piston.js');
    const { createJudge0Service } = await import('../remote/judge0.js');
    const { createSandboxFusionService } = await import('../remote/sandboxfusion.js');
    assert.equal((await createPistonService(piston.url).info()).runtimes.perl, 'perl 5.36.0');
    assert.equal((await createJudge0Service(judge0.url).info()).runtimes.perl, 'Perl (5.28.1) (language_id 85)');
    assert.equal((await createSandboxFusionService(fusion.url).info()).runtimes.perl, 'perl');
  } finally {
    for (const s of [piston, judge0, fusion]) s.close();
  }

  // The build's prompts name it as its record says.
  assert.deepEqual(languagePrompt('perl'), perl.prompt);

  // Its out-of-memory message (capitalised, unlike glibc's) is a memory verdict, not a runtime error.
  const { classifyRun } = await import('../verdict.js');
  const { resolveRunLimits } = await import('./tools.js');
  const run = { exitCode: 1, stdout: '', stderr: 'Out of memory!\n', wallMs: 5, cpuMs: 3, memoryKb: 4000, timedOut: false, stdoutTruncated: false };
  const options = { limits: resolveRunLimits(BASE_LIMITS, 'perl', {}), language: 'perl', comparator: 'tokens' as const, tolerance: 1e-6 };
  const test1: TestCase = { kind: 'stdin', input: '', outputs: ['1'] };
  assert.equal(classifyRun(run, test1, options).verdict, 'memory_limit');
  registerJudgeLanguage({ ...perl, outOfMemory: undefined });
  try {
    assert.equal(classifyRun(run, test1, options).verdict, 'runtime_error', 'without the record the message means nothing');
  } finally {
    registerJudgeLanguage(perl);
  }

  // Its version stamp comes from its tool.
  if (missing === undefined) assert.match(toolchainVersions(['perl']).perl ?? '', /perl.*5/i);
});

test('a Perl program running out of memory in the sandbox is memory_limit', { skip: skipReason }, async () => {
  const judge = typeof made === 'string' ? undefined : await createTestJudge({ timeLimitMs: 2000, wallTimeFactor: 3 });
  assert.ok(judge !== undefined && typeof judge !== 'string');
  const code = 'my $n = <STDIN>;\nmy $s = "x" x ($n * 1024 * 1024 * 1024);\nprint length($s), "\\n";\n';
  const r = await judge.judge({ id: 'oom', problemId: 'big', language: 'perl', code }, [{ kind: 'stdin', input: '4\n', outputs: ['0'] }]);
  assert.equal(r.verdict, 'memory_limit', JSON.stringify(r.tests[0]));
  await judge.close();
});
