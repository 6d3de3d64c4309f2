/**
 * Who may talk to a local HTTP server of coreb's (`serve`, `review`): a pure check of a request's
 * Host, Origin and Authorization headers against where the server listens. A web page the user opens
 * can send requests to 127.0.0.1 (DNS rebinding gives it a name of its own resolving there, a form
 * posts `text/plain` across origins); these checks refuse both, and a bearer token guards a server
 * listening beyond loopback.
 */
import { timingSafeEqual } from 'node:crypto';

/** Host names that mean this machine. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** True when `host` (an address to listen on) is loopback only. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Where a server listens and what it requires. */
export interface RequestGuard {
  /** The address it listens on (`127.0.0.1`, `0.0.0.0`, …). */
  host: string;
  /** The port it listens on. */
  port: number;
  /** A bearer token every request must carry (`Authorization: Bearer TOKEN`); none when undefined. */
  token?: string;
}

/** The headers the guard reads. */
export interface GuardedRequest {
  host?: string;
  origin?: string;
  authorization?: string;
}

/** Why a request is refused: the HTTP status and a message saying what to do. */
export interface Refusal {
  status: 400 | 401 | 403;
  message: string;
}

/**
 * Checks one request, in order: a server on loopback answers only `Host: <loopback name>:<port>`
 * (400 otherwise: DNS rebinding); a request with an `Origin` other than its own host is refused (403:
 * a page of another site); with a token, `Authorization: Bearer <token>` must match (401; compared in
 * constant time). Undefined when the request may proceed.
 */
export function checkRequest(req: GuardedRequest, guard: RequestGuard): Refusal | undefined {
  const hostHeader = req.host ?? '';
  const hostName = hostHeader.replace(/:\d+$/, '');
  if (isLoopbackHost(guard.host) && (!LOOPBACK_HOSTS.has(hostName) || hostHeader !== `${hostName}:${guard.port}`)) {
    return { status: 400, message: `unexpected Host header \`${hostHeader}\`: this server answers only http://127.0.0.1:${guard.port}` };
  }
  if (req.origin !== undefined && req.origin !== `http://${hostHeader}` && req.origin !== `https://${hostHeader}`) {
    return { status: 403, message: `cross-origin request from ${req.origin} refused` };
  }
  if (guard.token !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.authorization ?? '');
    const given = Buffer.from(m?.[1] ?? '');
    const want = Buffer.from(guard.token);
    if (given.length !== want.length || !timingSafeEqual(given, want)) {
      return { status: 401, message: 'missing or wrong bearer token (Authorization: Bearer TOKEN)' };
    }
  }
  return undefined;
}
