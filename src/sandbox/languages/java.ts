/**
 * Java 17: `javac` (in warm compiler JVMs by default, javac-server.ts) with a small serial-GC
 * compiler JVM; the program runs with the heap flags of its memory limit. The file is named after
 * its public class; the class run is the one declaring `main` (default `Main`); functional tests get
 * a driver class calling `Solution.<func_name>` by reflection.
 */
import { BASE_LIMITS, requireTool } from './tools.js';
import { JAVAC_JVM_FLAGS, JAVAC_OPTIONS, createJavacServers } from './javac-server.js';
import { stripCComments, type JudgeLanguage, type LanguageState } from './language.js';
import {
  applyEdits,
  closingBrace,
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

/** The name of the first `public class` (or interface/enum/record) in Java source, if any. */
export function javaPublicClass(code: string): string | undefined {
  const m = /^\s*public\s+(?:(?:final|abstract|static|strictfp)\s+)*(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)/m.exec(stripCComments(code));
  return m?.[1];
}

/**
 * The top-level class whose body declares `static void main`, if any (nested classes are skipped;
 * braces are counted outside comments, strings and character literals).
 */
export function javaMainClass(code: string): string | undefined {
  const text = stripCComments(code).replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');
  let depth = 0;
  let current: string | undefined;
  const decl = /\b(?:class|enum|record|interface)\s+([A-Za-z_$][\w$]*)|[{}]|\bstatic\s+void\s+main\s*\(/g;
  for (const m of text.matchAll(decl)) {
    if (m[0] === '{') depth++;
    else if (m[0] === '}') depth--;
    else if (m[1] !== undefined) {
      if (depth === 0) current = m[1];
    } else if (current !== undefined) return current;
  }
  return undefined;
}

/** JVM flags for runs (keep the address space a JVM needs near 3 GB; platform-notes.md). */
export function javaRunFlags(memoryLimitMb: number): string[] {
  return [
    `-Xmx${memoryLimitMb}m`,
    '-Xss64m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-XX:ReservedCodeCacheSize=64m',
    '-XX:CompressedClassSpaceSize=64m',
    '-XX:MaxMetaspaceSize=128m',
    '-XX:ActiveProcessorCount=1',
    '-Xshare:auto',
    // no hsperfdata file (jstat's counters): ~10 ms less per start
    '-XX:-UsePerfData',
  ];
}

/** Java 17, compiled with javac and run on a JVM sized to the memory limit. */
export const java: JudgeLanguage = {
  id: 'java',
  label: 'Java',
  compiled: true,
  remote: { piston: ['java'], judge0: /^Java \(OpenJDK /, sandboxFusion: { language: 'java', runtime: 'javac', startUp: 'the JVM' } },
  outOfMemory: /OutOfMemoryError/,
  prompt: {
    name: 'Java 17 (class Main)',
    fence: 'java',
    functionalRule:
      "Write `class Solution` with the starter code's method as a public method (same name and parameters in Java types); do not read input or print, and write no `main`.",
  },
  tools: ['javac', 'java'],
  // the address space a JVM needs with javaRunFlags, and its threads
  limits: { ...BASE_LIMITS, addressSpaceMb: 4096, processes: 256 },
  // metaspace, code cache and thread stacks live outside -Xmx
  treeAllowanceMb: 384,
  residentMemoryIsLimit: false,
  fileName: 'Main.java',
  comments: 'c',
  prepare(text) {
    const pub = javaPublicClass(text);
    const mainClass = javaMainClass(text) ?? pub ?? 'Main';
    if (pub === undefined) return { text, mainClass, notes: [] };
    const fileName = `${pub}.java`;
    return { text, mainClass, fileName, notes: pub !== 'Main' ? [`java: file named ${fileName} after its public class`] : [] };
  },
  sealProgram: (code, test, proof) => sealJava(code, test, proof),
  suspicions: (code) => findSuspicions(code, maskCode(code), JAVA_SUSPICIONS),
  declaration: (name) => new RegExp(`(?:^|[\\n;{}])[^;{}()\\n]*?(?<![.\\w])${name}\\s*\\(([^()]|\\([^()]*\\))*\\)\\s*(throws[\\w\\s,.]+)?\\{`),
  declarationPlace: 'method of class Solution',
  functionalCheck: (code, funcName) =>
    /\b(class|record)\s+Solution\b/.test(code)
      ? undefined
      : `the functional tests call Solution().${funcName}, but the java program has no class Solution`,
  functional: (code, funcName) => ({
    text: `${code}\n${functionalDriver(funcName)}`,
    extraFiles: [],
    mainClass: 'CorebDriver',
    note: `java: functional driver class CorebDriver calling Solution.${funcName} by reflection added`,
  }),
  createState(ctx): LanguageState {
    // Warm Java compilers (javac-server.ts); `warmJavac: false` compiles every program cold.
    if (ctx.options.warmJavac === false) return {};
    const servers = createJavacServers({
      config: ctx.sandboxConfig,
      cacheDir: ctx.cacheDir,
      workRoot: ctx.workRoot,
      size: Math.min(ctx.options.jobs, 4),
    });
    return {
      compile: (dir, sources, timeoutMs) =>
        ctx.runInSlot(() =>
          servers.compile(
            dir,
            sources.filter((f) => f.endsWith('.java')),
            timeoutMs,
          ),
        ),
      stats: () => ({ warmCompiles: servers.compiled }),
      close: () => servers.close(),
    };
  },
  async compileArgv(ctx) {
    const javac = requireTool('javac', 'Java');
    requireTool('java', 'Java');
    return [javac, ...JAVAC_JVM_FLAGS.map((f) => `-J${f}`), ...JAVAC_OPTIONS, '-d', `${ctx.box}/out`, `${ctx.box}/${ctx.fileName}`];
  },
  runArgv: (prog, prepared, limits) => [
    requireTool('java', 'Java'),
    ...javaRunFlags(limits.memoryLimitMb),
    '-cp',
    `${prog}/out`,
    prepared.mainClass ?? 'Main',
  ],
};

/** Java driver for `functional` tests: JSON argument lines on stdin, JSON result on stdout. */
function functionalDriver(funcName: string): string {
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

/** What a Java candidate written to forge a program test would do (recorded on its verdict). */
const JAVA_SUSPICIONS: readonly SuspicionRule[] = [
  [/\bSystem\s*\.\s*getenv\b|\bProcessHandle\b/, 'reads its environment'],
  [/\/proc\/|\/dev\/fd/, 'raw:opens /proc or /dev/fd'],
  [/\bboolean\s+equals\s*\(|\bint\s+(?:compareTo|hashCode)\s*\(/, 'defines equals, compareTo or hashCode (a result that equals anything)'],
  [
    /\bsetDefaultUncaughtExceptionHandler\b|\baddShutdownHook\b|\bsetOut\s*\(|\bsetErr\s*\(/,
    'hooks uncaught exceptions, shutdown or the output streams',
  ],
  [/\bjava\s*\.\s*lang\s*\.\s*reflect\b|\bsetAccessible\b|\bsun\s*\.\s*misc\b|\bUnsafe\b/, 'uses reflection or Unsafe'],
];

/**
 * Types of java.lang and java.util a test program may name: a candidate declaring a type of one of
 * these names would shadow it for the test (a `class Arrays` whose lists equal anything), so the
 * sealed test names them in full.
 */
const JAVA_STANDARD_TYPES: Readonly<Record<string, string>> = Object.fromEntries([
  ...[
    'Object',
    'String',
    'Integer',
    'Long',
    'Double',
    'Float',
    'Boolean',
    'Character',
    'Byte',
    'Short',
    'Math',
    'StrictMath',
    'System',
    'Runtime',
    'Thread',
    'AssertionError',
    'Error',
    'Exception',
    'RuntimeException',
    'Throwable',
    'IllegalArgumentException',
    'IllegalStateException',
    'ArithmeticException',
    'NullPointerException',
    'IndexOutOfBoundsException',
    'StringBuilder',
    'StringBuffer',
    'Iterable',
    'Comparable',
    'Number',
    'CharSequence',
  ].map((n) => [n, `java.lang.${n}`]),
  ...[
    'Arrays',
    'List',
    'ArrayList',
    'LinkedList',
    'Objects',
    'Map',
    'HashMap',
    'TreeMap',
    'LinkedHashMap',
    'Set',
    'HashSet',
    'TreeSet',
    'LinkedHashSet',
    'Collections',
    'Collection',
    'Optional',
    'Deque',
    'ArrayDeque',
    'Queue',
    'PriorityQueue',
    'Stack',
    'Vector',
    'Iterator',
    'Random',
    'Scanner',
    'Comparator',
  ].map((n) => [n, `java.util.${n}`]),
]);

/** The names of the types (class, interface, enum, record) `code` declares, at any depth. */
export function javaDeclaredTypes(code: string): Set<string> {
  return new Set([...maskCode(code).matchAll(/\b(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)/g)].map((m) => m[1]));
}

/**
 * A Java `program` test, sealed: in the test program's main class, `main` is renamed and a new
 * `main` calls it and then prints the proof token; the test's `System.exit(0)` prints the proof first;
 * standard types the candidate shadows are named in full in the test. The class run is the test's.
 */
export function sealJava(code: string, test: string, proof: TestProof): SealedProgram {
  const masked = maskCode(test);
  const main = findFunction(
    masked,
    /\bstatic\s+(?:final\s+)?void\s+(?<name>main)\s*\(\s*(?:final\s+)?String\s*(?:\[\s*\]|\.\.\.)\s*[\w$]+\s*(?:\[\s*\])?\s*\)\s*(?:throws\s+[\w.$,\s]+)?\{/,
  );
  const cls = javaMainClass(test);
  const classDecl = cls === undefined ? null : new RegExp(`\\b(?:class|enum|record)\\s+${cls.replace(/\$/g, '\\$')}\\b[^{]*\\{`).exec(masked);
  if (main === undefined || cls === undefined || classDecl === null) {
    return {
      text: `${code.replace(/\s+$/, '')}\n\n${test}\n`,
      checked: false,
      notes: ['java: test program appended; it has no main method, so an exit status 0 alone passes'],
    };
  }
  const classClose = closingBrace(masked, classDecl.index + classDecl[0].length - 1);
  const sfx = sealSuffix();
  const read =
    proof.channel === 'fd'
      ? `byte[] t; try { t = java.util.Arrays.copyOfRange(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/self/fd/${proof.fd}")), ${proof.offset}, ${proof.offset + proof.length}); } catch (java.io.IOException | java.lang.RuntimeException e) { t = new byte[0]; }`
      : `byte[] t = "${proof.token}".getBytes(java.nio.charset.StandardCharsets.US_ASCII);`;
  const members = `
  // ---- coreb: the test program, sealed (docs/exec.md "Threat model") ----
  public static void main(java.lang.String[] corebArgs) throws java.lang.Throwable {
    corebTestMain_${sfx}(corebArgs);
    corebProve_${sfx}();
  }
  static void corebExit_${sfx}(int status) {
    if (status == 0) corebProve_${sfx}();
    java.lang.Runtime.getRuntime().halt(status);
  }
  static void corebProve_${sfx}() {
    java.lang.System.out.flush();
    ${read}
    java.io.FileOutputStream o = new java.io.FileOutputStream(java.io.FileDescriptor.out);
    try { o.write('\\n'); o.write(t); o.write('\\n'); o.flush(); } catch (java.io.IOException e) { }
  }
`;
  const edits: Edit[] = [
    { from: main.nameAt, to: main.nameAt + main.nameLength, text: `corebTestMain_${sfx}` },
    { from: classClose, to: classClose, text: members },
    ...replaceInCode(masked, /(?<![\w$.])(?:java\s*\.\s*lang\s*\.\s*)?System\s*\.\s*exit\s*\(/g, `${cls}.corebExit_${sfx}(`),
  ];
  const shadowed = [...javaDeclaredTypes(code)].filter((n) => JAVA_STANDARD_TYPES[n] !== undefined && new RegExp(`(?<![\\w$.])${n}\\b`).test(masked));
  for (const n of shadowed)
    edits.push(...replaceInCode(masked, new RegExp(`(?<![\\w$.])${n}\\b(?!\\s*\\.\\s*exit\\s*\\()`, 'g'), JAVA_STANDARD_TYPES[n]));
  const notes = [
    `java: test program sealed: ${cls}.main renamed and called from a new main that prints the proof token after it; System.exit rewritten`,
  ];
  if (shadowed.length > 0)
    notes.push(`java: the test names ${shadowed.map((n) => JAVA_STANDARD_TYPES[n]).join(', ')} in full (the program declares types of those names)`);
  return {
    text: `${code.replace(/\s+$/, '')}\n\n${applyEdits(test, dropOverlaps(edits)).replace(/\s+$/, '')}\n`,
    mainClass: cls,
    checked: true,
    notes,
  };
}

/** `edits` without those overlapping an earlier one (the first edit of a span wins). */
function dropOverlaps(edits: readonly Edit[]): Edit[] {
  const out: Edit[] = [];
  for (const e of edits) if (!out.some((o) => e.from < o.to && o.from < e.to)) out.push(e);
  return out;
}
