/**
 * Credential providers for the simple sources (none, a bearer token, a token file, basic auth) and
 * for kubeconfig `auth-provider` users (oidc, azure, gcp), which are delegated to
 * @kubernetes/client-node's KubeConfig, imported on demand only for such users.
 */
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../core/errors.js';
import type { AuthProviderConfig, CredentialProvider } from './types.js';

export const noCredentials: CredentialProvider = {
  kind: 'none',
  getAuthorization: async () => undefined,
  refreshAfterUnauthorized: async () => false,
};

export function tokenProvider(token: string): CredentialProvider {
  const header = `Bearer ${token}`;
  return { kind: 'token', getAuthorization: async () => header, refreshAfterUnauthorized: async () => false };
}

export function basicProvider(username: string, password: string): CredentialProvider {
  const header = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  return { kind: 'basic', getAuthorization: async () => header, refreshAfterUnauthorized: async () => false };
}

/**
 * A token read from a file (kubeconfig `tokenFile`, the in-cluster service-account token).
 * Read on first use; after a 401 it is read again, and a retry is worth it only if it changed
 * (projected service-account tokens rotate).
 */
export function tokenFileProvider(file: string): CredentialProvider {
  let token: string | undefined;
  const read = async (): Promise<string> => {
    try {
      return (await readFile(file, 'utf8')).trim();
    } catch (e) {
      throw new ConfigError(`reading token file "${file}": ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  return {
    kind: 'token-file',
    async getAuthorization() {
      token ??= await read();
      return token ? `Bearer ${token}` : undefined;
    },
    async refreshAfterUnauthorized() {
      const before = token;
      token = await read().catch(() => before);
      return token !== before;
    },
  };
}

/** Minimal structural view of client-node's KubeConfig (the package is loaded lazily). */
interface KubeConfigLike {
  loadFromOptions(options: unknown): void;
  applyAuthorizationHeader(opts: { headers: Record<string, string> }): Promise<void>;
}

/**
 * `auth-provider` users. client-node's authenticators (oidc: the id-token, refreshed through the
 * issuer when expired; azure/gcp: their cached access tokens or `cmd-path`) produce the header.
 * Unlike kubectl, refreshed tokens are not written back to the kubeconfig.
 */
export function authProviderProvider(opts: { userName: string; server: string; authProvider: AuthProviderConfig }): CredentialProvider {
  const name = opts.authProvider.name ?? '';
  if (!['oidc', 'azure', 'gcp'].includes(name)) {
    throw new ConfigError(`no Auth Provider found for name "${name}" (user "${opts.userName}")`);
  }
  let kc: KubeConfigLike | undefined;
  const build = async (): Promise<KubeConfigLike> => {
    let mod: { KubeConfig: new () => KubeConfigLike };
    try {
      mod = (await import('@kubernetes/client-node')) as unknown as { KubeConfig: new () => KubeConfigLike };
    } catch (e) {
      // An optional peer dependency of the library (the CLI bundle carries its own copy).
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw e;
      throw new ConfigError(`auth-provider "${name}" (user "${opts.userName}") needs the optional package @kubernetes/client-node: npm install @kubernetes/client-node`);
    }
    const k = new mod.KubeConfig();
    k.loadFromOptions({
      clusters: [{ name: 'kdyn', server: opts.server, skipTLSVerify: true }],
      users: [{ name: opts.userName, authProvider: { name, config: { ...(opts.authProvider.config ?? {}) } } }],
      contexts: [{ name: 'kdyn', cluster: 'kdyn', user: opts.userName }],
      currentContext: 'kdyn',
    });
    return k;
  };
  return {
    kind: 'auth-provider',
    async getAuthorization() {
      kc ??= await build();
      const o: { headers: Record<string, string> } = { headers: {} };
      try {
        await kc.applyAuthorizationHeader(o);
      } catch (e) {
        // client-node's messages describe the provider's state, not its secrets.
        const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
        throw new ConfigError(`getting credentials: auth-provider "${name}" for user "${opts.userName}": ${msg}`);
      }
      return o.headers.Authorization ?? o.headers.authorization;
    },
    refreshAfterUnauthorized: async () => false,
  };
}
