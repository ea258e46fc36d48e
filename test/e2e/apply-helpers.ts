/**
 * Shared set-up of the `kdyn apply` end-to-end tests: the CLI's main() in process with in-memory IO
 * (so the local server's request log shows exactly what one run sent), and manifest files in a temp dir.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { toYAMLDocuments } from '../../src/printers/yaml.js';
import type { IO } from '../../src/core/io.js';
import type { ServerEnv } from '../support/server-env.js';

/** Signals for the commands run by kdynIn: `signals.emit('signal', 'SIGINT')` reaches the running command, not the test process. */
export const signals = new EventEmitter();

export interface Kdyn {
  (args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }>;
}

/** Runs `kdyn ARGS` against the environment's server, with a cache dir of its own. */
export function kdynIn({ dir, kubeconfig }: Pick<ServerEnv, 'dir' | 'kubeconfig'>): Kdyn {
  return async (args, stdin) => {
    let out = '';
    let err = '';
    const io: IO = {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
      stdin: stdin === undefined ? undefined : Readable.from([Buffer.from(stdin)]),
      env: { HOME: dir },
      cwd: dir,
      onSignal(listener) {
        const on = (sig: 'SIGINT' | 'SIGTERM') => listener(sig);
        signals.on('signal', on);
        return () => void signals.off('signal', on);
      },
    };
    const code = await main([...args, '--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache')], io);
    return { code, out, err };
  };
}

/** Writes `docs` (objects as a YAML stream, or text) to `<dir>/<name>` and returns the path. */
export function manifestFile(dir: string, name: string, docs: unknown[] | string): string {
  const p = join(dir, name);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, typeof docs === 'string' ? docs : toYAMLDocuments(docs));
  return p;
}

export const configMap = (name: string, data: Record<string, string> = { k: 'v' }, namespace?: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  data,
});

/**
 * Resolves once `cond()` holds, checking after each turn of the event loop (no timers); rejects
 * naming `what` if `run` settles first (the condition can no longer come true).
 */
export async function until(cond: () => boolean, what: string, run: Promise<unknown>): Promise<void> {
  let settled = false;
  run.then(() => (settled = true), () => (settled = true));
  while (!cond()) {
    if (settled) throw new Error(`the command ended before ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}
