/**
 * Piston (engineer-man/piston): `GET /api/v2/runtimes` lists `[{language, version, aliases}]`;
 * `POST /api/v2/execute` takes `{language, version, files: [{name, content}], stdin, compile_timeout,
 * run_timeout (ms, wall-clock), run_cpu_time, run_memory_limit (bytes)}` and answers `{language,
 * version, compile?: Stage, run: Stage}` with `Stage = {stdout, stderr, output, code, signal,
 * status?, message?, cpu_time?, wall_time?, memory?}` (`status`: `TO` timeout, `SG` signal, `RE`
 * runtime error, `OL`/`EL` output limits, `XX` internal error); a bad request is HTTP 400
 * `{message}`. An instance caps the timeouts it accepts (`run_timeout cannot exceed the configured
 * limit of 3000`): the cap is read from that message, the request sent again within it, and the
 * clamp recorded with every later verdict.
 */
import { findJudgeLanguage, judgeLanguageIds } from '../languages/index.js';
import { errorMessage, requestJson, type ServiceHttpOptions } from './http.js';
import { failedRun, protocolError, wallLimitMs, type RemoteRun, type RemoteService, type RemoteSubmission, type ServiceInfo } from './service.js';

const SIGNALS: Readonly<Record<string, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGILL: 4,
  SIGABRT: 6,
  SIGFPE: 8,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGTERM: 15,
  SIGXCPU: 24,
  SIGXFSZ: 25,
};

interface Stage {
  stdout?: string;
  stderr?: string;
  output?: string;
  code?: number | null;
  signal?: string | null;
  status?: string | null;
  message?: string | null;
  cpu_time?: number;
  wall_time?: number;
  memory?: number;
}

function semverNewer(a: string, b: string): boolean {
  const x = a.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const y = b.split('.').map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
}

/** A Piston service at `url` (its root, e.g. `http://localhost:2000`; `/api/v2` is added). */
export function createPistonService(url: string, http: ServiceHttpOptions = {}): RemoteService {
  const root = url.replace(/\/+$/, '').replace(/\/api\/v2$/, '');
  const name = 'piston';
  const runtime: Partial<Record<string, { language: string; version: string }>> = {};
  /** Caps the instance announced, by request field (ms or bytes). */
  const caps = new Map<string, number>();
  const capped = (field: string, want: number): number => Math.min(want, caps.get(field) ?? want);
  return {
    name,
    url: root,
    batchSize: 1,
    async info(signal): Promise<ServiceInfo> {
      const r = await requestJson(name, `${root}/api/v2/runtimes`, { method: 'GET', signal }, http);
      if (r.status !== 200 || !Array.isArray(r.body)) throw protocolError(name, `GET /api/v2/runtimes gave HTTP ${r.status} ${r.text.slice(0, 80)}`);
      for (const rt of r.body as Array<{ language?: unknown; version?: unknown; aliases?: unknown }>) {
        if (typeof rt.language !== 'string' || typeof rt.version !== 'string') continue;
        const names = [rt.language, ...(Array.isArray(rt.aliases) ? rt.aliases.filter((a): a is string => typeof a === 'string') : [])];
        for (const lang of judgeLanguageIds()) {
          // Piston's language names and aliases of each judged language (its module's `remote.piston`).
          const wanted = findJudgeLanguage(lang)?.remote?.piston ?? [];
          if (!names.some((n) => wanted.includes(n))) continue;
          const cur = runtime[lang];
          if (cur === undefined || semverNewer(rt.version, cur.version)) runtime[lang] = { language: rt.language, version: rt.version };
        }
      }
      const runtimes: Partial<Record<string, string>> = {};
      for (const [lang, v] of Object.entries(runtime)) if (v !== undefined) runtimes[lang] = `${v.language} ${v.version}`;
      return { version: 'api/v2', runtimes };
    },
    unhonoured(sub) {
      const out = ['peak memory reported only by Piston versions that measure it'];
      const wall = wallLimitMs(sub.limits.timeLimitMs);
      if (capped('run_timeout', wall) < wall) out.push(`wall-clock limit clamped to the instance's run_timeout cap of ${caps.get('run_timeout')} ms`);
      const cpu = capped('run_cpu_time', sub.limits.timeLimitMs);
      if (cpu < sub.limits.timeLimitMs) out.push(`CPU-time limit clamped to the instance's run_cpu_time cap of ${cpu} ms`);
      const compile = capped('compile_timeout', sub.compileTimeoutMs);
      if (compile < sub.compileTimeoutMs) out.push(`compile limit clamped to the instance's compile_timeout cap of ${compile} ms`);
      if (sub.language === 'cpp') out.push("C++ compiled with the Piston package's own flags (it takes none)");
      return out;
    },
    refuse: () => undefined,
    async run(subs, signal): Promise<RemoteRun[]> {
      const out: RemoteRun[] = [];
      for (const sub of subs) {
        const rt = runtime[sub.language];
        if (rt === undefined) {
          out.push(failedRun('judge_error', `no ${sub.language} runtime on this instance`));
          continue;
        }
        for (let attempt = 0; ; attempt++) {
          const body = {
            language: rt.language,
            version: rt.version,
            files: [{ name: sub.fileName, content: sub.text }, ...sub.extraFiles.map((f) => ({ name: f.name, content: f.text }))],
            stdin: sub.stdin,
            args: [],
            compile_timeout: capped('compile_timeout', sub.compileTimeoutMs),
            run_timeout: capped('run_timeout', wallLimitMs(sub.limits.timeLimitMs)),
            run_cpu_time: capped('run_cpu_time', sub.limits.timeLimitMs),
            compile_memory_limit: -1,
            run_memory_limit: capped('run_memory_limit', sub.limits.memoryLimitMb * 1024 * 1024),
          };
          const r = await requestJson(name, `${root}/api/v2/execute`, { method: 'POST', body, signal }, http);
          if (r.status === 200) {
            out.push(mapPiston(r.body, sub));
            break;
          }
          const msg = errorMessage(r);
          const cap = /(\w+) cannot exceed the configured limit of (\d+)/.exec(msg);
          const sent = cap === null ? undefined : (body as Record<string, unknown>)[cap[1]];
          if (r.status === 400 && cap !== null && attempt < 5 && typeof sent === 'number' && sent > Number(cap[2])) {
            // (several requests in flight may learn the same cap at once)
            caps.set(cap[1], Math.min(Number(cap[2]), caps.get(cap[1]) ?? Number(cap[2])));
            continue;
          }
          out.push(failedRun('judge_error', `HTTP ${r.status}: ${msg}`));
          break;
        }
      }
      return out;
    },
  };
}

