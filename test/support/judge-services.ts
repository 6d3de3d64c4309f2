/**
 * Loopback servers speaking the documented APIs of SandboxFusion (`/v1/ping`, `/openapi.json`,
 * `/run_code`), Judge0 (`/about`, `/languages`, `/submissions/batch` POST and polled GET, base64,
 * `X-Auth-Token`) and Piston (`/api/v2/runtimes`, `/api/v2/execute`, 400 `{message}` for bad requests,
 * a configured run_timeout cap), each running the submitted program for real with a plain
 * subprocess executor (compile, run with stdin under a wall-clock timer and an address-space limit).
 * Test support only: no sandbox; the tests submit their own programs.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testCacheDir } from './judge.js';

/** One stage's outcome. */
export interface StageResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  wallMs: number;
}

/** What the executor runs. */
export interface ExecRequest {
  language: 'python' | 'cpp' | 'java' | 'go' | 'ruby';
  files: Array<{ name: string; text: string }>;
  stdin: string;
  runTimeoutMs: number;
  compileTimeoutMs: number;
  memoryMb: number;
  cxxFlags?: string[];
  /**
   * SandboxFusion's way (`isolation: none`): `memoryMb` is an address-space limit of the compiler
   * and the program alike (none when <= 0), and Java runs with the JVM's own default heap.
   */
  addressSpaceOnly?: boolean;
}

const GO_CACHE = join(tmpdir(), 'coreb-loopback-gocache');
/**
 * Builds shared by the loopback services of one test run: the same sources built with the same
 * command are compiled once (the three services' suites submit the same programs). What a service
 * answers does not change: the compiler's result and files are those of the first build.
 */
const BUILD_CACHE = join(tmpdir(), 'coreb-loopback-builds');

const PCH_DIRS = new Map<string, Promise<string>>();
/**
 * The precompiled `<bits/stdc++.h>` for `flags`, built once per test run (in the run's judge cache, beside the local judge's), in a
 * worker thread: the build takes a second or two, and the programs the service is timing meanwhile run
 * in this process's event loop.
 */
function loopbackPch(flags: string[]): Promise<string> {
  const key = flags.join(' ');
  let dir = PCH_DIRS.get(key);
  if (dir === undefined) {
    mkdirSync(testCacheDir, { recursive: true });
    // g++ named by its path, as the local judge names it: one header for both where the flags match
    const code = `const { parentPort, workerData } = require('node:worker_threads');
import(workerData.module).then((m) => parentPort.postMessage(m.buildPch(workerData.cache, m.requireTool('gxx', 'C++'), workerData.flags)));`;
    const module = new URL('../../src/sandbox/index.js', import.meta.url).href;
    dir = new Promise<string>((resolve, reject) => {
      const w = new Worker(code, { eval: true, workerData: { module, cache: testCacheDir, flags } });
      w.once('message', resolve);
      w.once('error', reject);
    });
    PCH_DIRS.set(key, dir);
  }
  return dir;
}

async function cachedBuild(
  argv: string[],
  dir: string,
  files: ExecRequest['files'],
  timeoutMs: number,
  env: Record<string, string>,
): Promise<StageResult> {
  const key = createHash('sha256').update(JSON.stringify({ argv, files })).digest('hex').slice(0, 32);
  const slot = join(BUILD_CACHE, key);
  if (existsSync(join(slot, '.stage.json'))) {
    cpSync(join(slot, 'files'), dir, { recursive: true });
    return JSON.parse(readFileSync(join(slot, '.stage.json'), 'utf8')) as StageResult;
  }
  const result = await stage(argv, dir, '', timeoutMs, env);
  if (!result.timedOut) {
    const tmp = mkdtempSync(join(tmpdir(), 'coreb-loopback-build-'));
    cpSync(dir, join(tmp, 'files'), { recursive: true });
    writeFileSync(join(tmp, '.stage.json'), JSON.stringify(result));
    mkdirSync(BUILD_CACHE, { recursive: true });
    try {
      renameSync(tmp, slot);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another build of the same key won the race
    }
  }
  return result;
}

