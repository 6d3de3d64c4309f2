/**
 * Warm Java compilers: a few long-lived JVMs, each in its own sandbox, compiling one program at a
 * time through `javax.tools.JavaCompiler` (the same compiler and options as the `javac` command the
 * cold path runs), so a compile costs ~50–100 ms instead of a JVM start (~0.6 s of CPU). The program
 * directories are reached through the judge's work root, mounted at `/work`. A compiler does not run
 * the code it compiles (`-proc:none`: no annotation processors). Any failure of a server (it does not
 * start, dies, answers garbage) makes `compile` resolve `undefined` and the judge falls back to the
 * cold `javac` for that program: verdicts never depend on the server. A compile past its time limit
 * kills the server (a new one starts on demand); each server is replaced after 200 compiles.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { requireTool } from './tools.js';
import { createCommandLine, type ProcessLimits, type SandboxConfig } from '../sandbox.js';

/**
 * The javac options of both paths (cold `javac` and the warm servers), before `-d DIR FILES`.
 * `-XDstringConcat=inline` compiles `a + b` on strings to a `StringBuilder` chain (javac 8's code)
 * instead of an `invokedynamic` whose bootstrap costs every run that concatenates ~20-30 ms of CPU
 * at start-up; the strings made are the same.
 */
export const JAVAC_OPTIONS: readonly string[] = ['-encoding', 'UTF-8', '-nowarn', '-proc:none', '-XDstringConcat=inline'];

/** JVM flags of a compiler (cold `javac` gets them as `-J…`). */
export const JAVAC_JVM_FLAGS: readonly string[] = ['-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:ActiveProcessorCount=1'];

const SERVER_CLASS = 'CorebJavacServer';
const SERVER_SOURCE = `import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** coreb's warm compiler: one request per line (OUTDIR TAB FILE [TAB FILE...]), one framed answer each. */
public final class ${SERVER_CLASS} {
  public static void main(String[] args) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    System.setOut(quiet);
    System.setErr(quiet);
    String[] options = args;
    String line;
    while ((line = in.readLine()) != null) {
      String[] parts = line.split("\\t");
      ByteArrayOutputStream diag = new ByteArrayOutputStream();
      int code;
      boolean fatal = false;
      try {
        new File(parts[0]).mkdirs();
        List<String> a = new ArrayList<>(List.of(options));
        a.add("-d");
        a.add(parts[0]);
        for (int i = 1; i < parts.length; i++) a.add(parts[i]);
        code = javac.run(null, diag, diag, a.toArray(new String[0]));
      } catch (Throwable t) {
        code = 70;
        fatal = t instanceof Error;
        diag.write(("coreb javac server: " + t).getBytes(StandardCharsets.UTF_8));
      }
      byte[] body = diag.toByteArray();
      out.write(("#coreb " + code + " " + body.length + "\\n").getBytes(StandardCharsets.UTF_8));
      out.write(body);
      out.flush();
      if (fatal) System.exit(70);
    }
  }
}
`;

/** The outcome of one warm compile. */
export interface WarmCompile {
  exitCode: number;
  output: string;
  timedOut: boolean;
  wallMs: number;
}

/** Settings of {@link createJavacServers}. */
export interface JavacServerOptions {
  config: SandboxConfig;
  /** Where the server class is built once (per JDK). */
  cacheDir: string;
  /** The judge's work root: program directories are under it. */
  workRoot: string;
  /** Servers at most (one compile at a time each). */
  size: number;
}

/** A pool of warm compilers. */
export interface JavacServers {
  /**
   * Compiles `files` (names in `dir`, a directory under the work root) into `dir/out`; undefined when
   * no server could do it (then compile cold).
   */
  compile(dir: string, files: readonly string[], timeoutMs: number): Promise<WarmCompile | undefined>;
  /** Compiles done by the servers. */
  readonly compiled: number;
  close(): void;
}

