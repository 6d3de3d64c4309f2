/**
 * SandboxFusion (bytedance/SandboxFusion, the sandbox verl and evalscope run): `POST /run_code` with
 * `{code, language, stdin, compile_timeout, run_timeout (seconds), memory_limit_MB, files (base64)}`,
 * answered by `{status: Success|Failed|SandboxError, message, compile_result, run_result}` whose
 * results are `{status: Finished|Error|TimeLimitExceeded, execution_time, return_code, stdout,
 * stderr}`; `GET /v1/ping` answers `"pong"`. It compiles C++ with `g++ -std=c++17`, writes Java to
 * `Main.java`, builds one Go file, limits wall-clock time only and reports no CPU time or memory;
 * all of that is recorded as unhonoured where it differs from what coreb asked.
 */
import { findJudgeLanguage, judgeLanguage, judgeLanguageIds } from '../languages/index.js';
import { errorMessage, requestJson, type ServiceHttpOptions } from './http.js';
import { failedRun, protocolError, wallLimitMs, type RemoteRun, type RemoteService, type RemoteSubmission, type ServiceInfo } from './service.js';

/**
 * The `memory_limit_MB` coreb sends for `sub`; -1 is none. What SandboxFusion's `memory_limit_MB` is: without isolation (`isolation: none`) it sets RLIMIT_AS,
 * RLIMIT_DATA and RLIMIT_STACK of the compiler and of the program to that many MiB; with `lite`
 * isolation it is not applied at all (a 4 GiB cgroup is). An address-space limit is no memory limit:
 * `go build`, the JVM (javac too, and `java` without `-Xmx` reserves a quarter of the machine's
 * memory) and Ruby (its thread stacks are sized from RLIMIT_STACK) cannot start under a few hundred
 * MiB ("failed to reserve page summary memory", "Could not reserve enough space for … object heap",
 * exit 139). So coreb sends, per language, the address space its own judge gives that language's
 * runs where one bounds memory (Python, C++: the programs reserve about what they touch), and no
 * limit for Go, Java and Ruby; either way the result lists it under `unhonoured`.
 */
export function sandboxFusionMemoryMb(sub: Pick<RemoteSubmission, 'language' | 'limits'>): number {
  // Which languages start under it is each module's `remote.sandboxFusion.addressSpace`.
  return findJudgeLanguage(sub.language)?.remote?.sandboxFusion?.addressSpace === true
    ? Math.max(sub.limits.addressSpaceMb, sub.limits.memoryLimitMb)
    : -1;
}

/** The flags SandboxFusion's C++ runner compiles with. */
const SERVICE_CXX = ['-std=c++17'];

interface CommandResult {
  status?: string;
  execution_time?: number | null;
  return_code?: number | null;
  stdout?: string | null;
  stderr?: string | null;
}

/** Exit status as a shell reports it: Python's negative signal numbers become 128 + signal. */
export function shellStatus(code: number | null | undefined): number | null {
  if (code === null || code === undefined) return null;
  return code < 0 ? 128 - code : code;
}

