/**
 * The one HTTP client every remote embedding provider uses: batching by count and token budget,
 * bounded concurrency over one or several endpoints (round-robin or least-busy), retries with
 * exponential backoff and jitter honouring Retry-After, per-request timeouts, response validation,
 * and errors that name endpoint, status and body excerpt but never a credential.
 */
import { createSlotPool, forEachBounded } from '../../core/bounded-work.js';
import type { EndpointSlots } from '../../core/endpoint-slots.js';
import { sharedFloat32 } from '../../core/embedding.js';
import { CorebError } from '../../core/errors.js';
import type { Logger } from '../../core/progress.js';
import type { Balance } from '../types.js';
import { planBatches, type Batch } from './batching.js';
import { abortReason, backoffMs, isRetryableStatus, parseRetryAfterMs, parseRetryDelayBody, sleep } from '../../core/retry.js';
import { ResponseShapeError, toRows } from './validate.js';

/** Options of {@link createHttpClient}. Defaults are applied by the provider factories. */
export interface HttpClientOptions {
  /** Base URLs without trailing slash; several = replicas of one model. */
  endpoints: readonly string[];
  /** Request headers, including any credential. Never logged or put in an error. */
  headers: Readonly<Record<string, string>>;
  /** Values to scrub from every message (API keys). */
  secrets: readonly string[];
  /** Texts per request. */
  batchSize: number;
  /** Estimated tokens per request. */
  maxBatchTokens: number;
  /** Requests in flight at once over all endpoints. */
  concurrency: number;
  balance: Balance;
  /** Per attempt, covering connect, wait and body download (ms). */
  timeoutMs: number;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff (ms). */
  backoffMs: number;
  /** Cap on one wait, including an honoured Retry-After (ms). */
  maxBackoffMs: number;
  /** Start at most this many requests per minute over all endpoints (hosted API quotas). Default: no limit. */
  requestsPerMinute?: number;
  logger?: Logger;
  /** Jitter source in [0, 1); tests make it deterministic. Default Math.random. */
  random?: () => number;
}

/** How one provider speaks: the request for a batch and where the vectors are in the reply. */
export interface WireFormat {
  /** Path (appended to the endpoint) and JSON body for one batch. */
  request(texts: readonly string[]): { path: string; body: unknown };
  /** The vectors of a parsed reply, in input order (throw ResponseShapeError when malformed). */
  vectors(json: unknown, count: number): unknown[];
}

/** Options of one {@link HttpClient.embed} call. */
export interface HttpEmbedOptions {
  signal?: AbortSignal;
  /** Expected dimension; undefined = learn it from the first batch. */
  dim?: number;
  /** Called per finished batch with input positions `[start, end)` and its rows. */
  onBatch?: (start: number, end: number, data: Float32Array, dim: number) => void;
}

/** Counters since the client was created. */
export interface HttpClientStats {
  requests: number;
  retries: number;
  /** Requests answered per endpoint. */
  perEndpoint: number[];
}

/** Options of one {@link HttpClient.request} call. */
export interface HttpRequestOptions {
  signal?: AbortSignal;
  /** Extra headers for this request only (e.g. tracing headers, a content type); never secrets. */
  headers?: Readonly<Record<string, string>>;
  /**
   * Send `body` (then a string) as it is instead of as JSON, e.g. NDJSON for Elasticsearch's
   * `_msearch`; give its content type in `headers`. Default false.
   */
  rawBody?: boolean;
  /**
   * Turns a non-2xx reply into the message of the error (e.g. a server's own error `type` and
   * `reason`); undefined keeps the default (status and body excerpt). Secrets are scrubbed from it.
   */
  describeError?: (status: number, body: string) => string | undefined;
  /**
   * A bound per endpoint shared with other clients (`coreb build --concurrency`): each attempt
   * holds a slot of the endpoint it goes to (not while backing off), and an endpoint with a free
   * slot is preferred over a full one. Default: none.
   */
  endpointSlots?: EndpointSlots;
  /** Also hold one of this client's own `concurrency` slots. Default true. */
  clientLimit?: boolean;
}

