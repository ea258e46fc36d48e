/** Shared helpers for kubeconfig tests: temp dirs and a loadRestConfig call with test defaults. */
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { dump } from 'js-yaml';
import { FakeClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import { loadRestConfig } from '../../../src/kubeconfig/load.js';
import type { LoadOptions, RestConfig } from '../../../src/kubeconfig/types.js';

export interface TempDir {
  dir: string;
  write(rel: string, content: string | object, mode?: number): string;
  cleanup(): void;
}

export function tempDir(prefix = 'kdyn-kc-'): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    write(rel, content, mode) {
      const p = join(dir, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, typeof content === 'string' ? content : dump(content), mode !== undefined ? { mode } : undefined);
      return p;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A kubeconfig document (as an object) with one context per entry of `contexts`. */
export function kubeconfig(parts: {
  current?: string;
  clusters?: Record<string, object>;
  users?: Record<string, object>;
  contexts?: Record<string, object>;
}): object {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    ...(parts.current !== undefined ? { 'current-context': parts.current } : {}),
    clusters: Object.entries(parts.clusters ?? {}).map(([name, cluster]) => ({ name, cluster })),
    users: Object.entries(parts.users ?? {}).map(([name, user]) => ({ name, user })),
    contexts: Object.entries(parts.contexts ?? {}).map(([name, context]) => ({ name, context })),
  };
}

export function load(opts: Partial<LoadOptions> & { flags?: Record<string, unknown> }, home?: string): Promise<RestConfig> {
  let stderr = '';
  return loadRestConfig({
    flags: {},
    env: {},
    cwd: home ?? '/',
    logger: silentLogger,
    clock: new FakeClock(),
    stderr: { write: (s: string) => (stderr += s) },
    homeDir: home ?? '/nonexistent-home',
    serviceAccountDir: '/nonexistent-sa',
    ...opts,
  });
}

export const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