/** A SandboxFusion service at `url` (its API root, e.g. `http://localhost:8080`). */
export function createSandboxFusionService(url: string, http: ServiceHttpOptions = {}): RemoteService {
  const root = url.replace(/\/+$/, '');
  const name = 'sandboxfusion';
  return {
    name,
    url: root,
    batchSize: 1,
    async info(signal): Promise<ServiceInfo> {
      const ping = await requestJson(name, `${root}/v1/ping`, { method: 'GET', signal }, http);
      if (ping.status !== 200 || ping.body !== 'pong')
        throw protocolError(name, `GET /v1/ping gave HTTP ${ping.status} ${ping.text.slice(0, 80)}, not "pong"`);
      let version = 'unknown';
      const api = await requestJson(name, `${root}/openapi.json`, { method: 'GET', signal }, http).catch(() => undefined);
      const v = (api?.body as { info?: { version?: unknown } } | undefined)?.info?.version;
      if (typeof v === 'string') version = v;
      // The service lists no runtimes; it runs the languages of its image (each module's `remote.sandboxFusion`).
      const runtimes: Record<string, string> = {};
      for (const id of judgeLanguageIds()) {
        const sf = findJudgeLanguage(id)?.remote?.sandboxFusion;
        if (sf !== undefined) runtimes[id] = sf.runtime;
      }
      return { version, runtimes };
    },
    unhonoured(sub) {
      const out = [
        `CPU-time limit ${sub.limits.timeLimitMs} ms enforced as a wall-clock run_timeout of ${wallLimitMs(sub.limits.timeLimitMs)} ms`,
        'no CPU time or peak memory reported',
        sandboxFusionMemoryMb(sub) < 0
          ? `memory limit ${sub.limits.memoryLimitMb} MiB not sent: SandboxFusion applies memory_limit_MB as an address-space limit (also on the compiler), which ${judgeLanguage(sub.language).remote?.sandboxFusion?.startUp ?? judgeLanguage(sub.language).label} cannot start under`
          : `memory limit ${sub.limits.memoryLimitMb} MiB sent as an address-space limit of ${sandboxFusionMemoryMb(sub)} MiB (SandboxFusion's memory_limit_MB is RLIMIT_AS on compile and run, and is not applied under its lite isolation)`,
        `output limit ${sub.limits.outputLimitBytes} bytes checked after the run`,
      ];
      if (sub.language === 'cpp' && sub.cxxFlags.join(' ') !== SERVICE_CXX.join(' ')) {
        out.push(`C++ compiled with g++ ${SERVICE_CXX.join(' ')} (asked: ${sub.cxxFlags.join(' ')})`);
      }
      return out;
    },
    refuse(sub) {
      if (sub.language === 'java' && (sub.mainClass ?? 'Main') !== 'Main') {
        return `it writes Java to Main.java and runs class Main; this program's class is ${sub.mainClass}`;
      }
      if (sub.language === 'go' && sub.extraFiles.length > 0) return 'it builds a single Go file; this test needs a driver file beside the program';
      return undefined;
    },
    async run(subs, signal): Promise<RemoteRun[]> {
      const out: RemoteRun[] = [];
      for (const sub of subs) {
        const body = {
          code: sub.text,
          language: judgeLanguage(sub.language).remote?.sandboxFusion?.language ?? sub.language,
          stdin: sub.stdin,
          compile_timeout: sub.compileTimeoutMs / 1000,
          run_timeout: wallLimitMs(sub.limits.timeLimitMs) / 1000,
          memory_limit_MB: sandboxFusionMemoryMb(sub),
          files: Object.fromEntries(sub.extraFiles.map((f) => [f.name, Buffer.from(f.text).toString('base64')])),
          fetch_files: [],
        };
        const r = await requestJson(name, `${root}/run_code`, { method: 'POST', body, signal }, http);
        if (r.status !== 200) {
          out.push(failedRun('judge_error', `HTTP ${r.status}: ${errorMessage(r)}`));
          continue;
        }
        out.push(mapSandboxFusion(r.body, sub));
      }
      return out;
    },
  };
}

/** Maps one `/run_code` answer to a run. */
export function mapSandboxFusion(body: unknown, sub: RemoteSubmission): RemoteRun {
  const b = body as { status?: string; message?: string; compile_result?: CommandResult | null; run_result?: CommandResult | null };
  if (b === null || typeof b !== 'object' || typeof b.status !== 'string') {
    return failedRun('judge_error', `not a /run_code answer: ${JSON.stringify(body).slice(0, 120)}`);
  }
  if (b.status === 'SandboxError') return failedRun('judge_error', `SandboxError: ${b.message || 'no message'}`);
  const c = b.compile_result;
  if (c !== null && c !== undefined) {
    if (c.status === 'TimeLimitExceeded') {
      return failedRun('compile_error', `compilation passed the ${sub.compileTimeoutMs} ms limit`, { compileOutput: `${c.stderr ?? ''}` });
    }
    if ((c.return_code ?? 0) !== 0) {
      const text = `${c.stderr ?? ''}${c.stdout ?? ''}`;
      return failedRun('compile_error', 'compilation failed', { compileOutput: text, exitCode: shellStatus(c.return_code) });
    }
  }
  const run = b.run_result;
  if (run === null || run === undefined) return failedRun('judge_error', `no run_result (status ${b.status}${b.message ? `: ${b.message}` : ''})`);
  const wallMs = typeof run.execution_time === 'number' ? Math.round(run.execution_time * 1000) : -1;
  const common = { stdout: run.stdout ?? '', stderr: run.stderr ?? '', wallMs, cpuMs: -1, memoryKb: -1, exitCode: shellStatus(run.return_code) };
  if (run.status === 'TimeLimitExceeded')
    return { ...common, outcome: 'time_limit', detail: `killed at the run_timeout of ${wallLimitMs(sub.limits.timeLimitMs)} ms wall-clock` };
  if (run.status !== 'Finished') return failedRun('judge_error', `run status ${String(run.status)}`, common);
  return { ...common, outcome: 'ran' };
}
