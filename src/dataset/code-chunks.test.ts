import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCodeChunker, languageOfPath, type CodeChunk } from './code-chunks.js';

const chunker = createCodeChunker();
const brief = (cs: CodeChunk[]) => cs.map((c) => `${c.kind}:${c.symbol}:${c.startLine}-${c.endLine}`);

test('python: functions, a class split into its own lines and its methods, module code in windows', async () => {
  const src = [
    'import os',
    '',
    'X = 1',
    '',
    'def top(a):',
    '    def inner():',
    '        return a',
    '    return inner()',
    '',
    'class Box:',
    '    """A box."""',
    '    size = 3',
    '',
    '    @property',
    '    def area(self):',
    '        return self.size ** 2',
    '',
    '    def grow(self, k):',
    '        self.size += k',
    '',
    'print(top(1))',
    '',
  ].join('\n');
  const chunks = await chunker.chunk('pkg/box.py', src);
  assert.deepEqual(brief(chunks), [
    'window::1-3',
    'function:top:5-8',
    'class:Box:10-14',
    'method:Box.area:15-16',
    'method:Box.grow:18-19',
    'window::21-21',
  ]);
  assert.equal(chunks[1].text, 'def top(a):\n    def inner():\n        return a\n    return inner()');
  assert.ok(chunks.every((c) => c.path === 'pkg/box.py' && c.language === 'python'));
});

test('every grammar language: definitions named as a code search tool would show them', async () => {
  const cases: Array<[string, string, string[]]> = [
    [
      'a.go',
      'package a\n\ntype Server struct {\n\tport int\n}\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n\nfunc New() *Server {\n\treturn &Server{}\n}\n',
      ['window::1-1', 'class:Server:3-5', 'method:Server.Start:7-9', 'function:New:11-13'],
    ],
    [
      'A.java',
      'package a;\n\npublic class A {\n  private int n;\n\n  public A(int n) { this.n = n; }\n\n  int twice() {\n    return 2 * n;\n  }\n}\n',
      ['window::1-1', 'class:A:3-4', 'method:A.A:6-6', 'method:A.twice:8-10', 'class:A:11-11'],
    ],
    [
      'a.cpp',
      '#include <vector>\n\nstruct P { int x; };\n\nint add(int a, int b) {\n  return a + b;\n}\n\nclass Q {\n public:\n  int get() const { return 1; }\n};\n',
      ['window::1-1', 'class:P:3-3', 'function:add:5-7', 'class:Q:9-10', 'method:Q.get:11-11', 'class:Q:12-12'],
    ],
    [
      'a.rb',
      'module M\n  class K\n    def hi(x)\n      x\n    end\n  end\nend\n',
      ['class:M:1-1', 'class:M.K:2-2', 'method:M.K.hi:3-5', 'class:M.K:6-6', 'class:M:7-7'],
    ],
    [
      'a.ts',
      'export interface I { a: number }\n\nexport function f(x: number): number {\n  return x;\n}\n\nclass C {\n  m(): void {}\n}\n',
      ['class:I:1-1', 'function:f:3-5', 'class:C:7-7', 'method:C.m:8-8', 'class:C:9-9'],
    ],
    ['a.js', 'const z = 1;\nfunction g() {\n  return z;\n}\n', ['window::1-1', 'function:g:2-4']],
    [
      'a.rs',
      'struct S;\n\nimpl S {\n    fn new() -> S { S }\n}\n\nfn main() {}\n',
      ['class:S:1-1', 'class:S:3-3', 'method:S.new:4-4', 'class:S:5-5', 'function:main:7-7'],
    ],
  ];
  for (const [path, src, want] of cases) assert.deepEqual(brief(await chunker.chunk(path, src)), want, path);
  assert.deepEqual(chunker.loaded().sort(), ['cpp', 'go', 'java', 'javascript', 'python', 'ruby', 'rust', 'typescript']);
});

test('files without a grammar, long functions and blank runs: windows of the set size, every non-blank line once', async () => {
  const text = Array.from({ length: 23 }, (_, i) => (i % 10 === 9 ? '' : `line ${i + 1}`)).join('\n');
  const chunks = await chunker.chunk('notes/run.kt', text, { windowLines: 10 });
  assert.deepEqual(brief(chunks), ['window::1-9', 'window::11-19', 'window::21-23']);
  assert.equal(chunks[0].language, 'kotlin');
  const long = `def big():\n${Array.from({ length: 30 }, (_, i) => `    x${i} = ${i}`).join('\n')}\n`;
  const parts = await chunker.chunk('big.py', long, { maxChunkLines: 12 });
  assert.deepEqual(brief(parts), ['function:big:1-12', 'function:big:13-24', 'function:big:25-31']);
  assert.equal(languageOfPath('src/Main.JAVA'), 'java');
  assert.equal(languageOfPath('README.md'), undefined);
});
