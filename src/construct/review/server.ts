/**
 * The `coreb review` web server: one self-contained page and a two-route JSON API over a build's
 * work folder, bound to loopback by default. Reads need the session token, every decision goes
 * through `POST /api/decisions` with the token in `X-Coreb-Token`, and no file is ever served from
 * a path (the page is generated in memory), so nothing outside the build can be reached.
 */
import { checkRequest } from '../../core/request-guard.js';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CorebError, isCorebError } from '../../core/errors.js';
import {
  appendReviewDecision,
  createReviewState,
  loadReviewDecisions,
  REVIEW_FILE,
  summarizeReview,
  validateReviewDecision,
  type ReviewRecord,
  type ReviewState,
} from './decisions.js';
import { createReviewItems, currentText, type BuildWork, type ReviewItem } from './items.js';
import { renderReviewPage } from './page.js';

/** Largest accepted request body, in bytes (default 1 MiB; an edit is at most 100,000 characters). */
const MAX_BODY_BYTES = 1 << 20;

/** Options of {@link createReviewServer}. */
export interface ReviewServerOptions {
  /** The build's work rows (see `loadBuildWork`). */
  work: BuildWork;
  /** Recorded as `who` in every decision (the CLI passes `--reviewer` or `$USER`). */
  reviewer: string;
  /** The session token; default 32 random bytes, hex. */
  token?: string;
  /** Clock (tests). */
  now?: () => Date;
}

/** A started review server. */
export interface ReviewServer {
  /** `http://HOST:PORT/?token=TOKEN`, the URL to open. */
  url: string;
  port: number;
  token: string;
  /** Stops accepting connections, ends open ones and resolves when closed. */
  close(): Promise<void>;
}

/** Counts shown by the page: problems per status and decisions so far. */
function counts(state: ReviewState, work: BuildWork): ReturnType<typeof summarizeReview> & { problems: number } {
  return { problems: work.ids.length, ...summarizeReview(state, work.ids) };
}

/**
 * Starts the server on `host:port` (port 0: any free port).
 * @throws CorebError `IO` when the address cannot be bound (in use, not local)
 */
export async function startReviewServer(o: ReviewServerOptions, port = 0, host = '127.0.0.1'): Promise<ReviewServer> {
  const token = o.token ?? randomBytes(32).toString('hex');
  const tokenBuf = Buffer.from(token);
  const file = join(o.work.dir, REVIEW_FILE);
  const now = o.now ?? (() => new Date());
  let state = createReviewState(loadReviewDecisions(file));
  /** Appends run one after another, so each `before` is the text the previous decision left. */
  let queue: Promise<unknown> = Promise.resolve();
  let boundPort = port;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': typeof body === 'string' ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(text)),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Content-Security-Policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      ...headers,
    });
    res.end(text);
  };
  const fail = (res: ServerResponse, status: number, error: string): void => send(res, status, { error });
  const authorised = (req: IncomingMessage): boolean => {
    const got = req.headers['x-coreb-token'];
    if (typeof got !== 'string') return false;
    const b = Buffer.from(got);
    return b.length === tokenBuf.length && timingSafeEqual(b, tokenBuf);
  };
  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY_BYTES) {
          reject(new CorebError('VALIDATION', `the body is over ${MAX_BODY_BYTES} bytes`));
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const decide = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const type = String(req.headers['content-type'] ?? '');
    if (!/^application\/json\b/i.test(type)) return fail(res, 415, 'send the decision as Content-Type: application/json');
    let raw: string;
    try {
      raw = await readBody(req);
    } catch (e) {
      return fail(res, 413, (e as Error).message);
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (e) {
      return fail(res, 400, `the body is not JSON (${(e as Error).message}); expected {"item", "decision", "text"?}`);
    }
    let d: ReturnType<typeof validateReviewDecision>;
    try {
      d = validateReviewDecision(body);
    } catch (e) {
      return fail(res, 400, (e as Error).message);
    }
    if (!o.work.originals.has(d.ref.problem)) return fail(res, 404, `no problem \`${d.ref.problem}\` in this build`);
    const work = async (): Promise<void> => {
      const before = currentText(o.work, state, d.ref);
      if (before === undefined && (d.ref.part !== 'statement' || d.decision === 'edit')) {
        return fail(res, 404, `item \`${d.item}\` does not exist in this build (stage not run, failed, or no such query/strategy)`);
      }
      const record: ReviewRecord = { item: d.item, decision: d.decision, who: o.reviewer, when: now().toISOString() };
      if (d.decision === 'edit') {
        record.before = before;
        record.after = d.text;
      }
      await appendReviewDecision(file, record);
      state = createReviewState([...loadReviewDecisions(file)]);
      const item = createReviewItems(o.work, state).find((x) => x.id === d.ref.problem) as ReviewItem;
      send(res, 200, { ok: true, record, item, counts: counts(state, o.work) });
    };
    const run = queue.then(work);
    queue = run.catch(() => undefined);
    try {
      await run;
    } catch (e) {
      fail(res, isCorebError(e, 'IO') ? 507 : 500, (e as Error).message);
    }
  };

  const server: Server = createServer((req, res) => {
    const raw = req.url ?? '/';
    let path: string;
    try {
      const decoded = decodeURIComponent(raw.split('?')[0]);
      if (decoded.includes('..') || decoded.includes('\\') || decoded.includes('\0') || !decoded.startsWith('/')) {
        return fail(res, 400, 'bad path: the review server serves only / and /api/*, never files');
      }
      path = new URL(raw, 'http://localhost').pathname;
    } catch {
      return fail(res, 400, 'bad path');
    }
    // DNS rebinding (a page on another site resolving its name to 127.0.0.1) and cross-origin requests
    const refused = checkRequest({ host: req.headers.host, origin: req.headers.origin }, { host, port: boundPort });
    if (refused !== undefined) {
      return fail(
        res,
        refused.status,
        refused.status === 400 ? `${refused.message}; open the URL coreb review printed` : 'cross-origin request refused',
      );
    }
    if (path === '/' || path === '/index.html') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return fail(res, 405, 'GET only');
      const nonce = randomBytes(16).toString('base64');
      return send(res, 200, renderReviewPage(nonce), {
        'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      });
    }
    if (path === '/favicon.ico') {
      res.writeHead(204, { 'Cache-Control': 'max-age=86400' });
      return res.end();
    }
    if (path === '/api/items') {
      if (req.method !== 'GET') return fail(res, 405, 'GET only');
      if (!authorised(req)) return fail(res, 403, 'missing or wrong X-Coreb-Token (the token is in the URL coreb review printed)');
      return send(res, 200, { build: o.work.dir, reviewer: o.reviewer, items: createReviewItems(o.work, state), counts: counts(state, o.work) });
    }
    if (path === '/api/decisions') {
      if (req.method !== 'POST') return fail(res, 405, 'POST only');
      if (!authorised(req)) return fail(res, 403, 'missing or wrong X-Coreb-Token (the token is in the URL coreb review printed)');
      decide(req, res).catch((e: unknown) => fail(res, 500, (e as Error).message));
      return;
    }
    return fail(res, 404, 'not found: the review server serves only /, /api/items and /api/decisions');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new CorebError(
          'IO',
          `cannot listen on ${host}:${port} (${e.code ?? e.message}${e.code === 'EADDRINUSE' ? ': the port is in use; try --port 0' : ''})`,
          { cause: e },
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  boundPort = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${boundPort}/?token=${token}`,
    port: boundPort,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
