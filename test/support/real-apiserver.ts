/**
 * A real kube-apiserver (v1.32) and its etcd, started on free ports for a test file or a benchmark run,
 * from controller-runtime envtest's asset layout: `$KUBEBUILDER_ASSETS/{kube-apiserver,etcd}` (see
 * ../shared/tools/kube-apiserver/README.md and test/support/README.md).
 *
 * Three users: an admin with a bearer token, an admin with a client certificate (O=system:masters,
 * signed by a client CA made here), and a token user with no RBAC rights; a kubeconfig for each.
 * The API server can be stopped gracefully (SIGTERM: the old process keeps serving its open watches
 * for about a minute), abruptly (SIGKILL) and started again on the same port, over the same etcd.
 *
 * Plain functions, no node:test: the benchmark uses them too. Every child process gets
 * PR_SET_PDEATHSIG (through util-linux's `setpriv`), so it dies with the process that started it even
 * on a crash or a SIGKILL; a normal exit, or SIGINT/SIGTERM/SIGHUP, also removes the temp dirs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { certificatePem, generateServingCerts, rsaKeys, selfSignedCa, serial, validity } from './apiserver/tls.js';

/** Why real-server tests skip on a machine without the assets (one message, as for a missing kubectl). */
export const NO_REAL_APISERVER =
  'KUBEBUILDER_ASSETS is not set (or lacks kube-apiserver and etcd): the real kube-apiserver tests are skipped; ' +
  '.ci/run prepares them from ../shared/tools/kube-apiserver (see test/support/README.md)';

/** The envtest asset directory holding `kube-apiserver` and `etcd`, or undefined when there is none. */
export function realAssets(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = env.KUBEBUILDER_ASSETS;
  if (!dir) return undefined;
  return existsSync(join(dir, 'kube-apiserver')) && existsSync(join(dir, 'etcd')) ? dir : undefined;
}

// ---------------------------------------------------------------------------------------------
// Child processes that die with us, and temp dirs removed on exit.

const liveChildren = new Set<ChildProcess>();
const liveDirs = new Set<string>();
let exitHooksInstalled = false;

function cleanUpNow(): void {
  for (const child of liveChildren) child.kill('SIGKILL');
  liveChildren.clear();
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
  liveDirs.clear();
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on('exit', cleanUpNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      cleanUpNow();
      // Nobody else handles it: die of it, as the process would have without this hook.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.once(signal, onSignal);
  }
}

let pdeathsig: boolean | undefined;
/** `setpriv --pdeathsig KILL -- cmd`: the kernel kills cmd when its parent dies (util-linux). */
function diesWithParent(cmd: string, args: string[]): [string, string[]] {
  pdeathsig ??= spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' }).status === 0;
  return pdeathsig ? ['setpriv', ['--pdeathsig', 'KILL', '--', cmd, ...args]] : [cmd, args];
}

interface Proc {
  child: ChildProcess;
  exited: Promise<void>;
  hasExited(): boolean;
}

/** Starts `cmd` with stdout and stderr appended to `logFile`. */
function startProcess(cmd: string, args: string[], logFile: string): Proc {
  installExitHooks();
  const fd = openSync(logFile, 'a');
  const [file, argv] = diesWithParent(cmd, args);
  const child = spawn(file, argv, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  liveChildren.add(child);
  let done = false;
  const exited = new Promise<void>((resolve) => {
    const finish = () => {
      done = true;
      liveChildren.delete(child);
      resolve();
    };
    child.once('exit', finish);
    child.once('error', finish); // could not start (the readiness wait then reports the log)
  });
  return { child, exited, hasExited: () => done };
}

async function stopProcess(proc: Proc, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (proc.hasExited()) return;
  proc.child.kill(signal);
  await proc.exited;
}

/** A temp dir removed on exit; it names its owner's pid, so a later run removes it after a SIGKILL. */
function tempDir(prefix: string, parent = tmpdir()): string {
  installExitHooks();
  sweepOrphans(prefix, parent);
  const dir = mkdtempSync(join(parent, prefix));
  writeFileSync(join(dir, OWNER_FILE), String(process.pid));
  liveDirs.add(dir);
  return dir;
}

const OWNER_FILE = 'owner.pid';

function sweepOrphans(prefix: string, parent: string): void {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(prefix)) continue;
    const owner = ownerOf(join(parent, name));
    if (owner !== undefined && !alive(owner)) rmSync(join(parent, name), { recursive: true, force: true });
  }
}

