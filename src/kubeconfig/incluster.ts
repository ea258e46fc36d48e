/**
 * In-cluster configuration (client-go rest.InClusterConfig): used when no kubeconfig gives a
 * server, KUBERNETES_SERVICE_HOST/PORT are set and the service-account token file exists.
 */
import { readFileSync, statSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { tokenFileProvider } from './credentials.js';
import type { CredentialProvider, TLSConfig } from './types.js';

export interface InClusterParts {
  server: string;
  tls: TLSConfig;
  credentials: CredentialProvider;
  /** POD_NAMESPACE, else the namespace file, else `default`. */
  namespace: string;
}

export function inClusterPossible(env: Record<string, string | undefined>, dir: string): boolean {
  if (!env.KUBERNETES_SERVICE_HOST || !env.KUBERNETES_SERVICE_PORT) return false;
  try {
    return !statSync(join(dir, 'token')).isDirectory();
  } catch {
    return false;
  }
}

export function inClusterConfig(env: Record<string, string | undefined>, dir: string): InClusterParts {
  const host = env.KUBERNETES_SERVICE_HOST!;
  const port = env.KUBERNETES_SERVICE_PORT!;
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  let caData: Buffer | undefined;
  try {
    caData = readFileSync(join(dir, 'ca.crt'));
  } catch {
    caData = undefined; // client-go logs and continues with the system roots
  }
  let namespace = env.POD_NAMESPACE || '';
  if (!namespace) {
    try {
      namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim();
    } catch {
      namespace = '';
    }
  }
  return {
    server,
    tls: { caData, insecure: false },
    credentials: tokenFileProvider(join(dir, 'token')),
    namespace: namespace || 'default',
  };
}
