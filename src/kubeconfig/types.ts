/**
 * kubeconfig shapes (as written on disk) and the resolved `RestConfig` a transport needs.
 * kdyn parses kubeconfig files itself (kubectl's merge rules); see ./load.ts.
 */
import type { Clock } from '../core/clock.js';
import type { Output } from '../core/io.js';
import type { Logger } from '../core/log.js';

// ---------------------------------------------------------------------------------------------
// On-disk kubeconfig (clientcmd/api/v1), only the fields kdyn reads. Every field is optional:
// files are user input and are validated where they are used.
// ---------------------------------------------------------------------------------------------

export interface KubeconfigCluster {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  extensions?: Array<{ name?: string; extension?: unknown }>;
}

export interface ExecConfig {
  apiVersion?: string;
  command?: string;
  args?: string[];
  env?: Array<{ name?: string; value?: string }> | null;
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: 'Never' | 'IfAvailable' | 'Always' | string;
}

export interface AuthProviderConfig {
  name?: string;
  config?: Record<string, string>;
}

export interface KubeconfigUser {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  username?: string;
  password?: string;
  as?: string;
  'as-uid'?: string;
  'as-groups'?: string[];
  'as-user-extra'?: Record<string, string[]>;
  exec?: ExecConfig;
  'auth-provider'?: AuthProviderConfig;
}

export interface KubeconfigContext {
  cluster?: string;
  user?: string;
  namespace?: string;
}

/** A named entry plus the file it came from (relative paths resolve against that file's directory). */
export interface Entry<T> {
  name: string;
  value: T;
  file: string;
}

/** The merged view of every loaded kubeconfig file, kubectl's rules (./merge.ts). */
export interface MergedKubeconfig {
  /** The files actually read, in precedence order. */
  files: string[];
  currentContext?: string;
  clusters: Map<string, Entry<KubeconfigCluster>>;
  users: Map<string, Entry<KubeconfigUser>>;
  contexts: Map<string, Entry<KubeconfigContext>>;
}

// ---------------------------------------------------------------------------------------------
// Resolved configuration
// ---------------------------------------------------------------------------------------------

export interface TLSConfig {
  /** PEM bytes of the CA bundle to trust (undefined: the system roots). */
  caData?: Buffer;
  /** Where caData came from, for messages (e.g. `certificate-authority-data of cluster "x"`). */
  caSource?: string;
  /** PEM client certificate and key (static ones; exec plugins may supply their own). */
  certData?: Buffer;
  keyData?: Buffer;
  insecure: boolean;
  /** SNI and verification name, when it differs from the server's host. */
  serverName?: string;
}

export interface ClientCertificate {
  cert: Buffer;
  key: Buffer;
}

/**
 * Where the credentials come from. The transport asks before every request (the answer is
 * cached by the provider), and after a 401 calls `refreshAfterUnauthorized` once: when that
 * resolves true, the request is retried with the new credentials.
 */
export interface CredentialProvider {
  readonly kind: 'none' | 'token' | 'token-file' | 'basic' | 'exec' | 'auth-provider';
  /** The Authorization header value (`Bearer ...`), or undefined for none. Never log it. */
  getAuthorization(): Promise<string | undefined>;
  /** A client certificate supplied by the credential source (exec plugins), if any. */
  getClientCertificate?(): Promise<ClientCertificate | undefined>;
  /** Forgets cached credentials after a 401; true when a retry may succeed. */
  refreshAfterUnauthorized(): Promise<boolean>;
}

export interface Impersonation {
  user?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface RestConfig {
  /** Validated server URL without a trailing slash, e.g. `https://127.0.0.1:6443` (may carry a path prefix). */
  server: string;
  tls: TLSConfig;
  /** The cluster's `proxy-url` (http, https or socks5); env proxies are decided by the transport. */
  proxyUrl?: string;
  credentials: CredentialProvider;
  impersonate?: Impersonation;
  /** `-n`, else the context's namespace, else `default` (in-cluster: POD_NAMESPACE, the namespace file). */
  namespace: string;
  /** True when the namespace came from `-n/--namespace`. */
  namespaceExplicit: boolean;
  contextName?: string;
  clusterName?: string;
  userName?: string;
  /** Where the configuration came from. */
  source: 'kubeconfig' | 'in-cluster' | 'flags' | 'default';
  /** The kubeconfig files read (precedence order), for messages. */
  files: string[];
}

/**
 * kubectl's connection flags by long name, as `loadRestConfig` reads them: what a library user may set
 * through `connect({ flags })` (a type, not an interface, so it is also a `Record<string, unknown>`).
 */
export type ConfigFlags = {
  /** `--kubeconfig`: the only kubeconfig file read (it must exist). */
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  /** `--server`/`-s`: the API server's URL, instead of the cluster's. */
  server?: string;
  /** A bearer token, instead of the user's credentials. */
  token?: string;
  /** A CA bundle file: it replaces both the cluster's CA and its insecure-skip-tls-verify (as kubectl). */
  'certificate-authority'?: string;
  'client-certificate'?: string;
  'client-key'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  /** `--as`: the user to impersonate. */
  as?: string;
  /** `--as-group` (repeatable): groups to impersonate, with `as`. */
  'as-group'?: string[];
  /** `--as-uid`: the uid to impersonate, with `as`. */
  'as-uid'?: string;
};

/** What `loadRestConfig` needs; only src/cli builds it from the real process. */
export interface LoadOptions {
  /** Flags by long name: the ones in ConfigFlags are read (the CLI passes all it parsed). */
  flags: Readonly<Record<string, unknown>>;
  env: Record<string, string | undefined>;
  cwd: string;
  logger: Logger;
  clock: Clock;
  /** Where exec plugins' stderr goes when they succeed (kubectl passes it through). */
  stderr: Output;
  /** Whether standard input is a terminal (exec `interactiveMode`). Default: false. */
  stdinIsTTY?: boolean;
  /** The service-account directory for in-cluster config (tests). */
  serviceAccountDir?: string;
  /** The home directory (default: env.HOME, then env.USERPROFILE). */
  homeDir?: string;
  /**
   * The merged kubeconfig of these flags and environment, already read (a fleet reads the files once
   * for all its contexts): the files are not read again.
   */
  merged?: MergedKubeconfig;
}

export const DEFAULT_SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
