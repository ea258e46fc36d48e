/**
 * Shared setup for the `kdyn get` end-to-end tests: the built CLI and kubectl as child processes
 * (asynchronous: the local API server runs in this process) against one local server, each tool
 * with its own HOME and discovery cache. The server's clock is fixed, so the server-side AGE cells
 * are the same for both tools and tables compare byte for byte.
 */
import { join } from 'node:path';
import { FakeClock } from '../../src/core/clock.js';
import type { LocalApiServer, ServerOptions } from '../support/apiserver/server.js';
import { startServerEnv } from '../support/server-env.js';
import { hasKubectl, runCommand, runKdyn, type Run } from '../support/cli.js';

export type { Run };
export const HAS_KUBECTL = hasKubectl();

export interface GetEnv {
  server: LocalApiServer;
  dir: string;
  kubeconfig: string;
  kdyn(args: string[], extraEnv?: Record<string, string>): Promise<Run>;
  kubectl(args: string[]): Promise<Run>;
  stop(): Promise<void>;
}

export async function startGetEnv(options: ServerOptions = {}): Promise<GetEnv> {
  const { server, dir, kubeconfig, stop } = await startServerEnv({ seed: 'demo', clock: new FakeClock(Date.UTC(2026, 10, 22, 12, 0, 0)), ...options }, 'kdyn-e2e-get-');
  const homeK = join(dir, 'home-kdyn');
  const homeC = join(dir, 'home-kubectl');
  return {
    server,
    dir,
    kubeconfig,
    kdyn: (args, extraEnv = {}) => runKdyn(args, { env: { PATH: process.env.PATH, HOME: homeK, KUBECONFIG: kubeconfig, ...extraEnv }, cwd: dir }),
    kubectl: (args) => runCommand('kubectl', args, { env: { PATH: process.env.PATH, HOME: homeC, KUBECONFIG: kubeconfig }, cwd: dir }),
    stop,
  };
}
