/**
 * Shared setup for the `kdyn get` end-to-end tests: the built CLI and kubectl as child processes
 * (asynchronous: the local API server runs in this process) against one local server, each tool
 * with its own HOME and discovery cache. The server's clock is fixed, so the server-side AGE cells
 * are the same for both tools and tables compare byte for byte.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeClock } from '../../src/core/clock.js';
import { startServer, type LocalApiServer, type ServerOptions } from '../support/apiserver/server.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const KDYN = join(ROOT, 'bin', 'kdyn');
export const HAS_KUBECTL = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

export interface Run {
  code: number;
  out: string;
  err: string;
}

export interface GetEnv {
  server: LocalApiServer;
  dir: string;
  kubeconfig: string;
  kdyn(args: string[], extraEnv?: Record<string, string>): Promise<Run>;
  kubectl(args: string[]): Promise<Run>;
  stop(): Promise<void>;
}

function run(cmd: string, argv: string[], env: Record<string, string | undefined>, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, argv, { env, cwd, encoding: 'utf8', maxBuffer: 1 << 28, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : -1) : 0;
      resolve({ code, out: stdout, err: stderr });
    });
  });
}

export async function startGetEnv(options: ServerOptions = {}): Promise<GetEnv> {
  const server = await startServer({ seed: 'demo', tls: true, clock: new FakeClock(Date.UTC(2026, 10, 22, 12, 0, 0)), ...options });
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-e2e-get-'));
  const kubeconfig = join(dir, 'kubeconfig');
  server.writeKubeconfig(kubeconfig);
  const homeK = join(dir, 'home-kdyn');
  const homeC = join(dir, 'home-kubectl');
  return {
    server,
    dir,
    kubeconfig,
    kdyn: (args, extraEnv = {}) => run(process.execPath, [KDYN, ...args], { PATH: process.env.PATH, HOME: homeK, KUBECONFIG: kubeconfig, ...extraEnv }, dir),
    kubectl: (args) => run('kubectl', args, { PATH: process.env.PATH, HOME: homeC, KUBECONFIG: kubeconfig }, dir),
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A table as rows of cells (kubectl separates columns by at least three spaces). */
export function cells(table: string): string[][] {
  return table.split('\n').filter((l) => l !== '').map((l) => l.trimEnd().split(/ {3,}/));
}
