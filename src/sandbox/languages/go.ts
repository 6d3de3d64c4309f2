/**
 * Go: `go build` in GOPATH mode (no modules, no cgo, the local toolchain) with a build cache shared
 * by the judge's compiles and capped in size; functional tests get a driver file calling the
 * function (or a method of a Solution struct) by reflection.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_LIMITS, requireTool } from './tools.js';
import { escapeRegExp, stripCComments, type JudgeLanguage, type LanguageState } from './language.js';
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
import { TESTIFY_ASSERT_PATH, TESTIFY_ASSERT_SOURCE } from './go-testify.js';

/** Go's per-judge state: the build cache directory (host path). */
interface GoState extends LanguageState {
  cache(): string;
}

/** Go, built with `go build` and run as a static binary. */
export const go: JudgeLanguage = {
  id: 'go',
  label: 'Go',
  compiled: true,
  remote: { piston: ['go', 'golang'], judge0: /^Go \(/, sandboxFusion: { language: 'go', runtime: 'go', startUp: 'go build and the Go runtime' } },
  prompt: {
    name: 'Go',
    fence: 'go',
    functionalRule:
      "Write the starter code's method as a top-level Go function (same name and parameters in Go types); do not read input or print, and write no `main`.",
  },
  tools: ['go'],
  // the Go runtime reserves ~700 MB of address space, and runs many threads
  limits: { ...BASE_LIMITS, addressSpaceMb: 2048, processes: 256 },
  treeAllowanceMb: 64,
  residentMemoryIsLimit: true,
  fileName: 'main.go',
  comments: 'c',
  prepare(text, kind) {
    const notes: string[] = [];
    let out = text;
    if (!/^\s*package\s+\w+/m.test(out)) {
      out = 'package main\n\n' + out;
      notes.push('go: added `package main` (no package clause)');
    }
    if (kind === 'program' && out.includes('corebSealed')) {
      // The sealed test's helpers need these packages: imported under names of their own, after the package clause.
      const imports = SEAL_IMPORTS.filter(([alias]) => out.includes(`${alias}.`)).map(([alias, path]) => `import ${alias} "${path}"\n`);
      out = out.replace(/^(\s*package\s+\w+[^\n]*\n)/m, `$1${imports.join('')}`);
    }
    return { text: out, notes };
  },
  sealProgram: (code, test, proof) => sealGo(code, test, proof),
  suspicions: (code) => findSuspicions(code, maskCode(code), GO_SUSPICIONS),
  declaration: (name) => new RegExp(`\\bfunc\\s+(\\(\\s*\\w*\\s*\\*?\\s*\\w+\\s*\\)\\s*)?${name}\\s*\\([^{]*\\{`),
  declarationPlace: 'function',
  functional(code, funcName) {
    const renamed = code.replace(/^func\s+main\s*\(\s*\)/m, 'func corebProgramMain()');
    const caller = goCaller(code, funcName);
    return {
      text: renamed,
      extraFiles: [{ name: 'coreb_driver.go', text: functionalDriver(caller) }],
      note: `go: functional driver file calling ${caller} by reflection added${renamed !== code ? " (the program's main renamed corebProgramMain, not run)" : ''}`,
    };
  },
  createState(ctx): GoState {
    const maxBytes = (ctx.options.goCacheMaxMb ?? 512) * 1024 * 1024;
    let dir: string | undefined;
    let compiles = 0;
    return {
      cache() {
        if (dir === undefined || compiles++ % 50 === 49) {
          dir = join(ctx.cacheDir, 'gocache');
          // Untrusted builds fill the shared cache: past its cap it is emptied (Go rebuilds what it needs).
          if (dirBytes(dir) > maxBytes) rmSync(dir, { recursive: true, force: true });
          mkdirSync(dir, { recursive: true, mode: 0o755 });
          ctx.giveToSandboxUser(dir);
        }
        return dir;
      },
    };
  },
  async compileArgv(ctx) {
    const go = requireTool('go', 'Go');
    const cache = (ctx.state as GoState).cache();
    if (ctx.sandbox) ctx.mounts.push({ src: cache, dest: '/gocache', writable: true });
    Object.assign(ctx.env, {
      GO111MODULE: 'off',
      CGO_ENABLED: '0',
      GOFLAGS: '-buildvcs=false',
      GOCACHE: ctx.sandbox ? '/gocache' : cache,
      GOPATH: `${ctx.box}/.gopath`,
      GOTOOLCHAIN: 'local',
    });
    // files beside the program, not those of packages under .gopath (a test's imports)
    const files = (ctx.extraFiles ?? []).filter((f) => f.endsWith('.go') && !f.startsWith('.gopath/'));
    const goTest = files.some((f) => f.endsWith('_test.go'));
    return [
      go,
      ...(goTest ? ['test', '-c'] : ['build']),
      // no symbol table or DWARF: ~25% less link time; panics still print their stack
      '-ldflags=-s -w',
      '-o',
      `${ctx.box}/prog`,
      `${ctx.box}/${ctx.fileName}`,
      ...files.map((f) => `${ctx.box}/${f}`),
    ];
  },
  runArgv: (prog) => [`${prog}/prog`],
};

/** Bytes of the regular files under `dir` (0 when missing). */
function dirBytes(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const p = join(dir, name);
    try {
      const st = statSync(p);
      total += st.isDirectory() ? dirBytes(p) : st.size;
    } catch {
      // removed meanwhile
    }
  }
  return total;
}