/** Maps one `/api/v2/execute` answer to a run. */
export function mapPiston(body: unknown, sub: RemoteSubmission): RemoteRun {
  const b = body as { compile?: Stage; run?: Stage; message?: string };
  if (b === null || typeof b !== 'object') return failedRun('judge_error', `not an execute answer: ${JSON.stringify(body).slice(0, 120)}`);
  const c = b.compile;
  if (c !== undefined && c !== null && (c.code !== 0 || (c.signal ?? null) !== null)) {
    const timedOut = c.status === 'TO' || c.signal === 'SIGKILL';
    return failedRun('compile_error', timedOut ? `compilation stopped (${c.status ?? c.signal})` : 'compilation failed', {
      compileOutput: `${c.stderr ?? ''}${c.stdout ?? ''}` || (c.output ?? ''),
    });
  }
  const run = b.run;
  if (run === undefined || run === null) return failedRun('judge_error', `no run stage: ${JSON.stringify(body).slice(0, 120)}`);
  const sig = run.signal ?? null;
  const exitCode = typeof run.code === 'number' ? run.code : sig !== null ? 128 + (SIGNALS[sig] ?? 0) : null;
  const common = {
    stdout: run.stdout ?? '',
    stderr: run.stderr ?? '',
    exitCode,
    wallMs: typeof run.wall_time === 'number' ? run.wall_time : -1,
    cpuMs: typeof run.cpu_time === 'number' ? run.cpu_time : -1,
    memoryKb: typeof run.memory === 'number' ? Math.round(run.memory / 1024) : -1,
  };
  if (run.status === 'TO' || ((run.status ?? null) === null && sig === 'SIGKILL')) {
    return { ...common, outcome: 'time_limit', detail: `stopped by the service (${run.message ?? run.status ?? sig})` };
  }
  if (run.status === 'OL' || run.status === 'EL') return { ...common, outcome: 'output_limit', detail: run.message ?? 'output limit' };
  if (run.status === 'XX') return failedRun('judge_error', `internal error: ${run.message ?? 'no message'}`, common);
  if (common.memoryKb >= 0 && common.memoryKb > sub.limits.memoryLimitMb * 1024) {
    return { ...common, outcome: 'memory_limit', detail: `peak memory ${common.memoryKb} KiB` };
  }
  return { ...common, outcome: 'ran' };
}
