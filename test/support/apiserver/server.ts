/**
 * The local Kubernetes-compatible API server: http/https listener, fault injection, bearer-token
 * authentication and authorization, the request log, and routing to discovery (the Catalog) or to
 * the object handlers.
 */
import http from 'node:http';
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import type { Catalog, Obj, RawResponse } from './types.js';
import { Faults } from './faults.js';
import { Store } from './storage.js';
import { generateServingCerts } from './tls.js';
import { buildKubeconfig } from './kubeconfig.js';
import { parseRequestInfo, forbiddenMessage } from './requestinfo.js';
import { ApiError, json, pageNotFound, qualified, statusResponse } from './status.js';
import { handleResourceRequest, type Backend } from './objects.js';
import { CrdController } from './crd-controller.js';
import { seedServer } from './seed.js';
import { createCatalog } from './catalog.js';
import { Watches, type StreamResponse } from './watch.js';
import { hostileDiscovery, markStale, withoutGroups } from './discovery-faults.js';

export interface ServerOptions {
  /** 0 (default) = any free port. */
  port?: number;
  tls?: boolean;
  seed?: 'empty' | 'demo';
  extraGroups?: number;
  configmaps?: number;
  /** Namespace for `configmaps` (default `bench`). */
  namespace?: string;
  discovery?: 'aggregated' | 'legacy';
  /** Delay before a new CRD is established (default 0: at once, right after the create). */
  crdEstablishDelayMs?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Interval of BOOKMARK events on watches with allowWatchBookmarks (default 60000). */
  watchBookmarkIntervalMs?: number;
  /**
   * Entries kept in requestLog (default 10000; the older half is dropped when full), so a
   * long-lived server (the benchmarks' kubectl runs make thousands of discovery requests) does not
   * grow its heap, and with it the cost of every later request, without bound.
   */
  requestLogLimit?: number;
  /** Events kept per resource type for watches from a resourceVersion (default 10000). */
  watchHistory?: number;
  /** Time source for timestamps, ages and the CRD establish delay (default: the system clock). */
  clock?: Clock;
  /** What is served (default: catalog.ts's createCatalog; mini-catalog.ts has a small alternative). */
  catalog?: Catalog;
  /** Recorded OpenAPI v3 documents for the default catalog (CatalogOptions.openapiDocuments; openapi-fixtures.ts). */
  openapiDocuments?: ReadonlyMap<string, Obj>;
  /** Fixed tokens (default: random). */
  token?: string;
  readOnlyToken?: string;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  query: string;
  accept: string;
  status: number;
  userAgent: string;
  time: number;
  /** The client's port: requests with the same one came on the same connection. */
  remotePort?: number;
  /** A DELETE's body (its DeleteOptions: propagation policy, grace period), as sent. */
  body?: string;
}

export interface KubeconfigFileOptions {
  token?: string;
  namespace?: string;
  contextName?: string;
}

export interface LocalApiServer {
  /** `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** The CA certificate (PEM), with tls. */
  caPem?: string;
  /** Full access (user `admin`). */
  token: string;
  /** Read-only (user `viewer`): get/list/watch only, 403 on writes. */
  readOnlyToken: string;
  requestLog: RequestLogEntry[];
  clearLog(): void;
  kubeconfig(opts?: KubeconfigFileOptions): string;
  writeKubeconfig(file: string, opts?: KubeconfigFileOptions): void;
  store: Store;
  catalog: Catalog;
  faults: Faults;
  /** Open watch streams; `bookmarkIntervalMs` is settable. */
  watches: Watches;
  clock: Clock;
  /** As faults.restart(): open watches end, objects stay, watch history is gone. */
  restart(): void;
  /**
   * An outage (a killed API server): every connection is cut and the port refuses new ones until
   * `listenAgain()`. Objects and watch history stay.
   */
  stopListening(): Promise<void>;
  /** Ends an outage: listens on the same port again (rejects if another process took it). */
  listenAgain(): Promise<void>;
  stop(): Promise<void>;
}

/** The /version body: recording 01, except a release gitVersion (kubectl's version-skew check parses it). */
export const VERSION_INFO = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0',
  gitCommit: '60dcd7540d7cebe42b37a84d09e56b7bf9a19897',
  gitTreeState: '',
  buildDate: '1970-01-01T00:00:00Z',
  goVersion: 'go1.23.5',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const READ_VERBS = new Set(['get', 'list', 'watch']);

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** A body larger than this is written a piece at a time (writeInPieces). */
const BIG_BODY = 4 << 20;

