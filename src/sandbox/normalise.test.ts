import { test } from 'node:test';
import assert from 'node:assert/strict';
import { javaMainClass, javaPublicClass } from './languages/java.js';
import { prepareSource } from './normalise.js';

test('C++ snippets without #include get <bits/stdc++.h>, recorded; others untouched', () => {
  const snip = prepareSource('cpp', 'using namespace std;\nint main(){}\n', 'stdin');
  assert.match(snip.text, /^#include <bits\/stdc\+\+\.h>\n/);
  assert.equal(snip.normalisations.length, 1);
  const full = prepareSource('cpp', '#include <cstdio>\nint main(){}\n', 'stdin');
  assert.equal(full.text, '#include <cstdio>\nint main(){}\n');
  assert.deepEqual(full.normalisations, []);
});

test('a stray trailing main(); is not removed (it stays a compile error)', () => {
  const p = prepareSource('cpp', 'int main(){return 0;}\n\nmain();\n', 'stdin');
  assert.match(p.text, /main\(\);\n$/);
});

test('Java files are named after the public class; main class found past nested classes', () => {
  const code = 'import java.util.*;\npublic class Solver {\n  static class Seg { }\n  public static void main(String[] a) { }\n}\n';
  assert.equal(javaPublicClass(code), 'Solver');
  assert.equal(javaMainClass(code), 'Solver');
  const p = prepareSource('java', code, 'stdin');
  assert.equal(p.fileName, 'Solver.java');
  assert.equal(p.mainClass, 'Solver');
  assert.equal(p.normalisations.length, 1);
  const plain = prepareSource('java', 'class A { }\nclass B { public static void main(String[] x) { String s = "}{"; } }\n', 'stdin');
  assert.equal(plain.fileName, 'Main.java');
  assert.equal(plain.mainClass, 'B');
  const commented = '// public class Fake {\npublic class Main { public static void main(String[] a) {} }';
  assert.equal(javaPublicClass(commented), 'Main');
});

test('Go without a package clause becomes package main; with one it is unchanged', () => {
  assert.match(prepareSource('go', 'func main(){}', 'stdin').text, /^package main\n/);
  const g = prepareSource('go', 'package main\nfunc main(){}', 'stdin');
  assert.deepEqual(g.normalisations, []);
});

test("program tests are sealed: Python runs both sources in coreb's runner; functional Python gets a Solution driver", () => {
  const p = prepareSource('python', 'def f(x):\n    return x\n', 'program', 'assert f(1) == 1', {
    proof: { channel: 'fd', fd: 99, offset: 7, length: 24 },
  });
  // both sources go in as literals; the proof is read from descriptor 99 at offset 7, 24 characters
  assert.match(
    p.text,
    /_coreb_sealed\("def f\(x\):\\n {4}return x\\n", "assert f\(1\) == 1", 99, \(7, 24\), None, "_coreb_v_[0-9a-f]{12}", "_coreb_fail_[0-9a-f]{12}"\)\n$/,
  );
  assert.deepEqual(p.proofFd, { fd: 99, offset: 7 });
  assert.ok(!p.text.includes('COREB_TESTS_DONE') && !p.text.includes('environ.get') && !p.text.includes('getenv'), 'no proof in the environment');
  const remote = prepareSource('python', 'def f(x):\n    return x\n', 'program', 'assert f(1) == 1', {
    proof: { channel: 'literal', token: 'abc123' },
  });
  assert.equal(remote.proofToken, 'abc123');
  assert.equal(remote.proofFd, undefined);
  const f = prepareSource('python', 'class Solution:\n    def go(self, a, b):\n        return a + b\n', 'functional', 'go');
  assert.match(f.text, /Solution\(\)\.go\(\*_args\)/);
  // LiveCodeBench's imports first; the program's own `if __name__ == "__main__":` block does not run.
  assert.match(f.text, /^__name__ = "coreb_solution"\nfrom typing import \*/);
});
