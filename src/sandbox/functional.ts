/**
 * Drivers for `functional` (LeetCode-style) tests in C++, Java, Go and Ruby, as LiveCodeBench's
 * harness does for Python: the test input is one JSON value per line, one per argument; the driver
 * decodes each into the type the program's method declares, calls the method and prints the result
 * as JSON, which the judge compares by JSON equality (verdict.ts).
 *
 * The argument types come from the program itself, so a `vector<long long>&` or `List<Integer>`
 * parameter gets what it declares: C++ deduces them from the member-function pointer at compile
 * time, Java and Go read them by reflection, Ruby is untyped. Supported: integers of every width,
 * floating point, bool, char (a one-character JSON string), strings, and arrays/lists of those
 * nested to any depth. The program's own `main` (many programs carry a stdin `main` beside
 * `class Solution`) is not run.
 */
import type { ExecLanguage } from '../core/execution.js';

/** A functional problem the judge cannot run for a program, decided before building it. */
export interface FunctionalRefusal {
  /** `compile_error` when the program lacks the method the tests call; `sandbox_error` when the driver does not support its types. */
  verdict: 'compile_error' | 'sandbox_error';
  /** One sentence naming the method, language and what is missing or unsupported. */
  reason: string;
}

/** A program with its functional driver: the main file, extra files beside it, and notes. */
export interface FunctionalSource {
  /** Main source file name; undefined keeps the language's default. */
  fileName?: string;
  /** Main source text. */
  text: string;
  /** Other files of the program (written beside the main file; Go builds them all). */
  extraFiles: Array<{ name: string; text: string }>;
  /** Java: the class to run. */
  mainClass?: string;
  /** What was added, for the result's `normalisations`. */
  note: string;
}

/** LeetCode's linked structures and interactive helpers: no JSON encoding the driver could guess. */
const UNSUPPORTED_TYPES =
  /\b(ListNode|TreeNode|Node|NestedInteger|Interval|Employee|ImmutableListNode|MountainArray|CustomFunction|Robot|Master|Sea|BinaryMatrix|ArrayReader|HtmlParser)\b/;

/** What the drivers accept, in words (for refusals and docs). */
export const FUNCTIONAL_TYPES = 'integers, floating point, bool, char, strings, and arrays/lists/slices of those (any depth)';

