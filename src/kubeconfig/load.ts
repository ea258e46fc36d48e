/**
 * Resolves the kubeconfig files, the selected context and the command-line overrides into one
 * RestConfig, with kubectl's precedence (client-go tools/clientcmd client_config.go,
 * merged_client_builder.go, cli-runtime config_flags.go):
 * flags > context's cluster/user > in-cluster service account > http://localhost:8080.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { pathError } from '../core/fs-errors.js';
import { authProviderProvider, basicProvider, noCredentials, tokenFileProvider, tokenProvider } from './credentials.js';
import { createExecProvider, EXEC_INFO_EXTENSION } from './exec.js';
import { inClusterConfig, inClusterPossible } from './incluster.js';
import { loadMerged, selectFiles } from './merge.js';
import { validateServer } from './server.js';
import type { CredentialProvider, Entry, Impersonation, KubeconfigCluster, KubeconfigUser, LoadOptions, MergedKubeconfig, RestConfig, TLSConfig } from './types.js';
import { DEFAULT_SERVICE_ACCOUNT_DIR } from './types.js';

/** kubectl's default when nothing is configured (client-go clientcmd.ClusterDefaults). */
export const DEFAULT_SERVER = 'http://localhost:8080';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export async function loadRestConfig(o: LoadOptions): Promise<RestConfig> {
  const f = o.flags;
  const home = o.homeDir ?? (o.env.HOME || o.env.USERPROFILE || undefined);
  const sel = selectFiles(str(f.kubeconfig), o.env, o.cwd, home);
  const merged = o.merged ?? (await loadMerged(sel));
  for (const file of merged.files) o.logger.info(6, `Config loaded from file:  ${file}`, 'loader.go:402');
  return resolveRestConfig(merged, o);
}

/** The pure(ish) half: a merged kubeconfig plus flags -> RestConfig. Reads referenced files. */
export function resolveRestConfig(merged: MergedKubeconfig, o: LoadOptions): RestConfig {
  const f = o.flags;
  const where = merged.files.length ? `kubeconfig "${merged.files.join(':')}"` : 'the kubeconfig (no file loaded)';
  const flagContext = str(f.context);
  const contextName = flagContext ?? merged.currentContext;
  const ctxEntry = contextName !== undefined ? merged.contexts.get(contextName) : undefined;
  if (contextName !== undefined && !ctxEntry) {
    throw new ConfigError(`context "${contextName}" does not exist in ${where}`);
  }
  const ctx = ctxEntry?.value ?? {};
  const flagServer = str(f.server);

  const flagCluster = str(f.cluster);
  const clusterName = flagCluster ?? str(ctx.cluster);
  const clusterEntry = clusterName !== undefined ? merged.clusters.get(clusterName) : undefined;
  if (flagCluster && !clusterEntry) throw new ConfigError(`cluster "${flagCluster}" does not exist in ${where}`);
  if (clusterName && !clusterEntry && !flagServer) {
    throw new ConfigError(`context "${contextName}" in "${ctxEntry!.file}" refers to cluster "${clusterName}", which does not exist in ${where}`);
  }

  const flagUser = str(f.user);
  const userName = flagUser ?? str(ctx.user);
  const userEntry = userName !== undefined ? merged.users.get(userName) : undefined;
  if (flagUser && !userEntry) throw new ConfigError(`auth info "${flagUser}" does not exist in ${where}`);
  if (userName && !userEntry && !str(f.token)) {
    throw new ConfigError(`context "${contextName}" in "${ctxEntry!.file}" refers to user "${userName}", which does not exist in ${where}`);
  }

  const cluster = clusterEntry?.value ?? {};
  const flagNamespace = str(f.namespace);
  const configured = flagServer ?? str(cluster.server);

  if (!configured) {
    if (clusterEntry) throw new ConfigError(`no server found for cluster "${clusterEntry.name}" in "${clusterEntry.file}"`);
    // Nothing configured: the in-cluster service account, else kubectl's localhost:8080.
    const saDir = o.serviceAccountDir ?? DEFAULT_SERVICE_ACCOUNT_DIR;
    if (inClusterPossible(o.env, saDir)) {
      o.logger.info(4, 'Using in-cluster configuration', 'merged_client_builder.go:163');
      const ic = inClusterConfig(o.env, saDir);
      const tls = applyTlsFlags(ic.tls, o);
      return {
        server: validateServer(ic.server, tls),
        tls,
        credentials: str(f.token) ? tokenProvider(str(f.token)!) : ic.credentials,
        impersonate: impersonation({}, '', f),
        namespace: flagNamespace ?? ic.namespace,
        namespaceExplicit: flagNamespace !== undefined,
        source: 'in-cluster',
        files: merged.files,
      };
    }
  }

  const tls = applyTlsFlags(clusterTls(clusterEntry), o);
  const user: KubeconfigUser = userEntry?.value ?? {};
  applyClientCertFlags(tls, user, userEntry?.name, o);
  const server = validateServer(configured ?? DEFAULT_SERVER, tls);
  const credentials = credentialsFor(userEntry, clusterEntry, server, tls, o);
  const impersonate = impersonation(user, userEntry?.name ?? '', f);
  return {
    server,
    tls,
    proxyUrl: str(cluster['proxy-url']),
    credentials,
    impersonate,
    namespace: flagNamespace ?? (str(ctx.namespace) || 'default'),
    namespaceExplicit: flagNamespace !== undefined,
    contextName: ctxEntry?.name,
    clusterName: clusterEntry?.name,
    userName: userEntry?.name,
    source: configured === undefined ? 'default' : clusterEntry || userEntry || ctxEntry ? 'kubeconfig' : 'flags',
    files: merged.files,
  };
}

