/**
 * C++: g++ -O2 -std=c++17 against a precompiled `<bits/stdc++.h>` built once per judge and compiler
 * version (~0.2 s instead of ~0.9 s per compile), mounted read-only at `/pch` in the sandbox;
 * functional tests get a driver that deduces argument types from the member-function pointer.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CorebError } from '../../core/errors.js';
import { BASE_LIMITS, findTool, requireTool, type Tool } from './tools.js';
import { removeCppStrayMainCalls } from '../official-harness.js';
import type { JudgeLanguage, LanguageState } from './language.js';
import {
  applyEdits,
  type Edit,
  findFunction,
  findSuspicions,
  maskCode,
  replaceInCode,
  type SealedProgram,
  sealSuffix,
  type SuspicionRule,
  type TestProof,
} from './sealing.js';

/**
 * g++ flags: C++17 at -O2 as the issue specifies, with `ONLINE_JUDGE` defined as Codeforces and
 * AtCoder do (programs guard `freopen("a.inp")` debugging code with it).
 */
export const CXX_FLAGS = ['-O2', '-std=c++17', '-DONLINE_JUDGE'] as const;

/**
 * Libraries linked when the program includes their headers (HumanEval-X's harness links OpenSSL's
 * libcrypto for its MD5 task); the headers come from Debian's dev packages (libssl-dev).
 */