/** A configured client. */
export interface HttpClient {
  embed(texts: readonly string[], wire: WireFormat, options?: HttpEmbedOptions): Promise<{ data: Float32Array; dim: number }>;
  /**
   * One JSON POST of `body` to `path` with the client's retry, backoff, failover and timeout rules;
   * `parse` turns the reply into a value (throw `ResponseShapeError` for a malformed reply: not
   * retried). At most `concurrency` requests are in flight over all `request` calls.
   */
  request<T>(path: string, body: unknown, parse: (json: unknown) => T, options?: HttpRequestOptions): Promise<T>;
  stats(): HttpClientStats;
}

interface Failure {
  retryable: boolean;
  /** What happened, secret-free. */
  message: string;
  retryAfterMs?: number;
  code: 'HTTP' | 'PROVIDER';
  /** HTTP status of the reply, when one came. */
  status?: number;
}

/** Replaces every secret in `s` with `***` and collapses whitespace; at most `max` characters. */
export function redact(s: string, secrets: readonly string[], max = 300): string {
  let out = s;
  for (const k of secrets) if (k.length >= 4) out = out.split(k).join('***');
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > max ? out.slice(0, max) + '…' : out;
}

/** Which endpoint a request goes to: in-flight counts, cool-downs after failures, the rotation. */
interface Balancer {
  /** Requests in flight per endpoint. */
  readonly inflight: number[];
  /** Until when (performance.now ms) an endpoint that just failed is avoided. */
  readonly coolUntil: number[];
  /** The endpoint for the next attempt, other than `avoid` (the one that just failed) when another is usable. */
  pick(avoid: number): number;
}

/**
 * Endpoint choice over `n` endpoints: `round-robin` rotates; `least-busy` takes the one with the
 * fewest requests in flight (ties rotate). Endpoints cooling down after a failure are skipped while
 * another is ready.
 */
function createBalancer(n: number, balance: Balance): Balancer {
  const inflight = new Array<number>(n).fill(0);
  const coolUntil = new Array<number>(n).fill(0);
  let rr = 0;
  return {
    inflight,
    coolUntil,
    pick(avoid) {
      if (n === 1) return 0;
      const now = performance.now();
      const ready = (i: number): boolean => coolUntil[i] <= now;
      const anyReady = coolUntil.some((_, i) => ready(i));
      const usable = (i: number): boolean => !anyReady || ready(i);
      if (balance === 'round-robin') {
        for (let k = 0; k < 2 * n; k++) {
          const i = rr++ % n;
          if (usable(i) && (i !== avoid || k >= n)) return i;
        }
        return rr++ % n;
      }
      const startAt = rr++ % n;
      let best = -1;
      for (let k = 0; k < n; k++) {
        const i = (startAt + k) % n;
        if (!usable(i)) continue;
        if (best < 0 || inflight[i] < inflight[best] || (best === avoid && inflight[i] === inflight[best])) best = i;
      }
      return best;
    },
  };
}

/** Spaces request starts `60000 / requestsPerMinute` ms apart (no wait without a limit). */
function createThrottle(requestsPerMinute: number | undefined): (signal: AbortSignal) => Promise<void> {
  const spacingMs = requestsPerMinute ? 60_000 / requestsPerMinute : 0;
  let nextStart = 0;
  return async (signal) => {
    if (spacingMs === 0) return;
    const now = performance.now();
    const at = Math.max(now, nextStart);
    nextStart = at + spacingMs;
    if (at > now) await sleep(at - now, signal);
  };
}

/**
 * One POST: the parsed value, or a failure saying whether it is worth retrying (timeouts, network
 * errors, retryable statuses, truncated JSON) with the server's Retry-After; secrets are scrubbed
 * from every message.
 */
