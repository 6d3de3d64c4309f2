/**
 * A loopback server speaking the Hugging Face Hub's dataset API shape for `coreb download` tests:
 * `GET /api/datasets/<id>/tree/<rev>?recursive=true` (a JSON array of {type, oid, size, path, lfs},
 * paged with `Link: <...>; rel="next"`), `GET /datasets/<id>/resolve/<rev>/<path>` answering 302 to
 * a CDN path that serves the bytes; optional token, 503s and corrupted bytes.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, relative } from 'node:path';

/** Options of {@link startHubServer}. */
export interface HubServerOptions {
  /** The dataset id served, e.g. `hq-bench/coreb`. */
  dataset: string;
  /** Local directory whose files are the repository. */
  root: string;
  /** Files per listing page; default 3. */
  pageSize?: number;
  /** Required Bearer token (401 without). */
  token?: string;
  /** The first N requests get 503 with `Retry-After: 0`. */
  failFirst?: number;
  /** Repository paths served with flipped bytes (same size). */
  corrupt?: string[];
  /** Repository paths served endlessly past their listed size (a broken mirror), in 64 KiB chunks, until the client hangs up. */
  endless?: string[];
  /** Repository paths whose transfer stops after the first half and then stays open without sending. */
  stall?: string[];
}

/** A running Hub stand-in. */
export interface HubServer {
  endpoint: string;
  /** Request paths in order. */
  requests: string[];
  close(): Promise<void>;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

/** Starts the server on 127.0.0.1 (a free port). */
export async function startHubServer(o: HubServerOptions): Promise<HubServer> {
  const files = walk(o.root)
    .sort()
    .map((p) => {
      const bytes = readFileSync(p);
      const sha = createHash('sha256').update(bytes).digest('hex');
      return { path: relative(o.root, p).split('\\').join('/'), bytes, sha };
    });
  const requests: string[] = [];
  let failures = o.failFirst ?? 0;
  const pageSize = o.pageSize ?? 3;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.pathname + url.search);
    if (failures > 0) {
      failures--;
      res.writeHead(503, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"error":"overloaded"}');
      return;
    }
    if (o.token !== undefined && req.headers.authorization !== `Bearer ${o.token}` && !url.pathname.startsWith('/cdn/')) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Access to dataset is restricted. You must be authenticated."}');
      return;
    }
    const tree = `/api/datasets/${o.dataset}/tree/main`;
    if (url.pathname === tree) {
      const cursor = Number(url.searchParams.get('cursor') ?? '0');
      const page = files.slice(cursor, cursor + pageSize).map((f) => ({
        type: 'file',
        oid: f.sha.slice(0, 40),
        size: f.bytes.length,
        path: f.path,
        lfs: { oid: f.sha, size: f.bytes.length, pointerSize: 134 },
      }));
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (cursor + pageSize < files.length) headers.link = `<${tree}?recursive=true&expand=false&cursor=${cursor + pageSize}>; rel="next"`;
      res.writeHead(200, headers).end(JSON.stringify(page));
      return;
    }
    const resolvePrefix = `/datasets/${o.dataset}/resolve/main/`;
    if (url.pathname.startsWith(resolvePrefix)) {
      const path = decodeURIComponent(url.pathname.slice(resolvePrefix.length));
      const f = files.find((x) => x.path === path);
      if (f === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Entry not found"}');
        return;
      }
      // Content-addressed like the Hub's CDN; the query names the file (corruption is per file).
      res.writeHead(302, { location: `/cdn/${f.sha}?file=${encodeURIComponent(f.path)}` }).end();
      return;
    }
    if (url.pathname.startsWith('/cdn/')) {
      const f = files.find((x) => x.sha === url.pathname.slice(5));
      if (f === undefined) {
        res.writeHead(404).end();
        return;
      }
      const name = url.searchParams.get('file') ?? '';
      if (o.endless?.includes(name)) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(65536, 7);
        let sent = 0;
        // Bounded all the same (4 GiB): the client is expected to stop long before.
        const more = (): void => {
          while (!res.destroyed && sent < 2 ** 32 && res.write(chunk)) sent += chunk.length;
          if (!res.destroyed && sent < 2 ** 32) res.once('drain', more);
        };
        more();
        return;
      }
      if (o.stall?.includes(name)) {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(f.bytes.length) });
        res.write(f.bytes.subarray(0, f.bytes.length >> 1));
        const hang = setTimeout(() => res.destroy(), 30_000);
        res.on('close', () => clearTimeout(hang));
        return;
      }
      const body = o.corrupt?.includes(name) ? Buffer.from(f.bytes.map((b) => b ^ 0xff)) : f.bytes;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) }).end(body);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(`{"error":"Repository not found"}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { endpoint: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(() => r())) };
}
