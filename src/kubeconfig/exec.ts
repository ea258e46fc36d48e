/**
 * client-go credential plugins (client-go/plugin/pkg/client/auth/exec/exec.go):
 * runs the kubeconfig's `exec.command` with `KUBERNETES_EXEC_INFO` set to an ExecCredential,
 * reads an ExecCredential from its stdout (a token, or a client certificate and key), caches it in
 * memory until `expirationTimestamp`, and runs the plugin again after a 401.
 */
import { spawn } from 'node:child_process';
import { KdynError, oneLine } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import type { Output } from '../core/io.js';
import type { Logger } from '../core/log.js';
import type { ClientCertificate, CredentialProvider, ExecConfig } from './types.js';

/** A credential plugin could not be run or gave an unusable answer. Exit code 1. */
export class CredentialError extends KdynError {}

const API_VERSIONS = new Set(['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1']);
export const EXEC_INFO_EXTENSION = 'client.authentication.k8s.io/exec';

/** What `provideClusterInfo` passes to the plugin (ExecCredential.spec.cluster). */
export interface ExecClusterInfo {
  server: string;
  tlsServerName?: string;
  insecureSkipTLSVerify?: boolean;
  caData?: Buffer;
  proxyUrl?: string;
  config?: unknown;
}

export interface ExecProviderOptions {
  exec: ExecConfig;
  userName: string;
  cluster: ExecClusterInfo;
  /** The environment the plugin inherits (kdyn's own). */
  env: Record<string, string | undefined>;
  clock: Clock;
  logger: Logger;
  /** Where a successful plugin's stderr is passed on. */
  stderr: Output;
  stdinIsTTY: boolean;
}

interface Credential {
  authorization?: string;
  cert?: ClientCertificate;
  /** ms since the epoch; undefined = until the next 401. */
  expiresAt?: number;
}

/** Validates the exec stanza the way client-go does when the client config is built. */
export function validateExecConfig(exec: ExecConfig, userName: string): void {
  if (!exec.command) throw new CredentialError(`exec plugin for user "${userName}": "command" must be set`);
  if (!exec.apiVersion || !API_VERSIONS.has(exec.apiVersion)) {
    throw new CredentialError(`exec plugin: invalid apiVersion "${exec.apiVersion ?? ''}"`);
  }
  const mode = exec.interactiveMode;
  if (mode !== undefined && mode !== 'Never' && mode !== 'IfAvailable' && mode !== 'Always') {
    throw new CredentialError(`invalid interactiveMode: "${String(mode)}"`);
  }
  if (exec.apiVersion === 'client.authentication.k8s.io/v1' && !mode) {
    throw new CredentialError(`interactiveMode must be specified for ${userName} to use exec authentication plugin`);
  }
}

export function createExecProvider(o: ExecProviderOptions): CredentialProvider {
  validateExecConfig(o.exec, o.userName);
  let cached: Credential | undefined;
  let inflight: Promise<Credential> | undefined;

  const current = async (): Promise<Credential> => {
    if (cached && (cached.expiresAt === undefined || o.clock.now() < cached.expiresAt)) return cached;
    inflight ??= runPlugin(o).then(
      (c) => {
        cached = c;
        inflight = undefined;
        return c;
      },
      (e: unknown) => {
        inflight = undefined;
        throw e;
      },
    );
    return inflight;
  };

  return {
    kind: 'exec',
    getAuthorization: async () => (await current()).authorization,
    getClientCertificate: async () => (await current()).cert,
    async refreshAfterUnauthorized() {
      if (!cached) return false;
      o.logger.info(4, 'exec plugin: the server answered 401, running the plugin again', 'exec.go:1');
      cached = undefined;
      return true;
    },
  };
}

/** The ExecCredential kdyn writes to KUBERNETES_EXEC_INFO. */
export function execInfo(o: Pick<ExecProviderOptions, 'exec' | 'cluster'>, interactive: boolean): Record<string, unknown> {
  const spec: Record<string, unknown> = { interactive };
  if (o.exec.provideClusterInfo) {
    const c = o.cluster;
    const cluster: Record<string, unknown> = { server: c.server };
    if (c.tlsServerName) cluster['tls-server-name'] = c.tlsServerName;
    if (c.insecureSkipTLSVerify) cluster['insecure-skip-tls-verify'] = true;
    if (c.caData && c.caData.length > 0) cluster['certificate-authority-data'] = c.caData.toString('base64');
    if (c.proxyUrl) cluster['proxy-url'] = c.proxyUrl;
    if (c.config !== undefined) cluster.config = c.config;
    spec.cluster = cluster;
  }
  return { kind: 'ExecCredential', apiVersion: o.exec.apiVersion, spec };
}

