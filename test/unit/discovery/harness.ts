/** Local API server + real transport + a CachedDiscovery over a temp cache dir, for discovery tests. */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer, type ServerOptions } from '../../support/apiserver/server.js';
import { loadRestConfig } from '../../../src/kubeconfig/load.js';
import { createTransport } from '../../../src/transport/http.js';
import { FakeClock, systemClock } from '../../../src/core/clock.js';
import { createLogger, silentLogger, type Logger } from '../../../src/core/log.js';
import { createCachedDiscovery, type DiskCachedDiscovery } from '../../../src/discovery/cached.js';
import type { DiskStore } from '../../../src/discovery/disk.js';
import type { Transport } from '../../../src/transport/types.js';
import { buildNameIndex } from '../../../src/restmapper/name-index.js';

export interface Harness {
  server: LocalApiServer;
  transport: Transport;
  serverUrl: string;
  clock: FakeClock;
  tmp: string;
  cacheDir: string;
  /** A new CachedDiscovery (a new "process") over the same cache. */
  discovery(o?: { ttlMs?: number; cacheDir?: string; logger?: Logger; clock?: FakeClock; store?: (root: string) => DiskStore }): DiskCachedDiscovery;
  discoveryRequests(): Array<{ method: string; path: string; query: string; accept: string; status: number }>;
  /** Waits for the cache writes, stops the server and removes `tmp`. */
  close(): Promise<void>;
}

export async function startHarness(opts: ServerOptions = {}): Promise<Harness> {
  const server = await startServer({ tls: true, seed: 'demo', ...opts });
  const tmp = mkdtempSync(join(tmpdir(), 'kdyn-disc-'));
  const kubeconfig = join(tmp, 'kubeconfig');
  server.writeKubeconfig(kubeconfig);
  const config = await loadRestConfig({ flags: { kubeconfig }, env: {}, cwd: tmp, logger: silentLogger, clock: systemClock, stderr: { write: () => true } });
  const transport = createTransport(config, { logger: silentLogger, clock: systemClock, env: {}, timeoutMs: 0 });
  // File mtimes are real; the fake clock starts at the real time and moves only when told.
  const clock = new FakeClock(Date.now());
  const cacheDir = join(tmp, 'cache');
  // Every CachedDiscovery made here, so close() can wait for their cache writes before removing tmp
  // (a write still under way would create its directories again).
  const made: DiskCachedDiscovery[] = [];
  return {
    server,
    transport,
    serverUrl: config.server,
    clock,
    tmp,
    cacheDir,
    discovery: (o = {}) => {
      const d = createCachedDiscovery({ transport, server: config.server, cacheDir: o.cacheDir ?? cacheDir, ttlMs: o.ttlMs ?? 600_000, env: {}, clock: o.clock ?? clock, logger: o.logger ?? silentLogger, store: o.store, index: buildNameIndex });
      made.push(d);
      return d;
    },
    discoveryRequests: () => server.requestLog.filter((e) => e.path === '/api' || e.path === '/apis' || /^\/apis?\/[^/]+(\/[^/]+)?$/.test(e.path)),
    close: async () => {
      await Promise.allSettled(made.map((d) => d.flush()));
      transport.close();
      await server.stop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

export function memoryLogger(level: number): Logger & { text(): string } {
  let text = '';
  const l = createLogger(level, { write: (s: string) => { text += s; return true; } });
  return Object.assign(l, { text: () => text });
}

/** Every file under `dir`, relative paths. */
export function listFiles(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listFiles(p, base));
    else out.push(p.slice(base.length + 1));
  }
  return out.sort();
}
