/**
 * Judge specs (`--judge local|sandboxfusion:URL|judge0:URL|piston:URL[,key-env=VAR]`) and the lazy
 * registry that turns one into a {@link JudgeBackend}: the local bubblewrap judge, or a remote
 * service (remote/). A service's API key is read from the environment variable the spec names
 * (default `COREB_<SERVICE>_API_KEY`), sent as that service's auth header, and never written to a
 * description, a verdict or a log.
 */
import { CorebError } from '../core/errors.js';
import type { JudgeBackend } from './backend.js';
import type { LocalJudgeOptions } from './local-judge.js';
import type { RemoteJudgeOptions } from './remote/remote-judge.js';
import type { RemoteService } from './remote/service.js';

/** Judge kinds. */
export const JUDGE_KINDS = ['local', 'sandboxfusion', 'judge0', 'piston'] as const;
/** A judge kind. */
export type JudgeKind = (typeof JUDGE_KINDS)[number];

/** A parsed `--judge` value. */
export interface JudgeSpec {
  kind: JudgeKind;
  /** The service's API root (remote kinds). */
  url?: string;
  /** The environment variable holding the API key (remote kinds). */
  keyEnv?: string;
}

/** The default environment variable of each service's API key. */
export const JUDGE_KEY_ENV: Readonly<Record<Exclude<JudgeKind, 'local'>, string>> = {
  sandboxfusion: 'COREB_SANDBOXFUSION_API_KEY',
  judge0: 'COREB_JUDGE0_API_KEY',
  piston: 'COREB_PISTON_API_KEY',
};

/**
 * Parses `local`, `sandboxfusion:URL`, `judge0:URL` or `piston:URL`, optionally followed by
 * `,key-env=VAR`.
 * @throws CorebError `USAGE` naming what is valid.
 */
export function parseJudgeSpec(text: string): JudgeSpec {
  const usage = 'valid: local | sandboxfusion:URL | judge0:URL | piston:URL, optionally followed by ,key-env=VAR';
  const t = text.trim();
  if (t === 'local') return { kind: 'local' };
  const colon = t.indexOf(':');
  const kind = colon < 0 ? t : t.slice(0, colon);
  if (!(JUDGE_KINDS as readonly string[]).includes(kind) || kind === 'local') {
    throw new CorebError('USAGE', `--judge: unknown judge \`${kind}\`; ${usage}`);
  }
  const [url, ...opts] = t.slice(colon + 1).split(',');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CorebError('USAGE', `--judge ${kind}: \`${url}\` is not a URL (e.g. ${kind}:http://localhost:8080); ${usage}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new CorebError('USAGE', `--judge ${kind}: the URL must be http or https, got ${parsed.protocol}`);
  if (parsed.username !== '' || parsed.password !== '') {
    throw new CorebError(
      'USAGE',
      `--judge ${kind}: put no credentials in the URL; give the API key in an environment variable (key-env=VAR, default ${JUDGE_KEY_ENV[kind as 'judge0']})`,
    );
  }
  const spec: JudgeSpec = { kind: kind as JudgeKind, url: parsed.toString().replace(/\/+$/, ''), keyEnv: JUDGE_KEY_ENV[kind as 'judge0'] };
  for (const o of opts) {
    const m = /^key-env=([A-Za-z_][A-Za-z0-9_]*)$/.exec(o.trim());
    if (m === null) throw new CorebError('USAGE', `--judge ${kind}: unknown option \`${o}\`; ${usage}`);
    spec.keyEnv = m[1];
  }
  return spec;
}

/** The auth headers of `spec` for `key` (none without a key). */
export function judgeAuthHeaders(spec: JudgeSpec, key: string | undefined): Record<string, string> {
  if (key === undefined || key === '' || spec.kind === 'local') return {};
  if (spec.kind === 'judge0') {
    const host = new URL(spec.url as string).host;
    return host.endsWith('rapidapi.com') ? { 'X-RapidAPI-Key': key, 'X-RapidAPI-Host': host } : { 'X-Auth-Token': key };
  }
  if (spec.kind === 'sandboxfusion') return { Authorization: `Bearer ${key}` };
  return { Authorization: key };
}

/** What {@link createJudge} needs besides the spec. */
export interface CreateJudgeOptions {
  /** Options of the local judge (kind `local`). */
  local?: LocalJudgeOptions;
  /** Options of a remote judge. */
  remote?: RemoteJudgeOptions;
  /** Where API keys are read (the CLI passes its environment). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The fetch remote services use (tests); default the global one. */
  fetch?: typeof fetch;
}

/** Creates the judge `spec` names; service modules are loaded only when used. */
export async function createJudge(spec: JudgeSpec, options: CreateJudgeOptions = {}): Promise<JudgeBackend> {
  if (spec.kind === 'local') {
    const { createLocalJudge } = await import('./local-judge.js');
    return createLocalJudge(options.local);
  }
  const key = spec.keyEnv === undefined ? undefined : options.env?.[spec.keyEnv];
  const http = { headers: judgeAuthHeaders(spec, key), ...(options.fetch !== undefined ? { fetch: options.fetch } : {}) };
  const url = spec.url as string;
  let service: RemoteService;
  if (spec.kind === 'sandboxfusion') service = (await import('./remote/sandboxfusion.js')).createSandboxFusionService(url, http);
  else if (spec.kind === 'judge0') service = (await import('./remote/judge0.js')).createJudge0Service(url, http);
  else service = (await import('./remote/piston.js')).createPistonService(url, http);
  const { createRemoteJudge } = await import('./remote/remote-judge.js');
  return createRemoteJudge(service, options.remote);
}