export const CPP_HEADER_LIBRARIES: ReadonlyArray<readonly [RegExp, string]> = [[/^\s*#\s*include\s*<openssl\//m, '-lcrypto']];

/** The `-l` flags for the libraries `source` includes headers of ({@link CPP_HEADER_LIBRARIES}). */
export function cppLinkFlags(source: string): string[] {
  return CPP_HEADER_LIBRARIES.filter(([re]) => re.test(source)).map(([, flag]) => flag);
}

/** binutils' gold linker (Debian's binutils ships it). */
const GOLD: Tool = { paths: ['/usr/bin/ld.gold'], package: 'binutils' };

/**
 * `-fuse-ld=gold` when {@link GOLD} is installed: it links a program against libstdc++ in ~35 ms of
 * CPU where the default `ld.bfd` takes ~80 ms, with the same libraries and the same program
 * behaviour. Empty (the default linker) where gold is missing.
 */
export function fastLinkFlags(): string[] {
  return findTool(GOLD) === undefined ? [] : ['-fuse-ld=gold'];
}

/** C++'s per-judge state: the precompiled header, built on first use. */
interface CppState extends LanguageState {
  pch(): Promise<string>;
}

/** C++17, compiled with g++. */
export const cpp: JudgeLanguage = {
  id: 'cpp',
  label: 'C++',
  compiled: true,
  remote: { piston: ['c++', 'cpp', 'g++'], judge0: /^C\+\+ \(GCC /, sandboxFusion: { language: 'cpp', runtime: 'g++', addressSpace: true } },
  outOfMemory: /std::bad_alloc/,
  prompt: {
    name: 'C++17',
    fence: 'cpp',
    functionalRule:
      "Write `class Solution` with the starter code's method as a public member function (same name and parameters in C++ types); do not read input or print, and write no `main`.",
  },
  // A top-level `main();` does not compile (113 v202602 C++ programs end with one).
  prepareCandidate: removeCppStrayMainCalls,
  tools: ['gxx'],
  limits: BASE_LIMITS,
  treeAllowanceMb: 64,
  residentMemoryIsLimit: true,
  fileName: 'main.cpp',
  comments: 'c',
  prepare(text, _kind, official) {
    // (a functional driver brings <bits/stdc++.h> itself)
    if (official || /^\s*#\s*include\b/m.test(text)) return { text, notes: [] };
    return { text: '#include <bits/stdc++.h>\n' + text, notes: ['cpp: added #include <bits/stdc++.h> (snippet had no #include)'] };
  },
  sealProgram: (code, test, proof) => sealCpp(code, test, proof),
  suspicions: (code) => findSuspicions(code, maskCode(code), CPP_SUSPICIONS),
  declaration: (name) =>
    new RegExp(
      `(?:^|[\\n;{}])[^;{}()\\n]*?(?<![.>\\w])${name}\\s*\\(([^()]|\\([^()]*\\))*\\)\\s*(const\\s*)?(noexcept\\s*)?(override\\s*)?(->[^{;]*)?\\{`,
    ),
  declarationPlace: 'method (in class Solution or top level)',
  functional(code, funcName) {
    const usesStd = /\busing\s+namespace\s+std\b/.test(code);
    const solution = /\b(class|struct)\s+Solution\b/.test(code);
    return {
      // LeetCode compiles C++ solutions with every standard header and `using namespace std` in effect
      text: `#include <bits/stdc++.h>\n${usesStd ? '' : 'using namespace std;\n'}#define main coreb_program_main\n${code}\n#undef main\n${functionalDriver(funcName, solution)}`,
      extraFiles: [],
      note:
        `cpp: functional driver calling ${solution ? 'Solution().' : ''}${funcName} with JSON arguments added after #include <bits/stdc++.h>` +
        `${usesStd ? '' : ' and using namespace std;'} as LeetCode has them (the program's own main is not run)`,
    };
  },
  createState(ctx): CppState {
    let pch: Promise<string> | undefined;
    // the header's compile takes a job slot like any other compile
    return { pch: () => (pch ??= ctx.runInSlot(() => buildPch(ctx.cacheDir, requireTool('gxx', 'C++')))) };
  },
  async compileArgv(ctx) {
    const gxx = requireTool('gxx', 'C++');
    const libs = cppLinkFlags(ctx.source);
    if (ctx.cxxFlags !== undefined) return [gxx, ...ctx.cxxFlags, '-o', `${ctx.box}/prog`, `${ctx.box}/${ctx.fileName}`, ...libs];
    const pch = await (ctx.state as CppState).pch();
    if (ctx.sandbox) ctx.mounts.push({ src: pch, dest: '/pch' });
    return [gxx, ...CXX_FLAGS, ...fastLinkFlags(), `-I${ctx.sandbox ? '/pch' : pch}`, '-o', `${ctx.box}/prog`, `${ctx.box}/${ctx.fileName}`, ...libs];
  },
  runArgv: (prog) => [`${prog}/prog`],
};

/** What a C++ candidate written to forge a program test would do (recorded on its verdict). */
const CPP_SUSPICIONS: readonly SuspicionRule[] = [
  [/\b(?:getenv|secure_getenv|environ)\b/, 'reads its environment'],
  [/^\s*(?:#|%:)\s*(?:define|undef)\s+(?:NDEBUG|assert|main|exit)\b/m, 'defines or undefines NDEBUG, assert, main or exit'],
  [/\/proc\/|\/dev\/fd/, 'raw:opens /proc or /dev/fd'],
  [/\boperator\s*(?:==|!=|<=>|bool)\b|\boperator\s*(?:==|!=)/, 'defines a comparison or bool conversion operator (a result that equals anything)'],
  [/__attribute__\s*\(\(\s*constructor|\binit_priority\b/, 'runs code before main (constructor attribute)'],
  [/\b(?:signal|sigaction|sigset|bsd_signal)\s*\(/, 'installs a signal handler'],
  [/__assert_fail|__assert_perror_fail|\babort\s*\([^)]*\)\s*(?:noexcept\s*)?\{/, 'defines the C library function that reports failed assertions'],
  [/\b(?:asm|__asm__)\b|\bsyscall\s*\(/, 'makes system calls itself'],
  [/^\s*(?:#|%:)\s*pragma\s+(?:push|pop)_macro|_Pragma/m, 'raw:saves or restores macros (#pragma push_macro)'],
];

/**
 * The names of the macros `code` defines (`#define NAME`, also as `%:define`, with comments and
 * line continuations between the tokens), each once.
 */
export function cppDefinedMacros(code: string): string[] {
  const joined = maskCode(code.replace(/\\\r?\n/g, ''));
  const names = new Set<string>();
  for (const m of joined.matchAll(/^[ \t]*(?:#|%:)[ \t]*define[ \t]+([A-Za-z_]\w*)/gm)) names.add(m[1]);
  return [...names];
}

/** The syscall numbers the sealed test program uses, per architecture (write, pread64, exit_group). */
const CPP_RAW_SYSCALLS = String.raw`#if defined(__x86_64__)
  static long sys3(long n, long a, long b, long c, long d = 0) {
    long r;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return r;
  }
  enum { WRITE = 1, PREAD = 17, EXIT_GROUP = 231 };
#elif defined(__aarch64__)
  static long sys3(long n, long a, long b, long c, long d = 0) {
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
  }
  enum { WRITE = 64, PREAD = 67, EXIT_GROUP = 94 };
#else
  static long sys3(long n, long a, long b, long c, long d = 0) { return ::syscall(n, a, b, c, d); }
  enum { WRITE = SYS_write, PREAD = SYS_pread64, EXIT_GROUP = SYS_exit_group };
#endif`;

/**
 * A C++ `program` test, sealed: the candidate's code, then every macro it defined undone
 * (`#undef`, `NDEBUG` too, and `<cassert>` included again), then the test program with its `main`
 * renamed and called from coreb's own `main`, which prints the proof after it returns 0; the test's
 * `assert` fails through raw system calls (no `__assert_fail`, `abort` or signal the candidate can
 * replace or catch), its `exit(0)` prints the proof first. Every `main` shape works: `return 0;`,
 * falling off the end, `int main(void)`, `signed main`, `(int argc, char** argv)`, `exit(0)`.
 */
export function sealCpp(code: string, test: string, proof: TestProof): SealedProgram {
  const masked = maskCode(test);
  const main = findFunction(masked, /\b(?:int|signed|auto)\s+(?<name>main)\s*\([^)]*\)\s*(?:->\s*int\s*)?\{/);
  if (main === undefined) {
    return {
      text: `${code.replace(/\s+$/, '')}\n\n${test}\n`,
      checked: false,
      notes: ['cpp: test program appended; it has no main function, so an exit status 0 alone passes'],
    };
  }
  const ns = `coreb_sealed_${sealSuffix()}`;
  const edits: Edit[] = [
    { from: main.nameAt, to: main.nameAt + main.nameLength, text: `${ns}_main` },
    // falling off the end of main returns 0; of a renamed function it would be undefined
    { from: main.close, to: main.close, text: '\nreturn 0;\n' },
    ...replaceInCode(masked, /\b(?:std\s*::\s*)?(?:exit|_Exit|quick_exit)\s*\(/g, `::${ns}::exit_tests(`),
  ];
  // the test's own assert, defined after its last #include (which may bring <cassert> back)
  const includes = [...masked.matchAll(/^[ \t]*#[ \t]*include\b[^\n]*$/gm)];
  const last = includes[includes.length - 1];
  const at = last === undefined ? 0 : last.index + last[0].length;
  edits.push({
    from: at,
    to: at,
    text: `\n#undef assert\n#define assert(...) (static_cast<bool>(__VA_ARGS__) ? void(0) : ::${ns}::fail(#__VA_ARGS__, __LINE__))\n`,
  });
  const macros = cppDefinedMacros(code);
  const read =
    proof.channel === 'fd'
      ? `char t[${proof.length}];\n    long n = sys3(PREAD, ${proof.fd}, (long)t, sizeof t, ${proof.offset});\n    if (n > 0) put(1, t, (unsigned long)n);`
      : `put(1, "${proof.token}", ${proof.token.length});`;
  const prelude = String.raw`
// ---- coreb: the test program, sealed (docs/exec.md "Threat model") ----
${macros.map((m) => `#undef ${m}`).join('\n')}
#undef NDEBUG
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#if !defined(__x86_64__) && !defined(__aarch64__)
#include <unistd.h>
#include <sys/syscall.h>
#endif
namespace ${ns} {
${CPP_RAW_SYSCALLS}
  static void put(int fd, const char* s, unsigned long n) {
    while (n > 0) {
      long w = sys3(WRITE, fd, (long)s, (long)n);
      if (w <= 0) return;
      s += w;
      n -= (unsigned long)w;
    }
  }
  static void puts0(int fd, const char* s) {
    unsigned long n = 0;
    while (s[n] != 0) n++;
    put(fd, s, n);
  }
  [[noreturn]] static void die(int status) {
    for (;;) sys3(EXIT_GROUP, status, 0, 0);
  }
  [[noreturn]] static void fail(const char* what, int line) {
    char num[24];
    int k = 23;
    num[k] = 0;
    do { num[--k] = char('0' + line % 10); line /= 10; } while (line > 0 && k > 0);
    puts0(2, "coreb: assertion failed: ");
    puts0(2, what);
    puts0(2, " (main.cpp line ");
    puts0(2, num + k);
    puts0(2, ")\n");
    die(1);
  }
  static void prove() {
    std::fflush(nullptr);
    put(1, "\n", 1);
    ${read}
    put(1, "\n", 1);
  }
  [[noreturn]] static void exit_tests(int status) {
    if (status == 0) prove();
    std::fflush(nullptr);
    die(status);
  }
  template <class F> static int call_main(F* f, int argc, char** argv) {
    if constexpr (std::is_invocable_v<F*, int, char**>) {
      return static_cast<int>(f(argc, argv));
    } else if constexpr (std::is_void_v<std::invoke_result_t<F*>>) {
      f();
      return 0;
    } else {
      return static_cast<int>(f());
    }
  }
}
`;
  const sealedTest = applyEdits(test, edits);
  const driver = `\nint main(int argc, char** argv) {\n  int status = ::${ns}::call_main(&${ns}_main, argc, argv);\n  if (status == 0) ::${ns}::prove();\n  return status;\n}\n`;
  const notes = [
    "cpp: test program sealed: its main renamed and called from coreb's main, which prints the proof token after it returns 0; assert and exit rewritten to raw system calls",
  ];
  if (macros.length > 0)
    notes.push(`cpp: the candidate's macros undefined before the test program (${macros.slice(0, 8).join(', ')}${macros.length > 8 ? ', …' : ''})`);
  return { text: `${code.replace(/\s+$/, '')}\n${prelude}\n${sealedTest.replace(/\s+$/, '')}\n${driver}`, checked: true, notes };
}

/**
 * Builds the precompiled `<bits/stdc++.h>` (with `compileFlags`, default {@link CXX_FLAGS}) into
 * `cacheDir/pch-<hash>/bits/` once per compiler and flags (macros aside), and returns that directory;
 * programs compiled with `-I<dir>` and the same flags then pick it up for `#include <bits/stdc++.h>` (~0.2 s instead of
 * ~0.9 s per compile; g++ falls back to the header itself where the flags differ).
 */
export function buildPch(cacheDir: string, gxx: string, compileFlags: readonly string[] = CXX_FLAGS): string {
  // Macros from the command line are left out: the header reads none of them, and g++ takes a header
  // built without a macro for a compile that defines it (not the other way round), so one build serves
  // compiles with and without -DONLINE_JUDGE.
  const flags = compileFlags.filter((f) => !f.startsWith('-D'));
  const version = spawnSync(gxx, ['-dumpfullversion'], { encoding: 'utf8' }).stdout.trim();
  const key = createHash('sha256')
    .update(`${gxx} ${version} ${flags.join(' ')}`)
    .digest('hex')
    .slice(0, 12);
  const dir = join(cacheDir, `pch-${key}`);
  if (existsSync(join(dir, 'bits', 'stdc++.h.gch'))) return dir;
  const tmp = mkdtempSync(join(cacheDir, 'pch-tmp-'));
  mkdirSync(join(tmp, 'bits'), { recursive: true });
  const header = join(tmp, 'bits', 'stdc++.h');
  writeFileSync(header, '#include_next <bits/stdc++.h>\n');
  const r = spawnSync(gxx, [...flags, '-w', '-x', 'c++-header', header, '-o', header + '.gch'], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new CorebError('TOOLCHAIN', `cannot build the C++ precompiled header with ${gxx}: ${r.stderr || r.error?.message}`);
  }
  chmodSync(tmp, 0o755);
  chmodSync(join(tmp, 'bits'), 0o755);
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

/** C++ driver for `functional` tests: JSON argument lines on stdin, JSON result on stdout. */
function functionalDriver(funcName: string, solution: boolean): string {
  const call = solution
    ? `Solution* coreb_solution = new Solution();\n  coreb_driver::call(coreb_solution, &Solution::${funcName});`
    : `coreb_driver::call(static_cast<coreb_driver::NoClass*>(nullptr), &${funcName});`;
  return String.raw`#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <iostream>
#include <iterator>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>
namespace coreb_driver {
static std::string in;
static std::size_t pos = 0;
[[noreturn]] static void bad(const char* what) {
  std::fprintf(stderr, "coreb functional driver: the test input has no JSON %s at byte %zu\n", what, pos);
  std::exit(3);
}
static void ws() { while (pos < in.size() && (in[pos] == ' ' || in[pos] == '\n' || in[pos] == '\r' || in[pos] == '\t')) ++pos; }
static void utf8(std::string& o, unsigned long cp) {
  if (cp < 0x80) o += char(cp);
  else if (cp < 0x800) { o += char(0xC0 | (cp >> 6)); o += char(0x80 | (cp & 0x3F)); }
  else if (cp < 0x10000) { o += char(0xE0 | (cp >> 12)); o += char(0x80 | ((cp >> 6) & 0x3F)); o += char(0x80 | (cp & 0x3F)); }
  else { o += char(0xF0 | (cp >> 18)); o += char(0x80 | ((cp >> 12) & 0x3F)); o += char(0x80 | ((cp >> 6) & 0x3F)); o += char(0x80 | (cp & 0x3F)); }
}
static std::string str() {
  ws();
  if (pos >= in.size() || in[pos] != '"') bad("string");
  ++pos;
  std::string o;
  while (pos < in.size() && in[pos] != '"') {
    char c = in[pos++];
    if (c != '\\') { o += c; continue; }
    if (pos >= in.size()) bad("string");
    char e = in[pos++];
    if (e == 'n') o += '\n'; else if (e == 't') o += '\t'; else if (e == 'r') o += '\r';
    else if (e == 'b') o += '\b'; else if (e == 'f') o += '\f';
    else if (e == 'u') {
      if (pos + 4 > in.size()) bad("string");
      unsigned long cp = std::strtoul(in.substr(pos, 4).c_str(), nullptr, 16);
      pos += 4;
      if (cp >= 0xD800 && cp < 0xDC00 && pos + 6 <= in.size() && in[pos] == '\\' && in[pos + 1] == 'u') {
        unsigned long lo = std::strtoul(in.substr(pos + 2, 4).c_str(), nullptr, 16);
        pos += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      }
      utf8(o, cp);
    } else o += e;
  }
  if (pos >= in.size()) bad("string");
  ++pos;
  return o;
}
static std::string num() {
  ws();
  std::size_t s = pos;
  while (pos < in.size() && (std::isdigit((unsigned char)in[pos]) || in[pos] == '-' || in[pos] == '+' || in[pos] == '.' || in[pos] == 'e' || in[pos] == 'E')) ++pos;
  if (s == pos) bad("number");
  return in.substr(s, pos - s);
}
template <class T> struct is_vec : std::false_type {};
template <class T, class A> struct is_vec<std::vector<T, A>> : std::true_type {};
template <class T> T get() {
  if constexpr (std::is_same_v<T, bool>) {
    ws();
    if (in.compare(pos, 4, "true") == 0) { pos += 4; return true; }
    if (in.compare(pos, 5, "false") == 0) { pos += 5; return false; }
    bad("boolean");
  } else if constexpr (std::is_same_v<T, char>) {
    std::string s = str();
    if (s.size() != 1) bad("one-character string");
    return s[0];
  } else if constexpr (std::is_integral_v<T>) {
    std::string s = num();
    if (s.find_first_of(".eE") != std::string::npos) return (T)std::strtod(s.c_str(), nullptr);
    if constexpr (std::is_unsigned_v<T>) return (T)std::strtoull(s.c_str(), nullptr, 10);
    else return (T)std::strtoll(s.c_str(), nullptr, 10);
  } else if constexpr (std::is_floating_point_v<T>) {
    return (T)std::strtod(num().c_str(), nullptr);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return str();
  } else if constexpr (is_vec<T>::value) {
    ws();
    if (pos >= in.size() || in[pos] != '[') bad("array");
    ++pos;
    T v;
    ws();
    if (pos < in.size() && in[pos] == ']') { ++pos; return v; }
    for (;;) {
      v.push_back(get<typename T::value_type>());
      ws();
      if (pos < in.size() && in[pos] == ',') { ++pos; continue; }
      if (pos < in.size() && in[pos] == ']') { ++pos; break; }
      bad("array");
    }
    return v;
  } else {
    static_assert(sizeof(T) == 0, "coreb functional driver: unsupported parameter type (integers, floating point, bool, char, std::string and std::vector of them are supported)");
  }
}
static void put(std::string& o, const std::string& s) {
  static const char* hex = "0123456789abcdef";
  o += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') { o += '\\'; o += char(c); }
    else if (c == '\n') o += "\\n"; else if (c == '\t') o += "\\t"; else if (c == '\r') o += "\\r";
    else if (c < 0x20) { o += "\\u00"; o += hex[c >> 4]; o += hex[c & 15]; }
    else o += char(c);
  }
  o += '"';
}
template <class T> void put(std::string& o, const T& v) {
  if constexpr (std::is_same_v<T, bool>) o += v ? "true" : "false";
  else if constexpr (std::is_same_v<T, char>) put(o, std::string(1, v));
  else if constexpr (std::is_integral_v<T>) o += std::to_string(v);
  else if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite((double)v)) { o += "null"; return; }
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", (double)v);
    o += b;
  } else if constexpr (std::is_convertible_v<T, std::string>) put(o, std::string(v));
  else if constexpr (is_vec<T>::value) {
    o += '[';
    bool first = true;
    for (const auto& x : v) {
      if (!first) o += ", ";
      first = false;
      typename T::value_type e = x;
      put(o, e);
    }
    o += ']';
  } else {
    static_assert(sizeof(T) == 0, "coreb functional driver: unsupported return type (integers, floating point, bool, char, std::string and std::vector of them are supported)");
  }
}
template <class R, class... A, class G> void run(G g) {
  std::tuple<std::decay_t<A>...> args{get<std::decay_t<A>>()...};
  ws();
  if (pos != in.size()) {
    std::fprintf(stderr, "coreb functional driver: the test has more arguments than ${funcName} takes (%zu)\n", sizeof...(A));
    std::exit(3);
  }
  std::string o;
  if constexpr (std::is_void_v<R>) {
    std::apply(g, args);
    o = "null";
  } else {
    std::decay_t<R> r = std::apply(g, args);
    put(o, r);
  }
  std::cout << o;
  std::cout.flush();
}
struct NoClass {};
template <class S, class R, class... A> void call(S* self, R (S::*f)(A...)) { run<R, A...>([&](auto&... a) -> R { return (self->*f)(a...); }); }
template <class S, class R, class... A> void call(S* self, R (S::*f)(A...) const) { run<R, A...>([&](auto&... a) -> R { return (self->*f)(a...); }); }
template <class S, class R, class... A> void call(S*, R (*f)(A...)) { run<R, A...>([&](auto&... a) -> R { return f(a...); }); }
}  // namespace coreb_driver
int main() {
  coreb_driver::in.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  ${call}
  return 0;
}
`;
}