interface Server {
  child: ChildProcess;
  busy: boolean;
  uses: number;
  dead: boolean;
  buf: Buffer;
  waiter?: (chunk: Buffer | null) => void;
}

/** Builds the server class once into `cacheDir/javac-server-<hash>` (undefined when that fails). */
function buildServer(cacheDir: string): string | undefined {
  const javac = requireTool('javac', 'Java');
  const version = spawnSync(javac, ['-version'], { encoding: 'utf8' });
  const key = createHash('sha256').update(`${javac} ${version.stdout}${version.stderr} ${SERVER_SOURCE}`).digest('hex').slice(0, 12);
  const dir = join(cacheDir, `javac-server-${key}`);
  if (existsSync(join(dir, `${SERVER_CLASS}.class`))) return dir;
  const tmp = mkdtempSync(join(cacheDir, 'javac-server-tmp-'));
  writeFileSync(join(tmp, `${SERVER_CLASS}.java`), SERVER_SOURCE);
  const r = spawnSync(javac, ['-J-Xmx256m', '-encoding', 'UTF-8', '-d', tmp, join(tmp, `${SERVER_CLASS}.java`)], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    return undefined;
  }
  chmodSync(tmp, 0o755);
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true });
  }
  return existsSync(join(dir, `${SERVER_CLASS}.class`)) ? dir : undefined;
}

