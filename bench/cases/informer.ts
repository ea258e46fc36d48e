/**
 * Issue 27's informer targets. The informer runs in its own process (bench/informer-probe.ts, kdyn
 * loaded from the package's entry point), against the local API server.
 * - `informer-sync-10k`: 10,000 ConfigMaps, from start to synced (process start to exit), against
 *   `kdyn get configmaps -o jsonl` on the same objects (start to exit). Target <= 1.5x.
 * - `informer-events-1k`: ConfigMaps updated 1,000 times a second for 30 s (written straight into the
 *   server's store, in this process); the sample is the time the informer took per 1,000 events,
 *   from the first write until it handled the last one (target: keeping up, <= 1.05 s). The log
 *   line gives its heap (after a GC) 10 s in and at the end.
 * - `informer-events-1k-heap`: the same run; the sample is that heap growth (KiB; target <= 2 MiB).
 * - `informer-soak` (opt-in, `--minutes N`, default 10): churn (50 writes a second: creates, updates,
 *   deletes) on 2,000 ConfigMaps, with a fault each minute in turn: watch streams closed every 50
 *   events, a restart (down 5 s while the writes go on, back without its watch history: 410,
 *   relist), a 10 s outage (connections refused, history kept: the watch resumes), none. At the end of each minute the writes pause and the informer's store must equal the server's
 *   (digests) within 30 s; the log line gives the time it took, the heap after a GC, RSS, the
 *   informer's requests that minute, relists and failures. The sample is the heap growth from the
 *   end of minute 2 to the end (KiB; target <= 4 MiB); a store out of step fails the run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { startServer, type LocalApiServer } from '../../test/support/apiserver/server.js';
import { stateDigest, type ProbeReport } from '../informer-probe.js';
import { KDYN_BIN } from '../tools.js';
import type { BenchCase, CaseEnv, CustomSample } from '../types.js';

const PROBE = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'informer-probe.js');
const SYNC_OBJECTS = 10_000;
const EVENTS_RATE = 1000;
const EVENTS_SECONDS = 30;

/** The probe as a child process: its `synced` and `report` lines as they come. */
class Probe {
  readonly started = performance.now();
  syncedAt: number | undefined;
  /** The probe's own figures: ms from start() to synced, and ms before start() (loading kdyn, connecting). */
  syncFigures: { syncMs: number; loadMs: number } | undefined;
  readonly reports: Array<{ at: number; r: ProbeReport }> = [];
  private stderr = '';
  private exited = false;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly child: ChildProcess,
    private readonly label: string,
  ) {
    let partial = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const at = performance.now();
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith('synced ')) {
          this.syncedAt = at;
          const [, , syncMs, loadMs] = line.split(' ').map(Number);
          this.syncFigures = { syncMs: syncMs!, loadMs: loadMs! };
        }
        else if (line.startsWith('report ')) this.reports.push({ at, r: JSON.parse(line.slice(7)) as ProbeReport });
      }
      this.wake();
    });
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      if (this.stderr.length < 8192) this.stderr += c;
    });
    child.once('exit', () => {
      this.exited = true;
      this.wake();
    });
    live.add(child);
    child.once('exit', () => live.delete(child));
  }

  static start(env: Record<string, string>, args: string[]): Probe {
    const child = spawn(process.execPath, ['--expose-gc', PROBE, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    return new Probe(child, `informer-probe ${args.join(' ')}`);
  }

  get last(): ProbeReport | undefined {
    return this.reports.at(-1)?.r;
  }

  /** Resolves with the time `pred` first held (checked on each line); throws after `timeoutMs` or if the probe exits. */
  async until(pred: () => boolean, timeoutMs: number, what: string): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (pred()) return performance.now();
      if (this.exited) throw new Error(`${this.label} exited before ${what}: ${this.stderr.trim().split('\n').pop() ?? ''}`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`${this.label}: no ${what} within ${timeoutMs / 1000} s`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, left);
        const self = this;
        function done(): void {
          clearTimeout(t);
          self.waiters.delete(done);
          resolve();
        }
        this.waiters.add(done);
      });
    }
  }

  exitedPromise(): Promise<void> {
    return this.exited ? Promise.resolve() : new Promise((r) => this.child.once('exit', () => r()));
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

const live = new Set<ChildProcess>();
let serverDir: string | undefined;
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
  if (serverDir) rmSync(serverDir, { recursive: true, force: true });
});

/** A local API server in this process (the feeds write into its store directly), with its kubeconfig. */
async function inProcessServer(namespace: string, objects: number): Promise<{ server: LocalApiServer; kubeconfig: string }> {
  serverDir ??= mkdtempSync(join(tmpdir(), 'kdyn-bench-informer-'));
  const server = await startServer({ tls: true, seed: 'empty', configmaps: objects, namespace, watchHistory: 100_000 });
  const kubeconfig = join(serverDir, `kubeconfig-${server.port}`);
  server.writeKubeconfig(kubeconfig);
  return { server, kubeconfig };
}