/**
 * Writes a big body (the hostile discovery's "huge" documents, 71 and 151 MiB) one MiB at a time,
 * each once the socket took the last: handed over at once, TLS encrypts all of it in one go, which
 * stops the event loop, and with it every server of the test process, for seconds on a loaded machine.
 */
async function writeInPieces(res: http.ServerResponse, body: Buffer): Promise<void> {
  const piece = 1 << 20;
  for (let at = 0; at < body.length; at += piece) {
    if (res.destroyed) return;
    if (res.write(body.subarray(at, at + piece))) continue;
    await new Promise<void>((resolve) => {
      const go = () => {
        res.off('drain', go);
        res.off('close', go);
        resolve();
      };
      res.on('drain', go);
      res.on('close', go);
    });
  }
  res.end();
}

/** Writes `body` a few bytes at a time, pausing on the server's clock (the drip fault). */
async function drip(res: http.ServerResponse, body: Buffer, o: { bytes: number; intervalMs: number }, clock: Clock): Promise<void> {
  for (let i = 0; i < body.length; i += o.bytes) {
    if (res.destroyed) return;
    res.write(body.subarray(i, i + o.bytes));
    if (i + o.bytes < body.length) await clock.sleep(o.intervalMs);
  }
  res.end();
}

export async function startServer(options: ServerOptions = {}): Promise<LocalApiServer> {
  const clock = options.clock ?? systemClock;
  const catalog = options.catalog ?? createCatalog({ discovery: options.discovery ?? 'aggregated', openapiDocuments: options.openapiDocuments });
  const store = new Store({ historyLimit: options.watchHistory });
  const watches = new Watches();
  if (options.watchBookmarkIntervalMs !== undefined) watches.bookmarkIntervalMs = options.watchBookmarkIntervalMs;
  const restart = (): void => {
    store.compact();
    watches.closeAll();
  };
  const faults = new Faults(restart);
  const requestLog: RequestLogEntry[] = [];
  const requestLogLimit = Math.max(2, options.requestLogLimit ?? 10_000);
  const token = options.token ?? randomBytes(24).toString('hex');
  const readOnlyToken = options.readOnlyToken ?? randomBytes(24).toString('hex');
  const users = new Map([
    [token, { name: 'admin', readOnly: false }],
    [readOnlyToken, { name: 'viewer', readOnly: true }],
  ]);
  const crds = new CrdController({ store, catalog, clock, establishDelayMs: options.crdEstablishDelayMs ?? 0, watches });
  let ipCounter = 1;
  const nextClusterIP = (): string => {
    const n = ipCounter++;
    return `10.96.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
  };
  const backend: Backend = { store, catalog, clock, crds, nextClusterIP, jsonCache: new WeakMap(), eventJsonCache: new WeakMap(), watches, faults };
  seedServer(backend, options);

  const sockets = new Set<Socket>();

  async function respond(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local');
    const path = url.pathname;
    const query = url.search.slice(1);
    const method = req.method ?? 'GET';
    const entry: RequestLogEntry = {
      method,
      path,
      query,
      accept: String(req.headers.accept ?? ''),
      status: 0,
      userAgent: String(req.headers['user-agent'] ?? ''),
      time: clock.now(),
      remotePort: req.socket.remotePort,
    };
    if (requestLog.length >= requestLogLimit) requestLog.splice(0, requestLog.length - Math.floor(requestLogLimit / 2));
    requestLog.push(entry);
    const fault = faults.take(method, path, query);
    const send = (r: RawResponse | StreamResponse): void => {
      if (fault?.dropResponse) {
        // Handled (committed), then the connection closes before the response: EOF for the client.
        entry.status = -1;
        req.socket.destroy();
        return;
      }
      entry.status = r.status;
      if ('stream' in r) {
        res.writeHead(r.status, r.headers); // no content-length: chunked
        res.flushHeaders();
        r.stream({
          write: (text) => void res.write(text),
          end: () => res.end(),
          onClose: (cb) => res.once('close', cb),
        });
        return;
      }
      const body = typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
      res.writeHead(r.status, { ...r.headers, 'content-length': String(body.length) });
      if (method === 'HEAD') res.end();
      else if (fault?.resetAfterBytes !== undefined) {
        // Reset mid-body: part of the announced body, then the connection is gone.
        res.write(body.subarray(0, Math.min(fault.resetAfterBytes, Math.max(0, body.length - 1))), () => req.socket.destroy());
      } else if (fault?.drip) void drip(res, body, fault.drip, clock);
      else if (body.length > BIG_BODY) void writeInPieces(res, body);
      else res.end(body);
    };

    if (fault) {
      if (fault.delayMs) await clock.sleep(fault.delayMs); // the injected clock: a FakeClock test advances it
      if (fault.reset) {
        entry.status = -1;
        req.socket.destroy();
        return;
      }
      if (fault.redirect) {
        const location = `${fault.redirect.replace(/\/+$/, '')}${path}${query ? `?${query}` : ''}`;
        send({ status: fault.status ?? 302, headers: { location, 'content-type': 'text/html; charset=utf-8' }, body: `<a href="${location}">Found</a>.\n` });
        return;
      }
      const passThrough = !!fault.delayMs || !!fault.drip || fault.resetAfterBytes !== undefined || !!fault.dropResponse;
      if (fault.status !== undefined || !passThrough) {
        const status = fault.status ?? 500;
        send({
          status,
          headers: { 'content-type': 'application/json', 'cache-control': 'no-cache, private', ...fault.headers },
          body: fault.body ?? JSON.stringify(new ApiError(status, `injected fault (${status})`).toStatus()),
        });
        return;
      }
    }

    const body = await readBody(req);
    if (method === 'DELETE' && body.length > 0) entry.body = body.toString('utf8');
    const auth = String(req.headers.authorization ?? '');
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    const user = m ? users.get(m[1]!) : undefined;
    if (!user) {
      send(json(401, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }));
      return;
    }
    const info = parseRequestInfo(method, path, url.searchParams);
    if (user.readOnly && !READ_VERBS.has(info.verb) && info.verb !== 'head') {
      const msg = forbiddenMessage(user.name, info);
      const q = qualified(info.group, info.resource);
      send(statusResponse(new ApiError(403, info.name ? `${q} "${info.name}" is forbidden: ${msg}` : `${q} is forbidden: ${msg}`, 'Forbidden', {
        name: info.name,
        group: info.group,
        kind: info.resource,
      })));
      return;
    }
    if (path === '/version' || path === '/version/') {
      send(method === 'GET' || method === 'HEAD' ? json(200, VERSION_INFO) : pageNotFound());
      return;
    }
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      send({ status: 200, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }, body: 'ok' });
      return;
    }
    const downGv = faults.unavailableGroupVersion(path);
    if (downGv) {
      send(statusResponse(new ApiError(503, 'the server is currently unable to handle the request', 'ServiceUnavailable')));
      return;
    }
    if (!info.isResourceRequest) {
      let d = catalog.serveDiscovery(method, path, req.headers);
      if (d && (path === '/apis' || path === '/api')) {
        if (faults.groupVersions.size) d = markStale(d, [...faults.groupVersions.keys()]);
        if (faults.discovery) d = hostileDiscovery(d, faults.discovery);
        if (path === '/apis' && faults.lateGroups.size) d = withoutGroups(d, faults.takeLateGroups());
      }
      send(d ?? pageNotFound());
      return;
    }
    try {
      send(handleResourceRequest(backend, { info, method, query: url.searchParams, headers: req.headers, body, user: user.name }));
    } catch (e) {
      if (e instanceof ApiError) send(statusResponse(e));
      else send(statusResponse(new ApiError(500, `Internal error occurred: ${(e as Error).message}`, 'InternalError')));
    }
  }

  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    respond(req, res).catch((e) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(e));
      } else res.destroy();
    });
  };

  let caPem: string | undefined;
  let server: http.Server;
  const host = options.host ?? '127.0.0.1';
  if (options.tls) {
    const certs = await generateServingCerts(['127.0.0.1', 'localhost', ...(host !== '127.0.0.1' && host !== 'localhost' ? [host] : [])]);
    caPem = certs.caPem;
    server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, handler);
  } else {
    server = http.createServer(handler);
  }
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const kubeconfig = (o: KubeconfigFileOptions = {}): string =>
    buildKubeconfig({ server: url, token: o.token ?? token, caPem, namespace: o.namespace, contextName: o.contextName });

  return {
    url,
    port,
    caPem,
    token,
    readOnlyToken,
    requestLog,
    clearLog: () => {
      requestLog.length = 0;
    },
    kubeconfig,
    writeKubeconfig: (file, o) => writeFileSync(file, kubeconfig(o), { mode: 0o600 }),
    store,
    catalog,
    faults,
    watches,
    clock,
    restart,
    stopListening: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
    listenAgain: () =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        crds.stop();
        watches.closeAll();
        if (server.listening) server.close(() => resolve());
        else resolve();
        for (const s of sockets) s.destroy();
      }),
  };
}
