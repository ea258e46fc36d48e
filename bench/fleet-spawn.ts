/**
 * Starts bench/fleet-servers.ts as a process of its own: `count` local API servers and
 * `<dir>/kubeconfig` with contexts c0..c(count-1). Resolves once they accept requests; rejects with
 * the last line of their stderr if the process exits first. Used by bench/cases/fleet.ts and
 * bench/fleet-floor.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVERS = join(fileURLToPath(new URL('.', import.meta.url)), 'fleet-servers.js');

/** `onSpawn` receives the process at once (to kill it from an exit handler, ready or not). */
export function spawnFleetServers(dir: string, count: number, onSpawn?: (c: ChildProcess) => void): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    mkdirSync(dir, { recursive: true });
    const c = spawn(process.execPath, [SERVERS, dir, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
    onSpawn?.(c);
    let err = '';
    c.stderr!.on('data', (b: Buffer) => (err += b.toString()));
    c.stdout!.on('data', (b: Buffer) => {
      if (b.toString().includes('ready')) resolve(c);
    });
    c.on('exit', (code) => reject(new Error(`fleet servers exited (${code}) before ready: ${err.trim().split('\n').pop() ?? ''}`)));
  });
}
