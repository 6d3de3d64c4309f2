/**
 * Judge0 (judge0/judge0, CE and extra): submissions go out as one `POST /submissions/batch?base64_encoded=true`
 * (`{submissions: [{language_id, source_code, stdin, cpu_time_limit, wall_time_limit (s),
 * memory_limit (KB), compiler_options}]}` → `[{token} | {field: [errors]}]`), then
 * `GET /submissions/batch?tokens=…` is polled until no status is 1 (In Queue) or 2 (Processing).
 * Statuses: 3 Accepted, 4 Wrong Answer, 5 Time Limit Exceeded, 6 Compilation Error, 7–12 Runtime
 * Error (SIGSEGV, SIGXFSZ, SIGFPE, SIGABRT, NZEC, Other), 13 Internal Error, 14 Exec Format Error.
 * `GET /about` gives the version, `GET /languages` the runtimes. Java runs as class `Main`; one
 * source file per submission; limits are clamped to Judge0's documented maxima (15 s CPU, 512000 KB).
 */
import { findJudgeLanguage, judgeLanguageIds } from '../languages/index.js';
import { sleep } from '../../core/retry.js';
import { errorMessage, requestJson, type ServiceHttpOptions } from './http.js';
import { failedRun, protocolError, wallLimitMs, type RemoteRun, type RemoteService, type RemoteSubmission, type ServiceInfo } from './service.js';

/** Judge0's default maximum CPU time limit, seconds (`MAX_CPU_TIME_LIMIT`). */
export const JUDGE0_MAX_CPU_S = 15;
/** Judge0's default maximum wall time limit, seconds (`MAX_WALL_TIME_LIMIT`). */
export const JUDGE0_MAX_WALL_S = 20;
/** Judge0's default maximum memory limit, KB (`MAX_MEMORY_LIMIT`). */
export const JUDGE0_MAX_MEMORY_KB = 512000;

/** Language names in `GET /languages` that are coreb's languages. */

/** The newest version among names like `C++ (GCC 9.2.0)`: the one whose version numbers compare highest. */
function versionKey(name: string): number[] {
  return (/\(([^)]*)\)/.exec(name)?.[1].match(/\d+/g) ?? []).map(Number);
}

function newer(a: string, b: string): boolean {
  const x = versionKey(a);
  const y = versionKey(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  }
  return false;
}

interface Judge0Result {
  token?: string;
  stdout?: string | null;
  stderr?: string | null;
  compile_output?: string | null;
  message?: string | null;
  exit_code?: number | null;
  exit_signal?: number | null;
  status?: { id?: number; description?: string };
  time?: string | null;
  wall_time?: string | null;
  memory?: number | null;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string | null | undefined): string => (typeof s === 'string' ? Buffer.from(s, 'base64').toString('utf8') : '');

/** Options of the Judge0 service beyond transport. */
export interface Judge0Options extends ServiceHttpOptions {
  /** First polling interval, milliseconds; default 200 (growing to 2 s). */
  pollMs?: number;
  /** Longest wait for one batch, milliseconds; default 600000. */
  maxWaitMs?: number;
}