function stripComments(code: string, hash: boolean): string {
  const noBlock = code.replace(/\/\*[\s\S]*?\*\//g, ' ');
  return hash ? code.replace(/^=begin[\s\S]*?^=end/gm, ' ').replace(/#[^\n{]*$/gm, '') : noBlock.replace(/\/\/[^\n]*/g, ' ');
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The declaration of `name` in `code` (text up to its body's `{`), if defined; per-language patterns. */
function findDeclaration(language: ExecLanguage, code: string, name: string): string | undefined {
  const n = escapeRe(name);
  const patterns: Partial<Record<ExecLanguage, RegExp>> = {
    cpp: new RegExp(
      `(?:^|[\\n;{}])[^;{}()\\n]*?(?<![.>\\w])${n}\\s*\\(([^()]|\\([^()]*\\))*\\)\\s*(const\\s*)?(noexcept\\s*)?(override\\s*)?(->[^{;]*)?\\{`,
    ),
    java: new RegExp(`(?:^|[\\n;{}])[^;{}()\\n]*?(?<![.\\w])${n}\\s*\\(([^()]|\\([^()]*\\))*\\)\\s*(throws[\\w\\s,.]+)?\\{`),
    go: new RegExp(`\\bfunc\\s+(\\(\\s*\\w*\\s*\\*?\\s*\\w+\\s*\\)\\s*)?${n}\\s*\\([^{]*\\{`),
    ruby: new RegExp(`\\bdef\\s+(self\\.)?${n}\\b[^\\n]*`),
  };
  const re = patterns[language];
  if (re === undefined) return undefined;
  return re.exec(stripComments(code, language === 'ruby'))?.[0];
}

/**
 * Why functional tests calling `funcName` cannot run `code` in `language`, or undefined when they
 * can: no method name in the tests, no such method in the program (`compile_error`, as LeetCode
 * reports it), or a parameter/return type the driver has no JSON encoding for (`sandbox_error`:
 * the judge's limit, not the program's fault). Python is left to LiveCodeBench's rules.
 */
export function checkFunctional(language: ExecLanguage, code: string, funcName: string): FunctionalRefusal | undefined {
  if (!/^[A-Za-z_]\w*$/.test(funcName)) {
    return { verdict: 'sandbox_error', reason: `functional tests need a method name (LiveCodeBench metadata.func_name); got \`${funcName}\`` };
  }
  if (language === 'python') return undefined;
  const decl = findDeclaration(language, code, funcName);
  if (decl === undefined) {
    const where = language === 'go' ? 'function' : language === 'java' ? 'method of class Solution' : 'method (in class Solution or top level)';
    return {
      verdict: 'compile_error',
      reason: `the functional tests call ${funcName} (the problem's func_name), but the ${language} program defines no ${where} named ${funcName}`,
    };
  }
  if (language === 'java' && !/\b(class|record)\s+Solution\b/.test(code)) {
    return {
      verdict: 'compile_error',
      reason: `the functional tests call Solution().${funcName}, but the ${language} program has no class Solution`,
    };
  }
  const bad = UNSUPPORTED_TYPES.exec(decl);
  if (bad !== null) {
    return {
      verdict: 'sandbox_error',
      reason: `the ${language} functional driver cannot pass a ${bad[1]} to ${funcName} (it supports ${FUNCTIONAL_TYPES}); the judge cannot run this program`,
    };
  }
  return undefined;
}

/**
 * `code` with the driver calling `funcName` on the JSON arguments read from stdin (C++, Java, Go,
 * Ruby). Check {@link checkFunctional} first.
 */
export function functionalSource(language: Exclude<ExecLanguage, 'python'>, code: string, funcName: string): FunctionalSource {
  switch (language) {
    case 'cpp': {
      const usesStd = /\busing\s+namespace\s+std\b/.test(code);
      const solution = /\b(class|struct)\s+Solution\b/.test(code);
      return {
        // LeetCode compiles C++ solutions with every standard header and `using namespace std` in effect
        text: `#include <bits/stdc++.h>\n${usesStd ? '' : 'using namespace std;\n'}#define main coreb_program_main\n${code}\n#undef main\n${cppDriver(funcName, solution)}`,
        extraFiles: [],
        note:
          `cpp: functional driver calling ${solution ? 'Solution().' : ''}${funcName} with JSON arguments added after #include <bits/stdc++.h>` +
          `${usesStd ? '' : ' and using namespace std;'} as LeetCode has them (the program's own main is not run)`,
      };
    }
    case 'java':
      return {
        text: `${code}\n${javaDriver(funcName)}`,
        extraFiles: [],
        mainClass: 'CorebDriver',
        note: `java: functional driver class CorebDriver calling Solution.${funcName} by reflection added`,
      };
    case 'go': {
      const renamed = code.replace(/^func\s+main\s*\(\s*\)/m, 'func corebProgramMain()');
      const caller = goCaller(code, funcName);
      return {
        text: renamed,
        extraFiles: [{ name: 'coreb_driver.go', text: goDriver(caller) }],
        note: `go: functional driver file calling ${caller} by reflection added${renamed !== code ? " (the program's main renamed corebProgramMain, not run)" : ''}`,
      };
    }
    case 'ruby':
      return {
        fileName: 'coreb_driver.rb',
        text: rubyDriver(funcName),
        extraFiles: [{ name: 'main.rb', text: code }],
        note: `ruby: functional driver coreb_driver.rb requiring main.rb and calling ${funcName} added`,
      };
  }
}

/** The Go expression of the function value: a top-level func, or a method of a Solution struct. */
function goCaller(code: string, funcName: string): string {
  const m = new RegExp(`\\bfunc\\s+\\(\\s*\\w*\\s*(\\*?)\\s*(\\w+)\\s*\\)\\s*${escapeRe(funcName)}\\s*\\(`).exec(stripComments(code, false));
  if (m === null) return funcName;
  return m[1] === '*' ? `(&${m[2]}{}).${funcName}` : `${m[2]}{}.${funcName}`;
}

function cppDriver(funcName: string, solution: boolean): string {
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

function javaDriver(funcName: string): string {
  return String.raw`class CorebDriver {
  private static String in;
  private static int pos;
  private static void fail(String msg) {
    System.out.flush();
    System.err.println("coreb functional driver: " + msg);
    System.exit(3);
  }
  private static void ws() { while (pos < in.length() && Character.isWhitespace(in.charAt(pos))) pos++; }
  private static Object value() {
    ws();
    if (pos >= in.length()) fail("the test input ends before a JSON value");
    char c = in.charAt(pos);
    if (c == '[') {
      pos++;
      java.util.ArrayList<Object> list = new java.util.ArrayList<>();
      ws();
      if (pos < in.length() && in.charAt(pos) == ']') { pos++; return list; }
      while (true) {
        list.add(value());
        ws();
        if (pos < in.length() && in.charAt(pos) == ',') { pos++; continue; }
        if (pos < in.length() && in.charAt(pos) == ']') { pos++; return list; }
        fail("the test input has a malformed JSON array at " + pos);
      }
    }
    if (c == '"') {
      pos++;
      StringBuilder b = new StringBuilder();
      while (pos < in.length() && in.charAt(pos) != '"') {
        char d = in.charAt(pos++);
        if (d != '\\') { b.append(d); continue; }
        char e = in.charAt(pos++);
        switch (e) {
          case 'n': b.append('\n'); break;
          case 't': b.append('\t'); break;
          case 'r': b.append('\r'); break;
          case 'b': b.append('\b'); break;
          case 'f': b.append('\f'); break;
          case 'u': b.append((char) Integer.parseInt(in.substring(pos, pos + 4), 16)); pos += 4; break;
          default: b.append(e);
        }
      }
      pos++;
      return b.toString();
    }
    if (in.startsWith("true", pos)) { pos += 4; return Boolean.TRUE; }
    if (in.startsWith("false", pos)) { pos += 5; return Boolean.FALSE; }
    if (in.startsWith("null", pos)) { pos += 4; return null; }
    int s = pos;
    while (pos < in.length() && "+-.eE0123456789".indexOf(in.charAt(pos)) >= 0) pos++;
    if (s == pos) fail("the test input has no JSON value at " + pos);
    return new java.math.BigDecimal(in.substring(s, pos));
  }
  private static Object convert(Object v, java.lang.reflect.Type t) {
    if (t instanceof Class) {
      Class<?> c = (Class<?>) t;
      if (v instanceof java.math.BigDecimal) {
        java.math.BigDecimal n = (java.math.BigDecimal) v;
        if (c == int.class || c == Integer.class) return n.intValue();
        if (c == long.class || c == Long.class) return n.longValue();
        if (c == double.class || c == Double.class || c == Object.class || c == Number.class) return n.doubleValue();
        if (c == float.class || c == Float.class) return n.floatValue();
        if (c == short.class || c == Short.class) return n.shortValue();
        if (c == byte.class || c == Byte.class) return n.byteValue();
        if (c == java.math.BigInteger.class) return n.toBigInteger();
        if (c == java.math.BigDecimal.class) return n;
      }
      if ((c == boolean.class || c == Boolean.class || c == Object.class) && v instanceof Boolean) return v;
      if (v instanceof String) {
        String s = (String) v;
        if (c == String.class || c == CharSequence.class || c == Object.class) return s;
        if ((c == char.class || c == Character.class) && s.length() == 1) return s.charAt(0);
      }
      if (c.isArray() && v instanceof java.util.List) {
        java.util.List<?> l = (java.util.List<?>) v;
        Object a = java.lang.reflect.Array.newInstance(c.getComponentType(), l.size());
        for (int i = 0; i < l.size(); i++) java.lang.reflect.Array.set(a, i, convert(l.get(i), c.getComponentType()));
        return a;
      }
      if (v == null && !c.isPrimitive()) return null;
      if (java.util.List.class.isAssignableFrom(c) && v instanceof java.util.List) return v;
    } else if (t instanceof java.lang.reflect.ParameterizedType && v instanceof java.util.List) {
      java.lang.reflect.ParameterizedType p = (java.lang.reflect.ParameterizedType) t;
      Class<?> raw = (Class<?>) p.getRawType();
      java.lang.reflect.Type e = p.getActualTypeArguments()[0];
      java.util.List<Object> out = raw == java.util.LinkedList.class ? new java.util.LinkedList<>() : new java.util.ArrayList<>();
      if (raw.isAssignableFrom(out.getClass())) {
        for (Object x : (java.util.List<?>) v) out.add(convert(x, e));
        return out;
      }
    }
    fail("cannot pass the JSON value " + v + " as a " + t.getTypeName() + " (supported: ${'integers, floating point, boolean, char, String, arrays and Lists of those'})");
    return null;
  }
  private static void write(StringBuilder o, Object v) {
    if (v == null) o.append("null");
    else if (v instanceof Boolean) o.append(v);
    else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      o.append(Double.isFinite(d) ? Double.toString(d) : "null");
    } else if (v instanceof Number) o.append(v);
    else if (v instanceof Character || v instanceof CharSequence) {
      String s = v.toString();
      o.append('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c == '"' || c == '\\') o.append('\\').append(c);
        else if (c == '\n') o.append("\\n");
        else if (c < 0x20) o.append(String.format("\\u%04x", (int) c));
        else o.append(c);
      }
      o.append('"');
    } else if (v.getClass().isArray()) {
      o.append('[');
      for (int i = 0; i < java.lang.reflect.Array.getLength(v); i++) {
        if (i > 0) o.append(", ");
        write(o, java.lang.reflect.Array.get(v, i));
      }
      o.append(']');
    } else if (v instanceof Iterable) {
      o.append('[');
      boolean first = true;
      for (Object x : (Iterable<?>) v) {
        if (!first) o.append(", ");
        first = false;
        write(o, x);
      }
      o.append(']');
    } else fail("cannot print a " + v.getClass().getName() + " as JSON");
  }
  public static void main(String[] args) throws Throwable {
    in = new String(System.in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    java.util.ArrayList<Object> values = new java.util.ArrayList<>();
    ws();
    while (pos < in.length()) { values.add(value()); ws(); }
    Class<?> cls = Class.forName("Solution");
    java.lang.reflect.Method m = null;
    for (java.lang.reflect.Method c : cls.getDeclaredMethods()) {
      if (c.getName().equals("${funcName}") && c.getParameterCount() == values.size()) { m = c; break; }
    }
    if (m == null) fail("class Solution has no method ${funcName} taking " + values.size() + " argument(s)");
    m.setAccessible(true);
    Object self = null;
    if (!java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
      java.lang.reflect.Constructor<?> k = cls.getDeclaredConstructor();
      k.setAccessible(true);
      self = k.newInstance();
    }
    java.lang.reflect.Type[] types = m.getGenericParameterTypes();
    Object[] a = new Object[types.length];
    for (int i = 0; i < types.length; i++) a[i] = convert(values.get(i), types[i]);
    Object r;
    try {
      r = m.invoke(self, a);
    } catch (java.lang.reflect.InvocationTargetException e) {
      throw e.getCause();
    }
    StringBuilder o = new StringBuilder();
    write(o, r);
    System.out.print(o);
    System.out.flush();
  }
}
`;
}

function goDriver(caller: string): string {
  return String.raw`package main

import (
	corebjson "encoding/json"
	corebfmt "fmt"
	corebio "io"
	corebmath "math"
	corebos "os"
	corebreflect "reflect"
	corebstrconv "strconv"
	corebstrings "strings"
)

func corebFail(format string, a ...interface{}) {
	corebfmt.Fprintf(corebos.Stderr, "coreb functional driver: "+format+"\n", a...)
	corebos.Exit(3)
}

func corebNumber(v interface{}, t corebreflect.Type) corebjson.Number {
	n, ok := v.(corebjson.Number)
	if !ok {
		corebFail("cannot pass the JSON value %v as a %s", v, t)
	}
	return n
}

func corebInt(v interface{}, t corebreflect.Type) int64 {
	n := corebNumber(v, t)
	i, err := n.Int64()
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil {
			corebFail("cannot pass %s as a %s", n, t)
		}
		i = int64(f)
	}
	return i
}

func corebConvert(v interface{}, t corebreflect.Type) corebreflect.Value {
	x := corebreflect.New(t).Elem()
	switch t.Kind() {
	case corebreflect.Int, corebreflect.Int8, corebreflect.Int16, corebreflect.Int64:
		x.SetInt(corebInt(v, t))
	case corebreflect.Int32:
		if s, ok := v.(string); ok && len([]rune(s)) == 1 {
			x.SetInt(int64([]rune(s)[0]))
		} else {
			x.SetInt(corebInt(v, t))
		}
	case corebreflect.Uint8:
		if s, ok := v.(string); ok && len(s) == 1 {
			x.SetUint(uint64(s[0]))
		} else {
			x.SetUint(uint64(corebInt(v, t)))
		}
	case corebreflect.Uint, corebreflect.Uint16, corebreflect.Uint32, corebreflect.Uint64:
		x.SetUint(uint64(corebInt(v, t)))
	case corebreflect.Float32, corebreflect.Float64:
		f, err := corebNumber(v, t).Float64()
		if err != nil {
			corebFail("cannot pass %v as a %s", v, t)
		}
		x.SetFloat(f)
	case corebreflect.Bool:
		b, ok := v.(bool)
		if !ok {
			corebFail("cannot pass the JSON value %v as a %s", v, t)
		}
		x.SetBool(b)
	case corebreflect.String:
		s, ok := v.(string)
		if !ok {
			corebFail("cannot pass the JSON value %v as a %s", v, t)
		}
		x.SetString(s)
	case corebreflect.Slice:
		l, ok := v.([]interface{})
		if !ok {
			if v == nil {
				return x
			}
			corebFail("cannot pass the JSON value %v as a %s", v, t)
		}
		s := corebreflect.MakeSlice(t, len(l), len(l))
		for i, e := range l {
			s.Index(i).Set(corebConvert(e, t.Elem()))
		}
		return s
	case corebreflect.Interface:
		if v != nil {
			x.Set(corebreflect.ValueOf(v))
		}
	default:
		corebFail("parameter type %s is not supported (integers, floats, bool, byte/rune as one-character strings, string and slices of those are)", t)
	}
	return x
}

func corebWrite(b *corebstrings.Builder, v corebreflect.Value) {
	switch v.Kind() {
	case corebreflect.Invalid:
		b.WriteString("null")
	case corebreflect.Int, corebreflect.Int8, corebreflect.Int16, corebreflect.Int32, corebreflect.Int64:
		b.WriteString(corebstrconv.FormatInt(v.Int(), 10))
	case corebreflect.Uint8:
		s, _ := corebjson.Marshal(string([]byte{byte(v.Uint())}))
		b.Write(s)
	case corebreflect.Uint, corebreflect.Uint16, corebreflect.Uint32, corebreflect.Uint64:
		b.WriteString(corebstrconv.FormatUint(v.Uint(), 10))
	case corebreflect.Float32, corebreflect.Float64:
		f := v.Float()
		if corebmath.IsNaN(f) || corebmath.IsInf(f, 0) {
			b.WriteString("null")
		} else {
			b.WriteString(corebstrconv.FormatFloat(f, 'g', -1, 64))
		}
	case corebreflect.Bool:
		b.WriteString(corebstrconv.FormatBool(v.Bool()))
	case corebreflect.String:
		s, _ := corebjson.Marshal(v.String())
		b.Write(s)
	case corebreflect.Slice, corebreflect.Array:
		if v.Kind() == corebreflect.Slice && v.IsNil() {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			corebWrite(b, v.Index(i))
		}
		b.WriteByte(']')
	case corebreflect.Interface, corebreflect.Ptr:
		if v.IsNil() {
			b.WriteString("null")
		} else {
			corebWrite(b, v.Elem())
		}
	default:
		corebFail("cannot print a %s as JSON", v.Type())
	}
}

func main() {
	data, err := corebio.ReadAll(corebos.Stdin)
	if err != nil {
		corebFail("cannot read the test input: %v", err)
	}
	dec := corebjson.NewDecoder(corebstrings.NewReader(string(data)))
	dec.UseNumber()
	var args []interface{}
	for {
		var x interface{}
		if err := dec.Decode(&x); err == corebio.EOF {
			break
		} else if err != nil {
			corebFail("the test input is not one JSON value per line: %v", err)
		}
		args = append(args, x)
	}
	f := corebreflect.ValueOf(${caller})
	t := f.Type()
	if t.NumIn() != len(args) {
		corebFail("the test has %d argument(s), ${caller} takes %d", len(args), t.NumIn())
	}
	in := make([]corebreflect.Value, len(args))
	for i := range args {
		in[i] = corebConvert(args[i], t.In(i))
	}
	out := f.Call(in)
	var b corebstrings.Builder
	if len(out) == 0 {
		b.WriteString("null")
	} else {
		corebWrite(&b, out[0])
	}
	corebos.Stdout.WriteString(b.String())
}
`;
}

function rubyDriver(funcName: string): string {
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