/**
 * Who to act as: `--as`, `--as-group` (repeatable), `--as-uid` each replace the user's `as`,
 * `as-groups`, `as-uid` when given (clientcmd's override merge); groups, a uid or extras without
 * a user to impersonate are refused, with kubectl's message.
 */
function impersonation(user: KubeconfigUser, userName: string, f: LoadOptions['flags']): Impersonation | undefined {
  const flagGroups = Array.isArray(f['as-group']) ? f['as-group'].filter((g): g is string => typeof g === 'string') : [];
  const imp: Impersonation = {
    user: str(f.as) ?? str(user.as),
    uid: str(f['as-uid']) ?? str(user['as-uid']),
    groups: flagGroups.length ? flagGroups : user['as-groups']?.length ? user['as-groups'] : undefined,
    extra: user['as-user-extra'] && Object.keys(user['as-user-extra']).length ? user['as-user-extra'] : undefined,
  };
  if (imp.user) return imp;
  if (imp.uid || imp.groups || imp.extra) throw new ConfigError(`requesting uid, groups or user-extra for ${userName} without impersonating a user`);
  return undefined;
}

function readPem(file: string, what: string, owner: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new ConfigError(`unable to read ${what} ${file} for ${owner} due to ${pathError(file, e)}`);
  }
}

function b64(data: string, what: string, owner: string): Buffer {
  const clean = data.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) throw new ConfigError(`${what} for ${owner} is not valid base64`);
  return Buffer.from(clean, 'base64');
}

function clusterTls(entry: Entry<KubeconfigCluster> | undefined): TLSConfig {
  const c = entry?.value ?? {};
  const owner = entry ? `cluster "${entry.name}"` : 'the cluster';
  const caDataStr = str(c['certificate-authority-data']);
  const caFile = str(c['certificate-authority']);
  return {
    caData: caDataStr ? b64(caDataStr, 'certificate-authority-data', owner) : caFile ? readPem(caFile, 'certificate-authority', owner) : undefined,
    ...(caDataStr ? { caSource: `certificate-authority-data of ${owner}` } : caFile ? { caSource: `certificate-authority ${caFile} of ${owner}` } : {}),
    insecure: c['insecure-skip-tls-verify'] === true,
    serverName: str(c['tls-server-name']),
  };
}