/** Creates the pool; servers start on first use. */
export function createJavacServers(options: JavacServerOptions): JavacServers {
  const { config } = options;
  const servers: Server[] = [];
  const waiting: Array<() => void> = [];
  let classDir: string | undefined | null = null; // null: not built yet
  let broken = false;
  let compiled = 0;
  const sandboxed = config.enabled;
  const inBox = (hostDir: string): string => (sandboxed ? `/work/${basename(hostDir)}` : hostDir);

  const start = (): Server | undefined => {
    if (classDir === null) classDir = buildServer(options.cacheDir);
    if (classDir === undefined) {
      broken = true;
      return undefined;
    }
    const java = requireTool('java', 'Java');
    const limits: ProcessLimits = {
      wallMs: 24 * 3600 * 1000,
      cpuS: 3600,
      addressSpaceMb: 8192,
      processes: 512,
      fileSizeMb: 512,
      openFiles: 4096,
      stackMb: 0,
      workDirMb: 64,
      stdoutBytes: 1 << 20,
      stderrBytes: 1 << 16,
    };
    const serverDir = sandboxed ? '/javac-server' : classDir;
    const argv = [java, ...JAVAC_JVM_FLAGS, '-Xshare:auto', '-cp', serverDir, SERVER_CLASS, ...JAVAC_OPTIONS];
    const env = { PATH: '/usr/bin:/bin', HOME: '/box', TMPDIR: '/box', LANG: 'C.UTF-8' };
    const [file, ...args] = createCommandLine(config, {
      argv,
      env,
      stdin: '',
      limits,
      mounts: sandboxed
        ? [
            { src: classDir, dest: '/javac-server' },
            { src: options.workRoot, dest: '/work', writable: true },
          ]
        : [],
      workDir: sandboxed ? undefined : options.workRoot,
    });
    let child: ChildProcess;
    try {
      child = spawn(file, args, {
        stdio: ['pipe', 'pipe', 'ignore', 'pipe'],
        env: sandboxed ? {} : env,
        cwd: sandboxed ? undefined : options.workRoot,
        detached: true,
        ...(sandboxed && config.dropPrivileges ? { uid: config.uid, gid: config.uid } : {}),
      });
    } catch {
      broken = true;
      return undefined;
    }
    // An idle server must not keep the process alive (a judge nobody closes ends with its process;
    // bwrap's --die-with-parent then stops the server): a compile waiting for its answer holds a timer.
    child.unref();
    for (const st of [child.stdin, child.stdout, child.stdio[3]]) (st as unknown as { unref?: () => void } | null)?.unref?.();
    const s: Server = { child, busy: false, uses: 0, dead: false, buf: Buffer.alloc(0) };
    child.stdout?.on('data', (d: Buffer) => {
      s.buf = Buffer.concat([s.buf, d]);
      s.waiter?.(d);
    });
    const die = (): void => {
      s.dead = true;
      s.waiter?.(null);
    };
    child.on('exit', die);
    child.on('error', die);
    child.stdin?.on('error', () => {});
    // the helper's status pipe: read and dropped
    (child.stdio[3] as NodeJS.ReadableStream | null)?.on('data', () => {});
    servers.push(s);
    return s;
  };

  const kill = (s: Server): void => {
    s.dead = true;
    const i = servers.indexOf(s);
    if (i >= 0) servers.splice(i, 1);
    try {
      if (s.child.pid !== undefined) process.kill(-s.child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  };

  const acquire = async (): Promise<Server | undefined> => {
    for (;;) {
      if (broken) return undefined;
      const free = servers.find((s) => !s.busy && !s.dead);
      if (free !== undefined) {
        free.busy = true;
        return free;
      }
      if (servers.length < Math.max(1, options.size)) {
        const s = start();
        if (s === undefined) return undefined;
        s.busy = true;
        return s;
      }
      await new Promise<void>((r) => waiting.push(r));
    }
  };
  const release = (s: Server): void => {
    s.busy = false;
    if (s.uses >= 200 && !s.dead) kill(s);
    if (s.dead) {
      const i = servers.indexOf(s);
      if (i >= 0) servers.splice(i, 1);
    }
    waiting.shift()?.();
  };

  /** Reads one framed answer, or undefined when the server dies or the time runs out. */
  const answer = (s: Server, timeoutMs: number): Promise<{ code: number; body: string } | 'timeout' | undefined> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        s.waiter = undefined;
        resolve('timeout');
      }, timeoutMs);
      const check = (chunk: Buffer | null): void => {
        const nl = s.buf.indexOf(10);
        if (nl >= 0) {
          const m = /^#coreb (-?\d+) (\d+)$/.exec(s.buf.subarray(0, nl).toString('utf8'));
          if (m === null) {
            clearTimeout(timer);
            s.waiter = undefined;
            resolve(undefined);
            return;
          }
          const len = Number(m[2]);
          if (s.buf.length >= nl + 1 + len) {
            const body = s.buf.subarray(nl + 1, nl + 1 + len).toString('utf8');
            s.buf = s.buf.subarray(nl + 1 + len);
            clearTimeout(timer);
            s.waiter = undefined;
            resolve({ code: Number(m[1]), body });
            return;
          }
        }
        if (chunk === null || s.dead) {
          clearTimeout(timer);
          s.waiter = undefined;
          resolve(undefined);
        }
      };
      s.waiter = check;
      check(Buffer.alloc(0));
    });

  return {
    get compiled() {
      return compiled;
    },
    async compile(dir, files, timeoutMs) {
      const s = await acquire();
      if (s === undefined) return undefined;
      const t0 = performance.now();
      try {
        s.uses++;
        const box = inBox(dir);
        s.child.stdin?.write(`${[`${box}/out`, ...files.map((f) => `${box}/${f}`)].join('\t')}\n`);
        const a = await answer(s, timeoutMs);
        const wallMs = Math.round(performance.now() - t0);
        if (a === 'timeout') {
          kill(s);
          return { exitCode: -1, output: '', timedOut: true, wallMs };
        }
        if (a === undefined || a.code === 70) {
          // the server failed, not the program: compile cold
          kill(s);
          return undefined;
        }
        compiled++;
        return { exitCode: a.code, output: a.body, timedOut: false, wallMs };
      } finally {
        release(s);
      }
    },
    close() {
      for (const s of [...servers]) kill(s);
    },
  };
}
