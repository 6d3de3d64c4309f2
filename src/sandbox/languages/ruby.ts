/**
 * Ruby: run from source with `ruby` (no compile step); functional tests run a driver file that
 * requires the program as `main.rb` and calls the method on `Solution.new`, `Solution` or the top level.
 * Programs start without RubyGems (`--disable-gems`, about 10 ms instead of 90 ms of CPU per run),
 * with the bundled gems' folders (`prime`, `matrix`, …) on the load path, so every library a
 * program can `require` under a plain `ruby` still loads; what is missing is the `Gem` module
 * itself and RubyGems' `gem` method, which judged programs do not use.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BASE_LIMITS, requireTool } from './tools.js';
import type { JudgeLanguage } from './language.js';
import { findSuspicions, sealSuffix, type SealedProgram, type SuspicionRule, type TestProof } from './sealing.js';

/** Ruby, run with `ruby main.rb`. */
export const ruby: JudgeLanguage = {
  id: 'ruby',
  label: 'Ruby',
  remote: { piston: ['ruby'], judge0: /^Ruby \(/, sandboxFusion: { language: 'ruby', runtime: 'ruby' } },
  outOfMemory: /failed to allocate memory|NoMemoryError/,
  prompt: {
    name: 'Ruby',
    fence: 'ruby',
    functionalRule: "Write `class Solution` with the starter code's method (same name and parameters); do not read input or print.",
  },
  tools: ['ruby'],
  limits: BASE_LIMITS,
  treeAllowanceMb: 64,
  residentMemoryIsLimit: true,
  fileName: 'main.rb',
  comments: 'hash',
  sealProgram: (code, test, proof) => sealRuby(code, test, proof),
  suspicions: (code) =>
    findSuspicions(
      code,
      code.replace(/#[^\n]*/g, (m) => ' '.repeat(m.length)),
      RUBY_SUSPICIONS,
    ),
  declaration: (name) => new RegExp(`\\bdef\\s+(self\\.)?${name}\\b[^\\n]*`),
  declarationPlace: 'method (in class Solution or top level)',
  functional: (code, funcName) => ({
    fileName: 'coreb_driver.rb',
    text: functionalDriver(funcName),
    extraFiles: [{ name: 'main.rb', text: code }],
    note: `ruby: functional driver coreb_driver.rb requiring main.rb and calling ${funcName} added`,
  }),
  async compileArgv(): Promise<undefined> {
    requireTool('ruby', 'Ruby');
    return undefined;
  },
  runArgv: (prog, prepared) => {
    const bin = requireTool('ruby', 'Ruby');
    return [bin, '--disable-gems', ...bundledGemPaths(bin).flatMap((p) => ['-I', p]), `${prog}/${prepared.fileName}`];
  },
};

const gemPaths = new Map<string, string[]>();

/**
 * The library folders of the gems installed with `ruby` that are not default gems (bundled gems:
 * `prime`, `matrix`, `rexml`, …): RubyGems puts one on the load path when a program requires it;
 * without RubyGems they are given with `-I`. Only folders under /usr (what the sandbox sees). Asked
 * of `ruby` once per process (about 0.1 s).
 */
export function bundledGemPaths(rubyBin: string): string[] {
  let paths = gemPaths.get(rubyBin);
  if (paths === undefined) {
    const r = spawnSync(rubyBin, ['-e', 'puts Gem::Specification.reject(&:default_gem?).flat_map(&:full_require_paths).uniq'], {
      encoding: 'utf8',
      timeout: 30000,
    });
    paths = (r.status === 0 ? r.stdout : '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('/usr/') && !l.includes('hide_lib_for_update') && existsSync(l));
    gemPaths.set(rubyBin, paths);
  }
  return paths;
}

/** Ruby driver for `functional` tests: JSON argument lines on stdin, JSON result on stdout. */
function functionalDriver(funcName: string): string {
  return String.raw`require 'json'
$coreb_input = STDIN.read
require_relative 'main'
coreb_args = $coreb_input.split("\n").reject { |l| l.strip.empty? }.map { |l| JSON.parse(l) }
coreb_name = :${funcName}
coreb_target =
  if defined?(Solution) && Solution.is_a?(Module) && (Solution.method_defined?(coreb_name) || Solution.private_method_defined?(coreb_name))
    Solution.new
  elsif defined?(Solution) && Solution.respond_to?(coreb_name)
    Solution
  else
    self
  end
coreb_result = coreb_target.send(coreb_name, *coreb_args)
coreb_result = coreb_result.to_a if defined?(Set) && coreb_result.is_a?(Set)
STDOUT.write(JSON.generate(coreb_result))
STDOUT.flush
`;
}

/** What a Ruby candidate written to forge a program test would do (recorded on its verdict). */
const RUBY_SUSPICIONS: readonly SuspicionRule[] = [
  [/\bENV\b/, 'reads its environment'],
  [/\/proc\/|\/dev\/fd|\bIO\s*\.\s*(?:for_fd|new|sysopen)\b/, 'reads /proc, /dev/fd or raw descriptors'],
  [/\bdef\s+(?:self\s*\.\s*)?(?:raise|fail|abort|exit|exit!|==|!=|eql\?|equal\?|<=>|===)(?=[\s(;]|$)/m, 'redefines raise, exit or equality'],
  [/\bat_exit\b|\bset_trace_func\b|\bTracePoint\b|\btrap\s*\(|\bSignal\s*\.\s*trap\b/, 'hooks exit, tracing or signals'],
  [
    /\b(?:prepend|alias_method|define_method|remove_method|undef_method|instance_variable_set|ObjectSpace)\b|\balias\s+/,
    'rewrites methods at run time',
  ],
  [/\bexec\s*\(|\bspawn\b|\bProcess\s*\.\s*(?:exec|kill)\b/, 're-executes itself or signals'],
];

/**
 * The sealed runner for Ruby `program` tests. Before the candidate runs it resolves the methods of
 * the core classes and modules that the test's checks use (operators, raise, exit, equality, and each
 * name the test program says), through their ancestors (`def raise` at the top level shows as a new
 * `Object#raise`), then runs the candidate's code at the top level, checks that no method was
 * replaced, runs the test program, checks again and prints the proof token. The candidate's code
 * and the runner's state do not share local variables (the runner is a lambda).
 */
const RUBY_RUNNER = String.raw`->(solution, tests, proof_fd, proof_at, proof_literal) {
  core = [BasicObject, Object, Kernel, Module, Class, Comparable, Enumerable, NilClass, TrueClass, FalseClass,
          Numeric, Integer, Float, Rational, Complex, String, Symbol, Array, Hash, Range, Struct, Proc, Method,
          UnboundMethod, Exception, StandardError, RuntimeError, IO, File, Math, Process, Marshal]
  resolve = ->(c) {
    h = {}
    (c.instance_methods + c.private_instance_methods).each { |m| h[m] = c.instance_method(m) }
    (c.singleton_class.instance_methods + c.singleton_class.private_instance_methods).each { |m| h[[:self, m]] = c.singleton_class.instance_method(m) }
    h
  }
  # What the test's checks use: every operator and raise/exit/equality method, and each name the test program says.
  words = tests.scan(/[A-Za-z_]\w*[?!]?/).uniq
  always = %i[raise fail abort exit exit! eql? equal? hash nil? is_a? kind_of? instance_of? respond_to? to_s inspect coerce freeze frozen?]
  watched = ->(m) { m.is_a?(Array) ? watched.(m[1]) : (m.to_s !~ /\A[A-Za-z_]/ || always.include?(m) || words.include?(m.to_s)) }
  snapshot = core.map { |c| [c, resolve.(c).select { |k, _| watched.(k) }] }
  eq = UnboundMethod.instance_method(:==)
  exit_now = Process.method(:exit!)
  err = $stderr
  write_err = IO.instance_method(:syswrite).bind(STDERR)
  write_out = IO.instance_method(:syswrite).bind(STDOUT)
  fail_now = ->(why) {
    begin; $stdout.flush; rescue Exception; end
    write_err.call("coreb: the test failed: #{why}\n")
    exit_now.call(1)
  }
  changed = -> {
    snapshot.each do |c, before|
      before.each do |key, m|
        now = key.is_a?(Array) ? (c.singleton_class.instance_method(key[1]) rescue nil) : (c.instance_method(key) rescue nil)
        next if now && eq.bind(now).call(m)
        return "#{c}#{key.is_a?(Array) ? '.' : '#'}#{key.is_a?(Array) ? key[1] : key} was redefined"
      end
    end
    nil
  }
  TOPLEVEL_BINDING.eval(solution, $0, 1)
  why = changed.()
  fail_now.("the program changed what the test relies on: #{why}") if why
  TOPLEVEL_BINDING.eval(tests, 'tests.rb', 1)
  why = changed.()
  fail_now.("the program changed what the test relies on: #{why}") if why
  begin; $stdout.flush; rescue Exception; end
  token = proof_fd ? IO.instance_method(:pread).bind(IO.for_fd(proof_fd, autoclose: false)).call(proof_at[1], proof_at[0]) : proof_literal
  write_out.call("\n#{token}\n")
}`;

/**
 * A Ruby `program` test, sealed: `main.rb` is coreb's runner ({@link RUBY_RUNNER}) called with the
 * candidate's code and the test program as single-quoted heredocs (no interpolation; terminators the
 * sources do not contain).
 */
export function sealRuby(code: string, test: string, proof: TestProof): SealedProgram {
  const end = (text: string): string => {
    for (;;) {
      const t = `COREB_SOURCE_${sealSuffix().toUpperCase()}`;
      if (!text.includes(t)) return t;
    }
  };
  const a = end(code);
  const b = end(test);
  const fd = proof.channel === 'fd' ? `${proof.fd}, [${proof.offset}, ${proof.length}]` : 'nil, nil';
  const literal = proof.channel === 'literal' ? `'${proof.token}'` : 'nil';
  const body = (text: string): string => (text.endsWith('\n') ? text : `${text}\n`);
  const text = `${RUBY_RUNNER}.call(<<'${a}', <<'${b}', ${fd}, ${literal})\n${body(code)}${a}\n${body(test)}${b}\n`;
  return {
    text,
    checked: true,
    notes: [
      "ruby: test program sealed: coreb's runner runs the program at the top level, checks that no core method was redefined, runs the test program, checks again and prints the proof token",
    ],
  };
}
