// The commands each language module gives the judge (no process is started; tools must be installed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { findTool, type ToolName } from './tools.js';
import { javaRunFlags } from './java.js';
import type { PreparedSource } from '../normalise.js';
import { BUILT_IN_LANGUAGES as LANGUAGES, DEFAULT_LIMITS, type BuildContext, type LanguageState } from './index.js';
import { CXX_FLAGS, fastLinkFlags } from './cpp.js';

const missing = (tools: ToolName[]): string | false => {
  const m = tools.filter((t) => findTool(t) === undefined);
  return m.length > 0 ? `not installed: ${m.join(', ')}` : false;
};

function context(sandbox: boolean): BuildContext {
  // the per-judge state C++ (its precompiled header) and Go (its build cache) read
  const state: LanguageState & Record<string, unknown> = { pch: async () => '/host/pch-abc', cache: () => '/host/gocache' };
  return {
    box: sandbox ? '/box' : '/host/p-1',
    fileName: 'main.x',
    source: 'int main() {}\n',
    sandbox,
    env: { PATH: '/usr/bin:/bin' } as Record<string, string>,
    mounts: [] as BuildContext['mounts'],
    state,
  };
}
const prepared = (fileName: string, mainClass?: string): PreparedSource => ({ fileName, text: '', normalisations: [], mainClass });

test('python and ruby run from source: no compile command, the interpreter on the file (ruby without RubyGems, its bundled gems on the load path)', {
  skip: missing(['python3', 'ruby']),
}, async () => {
  for (const lang of ['python', 'ruby'] as const) {
    const ctx = context(true);
    assert.equal(await LANGUAGES[lang].compileArgv(ctx), undefined);
    assert.deepEqual(ctx.mounts, []);
  }
  assert.deepEqual(LANGUAGES.python.runArgv('/prog', prepared('main.py'), DEFAULT_LIMITS.python), [findTool('python3'), '/prog/main.py']);
  const rb = LANGUAGES.ruby.runArgv('/prog', prepared('main.rb'), DEFAULT_LIMITS.ruby);
  assert.deepEqual(rb.slice(0, 2), [findTool('ruby'), '--disable-gems']);
  assert.equal(rb[rb.length - 1], '/prog/main.rb');
  const paths = rb.slice(2, -1).filter((_, i) => i % 2 === 1);
  assert.ok(rb.slice(2, -1).every((a, i) => (i % 2 === 0 ? a === '-I' : a.startsWith('/usr/'))));
  // `prime` left the standard library for a bundled gem in Ruby 3.1: a program requiring it loads it without RubyGems
  const r = spawnSync(
    rb[0],
    [...rb.slice(1, -1), '-e', 'require "prime"; require "json"; require "set"; print Prime.first(4).sum, defined?(Gem).inspect'],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(r.stdout, '17nil', `${r.stderr} (load path: ${paths.join(' ')})`);
});

test('cpp compiles with the judge flags against the precompiled header, mounted in the sandbox', { skip: missing(['gxx']) }, async () => {
  const boxed = context(true);
  assert.deepEqual(await LANGUAGES.cpp.compileArgv(boxed), [
    findTool('gxx'),
    ...CXX_FLAGS,
    ...fastLinkFlags(),
    '-I/pch',
    '-o',
    '/box/prog',
    '/box/main.x',
  ]);
  assert.deepEqual(boxed.mounts, [{ src: '/host/pch-abc', dest: '/pch' }]);
  const host = context(false);
  assert.deepEqual((await LANGUAGES.cpp.compileArgv(host))?.slice(-4), ['-I/host/pch-abc', '-o', '/host/p-1/prog', '/host/p-1/main.x']);
  assert.deepEqual(host.mounts, []);
  assert.deepEqual(LANGUAGES.cpp.runArgv('/prog', prepared('main.cpp'), DEFAULT_LIMITS.cpp), ['/prog/prog']);
  // a program including OpenSSL's headers is linked with libcrypto (HumanEval-X's MD5 task)
  const md5 = await LANGUAGES.cpp.compileArgv({ ...context(true), source: '#include <openssl/md5.h>\nint main() {}\n' });
  assert.equal(md5?.[md5.length - 1], '-lcrypto');
});

test('go builds in GOPATH mode with the shared cache (writable mount in the sandbox)', { skip: missing(['go']) }, async () => {
  const boxed = context(true);
  assert.deepEqual(await LANGUAGES.go.compileArgv(boxed), [findTool('go'), 'build', '-ldflags=-s -w', '-o', '/box/prog', '/box/main.x']);
  assert.deepEqual(boxed.mounts, [{ src: '/host/gocache', dest: '/gocache', writable: true }]);
  assert.deepEqual(
    [boxed.env.GOCACHE, boxed.env.GOPATH, boxed.env.GO111MODULE, boxed.env.CGO_ENABLED, boxed.env.GOTOOLCHAIN, boxed.env.PATH],
    ['/gocache', '/box/.gopath', 'off', '0', 'local', '/usr/bin:/bin'],
  );
  const host = context(false);
  await LANGUAGES.go.compileArgv(host);
  assert.equal(host.env.GOCACHE, '/host/gocache');
  assert.deepEqual(host.mounts, []);
});

test('java compiles to out/ and runs the main class with the heap flags of its memory limit', { skip: missing(['javac', 'java']) }, async () => {
  const argv = (await LANGUAGES.java.compileArgv(context(true))) ?? [];
  assert.equal(argv[0], findTool('javac'));
  // string concatenation compiled to StringBuilder calls: no invokedynamic bootstrap at each run's start
  assert.deepEqual(argv.slice(-6), ['-nowarn', '-proc:none', '-XDstringConcat=inline', '-d', '/box/out', '/box/main.x']);
  const limits = { ...DEFAULT_LIMITS.java, memoryLimitMb: 300 };
  assert.deepEqual(LANGUAGES.java.runArgv('/prog', prepared('Main.java', 'Solution'), limits), [
    findTool('java'),
    ...javaRunFlags(300),
    '-cp',
    '/prog/out',
    'Solution',
  ]);
  assert.equal(LANGUAGES.java.runArgv('/prog', prepared('Main.java'), limits).at(-1), 'Main');
});
