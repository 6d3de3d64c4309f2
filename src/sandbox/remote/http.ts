/**
 * The JSON-over-HTTP call the remote judge services share: a per-attempt timeout, retries with
 * exponential backoff (or the server's `Retry-After`) on network failures, 408/409/425/429 and 5xx,
 * and errors that name the service, the endpoint and what it said — never a credential.
 */
import { CorebError } from '../../core/errors.js';
import { abortReason, backoffMs, isRetryableStatus, parseRetryAfterMs, sleep } from '../../core/retry.js';

/** Transport options shared by the services. */
export interface ServiceHttpOptions {
  /** Extra request headers (authentication); their values are never logged or recorded. */
  headers?: Record<string, string>;
  /** Attempts after the first; default 4. */
  retries?: number;
  /** First backoff, milliseconds; default 500 (doubling, at most 15 s). */
  backoffBaseMs?: number;
  /** Timeout of one attempt, milliseconds; default 120000. */
  timeoutMs?: number;
  /** The fetch to use (tests); default the global one. */
  fetch?: typeof fetch;
}

/** A response: HTTP status and the parsed JSON body (undefined when not JSON). */
export interface JsonResponse {
  status: number;
  body: unknown;
  text: string;
}

/**
 * Sends one request and retries transient failures. Resolves with any final response whose status is
 * not retryable (the caller maps 4xx bodies); rejects with CorebError `HTTP` after the last retry.
 */
export async function requestJson(
  service: string,
  url: string,
  init: { method: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal },
  options: ServiceHttpOptions = {},
): Promise<JsonResponse> {
  const retries = options.retries ?? 4;
  const base = options.backoffBaseMs ?? 500;
  const doFetch = options.fetch ?? fetch;
  const endpoint = new URL(url);
  const where = `${service} ${init.method} ${endpoint.pathname}`;
  let last = '';
  for (let attempt = 0; ; attempt++) {
    if (init.signal?.aborted) throw abortReason(init.signal);
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 120000);
    const signal = init.signal === undefined ? timeout : AbortSignal.any([init.signal, timeout]);
    let wait: number | undefined;
    try {
      const res = await doFetch(url, {
        method: init.method,
        headers: { accept: 'application/json', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal,
      });
      const text = await res.text();
      if (!isRetryableStatus(res.status)) {
        let body: unknown;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          body = undefined;
        }
        return { status: res.status, body, text };
      }
      last = `HTTP ${res.status}: ${text.slice(0, 200)}`;
      wait = parseRetryAfterMs(res.headers);
    } catch (e) {
      if (init.signal?.aborted) throw abortReason(init.signal);
      last = timeout.aborted
        ? `no answer within ${options.timeoutMs ?? 120000} ms`
        : `${(e as Error).message}${(e as { cause?: Error }).cause ? ` (${(e as { cause: Error }).cause.message})` : ''}`;
    }
    if (attempt >= retries) {
      throw new CorebError('HTTP', `${where} failed after ${attempt + 1} attempt(s): ${last}; is the service at ${endpoint.origin} up?`);
    }
    await sleep(Math.min(60000, wait ?? backoffMs(attempt, base, 15000)), init.signal);
  }
}

/** The message of a non-2xx JSON error body (`message`, `error`, `detail`), or the text. */
export function errorMessage(r: JsonResponse): string {
  const b = r.body as Record<string, unknown> | undefined;
  const m = b?.message ?? b?.error ?? b?.detail;
  if (typeof m === 'string') return m;
  if (m !== undefined) return JSON.stringify(m).slice(0, 300);
  return r.text.slice(0, 300);
}
