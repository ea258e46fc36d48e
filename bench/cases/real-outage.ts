/**
 * Issue 21: a watch after an abrupt outage of a real kube-apiserver (`--server real`). Per run: a
 * fresh namespace; `kdyn watch configmaps --watch-only -o name` and the kubectl baseline watch it;
 * probe ConfigMaps show both are watching; the API server is SIGKILLed and the port the tools use
 * refuses connections for the outage; the server is started again; once /readyz says ok the port
 * opens and a ConfigMap is created, and the sample is the time from sending that create until each
 * tool prints it. Target: kdyn within 5 s.
 *
 * The tools reach the server through a gate (bench/port-gate.ts), closed from the kill until /readyz
 * is ok: the API server accepts connections ~6-10 s before it is ready here, and a watch retrying in
 * that window would be back before the object is made, so the figure would depend on where the
 * backoff falls in the start-up window rather than on the retry policy.
 *
 * kubectl's `get -w` exits (status 0) when its watch connection drops, so on its own it never prints
 * that object; the baseline is what a script does about it: `kubectl get -w` re-run every second by a
 * shell loop (listing first, so the loop sees objects created between its runs). Both watch through the
 * same outage at once (their work while waiting is negligible).
 *
 * The 3-minute outage is opt-in (`--case real-watch-outage-180s`): one run takes about 4 minutes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePorts, type RealCluster } from '../../test/support/real-apiserver.js';
import { PortGate } from '../port-gate.js';
import { KDYN_BIN } from '../tools.js';
import type { BenchCase, CaseEnv, CustomSample, Tool } from '../types.js';

const WATCHING_TIMEOUT_MS = 60_000;
const PROBE_INTERVAL_MS = 1000;
/** How long a tool may take to print the object made after the outage before the run fails. */
const EVENT_TIMEOUT_MS = 150_000;

/** A running process whose stdout lines are kept with their arrival times. */
class LineWatcher {
  private readonly lines: Array<{ text: string; at: number }> = [];
  private stderr = '';
  private exited = false;
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly child: ChildProcess, readonly label: string) {
    let partial = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const at = performance.now();
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      for (const text of parts) this.lines.push({ text, at });
      this.wake();
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      if (this.stderr.length < 16_384) this.stderr += chunk;
    });
    child.once('exit', () => {
      this.exited = true;
      this.wake();
    });
  }

  /** In a process group of its own, so stop() also ends a shell's children. */
  static start(label: string, argv: string[], env: Record<string, string>, cwd: string): LineWatcher {
    const child = spawn(argv[0]!, argv.slice(1), { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    live.add(child);
    child.once('exit', () => live.delete(child));
    return new LineWatcher(child, label);
  }

  /**
   * The arrival time of the first line matching `pattern`; undefined when none came within
   * `timeoutMs`. Throws when the process exited without printing one.
   */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<number | undefined> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const hit = this.lines.find((l) => pattern.test(l.text));
      if (hit) return hit.at;
      if (this.exited) throw new Error(`${this.label} exited before printing ${pattern}: ${this.stderrTail()}`);
      const left = deadline - performance.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.add(done);
      });
    }
  }

  /** Like waitFor, but a timeout is an error too. */
  async expect(pattern: RegExp, timeoutMs: number): Promise<number> {
    const at = await this.waitFor(pattern, timeoutMs);
    if (at === undefined) throw new Error(`${this.label} did not print ${pattern} within ${timeoutMs / 1000} s: ${this.stderrTail()}`);
    return at;
  }

  stderrLines(): string[] {
    return this.stderr.split('\n').filter((l) => l.trim() !== '');
  }

  private stderrTail(): string {
    return this.stderrLines().slice(-2).join(' | ') || '(nothing on stderr)';
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
    this.waiters.clear();
  }

  stop(): void {
    killGroup(this.child);
  }
}

