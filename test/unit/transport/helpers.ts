/**
 * Helpers for transport tests: RestConfigs for the local API server, a clock that records sleeps
 * without waiting, a logger that captures lines, a TCP forwarder that counts connections, and a
 * small CONNECT/forwarding proxy that counts tunnels.
 */
import { createServer, connect, type Server, type Socket, type AddressInfo } from 'node:net';
import type { Clock } from '../../../src/core/clock.js';
import { createLogger, type Logger } from '../../../src/core/log.js';
import { tokenProvider } from '../../../src/kubeconfig/credentials.js';
import type { RestConfig } from '../../../src/kubeconfig/types.js';
import type { LocalApiServer } from '../../support/apiserver/server.js';

export function restConfigFor(s: Pick<LocalApiServer, 'url' | 'caPem' | 'token'>, over: Partial<RestConfig> = {}): RestConfig {
  return {
    server: s.url,
    tls: { caData: s.caPem ? Buffer.from(s.caPem) : undefined, insecure: false },
    credentials: tokenProvider(s.token),
    namespace: 'default',
    namespaceExplicit: false,
    source: 'flags',
    files: [],
    ...over,
  };
}

/** Sleeps resolve at once; the requested durations are recorded. */
export function recordingClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => Date.now(),
    sleep: (ms, signal) => {
      if (signal?.aborted) return Promise.reject(signal.reason);
      // Timeouts (long sleeps with a signal) never fire in these tests; retry waits resolve at once.
      if (signal) return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      sleeps.push(ms);
      return Promise.resolve();
    },
  };
}

export function captureLogger(level: number): Logger & { text(): string } {
  let out = '';
  const l = createLogger(level, { write: (s: string) => (out += s) });
  return Object.assign(l, { text: () => out });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
}

/** A transparent TCP forwarder to `port` that counts the connections it accepted. */
export async function startForwarder(port: number): Promise<{ port: number; connections: () => number; stop(): Promise<void> }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    connections++;
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  const p = await listen(server);
  return {
    port: p,
    connections: () => connections,
    stop: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    }),
  };
}

export interface TestProxy {
  url: string;
  port: number;
  /** CONNECT targets requested, in order (`host:port`). */
  tunnels: string[];
  /** Absolute-URI requests forwarded (http targets), request lines. */
  forwarded: string[];
  /** Proxy-Authorization headers seen. */
  auth: string[];
  stop(): Promise<void>;
}

/**
 * An http proxy: CONNECT opens a tunnel to `upstreamPort` on 127.0.0.1 whatever host was asked
 * (so tests can use names that do not resolve); other requests are forwarded as they are.
 * `refuse` answers every CONNECT with 403.
 */
export async function startProxy(upstreamPort: number, opts: { refuse?: boolean } = {}): Promise<TestProxy> {
  const tunnels: string[] = [];
  const forwarded: string[] = [];
  const auth: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const lines = head.subarray(0, end).toString('latin1').split('\r\n');
      const [method, target] = lines[0]!.split(' ');
      const pa = lines.find((l) => /^proxy-authorization:/i.test(l));
      if (pa) auth.push(pa.replace(/^proxy-authorization:\s*/i, ''));
      const upstream = connect(upstreamPort, '127.0.0.1');
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      if (method === 'CONNECT') {
        tunnels.push(target!);
        if (opts.refuse) {
          client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
          upstream.destroy();
          return;
        }
        upstream.once('connect', () => {
          client.write('HTTP/1.1 200 Connection established\r\n\r\n');
          const rest = head.subarray(end + 4);
          if (rest.length) upstream.write(rest);
          client.pipe(upstream).pipe(client);
        });
      } else {
        forwarded.push(lines[0]!);
        upstream.write(head);
        client.pipe(upstream).pipe(client);
      }
    };
    client.on('data', onData);
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    tunnels,
    forwarded,
    auth,
    stop: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    }),
  };
}

/** A TCP server that answers every connection with `reply` and closes (a hostile "API server"). */
export async function startRawServer(reply: string | Buffer, opts: { keepOpen?: boolean } = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    s.once('data', () => {
      if (opts.keepOpen) s.write(reply);
      else s.end(reply);
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    }),
  };
}
