/**
 * `coreb exec --judge X --compare local|labels` and `--normalise official` end to end: the built CLI
 * judges through a loopback Piston and Judge0 (real programs run behind them), stamps every verdict
 * with the backend, judges the same programs locally and prints per-language agreement; a CoREB-style
 * code corpus is compared with its released labels; the official harness's C++ rewrite turns a
 * stray `main();` program from compile_error into accepted, as the release labelled it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCliAsync } from '../support/cli.js';
import { startJudge0, startPiston } from '../support/judge-services.js';
import { tempDir, testCacheDir, toolchainSkipReason } from '../support/judge.js';

const skip = toolchainSkipReason(['python', 'cpp', 'go']) ?? false;
const env = { ...process.env, COREB_JUDGE_CACHE: testCacheDir };

function fixtures(): { dir: string; problems: string; candidates: string; out: string } {
  const dir = tempDir('coreb-e2e-exec-remote-');
  const problems = join(dir, 'problems.jsonl');
  const candidates = join(dir, 'code_corpus.jsonl');
  const problem = {
    question_id: 'abc901_a',
    question_title: 'Add',
    question_content: 'Print A+B.',
    platform: 'atcoder',
    public_test_cases: JSON.stringify([
      { input: '1 2\n', output: '3\n', testtype: 'stdin' },
      { input: '40 2\n', output: '42\n', testtype: 'stdin' },
    ]),
    private_test_cases: '[]',
    metadata: '{}',
  };
  writeFileSync(problems, JSON.stringify(problem) + '\n');
  const rows = [
    ['code_1', 'python', 'a, b = map(int, input().split())\nprint(a + b)\n', true],
    ['code_2', 'python', 'a, b = map(int, input().split())\nprint(a * b)\n', false],
    ['code_3', 'cpp', '#include <bits/stdc++.h>\nusing namespace std;\nint main(){long a,b;cin>>a>>b;cout<<a+b<<"\\n";}\n', true],
    // a v202602-style program: a stray top-level main(); after main — labelled passing by the release
    [
      'code_4',
      'cpp',
      'using namespace std;\nint main() {\n    long a, b;\n    cin >> a >> b;\n    cout << a + b << endl;\n    return 0;\n}\n\nmain();\n',
      true,
    ],
    ['code_5', 'go', 'package main\nimport "fmt"\nfunc main() { var a, b int; fmt.Scan(&a, &b); fmt.Println(a + b) }\n', true],
  ].map(([id, language, code, passed]) => ({ code_id: id, code, language, meta_source_problem_id: 'lcb_abc901_a', meta_passed: passed }));
  writeFileSync(candidates, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return { dir, problems, candidates, out: join(dir, 'verdicts.jsonl') };
}

const records = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown> & { id: string; verdict: string; backend?: { name: string; version: string } });

test('exec --judge piston:URL --compare local: verdicts stamped with the backend, agreement per language', { skip }, async () => {
  const svc = await startPiston({ runTimeoutCapMs: 20000 });
  try {
    const f = fixtures();
    const args = [
      'exec',
      '--problems',
      f.problems,
      '--candidates',
      f.candidates,
      '--out',
      f.out,
      '--judge',
      `piston:${svc.url}`,
      '--compare',
      'local',
      '--jobs',
      '2',
    ];
    const r = await runCliAsync(args, { env });
    assert.equal(r.status, 0, r.stderr);
    const recs = records(f.out);
    assert.equal(recs.length, 5);
    assert.ok(
      recs.every((x) => x.backend?.name === 'piston' && x.backend.version === 'api/v2'),
      'every verdict carries its backend',
    );
    const local = records(f.out.replace(/\.jsonl$/, '.local.jsonl'));
    assert.equal(local.length, 5);
    assert.ok(
      local.every((x) => x.backend === undefined),
      'local verdicts carry no remote stamp',
    );
    assert.match(r.stdout, /agreement of passed with local, per language:/);
    assert.match(r.stdout, /^all\s+5\s+100\.0%\s+0\s+0$/m, r.stdout);
    assert.match(r.stdout, /^python\s+2\s+100\.0%/m);
    // a re-run resumes both files: nothing is judged again
    const again = await runCliAsync(args, { env });
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /judged 0, resumed 5/);
  } finally {
    await svc.close();
  }
});

test('exec --compare labels, and --normalise official reproduces the released label of a stray main();', { skip }, async () => {
  const svc = await startJudge0({ authToken: 'k-123' });
  try {
    const f = fixtures();
    const base = ['exec', '--problems', f.problems, '--candidates', f.candidates, '--compare', 'labels', '--jobs', '2'];
    const plain = await runCliAsync([...base, '--out', f.out], { env });
    assert.equal(plain.status, 0, plain.stderr);
    assert.equal(records(f.out).find((x) => x.id === 'code_4')?.verdict, 'compile_error');
    assert.match(plain.stdout, /agreement of passed with the released labels \(meta_passed\), per language:/);
    assert.match(plain.stdout, /^cpp\s+2\s+50\.0%\s+0\s+1$/m, plain.stdout);
    assert.match(plain.stdout, /1\s+cpp compile_error where labels passes/);
    const officialOut = join(f.dir, 'official.jsonl');
    const official = await runCliAsync([...base, '--out', officialOut, '--normalise', 'official', '--summary-json', join(f.dir, 's.json')], { env });
    assert.equal(official.status, 0, official.stderr);
    const rec = records(officialOut).find((x) => x.id === 'code_4');
    assert.equal(rec?.verdict, 'accepted', JSON.stringify(rec));
    assert.ok(((rec?.normalisations ?? []) as string[]).some((n) => /second `int main\(\)` dropped/.test(n)));
    assert.match(official.stdout, /^all\s+5\s+100\.0%\s+0\s+0$/m, official.stdout);
    const summary = JSON.parse(readFileSync(join(f.dir, 's.json'), 'utf8')) as { judge: Record<string, unknown>; agreement: Record<string, unknown> };
    assert.equal(summary.judge.normalise, 'official');
    assert.ok(summary.agreement.labels !== undefined);
    // the same through Judge0, the key from the environment and nowhere in the output
    const remoteOut = join(f.dir, 'judge0.jsonl');
    const remote = await runCliAsync([...base, '--out', remoteOut, '--normalise', 'official', '--judge', `judge0:${svc.url}`], {
      env: { ...env, COREB_JUDGE0_API_KEY: 'k-123' },
    });
    assert.equal(remote.status, 0, remote.stderr);
    assert.equal(records(remoteOut).find((x) => x.id === 'code_4')?.verdict, 'accepted');
    assert.ok(!readFileSync(remoteOut, 'utf8').includes('k-123') && !remote.stdout.includes('k-123') && !remote.stderr.includes('k-123'));
  } finally {
    await svc.close();
  }
});

test('exec --compare labels on candidates without labels, and --judge typos, are usage errors', async () => {
  const dir = tempDir('coreb-e2e-exec-remote-');
  const c = join(dir, 'c.jsonl');
  writeFileSync(c, JSON.stringify({ id: 'a', problem_id: 'p', language: 'python', code: 'print(1)' }) + '\n');
  writeFileSync(join(dir, 'p.jsonl'), readFileSync(fixtures().problems));
  const r = await runCliAsync(['exec', '--problems', join(dir, 'p.jsonl'), '--candidates', c, '--out', join(dir, 'o.jsonl'), '--compare', 'labels'], {
    env,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--compare labels: .* has no released labels/);
  const j = await runCliAsync(
    ['exec', '--problems', join(dir, 'p.jsonl'), '--candidates', c, '--out', join(dir, 'o.jsonl'), '--judge', 'judge1:http://x'],
    { env },
  );
  assert.equal(j.status, 2);
  assert.match(j.stderr, /unknown judge `judge1`/);
});
