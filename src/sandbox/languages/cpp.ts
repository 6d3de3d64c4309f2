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
import { BASE_LIMITS, requireTool } from './tools.js';
import { beforeEndOfMain, type JudgeLanguage, type LanguageState } from './language.js';

/**
 * g++ flags: C++17 at -O2 as the issue specifies, with `ONLINE_JUDGE` defined as Codeforces and
 * AtCoder do (programs guard `freopen("a.inp")` debugging code with it).
 */
export const CXX_FLAGS = ['-O2', '-std=c++17', '-DONLINE_JUDGE'] as const;

/** C++'s per-judge state: the precompiled header, built on first use. */
interface CppState extends LanguageState {
  pch(): Promise<string>;
}

/** C++17, compiled with g++. */
export const cpp: JudgeLanguage = {
  id: 'cpp',
  label: 'C++',
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
  endTests: (test, token, env) =>
    beforeEndOfMain(
      test,
      /\bint\s+main\s*\([^)]*\)\s*\{/,
      `{ const char* _coreb_t = ${token ?? `std::getenv("${env}")`}; std::fputs("\\n", stdout); std::fputs(_coreb_t ? _coreb_t : "", stdout); std::fputs("\\n", stdout); std::fflush(stdout); }`,
      '#include <cstdio>\n#include <cstdlib>\n',
    ),
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
    if (ctx.cxxFlags !== undefined) return [gxx, ...ctx.cxxFlags, '-o', `${ctx.box}/prog`, `${ctx.box}/${ctx.fileName}`];
    const pch = await (ctx.state as CppState).pch();
    if (ctx.sandbox) ctx.mounts.push({ src: pch, dest: '/pch' });
    return [gxx, ...CXX_FLAGS, `-I${ctx.sandbox ? '/pch' : pch}`, '-o', `${ctx.box}/prog`, `${ctx.box}/${ctx.fileName}`];
  },
  runArgv: (prog) => [`${prog}/prog`],
};

/**
 * Builds the precompiled `<bits/stdc++.h>` (with {@link CXX_FLAGS}) into `cacheDir/pch-<hash>/bits/` once
 * and returns that directory; programs compiled with `-I<dir>` then pick it up for
 * `#include <bits/stdc++.h>` (~0.2 s instead of ~0.9 s per compile).
 */
export function buildPch(cacheDir: string, gxx: string): string {
  const version = spawnSync(gxx, ['-dumpfullversion'], { encoding: 'utf8' }).stdout.trim();
  const key = createHash('sha256')
    .update(`${gxx} ${version} ${CXX_FLAGS.join(' ')}`)
    .digest('hex')
    .slice(0, 12);
  const dir = join(cacheDir, `pch-${key}`);
  if (existsSync(join(dir, 'bits', 'stdc++.h.gch'))) return dir;
  const tmp = mkdtempSync(join(cacheDir, 'pch-tmp-'));
  mkdirSync(join(tmp, 'bits'), { recursive: true });
  const header = join(tmp, 'bits', 'stdc++.h');
  writeFileSync(header, '#include_next <bits/stdc++.h>\n');
  const r = spawnSync(gxx, [...CXX_FLAGS, '-w', '-x', 'c++-header', header, '-o', header + '.gch'], { encoding: 'utf8' });
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