function interactiveFor(mode: string | undefined, isTTY: boolean): boolean {
  switch (mode ?? 'IfAvailable') {
    case 'Never':
      return false;
    case 'Always':
      if (!isTTY) throw new CredentialError('getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal');
      return true;
    default:
      return isTTY;
  }
}

async function runPlugin(o: ExecProviderOptions): Promise<Credential> {
  const { exec } = o;
  const command = exec.command!;
  const interactive = interactiveFor(exec.interactiveMode, o.stdinIsTTY);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.env)) if (v !== undefined) env[k] = v;
  for (const e of exec.env ?? []) if (e && e.name) env[e.name] = e.value ?? '';
  env.KUBERNETES_EXEC_INFO = JSON.stringify(execInfo(o, interactive));

  const started = o.clock.now();
  const { code, stdout, stderr, spawnError } = await new Promise<{ code: number | null; stdout: Buffer; stderr: string; spawnError?: NodeJS.ErrnoException }>((resolveRun) => {
    const child = spawn(command, (exec.args ?? []).map(String), {
      env,
      stdio: [interactive ? 'inherit' : 'ignore', 'pipe', interactive ? 'inherit' : 'pipe'],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let spawnError: NodeJS.ErrnoException | undefined;
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e: NodeJS.ErrnoException) => {
      spawnError = e;
    });
    child.on('close', (code) => resolveRun({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), spawnError }));
  });
  o.logger.info(4, `exec plugin ${command} finished after ${o.clock.now() - started}ms`, 'exec.go:1');

  if (spawnError) {
    if (spawnError.code === 'ENOENT') {
      const hint = exec.installHint ? oneLine(exec.installHint) : 'see https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins';
      throw new CredentialError(`getting credentials: exec: executable ${command} not found (it looks like a client-go credential plugin that is not installed; ${hint})`);
    }
    if (spawnError.code === 'EACCES') throw new CredentialError(`getting credentials: exec: executable ${command}: permission denied`);
    throw new CredentialError(`getting credentials: exec: executable ${command}: ${spawnError.message}`);
  }
  if (code !== 0) {
    const detail = stderr.trim() ? `: ${truncate(oneLine(stderr), 500)}` : '';
    throw new CredentialError(`getting credentials: exec: executable ${command} failed with exit code ${code ?? 'unknown (killed by a signal)'}${detail}`);
  }
  if (stderr) o.stderr.write(stderr.endsWith('\n') ? stderr : `${stderr}\n`);
  return parseCredential(stdout, exec.apiVersion!);
}

/** Decodes the plugin's stdout. Messages never include the output itself (it holds secrets). */
export function parseCredential(stdout: Buffer, apiVersion: string): Credential {
  let obj: unknown;
  try {
    obj = JSON.parse(stdout.toString('utf8'));
  } catch {
    throw new CredentialError(`getting credentials: decoding stdout: the exec plugin's output is not JSON (${stdout.length} bytes)`);
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new CredentialError('getting credentials: decoding stdout: the exec plugin did not print an ExecCredential object');
  }
  const cred = obj as { apiVersion?: unknown; kind?: unknown; status?: Record<string, unknown> };
  if (cred.kind !== 'ExecCredential') {
    throw new CredentialError(`getting credentials: decoding stdout: expected kind ExecCredential, got ${JSON.stringify(cred.kind ?? '')}`);
  }
  if (cred.apiVersion !== apiVersion) {
    throw new CredentialError(`getting credentials: exec plugin is configured to use API version ${apiVersion}, plugin returned version ${String(cred.apiVersion ?? '')}`);
  }
  const st = cred.status;
  if (!st || typeof st !== 'object') throw new CredentialError("getting credentials: exec plugin didn't return a status field");
  const token = typeof st.token === 'string' ? st.token : '';
  const certData = typeof st.clientCertificateData === 'string' ? st.clientCertificateData : '';
  const keyData = typeof st.clientKeyData === 'string' ? st.clientKeyData : '';
  if (!token && !certData && !keyData) throw new CredentialError("getting credentials: exec plugin didn't return a token or cert/key pair");
  if (!!certData !== !!keyData) throw new CredentialError('getting credentials: exec plugin returned only certificate or key, not both');
  let expiresAt: number | undefined;
  if (typeof st.expirationTimestamp === 'string' && st.expirationTimestamp) {
    const t = Date.parse(st.expirationTimestamp);
    if (Number.isNaN(t)) throw new CredentialError(`getting credentials: exec plugin returned an invalid expirationTimestamp "${st.expirationTimestamp}"`);
    expiresAt = t;
  }
  return {
    authorization: token ? `Bearer ${token}` : undefined,
    cert: certData ? { cert: Buffer.from(certData, 'utf8'), key: Buffer.from(keyData, 'utf8') } : undefined,
    expiresAt,
  };
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}...` : s;
}
