/**
 * The usual set-up of a test that talks to the local API server from outside: the server (TLS by
 * default), a temp dir, and a kubeconfig for the server written in it. `stop()` stops the server
 * and removes the dir.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer, type ServerOptions } from './apiserver/server.js';

export interface ServerEnv {
  server: LocalApiServer;
  /** A fresh temp dir (a HOME, a cache root, scratch files). */
  dir: string;
  /** `<dir>/kubeconfig`, with the server's URL, CA and token. */
  kubeconfig: string;
  stop(): Promise<void>;
}

export async function startServerEnv(options: ServerOptions = {}, prefix = 'kdyn-test-'): Promise<ServerEnv> {
  const server = await startServer({ tls: true, ...options });
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const kubeconfig = join(dir, 'kubeconfig');
  server.writeKubeconfig(kubeconfig);
  return {
    server,
    dir,
    kubeconfig,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
