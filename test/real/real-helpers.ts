/**
 * Shared set-up of the real-server tests (test/real): one real kube-apiserver per test file (it takes
 * 5-10 s to start), a fresh namespace per test (namespaces never finish deleting without a
 * controller-manager), and the built kdyn and kubectl run against it, each with its own HOME (so its
 * own discovery cache) unless a test shares one on purpose.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasKubectl, runCommand, runKdyn, type Run } from '../support/cli.js';
import { NO_REAL_APISERVER, NO_RIGHTS_USER, realAssets, startRealApiServer, type RealCluster, type RealClusterOptions } from '../support/real-apiserver.js';

export type { Run };

/** A describe()'s `skip`: false with the assets, else the one message saying why. */
export const SKIP_REAL: string | false = realAssets() ? false : NO_REAL_APISERVER;
export const HAS_KUBECTL = hasKubectl();
export const NO_KUBECTL = 'kubectl not on PATH: the comparison with kubectl did not run';

export interface ToolOptions {
  /** Which kubeconfig (default: the token admin's). */
  kubeconfig?: keyof RealCluster['kubeconfigs'];
  /** HOME, under the env's dir (default: `home-kdyn` / `home-kubectl`; the same name shares a cache). */
  home?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  stdin?: string;
}

export interface RealEnv {
  cluster: RealCluster;
  dir: string;
  kdyn(args: readonly string[], opts?: ToolOptions): Promise<Run>;
  kubectl(args: readonly string[], opts?: ToolOptions): Promise<Run>;
  /** The whole environment the tools run with: PATH, HOME (`<dir>/<home>`, created) and KUBECONFIG. */
  toolEnv(home: string, opts?: ToolOptions): Record<string, string | undefined>;
  /** Creates a namespace named `prefix-N` and returns its name. */
  namespace(prefix: string): Promise<string>;
  /** Creates `body` at `path` as the admin; throws unless the server answers 2xx. */
  create(path: string, body: object): Promise<Record<string, unknown>>;
  /**
   * Gives the `noRights` user a Role with `rules` in `ns` (a viewer: its kubeconfig then works
   * there); `unbind()` deletes the RoleBinding (the Role revoked), `bind()` makes it again.
   */
  grant(ns: string, rules: object[]): Promise<RoleGrant>;
  stop(): Promise<void>;
}

export interface RoleGrant {
  bind(): Promise<void>;
  unbind(): Promise<void>;
}

export async function startRealEnv(options: RealClusterOptions = {}): Promise<RealEnv> {
  const cluster = await startRealApiServer(options);
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-real-test-'));
  let serial = 0;
  const envFor = (home: string, opts: ToolOptions = {}) => {
    mkdirSync(join(dir, home), { recursive: true });
    return { PATH: process.env.PATH, HOME: join(dir, home), KUBECONFIG: cluster.kubeconfigs[opts.kubeconfig ?? 'token'], ...opts.env };
  };
  const create = async (path: string, body: object) => {
    const res = await cluster.request('POST', path, body);
    if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${res.body}`);
    return JSON.parse(res.body) as Record<string, unknown>;
  };
  return {
    cluster,
    dir,
    kdyn: (args, opts = {}) => runKdyn(args, { env: envFor(opts.home ?? 'home-kdyn', opts), cwd: dir, timeoutMs: opts.timeoutMs, stdin: opts.stdin }),
    kubectl: (args, opts = {}) => runCommand('kubectl', args, { env: envFor(opts.home ?? 'home-kubectl', opts), cwd: dir, timeoutMs: opts.timeoutMs, stdin: opts.stdin }),
    toolEnv: envFor,
    namespace: async (prefix) => {
      const name = `${prefix}-${++serial}`;
      await create('/api/v1/namespaces', { metadata: { name } });
      return name;
    },
    create,
    grant: async (ns, rules) => {
      const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}`;
      await create(`${rbac}/roles`, { metadata: { name: 'viewer' }, rules });
      const binding = { metadata: { name: 'viewer' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'viewer' }, subjects: [{ kind: 'User', name: NO_RIGHTS_USER, apiGroup: 'rbac.authorization.k8s.io' }] };
      const grant: RoleGrant = {
        bind: async () => void (await create(`${rbac}/rolebindings`, binding)),
        unbind: async () => {
          const res = await cluster.request('DELETE', `${rbac}/rolebindings/viewer`);
          if (res.status >= 300) throw new Error(`DELETE rolebinding viewer in ${ns}: ${res.status} ${res.body}`);
        },
      };
      await grant.bind();
      return grant;
    },
    stop: async () => {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs kdyn and kubectl with the same arguments at the same moment, up to three times while their
 * outputs differ: server-side tables carry an AGE cell the server computes per request, and two
 * runs can straddle a second. On a loaded machine the two runs can be seconds apart every time:
 * compare their stdout with `assertSameTables` (test/support/table-ages.ts), which allows for that
 * in the AGE cells only. A real difference stays a difference.
 */
export async function sideBySide(env: RealEnv, args: readonly string[], opts: ToolOptions = {}): Promise<{ k: Run; c: Run }> {
  let pair: { k: Run; c: Run } | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const [k, c] = await Promise.all([env.kdyn(args, opts), env.kubectl(args, opts)]);
    pair = { k, c };
    if (k.out === c.out && k.code === c.code) break;
  }
  return pair!;
}