/** Runs `argv` to its exit; returns the wall time (ms). Output read and dropped. */
function timed(argv: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stdout!.resume();
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${argv.join(' ')} exited ${code}: ${err.trim()}`)))),
  );
}

async function syncRun(env: CaseEnv): Promise<CustomSample> {
  const toolEnv = env.toolEnv('kdyn');
  const probe = Probe.start(toolEnv, ['bench']);
  await probe.until(() => probe.syncedAt !== undefined, 120_000, 'sync');
  await probe.exitedPromise();
  const informerMs = performance.now() - probe.started;
  const getMs = await timed([KDYN_BIN, 'get', 'configmaps', '-n', 'bench', '-o', 'jsonl'], toolEnv);
  const f = probe.syncFigures!;
  env.log(
    `  informer: ${Math.round(informerMs)} ms start to exit (loading kdyn and connecting ${f.loadMs} ms, start() to synced ${f.syncMs} ms); ` +
      `kdyn get -o jsonl ${Math.round(getMs)} ms; sync alone / get: ${(f.syncMs / getMs).toFixed(2)}x`,
  );
  return { kdyn: informerMs, baseline: getMs };
}

/** Updates `names` round-robin at `rate` a second for `seconds`, each write numbered in data.seq; returns the last seq. */
async function feed(server: LocalApiServer, ns: string, names: string[], rate: number, seconds: number, seq0: number): Promise<number> {
  const started = performance.now();
  let seq = seq0;
  const total = rate * seconds;
  while (seq - seq0 < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000));
    for (; seq - seq0 < due; seq++) {
      const name = names[seq % names.length]!;
      const old = server.store.get('', 'configmaps', ns, name)!;
      server.store.update('', 'configmaps', { ...old, metadata: { ...old.metadata }, data: { seq: String(seq) } });
    }
    await delay(5);
  }
  return seq - 1;
}

let eventsServer: Promise<{ server: LocalApiServer; kubeconfig: string }> | undefined;
let seqNext = 0;

async function eventsRun(env: CaseEnv): Promise<{ msPer1000: number; heapGrowthKiB: number }> {
  eventsServer ??= inProcessServer('events', 1000);
  const { server, kubeconfig } = await eventsServer;
  const names = server.store.list('', 'configmaps', { namespace: 'events' }).items.map((o) => o.metadata.name as string);
  const probe = Probe.start({ ...env.toolEnv('kdyn'), KUBECONFIG: kubeconfig }, ['events', '100']);
  try {
    await probe.until(() => probe.syncedAt !== undefined && probe.last !== undefined, 60_000, 'sync');
    const before = probe.last!.events;
    const started = performance.now();
    const lastSeq = await feed(server, 'events', names, EVENTS_RATE, EVENTS_SECONDS, seqNext);
    const total = lastSeq + 1 - seqNext;
    seqNext = lastSeq + 1;
    const done = await probe.until(() => (probe.last?.lastSeq ?? -1) >= lastSeq, 60_000, 'the last event');
    const msPer1000 = (done - started) / (total / 1000);
    const at10 = probe.reports.find((x) => x.at - started >= 10_000)?.r ?? probe.last!;
    const end = probe.last!;
    const heapGrowthKiB = (end.heapUsed - at10.heapUsed) / 1024;
    const mib = (b: number) => (b / 1048576).toFixed(1);
    env.log(
      `  ${end.events - before} events handled of ${total} written in ${EVENTS_SECONDS} s; last one ${Math.round(done - started - EVENTS_SECONDS * 1000)} ms after the feed's end; ` +
        `heap after GC ${mib(at10.heapUsed)} MiB at 10 s, ${mib(end.heapUsed)} MiB at the end; RSS ${mib(end.rss)} MiB`,
    );
    return { msPer1000, heapGrowthKiB };
  } finally {
    probe.stop();
    await probe.exitedPromise();
  }
}

/** `--minutes`, else KDYN_BENCH_SOAK_MINUTES, else 10. */
function soakMinutes(env: CaseEnv): number {
  return env.minutes ?? (Number(process.env.KDYN_BENCH_SOAK_MINUTES) || 10);
}

type Fault = 'watch-close-50' | 'restart' | 'outage-10s' | 'none';
const FAULTS: Fault[] = ['watch-close-50', 'restart', 'outage-10s', 'none'];