/** A Judge0 service at `url` (e.g. `http://localhost:2358`). */
export function createJudge0Service(url: string, options: Judge0Options = {}): RemoteService {
  const root = url.replace(/\/+$/, '');
  const name = 'judge0';
  const ids: Partial<Record<string, { id: number; name: string }>> = {};
  const cpuS = (sub: RemoteSubmission): number => Math.min(JUDGE0_MAX_CPU_S, sub.limits.timeLimitMs / 1000);
  const memKb = (sub: RemoteSubmission): number => Math.min(JUDGE0_MAX_MEMORY_KB, sub.limits.memoryLimitMb * 1024);
  const wallS = (sub: RemoteSubmission): number => Math.min(JUDGE0_MAX_WALL_S, wallLimitMs(sub.limits.timeLimitMs) / 1000);
  return {
    name,
    url: root,
    batchSize: 20,
    async info(signal): Promise<ServiceInfo> {
      const about = await requestJson(name, `${root}/about`, { method: 'GET', signal }, options);
      if (about.status === 401 || about.status === 403) {
        throw protocolError(name, `GET /about refused (HTTP ${about.status}: ${errorMessage(about)}): set the API key's environment variable`);
      }
      const version = (about.body as { version?: unknown } | undefined)?.version;
      if (about.status !== 200 || typeof version !== 'string')
        throw protocolError(name, `GET /about gave HTTP ${about.status} ${about.text.slice(0, 80)}`);
      const langs = await requestJson(name, `${root}/languages`, { method: 'GET', signal }, options);
      if (langs.status !== 200 || !Array.isArray(langs.body)) throw protocolError(name, `GET /languages gave HTTP ${langs.status}`);
      const runtimes: Partial<Record<string, string>> = {};
      for (const l of langs.body as Array<{ id?: unknown; name?: unknown }>) {
        if (typeof l.id !== 'number' || typeof l.name !== 'string') continue;
        for (const lang of judgeLanguageIds()) {
          // The pattern of each judged language's Judge0 names (its module's `remote.judge0`).
          const re = findJudgeLanguage(lang)?.remote?.judge0;
          const cur = ids[lang];
          if (re?.test(l.name) === true && (cur === undefined || newer(l.name, cur.name))) ids[lang] = { id: l.id, name: l.name };
        }
      }
      for (const [lang, v] of Object.entries(ids)) if (v !== undefined) runtimes[lang] = `${v.name} (language_id ${v.id})`;
      return { version, runtimes };
    },
    unhonoured(sub) {
      const out: string[] = [];
      if (sub.limits.timeLimitMs / 1000 > JUDGE0_MAX_CPU_S) out.push(`CPU-time limit clamped to Judge0's maximum ${JUDGE0_MAX_CPU_S} s`);
      if (sub.limits.memoryLimitMb * 1024 > JUDGE0_MAX_MEMORY_KB) out.push(`memory limit clamped to Judge0's maximum ${JUDGE0_MAX_MEMORY_KB} KB`);
      if (wallLimitMs(sub.limits.timeLimitMs) / 1000 > JUDGE0_MAX_WALL_S)
        out.push(`wall-clock limit clamped to Judge0's maximum ${JUDGE0_MAX_WALL_S} s`);
      out.push(`output limit ${sub.limits.outputLimitBytes} bytes checked after the run`);
      out.push(
        "memory limit asked as the box's cgroup memory (enable_per_process_and_thread_memory_limit: false); an instance that forbids it applies an address-space limit",
      );
      if (sub.language === 'cpp') out.push('C++ flags sent as compiler_options (honoured only where the instance enables compiler options)');
      return out;
    },
    refuse(sub) {
      if (sub.language === 'java' && (sub.mainClass ?? 'Main') !== 'Main')
        return `it runs Java as class Main; this program's class is ${sub.mainClass}`;
      if (sub.extraFiles.length > 0) return 'it takes one source file per submission; this test needs a driver file beside the program';
      return undefined;
    },
    async run(subs, signal): Promise<RemoteRun[]> {
      const submissions = subs.map((sub) => {
        const id = ids[sub.language];
        return {
          language_id: id?.id ?? 0,
          source_code: b64(sub.text),
          stdin: b64(sub.stdin),
          cpu_time_limit: cpuS(sub),
          wall_time_limit: wallS(sub),
          memory_limit: memKb(sub),
          // isolate's --cg-mem (the box's resident memory, a cgroup), not -m (an address-space limit per
          // process, under which the JVM, Go and Ruby cannot start with a few hundred MiB)
          enable_per_process_and_thread_memory_limit: false,
          enable_network: false,
          redirect_stderr_to_stdout: false,
          ...(sub.language === 'cpp' ? { compiler_options: sub.cxxFlags.join(' ') } : {}),
        };
      });
      const created = await requestJson(
        name,
        `${root}/submissions/batch?base64_encoded=true`,
        { method: 'POST', body: { submissions }, signal },
        options,
      );
      if (created.status !== 201 && created.status !== 200) {
        const why = `POST /submissions/batch: HTTP ${created.status}: ${errorMessage(created)}`;
        return subs.map(() => failedRun('judge_error', why));
      }
      if (!Array.isArray(created.body) || created.body.length !== subs.length)
        throw protocolError(name, 'POST /submissions/batch did not answer one item per submission');
      const items = created.body as Array<Record<string, unknown>>;
      const out: Array<RemoteRun | undefined> = items.map((it) =>
        typeof it.token === 'string' ? undefined : failedRun('judge_error', `submission refused: ${JSON.stringify(it).slice(0, 200)}`),
      );
      const pending = new Map<string, number>();
      items.forEach((it, i) => {
        if (typeof it.token === 'string') pending.set(it.token, i);
      });
      const fields = 'token,stdout,stderr,compile_output,message,exit_code,exit_signal,status,time,wall_time,memory';
      let wait = options.pollMs ?? 200;
      const deadline = Date.now() + (options.maxWaitMs ?? 600000);
      while (pending.size > 0) {
        await sleep(wait, signal);
        wait = Math.min(2000, wait * 1.5);
        const tokens = [...pending.keys()].join(',');
        const r = await requestJson(
          name,
          `${root}/submissions/batch?tokens=${tokens}&base64_encoded=true&fields=${fields}`,
          { method: 'GET', signal },
          options,
        );
        if (r.status !== 200) {
          const why = `GET /submissions/batch: HTTP ${r.status}: ${errorMessage(r)}`;
          for (const i of pending.values()) out[i] = failedRun('judge_error', why);
          break;
        }
        const got = (r.body as { submissions?: Judge0Result[] } | undefined)?.submissions;
        if (!Array.isArray(got)) throw protocolError(name, 'GET /submissions/batch had no submissions array');
        for (const s of got) {
          const id = s?.status?.id;
          if (typeof s?.token !== 'string' || id === 1 || id === 2 || !pending.has(s.token)) continue;
          const i = pending.get(s.token) as number;
          out[i] = mapJudge0(s, subs[i]);
          pending.delete(s.token);
        }
        if (pending.size > 0 && Date.now() > deadline) {
          for (const i of pending.values()) out[i] = failedRun('judge_error', `still queued after ${options.maxWaitMs ?? 600000} ms`);
          break;
        }
      }
      return out as RemoteRun[];
    },
  };
}