/** The watchers' process groups, killed when the harness exits (a crash or Ctrl-C included). */
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of live) killGroup(c);
});

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** Creates an object; returns when the successful request was sent. */
async function create(cluster: RealCluster, path: string, body: object): Promise<number> {
  // Right after /readyz a create can still meet a controller that has not synced: try for a while.
  const deadline = performance.now() + 30_000;
  for (;;) {
    const sent = performance.now();
    const res = await cluster.request('POST', path, body).catch((e: Error) => ({ status: 0, body: e.message }));
    if (res.status === 201) return sent;
    if (performance.now() > deadline) throw new Error(`POST ${path}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
    await delay(100);
  }
}

let runNumber = 0;

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const line = (name: string) => new RegExp(`/${name}$`);

/**
 * Creates a probe ConfigMap every second until each watcher has printed one: then both are watching
 * (`--watch-only` prints nothing made before its watch began).
 */
async function untilWatching(watchers: LineWatcher[], configmap: (name: string) => Promise<number>): Promise<void> {
  const deadline = performance.now() + WATCHING_TIMEOUT_MS;
  const waiting = new Set(watchers);
  for (let i = 1; waiting.size > 0; i++) {
    if (performance.now() > deadline) throw new Error(`${[...waiting].map((w) => w.label).join(' and ')}: no probe printed within ${WATCHING_TIMEOUT_MS / 1000} s`);
    await configmap(`probe-${i}`);
    await Promise.all(
      [...waiting].map(async (w) => {
        if ((await w.waitFor(/\/probe-\d+$/, PROBE_INTERVAL_MS)) !== undefined) waiting.delete(w);
      }),
    );
  }
}

/** The token kubeconfig with its server moved to the gate's port (the serving certificate is for 127.0.0.1, any port). */
function gatedKubeconfig(cluster: RealCluster, gate: PortGate, dir: string): string {
  const file = join(dir, 'kubeconfig-gated');
  const text = readFileSync(cluster.kubeconfigs.token, 'utf8').replace(`server: ${cluster.url}`, `server: https://127.0.0.1:${gate.port}`);
  writeFileSync(file, text);
  return file;
}

async function outageRun(env: CaseEnv, outageMs: number): Promise<CustomSample> {
  const cluster = env.server?.cluster;
  if (!cluster) throw new Error('the outage cases need the real API server (--server real)');
  if (!env.kubectl) throw new Error('kubectl not on PATH');
  if (cluster.pid() === undefined) await cluster.start(); // an earlier run failed while it was down
  const ns = `outage-${process.pid}-${++runNumber}`;
  await create(cluster, '/api/v1/namespaces', { metadata: { name: ns } });
  const configmap = (name: string) => create(cluster, `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } });

  const [gatePort] = await freePorts(1);
  const gate = new PortGate(gatePort!, cluster.port);
  await gate.open();
  const kubeconfig = gatedKubeconfig(cluster, gate, env.tmp);
  const toolEnv = (tool: Tool) => ({ ...env.toolEnv(tool), KUBECONFIG: kubeconfig });
  const kdyn = LineWatcher.start('kdyn watch', [KDYN_BIN, 'watch', 'configmaps', '-n', ns, '--watch-only', '-o', 'name'], toolEnv('kdyn'), env.tmp);
  const loop = `while :; do "$0" get configmaps -n ${ns} -w -o name; sleep 1; done`;
  const kubectl = LineWatcher.start('kubectl get -w (loop)', ['/bin/sh', '-c', loop, env.kubectl], toolEnv('baseline'), env.tmp);
  try {
    await untilWatching([kdyn, kubectl], configmap);

    const down = performance.now();
    await Promise.all([gate.close(), cluster.kill({ graceful: false })]);
    await delay(Math.max(0, outageMs - (performance.now() - down)));
    const restarting = performance.now();
    await cluster.start();
    await gate.open();
    const created = await configmap('after');
    const [k, b] = await Promise.all([kdyn.expect(line('after'), EVENT_TIMEOUT_MS), kubectl.expect(line('after'), EVENT_TIMEOUT_MS)]);
    env.log(
      `  port closed ${seconds(restarting - down)} + ${seconds(created - restarting)} (restart until /readyz ok); ` +
        `printed ${seconds(k - created)} after the create by kdyn, ${seconds(b - created)} by the kubectl loop`,
    );
    const said = kdyn.stderrLines();
    if (said.length) env.log(`  kdyn's stderr (${said.length} lines), last: ${said[said.length - 1]}`);
    return { kdyn: k - created, baseline: b - created };
  } finally {
    kdyn.stop();
    kubectl.stop();
    await gate.close();
  }
}

function outageCase(name: string, outageS: number, runs: number, optIn: boolean): BenchCase {
  return {
    name,
    description: `watch: first event after an abrupt ${outageS} s outage (SIGKILL, connections refused), from the create after /readyz ok`,
    issue: 'issue 21',
    server: { real: 'small', user: 'token' },
    target: { kind: 'absolute', maxMs: 5000 },
    baseline: { kind: 'kubectl', args: () => ['get', 'configmaps', '-w', '-o', 'name', '(re-run every 1 s by a shell loop)'] },
    custom: (env) => outageRun(env, outageS * 1000),
    runs,
    warmup: 0,
    optIn,
  };
}

export const order = 61;

export const cases: BenchCase[] = [
  outageCase('real-watch-outage-30s', 30, 3, false),
  outageCase('real-watch-outage-180s', 180, 1, true),
];
