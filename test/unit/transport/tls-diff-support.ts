/**
 * What the differential TLS tests share: a seeded generator, and kdyn's verdict on a server through
 * the library's transport (a token that must never reach a refused server).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../../../src/core/clock.js';
import { createLogger } from '../../../src/core/log.js';
import { tokenProvider } from '../../../src/kubeconfig/credentials.js';
import type { RestConfig } from '../../../src/kubeconfig/types.js';
import { createTransport } from '../../../src/transport/http.js';

/** mulberry32: a small seeded generator, so every run tests the same chains. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Verdict {
  ok: boolean;
  message: string;
}

/** GET /version through kdyn's transport: accepted when the server answered 200. */
export async function kdynVerdict(server: string, tls: RestConfig['tls']): Promise<Verdict> {
  let t: ReturnType<typeof createTransport>;
  try {
    t = createTransport(
      { server, tls, credentials: tokenProvider('secret-token-must-not-leak'), namespace: 'default', namespaceExplicit: false, source: 'flags', files: [] },
      { logger: createLogger(0, { write: () => true }), clock: systemClock, env: {}, timeoutMs: 20_000, retry: { maxRetries: 0 } },
    );
  } catch (e) {
    // A CA bundle with no certificate Go accepts: refused before any connection, as kubectl does.
    return { ok: false, message: (e as Error).message };
  }
  try {
    const r = await t.request({ path: '/version' });
    return { ok: r.status === 200, message: `HTTP ${r.status}` };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  } finally {
    t.close();
  }
}

/**
 * An empty directory for kubectl's SSL_CERT_DIR: Go reads every file of that directory as roots, and
 * the test's own directory holds the other cases' CA files (written by workers running at once).
 */
export function emptyCertDir(dir: string): string {
  const empty = join(dir, 'empty-cert-dir');
  mkdirSync(empty, { recursive: true });
  return empty;
}

export interface KubeconfigCase {
  host: string;
  caPem: string;
  serverName?: string;
}

/**
 * The kubeconfig of a case for `kubectl version` (or kdyn's CLI) at `file`: the case's CA unless
 * `systemRoots`, its tls-server-name, a token, and the client certificate when one is given.
 */
export function writeKubeconfig(file: string, c: KubeconfigCase, port: number, o: { systemRoots?: boolean; client?: { certPem: string; keyPem: string } } = {}): string {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: c',
      '  cluster:',
      `    server: https://${c.host}:${port}`,
      ...(o.systemRoots ? [] : [`    certificate-authority-data: ${b64(c.caPem)}`]),
      ...(c.serverName ? [`    tls-server-name: ${JSON.stringify(c.serverName)}`] : []),
      'users:',
      '- name: u',
      '  user:',
      '    token: secret-token',
      ...(o.client ? [`    client-certificate-data: ${b64(o.client.certPem)}`, `    client-key-data: ${b64(o.client.keyPem)}`] : []),
      'contexts:',
      '- name: x',
      '  context: {cluster: c, user: u}',
      'current-context: x',
      '',
    ].join('\n'),
  );
  return file;
}
