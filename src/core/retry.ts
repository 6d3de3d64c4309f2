/**
 * Retry policy of the shared HTTP client: which failures are worth another attempt, how long to
 * wait (exponential backoff with jitter, or the server's `Retry-After`), and an abortable sleep.
 */
import { CorebError } from './errors.js';

/** HTTP statuses that are retried: request timeout, conflict, too early, rate limit, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

/**
 * Parses the server's requested wait in milliseconds from `retry-after-ms` (OpenAI) or
 * `Retry-After` (RFC 9110: delta-seconds, fractional accepted, or an HTTP-date). Undefined when
 * absent or unparseable.
 */
export function parseRetryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const ra = headers.get('retry-after');
  if (ra === null || ra.trim() === '') return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return secs >= 0 ? secs * 1000 : undefined;
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/**
 * The wait a Google API error body asks for: `error.details[].retryDelay` of a
 * `google.rpc.RetryInfo` detail (`"30s"`, `"1.5s"`), in milliseconds. Undefined when absent.
 */
export function parseRetryDelayBody(body: string): number | undefined {
  if (!body.includes('retryDelay')) return undefined;
  try {
    const details = (JSON.parse(body) as { error?: { details?: Array<{ retryDelay?: unknown }> } }).error?.details;
    const delay = Array.isArray(details) ? details.find((d) => typeof d?.retryDelay === 'string')?.retryDelay : undefined;
    const m = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay.trim()) : null;
    return m ? Number(m[1]) * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Backoff before retry number `attempt` (0-based): "equal jitter" over `baseMs * 2^attempt`
 * capped at `maxMs`, i.e. uniformly in [d/2, d]. Spreads synchronized clients apart while keeping
 * a floor that grows (AWS Architecture Blog, "Exponential Backoff and Jitter", 2015).
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const d = Math.min(maxMs, baseMs * 2 ** attempt);
  return d / 2 + random() * (d / 2);
}

/** Resolves after `ms` milliseconds, or rejects with the signal's reason when aborted first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The abort reason as a CorebError (INTERRUPTED unless the reason already is one). */
export function abortReason(signal: AbortSignal): CorebError {
  const r: unknown = signal.reason;
  if (r instanceof CorebError) return r;
  return new CorebError('INTERRUPTED', 'embedding interrupted; rerun to resume (finished batches are cached)', { cause: r });
}