/** Maps one finished Judge0 submission (base64 fields) to a run. */
export function mapJudge0(s: Judge0Result, sub: RemoteSubmission): RemoteRun {
  const id = s.status?.id ?? 0;
  const desc = s.status?.description ?? `status ${id}`;
  const stdout = unb64(s.stdout);
  const stderr = unb64(s.stderr);
  const cpuMs = s.time === null || s.time === undefined ? -1 : Math.round(Number(s.time) * 1000);
  const wallMs = s.wall_time === null || s.wall_time === undefined ? -1 : Math.round(Number(s.wall_time) * 1000);
  const memoryKb = typeof s.memory === 'number' ? s.memory : -1;
  const exitCode = typeof s.exit_code === 'number' ? s.exit_code : typeof s.exit_signal === 'number' ? 128 + s.exit_signal : null;
  const common = { stdout, stderr, cpuMs, wallMs, memoryKb, exitCode };
  if (id === 6) return failedRun('compile_error', desc, { compileOutput: unb64(s.compile_output) });
  if (id === 5) return { ...common, outcome: 'time_limit', detail: `${desc} (CPU ${cpuMs} ms)` };
  if (id === 3 || id === 4) return { ...common, exitCode: exitCode ?? 0, outcome: 'ran' };
  if (id >= 7 && id <= 12) {
    if (memoryKb >= 0 && memoryKb >= Math.min(JUDGE0_MAX_MEMORY_KB, sub.limits.memoryLimitMb * 1024) * 0.98) {
      return { ...common, outcome: 'memory_limit', detail: `${desc} at ${memoryKb} KB (limit ${sub.limits.memoryLimitMb} MiB)` };
    }
    return { ...common, exitCode: exitCode ?? 1, outcome: 'runtime_error', detail: `${desc}${unb64(s.message) ? `: ${unb64(s.message)}` : ''}` };
  }
  return failedRun('judge_error', `${desc}${s.message ? `: ${unb64(s.message)}` : ''}`, common);
}
