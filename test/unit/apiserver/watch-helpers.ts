// A watch-stream reader for the local API server's tests: real socket, events parsed line by line.
import { request, type IncomingMessage } from 'node:http';
import type { LocalApiServer } from '../../support/apiserver/server.js';

export interface WatchEvent {
  type: string;
  object: any;
}

export interface OpenWatch {
  status: number;
  headers: IncomingMessage['headers'];
  events: WatchEvent[];
  /** Resolves when at least `n` events arrived (rejects when the stream ends first). */
  next(n: number): Promise<WatchEvent[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export function openWatch(server: LocalApiServer, path: string, headers: Record<string, string> = {}): Promise<OpenWatch> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.token}`, ...headers } }, (res) => {
      const events: WatchEvent[] = [];
      let buf = '';
      let done = false;
      const waiters: Array<{ n: number; resolve: (e: WatchEvent[]) => void; reject: (e: Error) => void }> = [];
      const check = (): void => {
        for (const w of [...waiters]) {
          if (events.length >= w.n) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(events.slice(0, w.n));
          } else if (done) {
            waiters.splice(waiters.indexOf(w), 1);
            w.reject(new Error(`watch ended after ${events.length} events, wanted ${w.n}: ${JSON.stringify(events.map((e) => e.type))}`));
          }
        }
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim()) events.push(JSON.parse(line) as WatchEvent);
        }
        check();
      });
      const ended = new Promise<void>((r) => {
        const finish = (): void => {
          done = true;
          check();
          r();
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        next: (n) => new Promise((ok, fail) => {
          waiters.push({ n, resolve: ok, reject: fail });
          check();
        }),
        ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Lets pending I/O callbacks run (the server writes events synchronously on a change). */
export const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