/** The pid in dir's owner file; undefined when there is none yet (a dir another process is creating). */
function ownerOf(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  liveDirs.delete(dir);
}

function logTail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** `n` distinct ports nothing listens on right now (the kernel's picks, held open together so they differ). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: n }, () => new Promise<Server>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  })));
  const ports = servers.map((srv) => (srv.address() as AddressInfo).port);
  await Promise.all(servers.map((srv) => new Promise((resolve) => srv.close(resolve))));
  return ports;
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, timeoutMs: number, proc: Proc, logFile: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.hasExited()) throw new Error(`${what}: the process exited before it was ready; log tail:\n${logTail(logFile)}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not ready after ${timeoutMs} ms; log tail:\n${logTail(logFile)}`);
    await sleep(100);
  }
}

// ---------------------------------------------------------------------------------------------
// etcd

export interface Etcd {
  /** `http://127.0.0.1:PORT` (what `--etcd-servers` takes). */
  endpoint: string;
  /** The store's current revision (the API server's resourceVersions are etcd revisions). */
  revision(): Promise<number>;
  /** Writes a key outside any API server's prefix; returns the new revision. */
  put(key: string, value: string): Promise<number>;
  /** Compacts history up to `revision` (default: the current one): watches from older versions get 410. */
  compact(revision?: number): Promise<number>;
  stop(): Promise<void>;
}

export interface EtcdOptions {
  assets?: string;
}