async function soakRun(env: CaseEnv): Promise<number> {
  const minutes = soakMinutes(env);
  const ns = 'soak';
  const { server, kubeconfig } = await inProcessServer(ns, 2000);
  const probe = Probe.start({ ...env.toolEnv('kdyn'), KUBECONFIG: kubeconfig }, [ns, '1000', 'digest']);
  const serverDigest = () => stateDigest(server.store.list('', 'configmaps', { namespace: ns }).items as never);
  let seq = 0;
  let made = 0;
  const heaps: number[] = [];
  try {
    await probe.until(() => probe.last !== undefined, 120_000, 'sync');
    for (let minute = 1; minute <= minutes; minute++) {
      const fault = FAULTS[(minute - 1) % FAULTS.length]!;
      const t0 = performance.now();
      const logStart = Date.now();
      const churn = (async () => {
        while (performance.now() - t0 < 50_000) {
          for (let i = 0; i < 5; i++, seq++) {
            const items = server.store.list('', 'configmaps', { namespace: ns }).items;
            const pick = items[seq % items.length]!;
            if (seq % 10 === 0) server.store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `soak-${made++}`, namespace: ns }, data: { seq: String(seq) } });
            else if (seq % 10 === 1 && items.length > 1000) server.store.delete('', 'configmaps', ns, pick.metadata.name as string);
            else server.store.update('', 'configmaps', { ...pick, metadata: { ...pick.metadata }, data: { seq: String(seq) } });
          }
          await delay(100);
        }
      })();
      if (fault === 'watch-close-50') {
        server.faults.closeWatchesAfterEvents(50);
        server.watches.closeAll(); // the open stream too
      }
      if (fault === 'restart') {
        // Down for 5 s while the writes go on, then back without its watch history: 410, relist.
        await delay(20_000);
        await server.stopListening();
        await delay(5_000);
        server.restart();
        await server.listenAgain();
      }
      if (fault === 'outage-10s') {
        await delay(20_000);
        await server.stopListening();
        await delay(10_000);
        await server.listenAgain();
      }
      await churn;
      server.faults.clear();
      // Writes paused: the informer must come into step.
      const quiet = performance.now();
      const want = serverDigest();
      await probe.until(() => probe.last?.digest === want, 30_000, `the server's state after minute ${minute}`);
      const inStepMs = performance.now() - quiet;
      const wait = 60_000 - (performance.now() - t0);
      if (wait > 0) await delay(wait);
      const r = probe.last!;
      heaps.push(r.heapUsed);
      const requests = server.requestLog.filter((e) => e.time >= logStart && e.path.includes('/configmaps')).length;
      env.log(
        `  minute ${minute} (${fault}): in step ${Math.round(inStepMs)} ms after the writes paused; ${r.objects} objects; heap ${(r.heapUsed / 1048576).toFixed(1)} MiB, ` +
          `RSS ${(r.rss / 1048576).toFixed(1)} MiB; ${requests} informer requests; relists ${r.health.relists}, failures ${r.health.failures}, ${r.events} events so far`,
      );
    }
  } finally {
    probe.stop();
    await probe.exitedPromise();
    await server.stop();
  }
  const from = heaps[Math.min(1, heaps.length - 1)]!;
  return (heaps.at(-1)! - from) / 1024;
}

let lastEvents: Promise<{ msPer1000: number; heapGrowthKiB: number }> | undefined;

export const order = 45;

export const cases: BenchCase[] = [
  {
    name: 'informer-sync-10k',
    description: `informer: ${SYNC_OBJECTS.toLocaleString('en')} ConfigMaps, start to synced (process), vs kdyn get -o jsonl`,
    issue: 'issue 27',
    server: { seed: 'empty', configmaps: SYNC_OBJECTS, namespace: 'bench' },
    target: { kind: 'ratio', max: 1.5 },
    baseline: { kind: 'node', args: ['kdyn get configmaps -n bench -o jsonl (timed by the case)'] },
    custom: syncRun,
    runs: 5,
    warmup: 1,
  },
  {
    name: 'informer-events-1k',
    description: `informer: ms per 1,000 events, fed ${EVENTS_RATE}/s for ${EVENTS_SECONDS} s (first write to the last handled)`,
    issue: 'issue 27',
    server: null,
    target: { kind: 'absolute', maxMs: 1050 },
    baseline: { kind: 'none' },
    custom: async (env) => {
      lastEvents = eventsRun(env);
      return (await lastEvents).msPer1000;
    },
    runs: 1,
    warmup: 0,
  },
  {
    name: 'informer-events-1k-heap',
    description: `informer: heap growth (after GC) from 10 s to the end of the ${EVENTS_SECONDS} s feed at ${EVENTS_RATE}/s`,
    issue: 'issue 27',
    server: null,
    metric: 'size',
    target: { kind: 'size', maxKiB: 2048 },
    baseline: { kind: 'none' },
    // The run of informer-events-1k when it ran just before; else a run of its own.
    custom: async (env) => (await (lastEvents ?? eventsRun(env))).heapGrowthKiB,
    runs: 1,
    warmup: 0,
  },
  {
    name: 'informer-soak',
    description: 'informer soak (--minutes N, default 10): churn and a fault a minute; store in step, heap growth (KiB) from minute 2',
    issue: 'issue 27',
    server: null,
    metric: 'size',
    target: { kind: 'size', maxKiB: 4096 },
    baseline: { kind: 'none' },
    custom: soakRun,
    runs: 1,
    warmup: 0,
    optIn: true,
  },
];