async function attemptRequest<T>(
  options: HttpClientOptions,
  endpoint: string,
  path: string,
  body: string,
  parse: (json: unknown) => T,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
  describeError?: (status: number, body: string) => string | undefined,
): Promise<{ value: T } | Failure> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const both = AbortSignal.any([signal, timeout]);
  let res: Response;
  let text: string;
  try {
    res = await fetch(endpoint + path, { method: 'POST', headers: { ...headers, ...options.headers }, body, signal: both });
    text = await res.text();
  } catch (e) {
    if (signal.aborted) throw abortReason(signal);
    if (timeout.aborted) {
      return { retryable: true, code: 'HTTP', message: `no complete response within ${options.timeoutMs} ms (timeoutMs)` };
    }
    const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
    // undici quotes an invalid header value (the key) in its message: scrub before use.
    const what = redact(`${e instanceof Error ? e.message : String(e)}${cause}`, options.secrets);
    return { retryable: !(e instanceof TypeError && /header/i.test(what)), code: 'HTTP', message: `request failed: ${what}` };
  }
  if (!res.ok) {
    const hint = res.status === 401 || res.status === 403 ? ' (check the API key named by apiKeyEnv)' : '';
    const described = describeError?.(res.status, text);
    return {
      retryable: isRetryableStatus(res.status),
      code: 'HTTP',
      status: res.status,
      message:
        described !== undefined
          ? `HTTP ${res.status}${hint}: ${redact(described, options.secrets, 600)}`
          : `HTTP ${res.status}${hint}; body: ${JSON.stringify(redact(text, options.secrets))}`,
      retryAfterMs: parseRetryAfterMs(res.headers) ?? parseRetryDelayBody(text),
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (/(^|[^A-Za-z"])(NaN|-?Infinity)([^A-Za-z"]|$)/.test(text)) {
      return { retryable: false, code: 'PROVIDER', message: 'response contains NaN or Infinity values (not finite numbers)' };
    }
    return {
      retryable: true,
      code: 'PROVIDER',
      message: `malformed or truncated JSON (${text.length} bytes, ends ${JSON.stringify(redact(text.slice(-60), options.secrets))})`,
    };
  }
  try {
    return { value: parse(json) };
  } catch (e) {
    if (e instanceof ResponseShapeError) return { retryable: false, code: 'PROVIDER', message: `bad response: ${e.message}` };
    throw e;
  }
}

