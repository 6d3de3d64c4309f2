/**
 * Go: `go build` in GOPATH mode (no modules, no cgo, the local toolchain) with a build cache shared
 * by the judge's compiles and capped in size; functional tests get a driver file calling the
 * function (or a method of a Solution struct) by reflection.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_LIMITS, requireTool } from './tools.js';
import { beforeEndOfMain, escapeRegExp, stripCComments, type JudgeLanguage, type LanguageState } from './language.js';

/** Go's per-judge state: the build cache directory (host path). */
interface GoState extends LanguageState {
  cache(): string;
}

/** Go, built with `go build` and run as a static binary. */
export const go: JudgeLanguage = {
  id: 'go',
  label: 'Go',
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
    if (kind === 'program' && out.includes('_coreb_os.')) {
      // The completion token needs "os": imported under a name of its own, after the package clause.
      out = out.replace(/^(\s*package\s+\w+[^\n]*\n)/m, '$1import _coreb_os "os"\n');
    }
    return { text: out, notes };
  },
  endTests: (test, token, env) =>
    beforeEndOfMain(test, /\bfunc\s+main\s*\(\s*\)\s*\{/, `_coreb_os.Stdout.WriteString("\\n" + ${token ?? `_coreb_os.Getenv("${env}")`} + "\\n")`),
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
    return [
      go,
      'build',
      // no symbol table or DWARF: ~25% less link time; panics still print their stack
      '-ldflags=-s -w',
      '-o',
      `${ctx.box}/prog`,
      `${ctx.box}/${ctx.fileName}`,
      ...(ctx.extraFiles ?? []).filter((f) => f.endsWith('.go')).map((f) => `${ctx.box}/${f}`),
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
