/** Builds a kubeconfig (YAML text) that points at the local API server with a bearer token. */
import { dump } from 'js-yaml';

export interface KubeconfigOptions {
  server: string;
  token: string;
  /** PEM of the CA; written as certificate-authority-data. */
  caPem?: string;
  namespace?: string;
  /** Context, cluster and user name (default `kdyn-local`). */
  contextName?: string;
}

export function buildKubeconfig(o: KubeconfigOptions): string {
  const name = o.contextName ?? 'kdyn-local';
  const cluster: Record<string, string> = { server: o.server };
  if (o.caPem) cluster['certificate-authority-data'] = Buffer.from(o.caPem).toString('base64');
  const context: Record<string, string> = { cluster: name, user: name };
  if (o.namespace) context.namespace = o.namespace;
  return dump(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name, cluster }],
      contexts: [{ name, context }],
      'current-context': name,
      preferences: {},
      users: [{ name, user: { token: o.token } }],
    },
    { lineWidth: -1 },
  );
}