function stage(argv: string[], cwd: string, stdin: string, timeoutMs: number, env: Record<string, string>): Promise<StageResult> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const p = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    p.stdout.on('data', (d: Buffer) => {
      if (stdout.length < 4 << 20) stdout += d.toString('utf8');
    });
    p.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 1 << 20) stderr += d.toString('utf8');
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-(p.pid as number), 'SIGKILL');
      } catch {
        // gone
      }
    }, timeoutMs);
    p.on('error', (e) => {
      stderr += e.message;
    });
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, wallMs: Math.round(performance.now() - t0) });
    });
    p.stdin.on('error', () => {});
    p.stdin.end(stdin);
  });
}

/** Compiles (when needed) and runs a program: what a service's worker does. */
export async function executePlain(req: ExecRequest): Promise<{ compile?: StageResult; run?: StageResult }> {
  const dir = mkdtempSync(join(tmpdir(), 'coreb-loopback-'));
  try {
    for (const f of req.files) writeFileSync(join(dir, f.name), f.text);
    mkdirSync(GO_CACHE, { recursive: true });
    const env = { PATH: '/usr/bin:/bin', HOME: dir, TMPDIR: dir, LANG: 'C.UTF-8', GOCACHE: GO_CACHE, GO111MODULE: 'off', GOFLAGS: '' };
    const main = req.files[0].name;
    let compile: StageResult | undefined;
    let run: string[];
    const as = req.addressSpaceOnly === true ? req.memoryMb : req.memoryMb + 64;
    const limited = (argv: string[]): string[] => (as > 0 ? ['prlimit', `--as=${as * 1024 * 1024}`, '--', ...argv] : argv);
    // SandboxFusion limits the compiler too, and every language's run
    const built = (argv: string[]): string[] => (req.addressSpaceOnly === true ? limited(argv) : argv);
    if (req.language === 'cpp') {
      const flags = req.cxxFlags ?? ['-O2', '-std=c++17'];
      // The test run's own shortcut, not the service's: <bits/stdc++.h> precompiled once per run and
      // flags (g++ reads it only where it matches, so every build's result is the header's own).
      const pch = /#\s*include\s*<bits\/stdc\+\+\.h>/.test(req.files[0].text) ? ['-I', await loopbackPch(flags)] : [];
      compile = await cachedBuild(built(['g++', ...flags, ...pch, '-o', 'prog', main]), dir, req.files, req.compileTimeoutMs, env);
      run = limited(['./prog']);
    } else if (req.language === 'java') {
      compile = await cachedBuild(
        built(['javac', '-encoding', 'UTF-8', '-d', '.', ...req.files.map((f) => f.name)]),
        dir,
        req.files,
        req.compileTimeoutMs,
        env,
      );
      const cls = main.replace(/\.java$/, '');
      run = req.addressSpaceOnly === true ? limited(['java', '-ea', '-cp', '.', cls]) : ['java', `-Xmx${req.memoryMb}m`, '-Xss64m', '-cp', '.', cls];
    } else if (req.language === 'go') {
      compile = await cachedBuild(built(['go', 'build', '-o', 'prog', ...req.files.map((f) => f.name)]), dir, req.files, req.compileTimeoutMs, env);
      run = built(['./prog']);
    } else if (req.language === 'python') {
      run = limited(['python3', main]);
    } else {
      run = limited(['ruby', main]);
    }
    if (compile !== undefined && (compile.code !== 0 || compile.timedOut)) return { compile };
    return { compile, run: await stage(run, dir, req.stdin, req.runTimeoutMs, env) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  let s = '';
  for await (const c of req) s += (c as Buffer).toString('utf8');
  return s;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
}

/** A running loopback service. */
export interface LoopbackService {
  url: string;
  /** Requests by `METHOD path` (no query). */
  requests: Map<string, number>;
  /** Header sets seen on requests. */
  headers: Array<Record<string, string | string[] | undefined>>;
  close(): Promise<void>;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse, body: string) => Promise<void>): Promise<LoopbackService> {
  const requests = new Map<string, number>();
  const headers: LoopbackService['headers'] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const k = `${req.method} ${path}`;
    requests.set(k, (requests.get(k) ?? 0) + 1);
    headers.push(req.headers);
    readBody(req)
      .then((body) => handler(req, res, body))
      .catch((e: unknown) => send(res, 500, { detail: String(e) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    headers,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const SF_LANGS = new Set(['python', 'cpp', 'java', 'go', 'ruby']);

/** SandboxFusion: `/run_code` as sandbox/server/sandbox_api.py answers it (C++ with g++ -std=c++17, Java as Main.java). */
export function startSandboxFusion(options: { failFirst?: number } = {}): Promise<LoopbackService> {
  let fail = options.failFirst ?? 0;
  return listen(async (req, res, body) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/v1/ping') return send(res, 200, 'pong');
    if (req.method === 'GET' && path === '/openapi.json') return send(res, 200, { openapi: '3.1.0', info: { title: 'FastAPI', version: '0.1.0' } });
    if (req.method !== 'POST' || path !== '/run_code') return send(res, 404, { detail: 'Not Found' });
    if (fail-- > 0) return send(res, 503, { detail: 'overloaded' });
    const r = JSON.parse(body) as {
      code?: string;
      language?: string;
      stdin?: string | null;
      run_timeout?: number;
      compile_timeout?: number;
      memory_limit_MB?: number;
      files?: Record<string, string>;
    };
    if (typeof r.code !== 'string' || typeof r.language !== 'string' || !SF_LANGS.has(r.language)) {
      return send(res, 422, { detail: [{ loc: ['body', 'language'], msg: 'Input should be a valid language', type: 'enum' }] });
    }
    const ext = { python: 'py', cpp: 'cpp', java: 'java', go: 'go', ruby: 'rb' }[r.language as 'python'];
    const mainName = r.language === 'java' ? 'Main.java' : `tmpcode.${ext}`;
    const files = [
      { name: mainName, text: r.code },
      ...Object.entries(r.files ?? {}).map(([name, b]) => ({ name, text: Buffer.from(b, 'base64').toString('utf8') })),
    ];
    const out = await executePlain({
      language: r.language as ExecRequest['language'],
      // its Go runner builds the one file
      files: r.language === 'go' ? files.slice(0, 1) : files,
      stdin: r.stdin ?? '',
      runTimeoutMs: (r.run_timeout ?? 10) * 1000,
      compileTimeoutMs: (r.compile_timeout ?? 10) * 1000,
      memoryMb: r.memory_limit_MB ?? -1,
      cxxFlags: ['-std=c++17'],
      addressSpaceOnly: true,
    });
    const cmd = (s: StageResult) => ({
      status: s.timedOut ? 'TimeLimitExceeded' : 'Finished',
      execution_time: s.wallMs / 1000,
      return_code: s.timedOut ? null : (s.code ?? (s.signal ? -({ SIGKILL: 9, SIGSEGV: 11, SIGABRT: 6 }[s.signal as 'SIGKILL'] ?? 1) : null)),
      stdout: s.stdout,
      stderr: s.stderr,
    });
    const compile = out.compile ? cmd(out.compile) : null;
    const run = out.run ? cmd(out.run) : null;
    const failed = [compile, run].some((c) => c !== null && (c.status !== 'Finished' || c.return_code !== 0));
    send(res, 200, {
      status: failed ? 'Failed' : 'Success',
      message: '',
      compile_result: compile,
      run_result: run,
      executor_pod_name: null,
      files: {},
    });
  });
}

const J0_LANGS = [
  { id: 50, name: 'C (GCC 9.2.0)' },
  { id: 52, name: 'C++ (GCC 7.4.0)' },
  { id: 54, name: 'C++ (GCC 9.2.0)' },
  { id: 60, name: 'Go (1.13.5)' },
  { id: 62, name: 'Java (OpenJDK 13.0.1)' },
  { id: 70, name: 'Python (2.7.17)' },
  { id: 71, name: 'Python (3.8.1)' },
  { id: 72, name: 'Ruby (2.7.0)' },
];
const J0_BY_ID: Record<number, ExecRequest['language']> = { 54: 'cpp', 52: 'cpp', 60: 'go', 62: 'java', 71: 'python', 72: 'ruby' };
const STATUS: Record<number, string> = {
  1: 'In Queue',
  2: 'Processing',
  3: 'Accepted',
  5: 'Time Limit Exceeded',
  6: 'Compilation Error',
  7: 'Runtime Error (SIGSEGV)',
  10: 'Runtime Error (SIGABRT)',
  11: 'Runtime Error (NZEC)',
  12: 'Runtime Error (Other)',
  13: 'Internal Error',
};

/** Judge0 CE 1.13: batches, tokens, polling (each submission is "Processing" on the first poll), base64, X-Auth-Token. */
export function startJudge0(options: { authToken?: string } = {}): Promise<LoopbackService> {
  const subs = new Map<string, { polls: number; result?: Record<string, unknown>; done: Promise<void> }>();
  let next = 0;
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  return listen(async (req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (options.authToken !== undefined && req.headers['x-auth-token'] !== options.authToken) {
      return send(res, 401, { error: 'Authentication failed.' });
    }
    if (req.method === 'GET' && url.pathname === '/about')
      return send(res, 200, {
        version: '1.13.1',
        homepage: 'https://judge0.com',
        source_code: 'https://github.com/judge0/judge0',
        maintainer: 'Herman Zvonimir Došilović',
      });
    if (req.method === 'GET' && url.pathname === '/languages') return send(res, 200, J0_LANGS);
    if (url.pathname !== '/submissions/batch') return send(res, 404, { error: 'not found' });
    if (req.method === 'POST') {
      if (url.searchParams.get('base64_encoded') !== 'true') return send(res, 400, { error: 'expected base64_encoded=true in this test' });
      const { submissions } = JSON.parse(body) as { submissions: Array<Record<string, unknown>> };
      if (!Array.isArray(submissions) || submissions.length > 20) return send(res, 422, { error: 'number of submissions must be between 1 and 20' });
      const answer = submissions.map((s) => {
        const lang = J0_BY_ID[s.language_id as number];
        if (lang === undefined) return { language_id: [`language with id ${String(s.language_id)} doesn't exist`] };
        if (typeof s.cpu_time_limit === 'number' && s.cpu_time_limit > 15) return { cpu_time_limit: ['must be less than or equal to 15'] };
        const token = `tok-${++next}`;
        const entry: { polls: number; result?: Record<string, unknown>; done: Promise<void> } = { polls: 0, done: Promise.resolve() };
        const src = Buffer.from(String(s.source_code), 'base64').toString('utf8');
        const cpu = Number(s.cpu_time_limit ?? 5);
        entry.done = executePlain({
          language: lang,
          files: [{ name: { python: 'script.py', cpp: 'main.cpp', java: 'Main.java', go: 'main.go', ruby: 'script.rb' }[lang], text: src }],
          stdin: Buffer.from(String(s.stdin ?? ''), 'base64').toString('utf8'),
          runTimeoutMs: Number(s.wall_time_limit ?? 10) * 1000,
          compileTimeoutMs: 20000,
          memoryMb: Number(s.memory_limit ?? 128000) / 1024,
          cxxFlags: typeof s.compiler_options === 'string' && s.compiler_options !== '' ? s.compiler_options.split(' ') : undefined,
        }).then((out) => {
          const r = out.run;
          let id = 3;
          if (out.compile && (out.compile.code !== 0 || out.compile.timedOut)) id = 6;
          else if (r === undefined) id = 13;
          else if (r.timedOut || r.wallMs > cpu * 1000 * 1.5) id = 5;
          else if (r.signal === 'SIGSEGV') id = 7;
          else if (r.signal === 'SIGABRT') id = 10;
          else if (r.code !== 0) id = 11;
          entry.result = {
            token,
            stdout: r ? b64(r.stdout) : null,
            stderr: r ? b64(r.stderr) : null,
            compile_output: out.compile && id === 6 ? b64(out.compile.stderr + out.compile.stdout) : null,
            message: id === 11 ? b64(`Exit code: ${r?.code}`) : null,
            exit_code: r?.code ?? null,
            exit_signal: r?.signal ? ({ SIGSEGV: 11, SIGABRT: 6, SIGKILL: 9 }[r.signal as 'SIGSEGV'] ?? null) : null,
            status: { id, description: STATUS[id] },
            time: r ? (r.wallMs / 1000).toFixed(3) : null,
            wall_time: r ? (r.wallMs / 1000).toFixed(3) : null,
            memory: 3000,
          };
        });
        subs.set(token, entry);
        return { token };
      });
      return send(res, 201, answer);
    }
    const tokens = (url.searchParams.get('tokens') ?? '').split(',').filter((t) => t !== '');
    const out = [];
    for (const t of tokens) {
      const e = subs.get(t);
      if (e === undefined) {
        out.push(null);
        continue;
      }
      e.polls++;
      if (e.polls === 1 || e.result === undefined)
        out.push({ token: t, status: { id: e.polls === 1 ? 1 : 2, description: e.polls === 1 ? 'In Queue' : 'Processing' } });
      else out.push(e.result);
    }
    send(res, 200, { submissions: out });
  });
}

/** Piston v2 (engineer-man/piston 3.x): runtimes, execute, 400 {message}, an instance cap on run_timeout. */
export function startPiston(options: { runTimeoutCapMs?: number } = {}): Promise<LoopbackService> {
  const cap = options.runTimeoutCapMs ?? 3000;
  const runtimes = [
    { language: 'python', version: '3.10.0', aliases: ['py', 'py3', 'python3'] },
    { language: 'python', version: '3.12.0', aliases: ['py', 'py3', 'python3'] },
    { language: 'c++', version: '10.2.0', aliases: ['cpp', 'g++'], runtime: 'gcc' },
    { language: 'java', version: '15.0.2', aliases: [] },
    { language: 'go', version: '1.16.2', aliases: ['go', 'golang'] },
    { language: 'ruby', version: '3.0.1', aliases: ['ruby3', 'rb'] },
  ];
  return listen(async (req, res, body) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/api/v2/runtimes') return send(res, 200, runtimes);
    if (req.method !== 'POST' || path !== '/api/v2/execute') return send(res, 404, { message: 'Not found' });
    const r = JSON.parse(body) as {
      language?: string;
      version?: string;
      files?: Array<{ name?: string; content?: string }>;
      stdin?: string;
      run_timeout?: number;
      compile_timeout?: number;
      run_memory_limit?: number;
    };
    const rt = runtimes.find(
      (x) => (x.language === r.language || x.aliases.includes(r.language ?? '')) && (r.version === '*' || x.version === r.version),
    );
    if (rt === undefined) return send(res, 400, { message: `${r.language}-${r.version} runtime is unknown` });
    if ((r.run_timeout ?? 0) > cap) return send(res, 400, { message: `run_timeout cannot exceed the configured limit of ${cap}` });
    if (!Array.isArray(r.files) || r.files.length === 0) return send(res, 400, { message: 'files is required as an array' });
    const lang = ({ python: 'python', 'c++': 'cpp', java: 'java', go: 'go', ruby: 'ruby' } as const)[rt.language as 'python'];
    const out = await executePlain({
      language: lang,
      files: r.files.map((f, i) => ({ name: f.name ?? `file${i}`, text: f.content ?? '' })),
      stdin: r.stdin ?? '',
      runTimeoutMs: r.run_timeout ?? 3000,
      compileTimeoutMs: r.compile_timeout ?? 10000,
      memoryMb: (r.run_memory_limit ?? -1) > 0 ? (r.run_memory_limit as number) / 1024 / 1024 : 1024,
    });
    const stageOut = (s: StageResult) => ({
      stdout: s.stdout,
      stderr: s.stderr,
      output: s.stdout + s.stderr,
      code: s.timedOut ? null : s.code,
      signal: s.timedOut ? 'SIGKILL' : s.signal,
      message: s.timedOut ? 'Timeout' : null,
      status: s.timedOut ? 'TO' : s.signal !== null ? 'SG' : s.code !== 0 ? 'RE' : null,
      cpu_time: s.wallMs,
      wall_time: s.wallMs,
      memory: null,
    });
    const answer: Record<string, unknown> = { language: rt.language, version: rt.version };
    if (out.compile) answer.compile = stageOut(out.compile);
    answer.run = out.run ? stageOut(out.run) : { stdout: '', stderr: '', output: '', code: null, signal: null };
    if (!out.run) answer.run = { stdout: '', stderr: '', output: '', code: null, signal: null, status: null };
    send(res, 200, answer);
  });
}
