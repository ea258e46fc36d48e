/**
 * Runs the installed kubectl as an oracle for printer tests: offline commands
 * (`label --local`, `create --dry-run=client`) and `kubectl get` against a tiny HTTP server that
 * serves one namespace of ConfigMaps given by the test (legacy discovery only). The server exists
 * only to feed kubectl; kdyn's printers are called directly on the same objects.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export { hasKubectl } from './cli.js';

export interface KubectlResult {
  status: number;
  stdout: string;
  stderr: string;
}

export class KubectlOracle {
  readonly dir = mkdtempSync(join(tmpdir(), 'kdyn-printers-'));
  private readonly kubeconfig = join(this.dir, 'kubeconfig');
  private server: Server | undefined;
  private url = '';
  private items: unknown[] = [];

  constructor() {
    writeFileSync(this.kubeconfig, '');
  }

  private env(): NodeJS.ProcessEnv {
    return { ...process.env, KUBECONFIG: this.kubeconfig, HOME: this.dir, KUBECACHEDIR: join(this.dir, 'cache') };
  }

  /** Runs kubectl synchronously (only for commands that need no server). */
  run(args: string[]): KubectlResult {
    const r = spawnSync('kubectl', args, { encoding: 'utf8', env: this.env() });
    return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  }

  /** Runs kubectl without blocking the event loop (the fixture server lives in this process). */
  runAsync(args: string[]): Promise<KubectlResult> {
    return new Promise((resolve, reject) => {
      const child = spawn('kubectl', args, { env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
      child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
      child.on('error', reject);
      child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
    });
  }

  /** Writes `obj` to a temp file and runs `kubectl label --local -f FILE nonexist- ...args` (no server). */
  local(obj: unknown, args: string[]): KubectlResult {
    const file = join(this.dir, 'obj.json');
    writeFileSync(file, JSON.stringify(obj));
    return this.run(['label', '--local', '-f', file, 'kdyn-nonexistent-', ...args]);
  }

  /** `obj` as kubectl's printers see it after `label --local` (it adds metadata.labels: {}). */
  seen(obj: unknown): unknown {
    const r = this.local(obj, ['-o', 'json']);
    if (r.status !== 0) throw new Error(`kubectl label --local failed: ${r.stderr}`);
    return JSON.parse(r.stdout);
  }

  /** Serves `items` as the ConfigMaps of namespace `ns1` and runs `kubectl get configmaps -n ns1 ...args`. */
  async get(items: unknown[], args: string[]): Promise<KubectlResult> {
    this.items = items;
    if (!this.server) await this.start();
    return this.runAsync(['--server', this.url, '--cache-dir', join(this.dir, 'cache'), 'get', 'configmaps', '-n', 'ns1', ...args]);
  }

  private async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      const send = (body: unknown) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (path === '/api') return send({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] });
      if (path === '/apis') return send({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] });
      if (path === '/api/v1') {
        return send({
          kind: 'APIResourceList', groupVersion: 'v1',
          resources: [{ name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['get', 'list'], shortNames: ['cm'] }],
        });
      }
      if (path === '/api/v1/namespaces/ns1/configmaps') {
        return send({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: this.items });
      }
      const one = /^\/api\/v1\/namespaces\/ns1\/configmaps\/([^/]+)$/.exec(path);
      const found = one && this.items.find((o) => (o as { metadata: { name: string } }).metadata.name === one[1]);
      if (found) return send(found);
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `not found: ${path}` }));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const addr = this.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    this.url = `http://127.0.0.1:${addr.port}`;
  }

  async close(): Promise<void> {
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