/** The Go expression of the function value: a top-level func, or a method of a Solution struct. */
function goCaller(code: string, funcName: string): string {
  const m = new RegExp(`\\bfunc\\s+\\(\\s*\\w*\\s*(\\*?)\\s*(\\w+)\\s*\\)\\s*${escapeRegExp(funcName)}\\s*\\(`).exec(stripCComments(code));
  if (m === null) return funcName;
  return m[1] === '*' ? `(&${m[2]}{}).${funcName}` : `${m[2]}{}.${funcName}`;
}

function functionalDriver(caller: string): string {
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

/** Packages the sealed test's helpers use, each under a name of its own: [alias, import path]. */
const SEAL_IMPORTS: ReadonlyArray<readonly [string, string]> = [
  ['_coreb_os', 'os'],
  ['_coreb_syscall', 'syscall'],
  ['_coreb_fmt', 'fmt'],
  ['_coreb_testing', 'testing'],
];

/** What a Go candidate written to forge a program test would do (recorded on its verdict). */
const GO_SUSPICIONS: readonly SuspicionRule[] = [
  [/\bos\s*\.\s*(?:Getenv|LookupEnv|Environ)\b|\bsyscall\s*\.\s*(?:Getenv|Environ)\b/, 'reads its environment'],
  [/\/proc\/|\/dev\/fd/, 'raw:opens /proc or /dev/fd'],
  [/\bos\s*\.\s*NewFile\b|\bsyscall\s*\.\s*(?:Read|Pread|Open|Dup\w*)\b/, 'reads raw descriptors'],
  [
    /^\s*(?:func|var|const|type)\s+(?:panic|recover|len|cap|append|copy|print|println|true|false|nil|new|make|delete|string|int|bool|error)\b/m,
    'redeclares a predeclared name (panic, len, true, …)',
  ],
  [/\bfunc\s+init\s*\(\s*\)/, 'runs code before main (func init)'],
  [/\bsignal\s*\.\s*Notify\b|\bunsafe\b|\breflect\b/, 'catches signals or reaches into memory (unsafe, reflect)'],
];

/** The sealed helpers of a Go test program; `read` is the Go statement setting `t []byte` to the token. */
function goSealHelpers(sfx: string, read: string): string {
  return `
// ---- coreb: the test program, sealed (docs/exec.md "Threat model") ----
func corebSealedFail_${sfx}(v interface{}) {
	_coreb_os.Stderr.WriteString("coreb: the test failed: " + _coreb_fmt.Sprint(v) + "\\n")
	_coreb_syscall.Exit(2)
}

func corebSealedProve_${sfx}() {
	${read}
	_coreb_syscall.Write(1, append(append([]byte("\\n"), t...), '\\n'))
}

func corebSealedExit_${sfx}(status int) {
	if status == 0 {
		corebSealedProve_${sfx}()
	}
	_coreb_syscall.Exit(status)
}
`;
}

/** The Go statement reading the proof token into `t`. */
function goRead(proof: TestProof): string {
  return proof.channel === 'fd'
    ? `t := make([]byte, ${proof.length})\n\tn, _ := _coreb_syscall.Pread(${proof.fd}, t, ${proof.offset})\n\tif n < 0 {\n\t\tn = 0\n\t}\n\tt = t[:n]`
    : `t := []byte("${proof.token}")`;
}

/**
 * A Go `program` test, sealed. A test program with `func main()`: `main` renamed and called from
 * coreb's `main`, which prints the proof token after it; the test's `panic(…)` and `os.Exit(…)` go to
 * helpers the candidate cannot shadow (a package-level `func panic` of the candidate no longer
 * reaches them); the test is a file of its own (its imports stay valid). A `go test` file
 * (`func TestX(t *testing.T)`, HumanEval-X): built with `go test -c` beside a `TestMain` that prints
 * the proof when every test passed, with coreb's own `testify/assert` when the test imports it.
 * The literal proof of remote judges puts everything in one file.
 */
export function sealGo(code: string, test: string, proof: TestProof): SealedProgram {
  const masked = maskCode(test);
  const sfx = sealSuffix();
  const read = goRead(proof);
  const hasPackage = /^\s*package\s+\w+/m.test(masked);
  const isGoTest = /\bfunc\s+Test\w*\s*\(\s*\w+\s+\*\s*testing\s*\.\s*T\s*\)/.test(masked) && !/\bfunc\s+main\s*\(\s*\)/.test(masked);
  if (isGoTest) {
    // one test file: the candidate's code and the test share its imports (merged, each once)
    const candidate = splitGoHeader(code);
    const tests = splitGoHeader(test);
    const imports = [...new Set([...tests.imports, ...candidate.imports])];
    const merged = `package main\n\n${imports.length > 0 ? `import (\n${imports.map((i) => `\t${i}`).join('\n')}\n)\n` : ''}\n${candidate.body.trim()}\n\n${tests.body.trim()}\n`;
    const notes = ['go: go test file: the program and the test program joined in main_test.go (imports merged) and built with go test -c'];
    const extraFiles = [{ name: 'main_test.go', text: merged }];
    if (/"github\.com\/stretchr\/testify\/assert"/.test(test)) {
      extraFiles.push({ name: TESTIFY_ASSERT_PATH, text: TESTIFY_ASSERT_SOURCE });
      notes.push("go: the test's github.com/stretchr/testify/assert is coreb's own (reflect.DeepEqual, as testify compares)");
    }
    if (/\bfunc\s+TestMain\s*\(/.test(masked)) {
      notes.push('go: the test has its own TestMain, so an exit status 0 alone passes');
      return { text: 'package main\n', extraFiles, checked: false, notes };
    }
    const prove = `package main\n\nfunc TestMain(m *_coreb_testing.M) {\n\tstatus := m.Run()\n\tif status == 0 {\n\t\tcorebSealedProve_${sfx}()\n\t}\n\t_coreb_os.Exit(status)\n}\n${goSealHelpers(sfx, read)}`;
    extraFiles.push({ name: 'coreb_sealed_test.go', text: prove });
    notes.push('go: a TestMain prints the proof token when every test passed');
    return { text: 'package main\n', extraFiles, checked: true, notes };
  }
  const main = findFunction(masked, /\bfunc\s+(?<name>main)\s*\(\s*\)\s*\{/);
  if (main === undefined) {
    return {
      text: `${code.replace(/\s+$/, '')}\n\n${test}\n`,
      checked: false,
      notes: ['go: test program appended; it has no main function, so an exit status 0 alone passes'],
    };
  }
  const edits: Edit[] = [
    { from: main.nameAt, to: main.nameAt + main.nameLength, text: `corebSealedTestMain_${sfx}` },
    ...replaceInCode(masked, /(?<![\w.])panic\s*\(/g, `corebSealedFail_${sfx}(`),
    ...replaceInCode(masked, /(?<![\w.])os\s*\.\s*Exit\s*\(/g, `corebSealedExit_${sfx}(`),
  ];
  let sealed = applyEdits(test, edits);
  // the test may import "os" for os.Exit alone
  if (/^\s*import\b[\s\S]*?"os"/m.test(test) && !/(?<![\w.])os\s*\./.test(maskCode(sealed))) sealed += '\nvar _ = os.Getpid\n';
  const entry = `\nfunc main() {\n\tcorebSealedTestMain_${sfx}()\n\tcorebSealedProve_${sfx}()\n}\n`;
  const notes = [
    "go: test program sealed: its main renamed and called from coreb's main, which prints the proof token after it; panic and os.Exit rewritten",
  ];
  if (proof.channel === 'literal') {
    return { text: `${code.replace(/\s+$/, '')}\n\n${sealed.replace(/\s+$/, '')}\n${goSealHelpers(sfx, read)}${entry}`, checked: true, notes };
  }
  const helpers = `${goSealHelpers(sfx, read)}${entry}`;
  return {
    text: code,
    extraFiles: [
      { name: 'coreb_tests.go', text: hasPackage ? sealed : `package main\n\n${sealed}` },
      { name: 'coreb_sealed.go', text: `package main\n${helpers}` },
    ],
    checked: true,
    notes,
  };
}

/** A Go file split into its import specs (`"math"`, `m "math"`) and what follows them (the package clause dropped). */
export function splitGoHeader(text: string): { imports: string[]; body: string } {
  const masked = maskCode(text);
  const imports: string[] = [];
  const skip = (i: number): number => {
    let j = i;
    while (j < masked.length && /\s/.test(masked[j])) j++;
    return j;
  };
  let i = skip(0);
  const pkg = /^package\s+\w+[^\n]*/.exec(masked.slice(i));
  if (pkg !== null) i = skip(i + pkg[0].length);
  for (;;) {
    const m = /^import\s*(\(|[^\n;]*)/.exec(masked.slice(i));
    if (m === null) break;
    if (m[1] === '(') {
      const close = masked.indexOf(')', i + m[0].length);
      const end = close < 0 ? masked.length : close;
      for (const spec of text.slice(i + m[0].length, end).split(/[\n;]/)) {
        const t = spec.replace(/\/\/.*$/, '').trim();
        if (t !== '') imports.push(t);
      }
      i = skip(end + 1);
    } else {
      const t = text
        .slice(i + 'import'.length, i + m[0].length)
        .replace(/\/\/.*$/, '')
        .trim();
      if (t !== '') imports.push(t);
      i = skip(i + m[0].length + 1);
    }
  }
  return { imports, body: text.slice(i) };
}