/** Creates a client; no I/O happens until `embed`. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const n = options.endpoints.length;
  if (n === 0) throw new CorebError('CONFIG', 'no endpoint configured; give baseUrl');
  const stats: HttpClientStats = { requests: 0, retries: 0, perEndpoint: new Array<number>(n).fill(0) };
  const random = options.random ?? Math.random;
  const balancer = createBalancer(n, options.balance);
  const { inflight, coolUntil } = balancer;

  const throttle = createThrottle(options.requestsPerMinute);

  const where = (endpoint: string, path: string): string => redact(`POST ${endpoint}${path}`, options.secrets, 200);

  /** One request with retries: the parsed value and the endpoint that answered. */
  const send = async <T>(
    path: string,
    payload: string,
    parse: (json: unknown) => T,
    headers: Readonly<Record<string, string>>,
    signal: AbortSignal,
    describeError?: (status: number, body: string) => string | undefined,
    slots?: EndpointSlots,
  ): Promise<{ value: T; endpoint: number }> => {
    let last = -1;
    for (let a = 0; ; a++) {
      await throttle(signal);
      let e = balancer.pick(last);
      if (slots !== undefined && n > 1 && slots.free(options.endpoints[e]) <= 0) {
        // Another usable endpoint with a free shared slot beats waiting for this one.
        const now = performance.now();
        const open = options.endpoints
          .map((_, i) => i)
          .filter((i) => slots.free(options.endpoints[i]) > 0 && (coolUntil[i] <= now || i === e))
          .sort((x, y) => inflight[x] - inflight[y]);
        if (open.length > 0) e = open[0];
      }
      last = e;
      if (slots !== undefined) await slots.acquire(options.endpoints[e], signal);
      inflight[e]++;
      stats.requests++;
      let r: { value: T } | Failure;
      try {
        r = await attemptRequest(options, options.endpoints[e], path, payload, parse, headers, signal, describeError);
      } finally {
        inflight[e]--;
        slots?.release(options.endpoints[e]);
      }
      if (!('retryable' in r)) {
        stats.perEndpoint[e]++;
        return { value: r.value, endpoint: e };
      }
      if (!r.retryable || a >= options.maxRetries) {
        const tries = a + 1;
        throw new CorebError(
          r.code,
          `${where(options.endpoints[e], path)}: ${r.message}` +
            (r.retryable ? `; gave up after ${tries} attempt${tries === 1 ? '' : 's'} (maxRetries=${options.maxRetries})` : ''),
          {
            details: {
              endpoint: redact(options.endpoints[e], options.secrets),
              attempts: tries,
              ...(r.status !== undefined ? { status: r.status } : {}),
            },
          },
        );
      }
      const wait =
        r.retryAfterMs !== undefined
          ? Math.min(options.maxBackoffMs, r.retryAfterMs) + random() * Math.min(100, r.retryAfterMs * 0.1)
          : backoffMs(a, options.backoffMs, options.maxBackoffMs, random);
      stats.retries++;
      coolUntil[e] = performance.now() + wait;
      // Another replica ready now: fail over at once; otherwise wait out the backoff.
      const now = performance.now();
      const failover = coolUntil.some((t, i) => i !== e && t <= now);
      options.logger?.debug(
        `${where(options.endpoints[e], path)}: ${r.message}; retry ${a + 1}/${options.maxRetries} ` +
          (failover ? 'on another endpoint now' : `in ${Math.round(wait)} ms`),
      );
      if (!failover) await sleep(wait, signal);
    }
  };

  /** Slots of `request` calls: at most `concurrency` in flight; waiters queue in order. */
  const slots = createSlotPool(options.concurrency);

  return {
    stats: () => ({ ...stats, perEndpoint: [...stats.perEndpoint] }),
    async request(path, body, parse, requestOptions = {}) {
      const signal = requestOptions.signal ?? new AbortController().signal;
      if (signal.aborted) throw abortReason(signal);
      const call = async () => {
        const payload = requestOptions.rawBody === true ? String(body) : JSON.stringify(body);
        return (await send(path, payload, parse, requestOptions.headers ?? {}, signal, requestOptions.describeError, requestOptions.endpointSlots))
          .value;
      };
      return requestOptions.clientLimit === false ? await call() : await slots.run(call);
    },
    async embed(texts, wire, embedOptions = {}) {
      const outer = embedOptions.signal;
      if (outer?.aborted) throw abortReason(outer);
      const batches = planBatches(texts, options.batchSize, options.maxBatchTokens);
      const parts: ({ data: Float32Array; dim: number } | undefined)[] = new Array(batches.length);
      let dim = embedOptions.dim;
      const stop = new AbortController();
      const signal = outer ? AbortSignal.any([outer, stop.signal]) : stop.signal;
      let failure: unknown;

      const runBatch = async (b: Batch, bi: number): Promise<void> => {
        const { path, body } = wire.request(texts.slice(b.start, b.end));
        const count = b.end - b.start;
        const { value: r, endpoint: e } = await send(path, JSON.stringify(body), (json) => toRows(wire.vectors(json, count), count, dim), {}, signal);
        if (dim === undefined) dim = r.dim;
        else if (r.dim !== dim) {
          throw new CorebError(
            'PROVIDER',
            `${where(options.endpoints[e], path)}: bad response: vectors have ${r.dim} values, earlier batches had ${dim}`,
          );
        }
        parts[bi] = r;
        embedOptions.onBatch?.(b.start, b.end, r.data, r.dim);
      };

      try {
        await forEachBounded(batches, options.concurrency, async (b, bi) => {
          try {
            await runBatch(b, bi);
          } catch (e) {
            stop.abort(e); // the batches in flight stop too
            throw e;
          }
        });
      } catch (e) {
        failure = e;
      }
      if (outer?.aborted) throw abortReason(outer);
      if (failure !== undefined) throw failure;
      const d = dim ?? 0;
      const data = sharedFloat32(texts.length * d);
      batches.forEach((b, i) => data.set((parts[i] as { data: Float32Array }).data, b.start * d));
      return { data, dim: d };
    },
  };
}