/** A CA or insecure flag replaces both of the cluster's settings (cli-runtime config_flags.go). */
function applyTlsFlags(base: TLSConfig, o: LoadOptions): TLSConfig {
  const f = o.flags;
  const tls: TLSConfig = { ...base };
  const caFlag = str(f['certificate-authority']);
  const insecureFlag = f['insecure-skip-tls-verify'] === true;
  if (caFlag || insecureFlag) {
    tls.caData = caFlag ? readPem(resolve(o.cwd, caFlag), 'certificate-authority', '--certificate-authority') : undefined;
    tls.caSource = caFlag ? `--certificate-authority ${caFlag}` : undefined;
    tls.insecure = insecureFlag;
  }
  const sn = str(f['tls-server-name']);
  if (sn) tls.serverName = sn;
  if (tls.insecure && tls.caData) {
    throw new ConfigError('specifying a root certificates file with the insecure flag is not allowed');
  }
  return tls;
}

function applyClientCertFlags(tls: TLSConfig, user: KubeconfigUser, userName: string | undefined, o: LoadOptions): void {
  const f = o.flags;
  const certFlag = str(f['client-certificate']);
  const keyFlag = str(f['client-key']);
  const owner = userName ?? 'the user'; // kubectl: "unable to read client-cert F for NAME due to ..."

  if (certFlag) tls.certData = readPem(resolve(o.cwd, certFlag), 'client-cert', '--client-certificate');
  else if (str(user['client-certificate-data'])) tls.certData = b64(user['client-certificate-data']!, 'client-certificate-data', owner);
  else if (str(user['client-certificate'])) tls.certData = readPem(user['client-certificate']!, 'client-cert', owner);
  if (keyFlag) tls.keyData = readPem(resolve(o.cwd, keyFlag), 'client-key', '--client-key');
  else if (str(user['client-key-data'])) tls.keyData = b64(user['client-key-data']!, 'client-key-data', owner);
  else if (str(user['client-key'])) tls.keyData = readPem(user['client-key']!, 'client-key', owner);
  if (!!tls.certData !== !!tls.keyData) {
    throw new ConfigError(`client-cert and client-key must both be specified for ${owner} to use the clientCert authentication method`);
  }
}

/** --token > token > tokenFile > exec > auth-provider > basic. */
function credentialsFor(
  userEntry: Entry<KubeconfigUser> | undefined,
  clusterEntry: Entry<KubeconfigCluster> | undefined,
  server: string,
  tls: TLSConfig,
  o: LoadOptions,
): CredentialProvider {
  const flagToken = str(o.flags.token);
  if (flagToken) return tokenProvider(flagToken);
  const u = userEntry?.value ?? {};
  const name = userEntry?.name ?? '';
  if (u.token !== undefined && u.token !== null && String(u.token) !== '') return tokenProvider(String(u.token));
  if (str(u.tokenFile)) return tokenFileProvider(u.tokenFile!);
  if (u.exec && typeof u.exec === 'object') {
    if (u['auth-provider']) throw new ConfigError(`user "${name}": authProvider cannot be provided in combination with an exec plugin`);
    const ext = clusterEntry?.value.extensions?.find((e) => e && e.name === EXEC_INFO_EXTENSION);
    return createExecProvider({
      exec: u.exec,
      userName: name,
      cluster: {
        server,
        tlsServerName: tls.serverName,
        insecureSkipTLSVerify: tls.insecure,
        caData: tls.caData,
        proxyUrl: str(clusterEntry?.value['proxy-url']),
        config: ext?.extension,
      },
      env: o.env,
      clock: o.clock,
      logger: o.logger,
      stderr: o.stderr,
      stdinIsTTY: o.stdinIsTTY ?? false,
    });
  }
  if (u['auth-provider'] && typeof u['auth-provider'] === 'object') {
    return authProviderProvider({ userName: name, server, authProvider: u['auth-provider'] });
  }
  if (str(u.username) || str(u.password)) return basicProvider(u.username ?? '', u.password ?? '');
  return noCredentials;
}
