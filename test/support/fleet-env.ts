/**
 * Several local API servers (each on its own port, with its own CA and token) and one kubeconfig
 * holding a context for each: the set-up of the fleet tests and the fleet benchmark (issue 24).
 * `down` contexts point at a port nothing listens on (a cluster that is down).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { startServer, type LocalApiServer, type ServerOptions } from './apiserver/server.js';

export interface FleetEnv {
  /** The servers by context name (not the `down` ones). */
  servers: Map<string, LocalApiServer>;
  /** Every context name, in kubeconfig order. */
  contexts: string[];
  dir: string;
  /** `<dir>/kubeconfig` with every context; current-context: the first. */
  kubeconfig: string;
  stop(): Promise<void>;
}

export interface FleetEnvOptions {
  /** Context names with a server each. */
  contexts: string[];
  /** Context names pointing at a closed port. */
  down?: string[];
  /** Server options for every server (default: TLS, the demo seed). */
  server?: ServerOptions;
  /** Per context: extra server options. */
  perServer?: Record<string, ServerOptions>;
  /** Per context: the kubeconfig context's namespace. */
  namespaces?: Record<string, string>;
  prefix?: string;
  /** Use this directory (created by the caller) instead of a fresh temp dir; stop() leaves it. */
  dir?: string;
}

export async function startFleetEnv(o: FleetEnvOptions): Promise<FleetEnv> {
  const servers = new Map<string, LocalApiServer>();
  const started = await Promise.all(o.contexts.map((name) => startServer({ tls: true, seed: 'demo', ...o.server, ...o.perServer?.[name] })));
  o.contexts.forEach((name, i) => servers.set(name, started[i]!));
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), o.prefix ?? 'kdyn-fleet-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const down = o.down ?? [];
  const closedPort = down.length ? await freePort() : 0;
  const clusters: unknown[] = [];
  const users: unknown[] = [];
  const contexts: unknown[] = [];
  for (const name of [...o.contexts, ...down]) {
    const s = servers.get(name);
    const cluster: Record<string, string> = { server: s ? s.url : `https://127.0.0.1:${closedPort}` };
    if (s?.caPem) cluster['certificate-authority-data'] = Buffer.from(s.caPem).toString('base64');
    clusters.push({ name, cluster });
    users.push({ name, user: { token: s ? s.token : 'none' } });
    const context: Record<string, string> = { cluster: name, user: name };
    if (o.namespaces?.[name]) context.namespace = o.namespaces[name]!;
    contexts.push({ name, context });
  }
  const all = [...o.contexts, ...down];
  writeFileSync(kubeconfig, dump({ apiVersion: 'v1', kind: 'Config', clusters, contexts, 'current-context': all[0], preferences: {}, users }, { lineWidth: -1 }), { mode: 0o600 });
  return {
    servers,
    contexts: all,
    dir,
    kubeconfig,
    stop: async () => {
      await Promise.all([...servers.values()].map((s) => s.stop()));
      if (!o.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A port that was free a moment ago (listened on, then closed). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}
