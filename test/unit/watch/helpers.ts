/**
 * A scripted API server on loopback for watcher tests: each request is answered by the next handler
 * in a queue (plain node:http, chunked bodies written as the test says), and recorded. A clock whose
 * sleeps return at once and move its time forward, recording each wait.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import { tokenProvider } from '../../../src/kubeconfig/credentials.js';
import { createTransport } from '../../../src/transport/http.js';
import { DynamicClient } from '../../../src/dynamic/client.js';
import type { Unstructured } from '../../../src/core/unstructured.js';

export type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

export interface ScriptedServer {
  url: string;
  /** Request URLs (path and query) in order. */
  requests: URL[];
  /** Queues handlers for the next requests. */
  answer(...h: Handler[]): void;
  /** An outage: open connections are cut and the port refuses connections until `up()`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  stop(): Promise<void>;
}

export async function startScripted(): Promise<ScriptedServer> {
  const queue: Handler[] = [];
  const requests: URL[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url);
    const h = queue.shift();
    if (!h) {
      // A request the test did not script: a 400 ends the watch with this message. (A 500 was
      // retried, and with the virtual clock's instant sleeps a test out of step spun for ever.)
      status(400, 'BadRequest', `scripted server: no answer queued for ${url.pathname}${url.search}`)(req, res, url);
      return;
    }
    void Promise.resolve(h(req, res, url)).catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer: (...h) => queue.push(...h),
    down: close,
    // Rejects when another process took the port meanwhile (EADDRINUSE).
    up: () =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      }),
    stop: () => (server.listening ? close() : Promise.resolve()),
  };
}

/**
 * Sleeps up to `longMs` return at once (moving the time forward and recorded); longer ones (the
 * watcher's dead-stream guard) wait for their abort, or for the test to call `fireLong()`: never
 * on real time (a guard that fired after 30 real ms dropped streams before their events arrived
 * on a loaded machine, and the test then spun for ever).
 */
export function virtualClock(opts: { longMs?: number } = {}): Clock & { sleeps: number[]; fireLong(): number } {
  let t = Date.UTC(2026, 0, 1);
  const sleeps: number[] = [];
  const longMs = opts.longMs ?? 60_000;
  const pendingLong = new Set<() => void>();
  return {
    sleeps,
    /** Ends every long sleep pending now; returns how many. */
    fireLong: () => {
      const fired = [...pendingLong];
      pendingLong.clear();
      for (const f of fired) f();
      return fired.length;
    },
    now: () => t,
    sleep: (ms, signal) => {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (ms > longMs) {
        return new Promise<void>((resolve, reject) => {
          const fire = () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          };
          const onAbort = () => {
            pendingLong.delete(fire);
            reject(signal!.reason);
          };
          pendingLong.add(fire);
          signal?.addEventListener('abort', onAbort, { once: true });
        });
      }
      sleeps.push(ms);
      t += ms;
      return new Promise((r) => setImmediate(r));
    },
  };
}

/** A client of the scripted server on `clock`; the transport's own retries off unless `maxRetries` says otherwise. */
export function clientFor(url: string, clock: Clock, maxRetries = 0): DynamicClient {
  const transport = createTransport(
    {
      server: url,
      tls: { insecure: false },
      credentials: tokenProvider('t0ken'),
      namespace: 'default',
      namespaceExplicit: false,
      source: 'flags',
      files: [],
    },
    { logger: silentLogger, clock, env: {}, timeoutMs: 0, retry: { maxRetries }, random: () => 0 },
  );
  return new DynamicClient(transport);
}

export function cm(name: string, rv: number, data: Record<string, string> = {}, uid = `uid-${name}`): Unstructured {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', uid, resourceVersion: String(rv) }, data };
}

/** A list page answer. */
export function listPage(items: Unstructured[], rv: number, cont = ''): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: String(rv), continue: cont || undefined }, items }));
  };
}

/** A watch answer: these events (objects or raw lines), then the end of the stream (unless `hold`). */
export function stream(events: Array<{ type: string; object: unknown } | string>, opts: { hold?: boolean; chunk?: number } = {}): Handler {
  return async (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const body = events.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)) + '\n').join('');
    const step = opts.chunk ?? body.length;
    for (let i = 0; i < body.length; i += step) {
      res.write(body.slice(i, i + step));
      await new Promise((r) => setImmediate(r));
    }
    if (!opts.hold) res.end();
  };
}

export function status(code: number, reason: string, message: string, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
  };
}

export function expired(rv: string): { type: string; object: unknown } {
  return { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${rv} (99)`, reason: 'Expired', code: 410 } };
}

export function bookmark(rv: number): { type: string; object: unknown } {
  return { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: String(rv) } } };
}