/** Starts etcd on free ports, its data in memory (/dev/shm) where there is one: no fsync stalls on a busy disk. */
export async function startEtcd(options: EtcdOptions = {}): Promise<Etcd> {
  const assets = options.assets ?? realAssets();
  if (!assets) throw new Error(NO_REAL_APISERVER);
  const dir = tempDir('kdyn-etcd-', existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
  const logFile = join(dir, 'etcd.log');
  // Another process may take a port between our pick and etcd's bind: then pick again.
  for (let attempt = 1; ; attempt++) {
    const [port, peer] = await freePorts(2);
    const endpoint = `http://127.0.0.1:${port}`;
    const peerUrl = `http://127.0.0.1:${peer}`;
    const proc = startProcess(join(assets, 'etcd'), [
      '--name=default', `--data-dir=${join(dir, 'data')}`,
      `--listen-client-urls=${endpoint}`, `--advertise-client-urls=${endpoint}`,
      `--listen-peer-urls=${peerUrl}`, `--initial-advertise-peer-urls=${peerUrl}`, `--initial-cluster=default=${peerUrl}`,
      '--log-level=warn',
    ], logFile);
    try {
      await waitFor('etcd', 30_000, proc, logFile, async () => (await httpJson('GET', `${endpoint}/health`)).body.includes('"true"'));
      return {
        ...etcdAt(endpoint),
        stop: async () => {
          await stopProcess(proc);
          removeDir(dir);
        },
      };
    } catch (e) {
      await stopProcess(proc);
      if (attempt < 3 && /address already in use/.test(logTail(logFile, 10))) {
        rmSync(join(dir, 'data'), { recursive: true, force: true }); // bootstrapped with the old peer URL
        continue;
      }
      removeDir(dir);
      throw e;
    }
  }
}

/** An etcd known by its endpoint, through its v3 JSON gateway (keys and values in base64); stop() leaves it alone. */
export function etcdAt(endpoint: string): Etcd {
  const gateway = async (path: string, body: object) => {
    const res = await httpJson('POST', `${endpoint}${path}`, JSON.stringify(body));
    if (res.status !== 200) throw new Error(`etcd ${path}: HTTP ${res.status} ${res.body}`);
    return JSON.parse(res.body) as { header?: { revision?: string } };
  };
  const revision = async () => Number((await gateway('/v3/kv/range', { key: b64('/'), limit: 1 })).header?.revision);
  return {
    endpoint,
    revision,
    put: async (key, value) => Number((await gateway('/v3/kv/put', { key: b64(key), value: b64(value) })).header?.revision),
    compact: async (rev) => {
      const target = rev ?? (await revision());
      await gateway('/v3/kv/compaction', { revision: String(target), physical: true });
      return target;
    },
    stop: async () => undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// kube-apiserver

export interface RealClusterOptions {
  /** The envtest asset dir (default: $KUBEBUILDER_ASSETS). */
  assets?: string;
  /** Use this etcd (a handle or its endpoint) instead of starting one; it is left running by stop(). */
  etcd?: Etcd | string;
  /** `--etcd-prefix`: clusters sharing an etcd need different ones (default: a random one). */
  etcdPrefix?: string;
  /** More kube-apiserver flags, e.g. `--watch-cache-sizes=podtemplates#0`. */
  extraFlags?: string[];
  /** How long to wait for `/readyz` (default 120 s: a loaded 2-core machine, or many CRDs). */
  readyTimeoutMs?: number;
}

export interface RealResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RealCluster {
  /** `https://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** The CA of the serving certificate. */
  caPem: string;
  /** The cluster's temp dir (kubeconfigs, certificates, the API server's log); removed by stop(). */
  dir: string;
  kubeconfigs: {
    /** Admin (system:masters) with a bearer token. */
    token: string;
    /** Admin (system:masters) with a client certificate and key. */
    clientCert: string;
    /** A token user with no RBAC rights at all (authenticated, then forbidden). */
    noRights: string;
  };
  tokens: { admin: string; noRights: string };
  /** The client certificate and key of the certificate admin (PEM). */
  clientCert: { certPem: string; keyPem: string };
  etcd: Etcd;
  etcdPrefix: string;
  /** The running API server's pid (undefined while stopped). */
  pid(): number | undefined;
  /** The API server's log so far (all its processes). */
  log(): string;
  /** One request as the token admin; `body` is sent as JSON unless `contentType` says otherwise. */
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<RealResponse>;
  /**
   * Stops the API server. graceful: SIGTERM, resolved once the port refuses connections (the old
   * process goes on serving its open watches for about 60 s); abrupt (the default): SIGKILL, resolved
   * once it exited.
   */
  kill(options?: { graceful: boolean }): Promise<void>;
  /** Starts the API server again on the same port and waits for `/readyz`. */
  start(): Promise<void>;
  /** Resolves when every API server stopped gracefully has exited (its open watches ended). */
  drained(): Promise<void>;
  /** kill(options), then start(). */
  restart(options: { graceful: boolean }): Promise<void>;
  /** Stops every process (old draining ones included), etcd if it was started here, and removes dir. */
  stop(): Promise<void>;
}

const ADMIN_TOKEN = 'kdyn-real-admin-token';
const NO_RIGHTS_TOKEN = 'kdyn-real-no-rights-token';
/** The user of `kubeconfigs.noRights` (a Role bound to it gives it rights in a namespace). */
export const NO_RIGHTS_USER = 'kdyn-nobody';

export async function startRealApiServer(options: RealClusterOptions = {}): Promise<RealCluster> {
  const assets = options.assets ?? realAssets();
  if (!assets) throw new Error(NO_REAL_APISERVER);
  const ownEtcd = options.etcd === undefined ? await startEtcd({ assets }) : undefined;
  const etcd = ownEtcd ?? (typeof options.etcd === 'string' ? etcdAt(options.etcd) : (options.etcd as Etcd));
  const dir = tempDir('kdyn-real-apiserver-');
  try {
    return await startInDir(assets, dir, etcd, ownEtcd, options);
  } catch (e) {
    await ownEtcd?.stop();
    removeDir(dir);
    throw e;
  }
}

async function startInDir(assets: string, dir: string, etcd: Etcd, ownEtcd: Etcd | undefined, options: RealClusterOptions): Promise<RealCluster> {
  const [port] = await freePorts(1);
  const url = `https://127.0.0.1:${port}`;
  const etcdPrefix = options.etcdPrefix ?? `/kdyn-${randomBytes(4).toString('hex')}`;
  const files = await writeCredentials(dir);
  const kubeconfigs = {
    token: join(dir, 'kubeconfig-token'),
    clientCert: join(dir, 'kubeconfig-client-cert'),
    noRights: join(dir, 'kubeconfig-no-rights'),
  };
  writeFileSync(kubeconfigs.token, kubeconfig(url, files.caPem, 'admin', { token: ADMIN_TOKEN }));
  writeFileSync(kubeconfigs.clientCert, kubeconfig(url, files.caPem, 'admin-cert', { 'client-certificate-data': b64(files.clientCertPem), 'client-key-data': b64(files.clientKeyPem) }));
  writeFileSync(kubeconfigs.noRights, kubeconfig(url, files.caPem, 'no-rights', { token: NO_RIGHTS_TOKEN }));

  const logFile = join(dir, 'kube-apiserver.log');
  const flags = [
    `--etcd-servers=${etcd.endpoint}`, `--etcd-prefix=${etcdPrefix}`,
    '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1', `--secure-port=${port}`,
    `--tls-cert-file=${files.servingCert}`, `--tls-private-key-file=${files.servingKey}`,
    `--token-auth-file=${files.tokens}`, `--client-ca-file=${files.clientCa}`,
    '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc',
    `--service-account-key-file=${files.saPub}`, `--service-account-signing-key-file=${files.saKey}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    '--enable-priority-and-fairness=false',
    // The "kubernetes" Endpoints object cannot hold a loopback address: without this the server
    // logs an error about it every 10 s.
    '--endpoint-reconciler-type=none',
    ...(options.extraFlags ?? []),
  ];
  let current: Proc | undefined;
  const draining = new Set<Proc>();
  const caPem = files.caPem;
  const request = (method: string, path: string, body?: unknown, contentType = 'application/json') =>
    httpJson(method, `${url}${path}`, body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body), { ca: caPem, token: ADMIN_TOKEN, contentType });

  const start = async (): Promise<void> => {
    if (current && !current.hasExited()) throw new Error('kube-apiserver is already running');
    const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
    for (;;) {
      // After a graceful stop the old process may hold the port a moment longer: try again then.
      while (await listening(port)) {
        if (Date.now() > deadline) throw new Error(`kube-apiserver: port ${port} still taken`);
        await sleep(100);
      }
      const proc = startProcess(join(assets, 'kube-apiserver'), flags, logFile);
      current = proc;
      try {
        await waitFor('kube-apiserver', Math.max(1, deadline - Date.now()), proc, logFile, async () => (await request('GET', '/readyz')).body === 'ok');
        return;
      } catch (e) {
        await stopProcess(proc);
        current = undefined;
        if (!/address already in use/.test(logTail(logFile, 5)) || Date.now() > deadline) throw e;
      }
    }
  };

  const kill = async ({ graceful } = { graceful: false }): Promise<void> => {
    const proc = current;
    current = undefined;
    if (!proc || proc.hasExited()) return;
    if (!graceful) return stopProcess(proc, 'SIGKILL');
    draining.add(proc);
    void proc.exited.then(() => draining.delete(proc));
    proc.child.kill('SIGTERM');
    while (!proc.hasExited() && (await listening(port))) await sleep(50);
  };

  const stop = async (): Promise<void> => {
    const procs = [current, ...draining].filter((p): p is Proc => p !== undefined);
    current = undefined;
    await Promise.all(procs.map((p) => stopProcess(p)));
    await ownEtcd?.stop();
    removeDir(dir);
  };

  await start();
  return {
    url,
    port,
    caPem,
    dir,
    kubeconfigs,
    tokens: { admin: ADMIN_TOKEN, noRights: NO_RIGHTS_TOKEN },
    clientCert: { certPem: files.clientCertPem, keyPem: files.clientKeyPem },
    etcd,
    etcdPrefix,
    pid: () => (current && !current.hasExited() ? current.child.pid : undefined),
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    request,
    kill,
    start,
    drained: async () => {
      await Promise.all([...draining].map((p) => p.exited));
    },
    restart: async (opts) => {
      await kill(opts);
      await start();
    },
    stop,
  };
}

// ---------------------------------------------------------------------------------------------
// Credentials and kubeconfigs

interface CredentialFiles {
  caPem: string;
  servingCert: string;
  servingKey: string;
  clientCa: string;
  clientCertPem: string;
  clientKeyPem: string;
  tokens: string;
  saPub: string;
  saKey: string;
}

async function writeCredentials(dir: string): Promise<CredentialFiles> {
  const pki = join(dir, 'pki');
  mkdirSync(pki);
  const [serving, client, sa] = await Promise.all([
    generateServingCerts(['127.0.0.1', 'localhost']),
    clientCertificate('kdyn-cert-admin', ['system:masters']),
    rsaKeys(), // the service-account token signing key
  ]);
  const files = {
    servingCert: join(pki, 'apiserver.crt'),
    servingKey: join(pki, 'apiserver.key'),
    clientCa: join(pki, 'client-ca.crt'),
    tokens: join(pki, 'tokens.csv'),
    saPub: join(pki, 'sa.pub'),
    saKey: join(pki, 'sa.key'),
  };
  writeFileSync(files.servingCert, serving.certPem);
  writeFileSync(files.servingKey, serving.keyPem, { mode: 0o600 });
  writeFileSync(files.clientCa, client.caPem);
  // token,user,uid,"groups": system:masters is bound to cluster-admin; the second user has no binding.
  writeFileSync(files.tokens, `${ADMIN_TOKEN},kdyn-admin,uid-admin,"system:masters"\n${NO_RIGHTS_TOKEN},${NO_RIGHTS_USER},uid-nobody\n`, { mode: 0o600 });
  writeFileSync(files.saPub, sa.publicPem);
  writeFileSync(files.saKey, sa.privatePem, { mode: 0o600 });
  return { ...files, caPem: serving.caPem, clientCertPem: client.certPem, clientKeyPem: client.keyPem };
}

/** A client CA and a certificate for `user` in `groups` (X.509 O) signed by it. */
async function clientCertificate(user: string, groups: string[]): Promise<{ caPem: string; certPem: string; keyPem: string }> {
  const [caKeys, keys] = await Promise.all([rsaKeys(), rsaKeys()]);
  const { ca, caPriv, caSubject } = selfSignedCa(caKeys, 'kdyn-real-client-ca', new Date());
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicPem);
  cert.serialNumber = serial();
  validity(cert, new Date());
  cert.setSubject([{ name: 'commonName', value: user }, ...groups.map((g) => ({ name: 'organizationName', value: g }))]);
  cert.setIssuer(caSubject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', clientAuth: true },
  ]);
  cert.sign(caPriv, forge.md.sha256.create());
  return { caPem: certificatePem(ca), certPem: certificatePem(cert), keyPem: keys.privatePem };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

function kubeconfig(url: string, caPem: string, user: string, auth: Record<string, string>): string {
  const userLines = Object.entries(auth).map(([k, v]) => `    ${k}: ${v}`).join('\n');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: real',
    '  cluster:',
    `    server: ${url}`,
    `    certificate-authority-data: ${b64(caPem)}`,
    'users:',
    `- name: ${user}`,
    '  user:',
    userLines,
    'contexts:',
    `- name: ${user}@real`,
    '  context:',
    '    cluster: real',
    `    user: ${user}`,
    `current-context: ${user}@real`,
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// A bare HTTP(S) client for set-up and readiness (not kdyn's own transport: the harness must not
// depend on the code under test).

function httpJson(method: string, url: string, body?: string, opts: { ca?: string; token?: string; contentType?: string } = {}): Promise<RealResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    if (body !== undefined) headers['Content-Type'] = opts.contentType ?? 'application/json';
    const req = (url.startsWith('https:') ? httpsRequest : httpRequest)(url, { method, headers, ca: opts.ca, timeout: 30_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}
