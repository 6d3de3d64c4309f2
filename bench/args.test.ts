/**
 * The bench command line: the parser's rules, then every compiled bench script run as a user runs
 * it with `--help` (usage, exit 0, no work) and with an unknown option (refused, exit 2). A new
 * bench that does not read its options through ./args.ts fails here.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BenchArgsError, type BenchUsage, parseBenchArgs } from './args.js';

const usage: BenchUsage = {
  script: 'demo',
  about: 'a demo bench',
  options: [
    { name: 'sizes', value: 'LIST', help: 'sizes (default 1,2)' },
    { name: 'keep', help: 'keep files' },
    { name: 'serve', value: ['LATENCY', 'CAP'], help: 'server mode', internal: true },
  ],
};

function usageError(argv: string[]): string {
  try {
    parseBenchArgs(usage, argv);
  } catch (e) {
    assert.ok(e instanceof BenchArgsError);
    assert.equal(e.kind, 'usage');
    return e.message;
  }
  assert.fail(`accepted ${argv.join(' ')}`);
}

describe('parseBenchArgs', () => {
  test('reads values, flags, several values, --name=value; the first occurrence wins', () => {
    const a = parseBenchArgs(usage, ['--sizes', '10,20', '--keep', '--serve', '200', '8', '--sizes', '30']);
    assert.equal(a.get('sizes'), '10,20');
    assert.equal(a.has('keep'), true);
    assert.deepEqual(a.values('serve'), ['200', '8']);
    assert.equal(parseBenchArgs(usage, ['--sizes=5']).get('sizes'), '5');
    const none = parseBenchArgs(usage, []);
    assert.equal(none.get('sizes'), undefined);
    assert.equal(none.has('keep'), false);
  });

  test('refuses an unknown option, naming it and the known ones', () => {
    const m = usageError(['--size', '1000']);
    assert.match(m, /unknown option --size;/);
    assert.match(m, /--sizes, --keep, --serve/);
    assert.match(usageError(['-x']), /unknown option -x/);
    assert.match(usageError(['--bogus=1']), /unknown option --bogus;/);
  });

  test('refuses a missing value, a value on a flag and a stray argument', () => {
    assert.match(usageError(['--sizes']), /--sizes needs a value: --sizes LIST/);
    assert.match(usageError(['--sizes', '--keep']), /--sizes needs a value/);
    assert.match(usageError(['--serve', '200']), /--serve needs a value: --serve LATENCY CAP/);
    assert.match(usageError(['--keep=yes']), /--keep takes no value/);
    assert.match(usageError(['1000']), /unexpected argument "1000"/);
  });

  test('--help and -h give the usage: about, options with their placeholders, internal modes apart', () => {
    for (const h of ['--help', '-h']) {
      try {
        parseBenchArgs(usage, ['--sizes', '1', h]);
        assert.fail('no help');
      } catch (e) {
        assert.ok(e instanceof BenchArgsError);
        assert.equal(e.kind, 'help');
        assert.match(e.message, /^demo: a demo bench\n/);
        assert.match(e.message, /--sizes LIST +sizes \(default 1,2\)/);
        assert.match(e.message, /Internal[^\n]*\n {2}--serve LATENCY CAP +server mode/);
      }
    }
  });

  test('reading an option the usage does not declare is a bug in the script', () => {
    assert.throws(() => parseBenchArgs(usage, []).get('size'), /--size is read but not declared/);
  });
});

describe('every bench script', () => {
  const dist = fileURLToPath(new URL('.', import.meta.url));
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const scripts = readdirSync(dist)
    .filter((f) => f.endsWith('.js') && f !== 'args.js' && !f.endsWith('.test.js'))
    .sort();

  test('there are bench scripts to check', () => {
    assert.ok(scripts.length >= 13, `found ${scripts.join(', ')}`);
  });

  for (const file of scripts) {
    const name = file.replace(/\.js$/, '');
    const source = readFileSync(join(root, 'bench', `${name}.ts`), 'utf8');
    // The options its code reads: args.get/has/values('x') and the scripts' helpers option/flag/arg('x').
    const read = new Set([...source.matchAll(/(?:\bargs\.(?:get|has|values)|(?<![.\w])(?:option|flag|arg))\('([^']+)'/g)].map((m) => m[1]));
    // Default directories written under /tmp by name (the others go through os.tmpdir(), redirected below).
    const fixedTmp = [...source.matchAll(/'(\/tmp\/coreb-[^'/]+)'/g)].map((m) => m[1]).filter((p) => !existsSync(p));

    const run = (argv: string[]) => {
      const tmp = mkdtempSync(join(tmpdir(), 'coreb-bench-args-'));
      try {
        const r = spawnSync(process.execPath, [join(dist, file), ...argv], {
          encoding: 'utf8',
          timeout: 30_000,
          env: { ...process.env, TMPDIR: tmp },
        });
        assert.equal(r.signal, null, `${file} ${argv.join(' ')} still running after 30 s (did it start the bench?)`);
        assert.deepEqual(readdirSync(tmp), [], `${file} ${argv.join(' ')} wrote into TMPDIR`);
        for (const p of fixedTmp) assert.equal(existsSync(p), false, `${file} ${argv.join(' ')} created ${p}`);
        return r;
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    };

    test(`${name} --help prints what it measures and every option it reads, exit 0, nothing else done`, () => {
      assert.match(source, /readBenchArgs\(/, `bench/${name}.ts does not read its options with readBenchArgs (bench/args.ts)`);
      assert.ok(read.size > 0, `no option reads found in bench/${name}.ts`);
      // (-h is the same answer: the parser's own test above)
      const r = run(['--help']);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stderr, '');
      assert.match(r.stdout, new RegExp(`^${name}: \\S`));
      assert.match(r.stdout, new RegExp(`Usage: node dist/bench/${name}\\.js`));
      for (const o of read) assert.match(r.stdout, new RegExp(`\\n {2}--${o}\\b`), `--help of ${name} does not list --${o}`);
    });

    test(`${name} refuses an unknown option in one line, exit 2, before any work`, () => {
      const r = run(['--no-such-option', '1']);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, new RegExp(`^${name}: unknown option --no-such-option; known: --\\S+.*\\n$`));
      assert.equal(r.stderr.trim().split('\n').length, 1);
    });
  }
});
