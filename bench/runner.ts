/**
 * Runs one case: server, temp HOMEs, warm-up (whose first run is checked: a failing kdyn means the
 * case is "not ready"), then timed runs alternating kdyn, baseline, kdyn, baseline... After every run
 * of kdyn (timed or not) the harness waits, untimed, for kdyn's background kubectl-layout writer to
 * finish (bench/write-behind.ts), so it never competes with the next timed run or races a cache wipe.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runOnce, type RunSpec } from './measure.js';
import { realServerLabel, type RealClusters, type RealSetup } from './real-server.js';
import { isRealServer, startLocalServer, serverKey, type ServerHandle } from './server.js';
import { median, meets, ratio, summarize } from './stats.js';
import { findOnPath, KDYN_BIN, type KubectlInfo } from './tools.js';
import { waitForLayoutWriter, type WriterWait } from './write-behind.js';
import type { BenchCase, CaseEnv, CaseResult, CustomSample, Metric, RealServerOptions, RunningServer, ServerOptions, Tool, Unit } from './types.js';

export interface RunnerOptions {
  runs: number;
  warmup: number;
  kubectl?: KubectlInfo;
  log: (line: string) => void;
  /** `--minutes`, for soak cases. */
  minutes?: number;
}

const RUN_TIMEOUT_MS = 180_000;
const UNITS: Record<Metric, Unit> = { wall: 'ms', rss: 'MiB', size: 'KiB' };

/**
 * Servers shared between cases with equal options, one at a time; stopped by `stopAll`. Real
 * clusters come from `real` (given in `--server real` mode only).
 */
export class ServerPool {
  private readonly servers = new Map<string, Promise<ServerHandle>>();
  private readonly dir = mkdtempSync(join(tmpdir(), 'kdyn-bench-servers-'));
  private current: string | undefined;
  /** How each real cluster was set up, in start order (for the JSON). */
  readonly realSetups: RealSetup[] = [];

  constructor(private readonly real?: { clusters: RealClusters; crdGroups: number }) {}

  /** Starts (or reuses) the server for `opts`; stops the previous one when the options change. */
  async get(opts: ServerOptions | RealServerOptions): Promise<RunningServer> {
    const key = serverKey(opts);
    if (this.current !== undefined && this.current !== key) await this.stop(this.current);
    this.current = key;
    let p = this.servers.get(key);
    if (!p) {
      p = isRealServer(opts) ? this.startReal(opts) : startLocalServer(opts, join(this.dir, `kubeconfig-${this.servers.size}`));
      this.servers.set(key, p);
    }
    const server = await p;
    return isRealServer(opts) ? { ...server, kubeconfig: server.cluster!.kubeconfigs[opts.user] } : server;
  }

  /** Which server a case's figures come from, for the table and the JSON. */
  label(opts: ServerOptions | RealServerOptions | null): string {
    if (!opts) return 'none';
    return isRealServer(opts) ? realServerLabel(opts, this.real?.crdGroups ?? 0) : 'local';
  }

  private async startReal(opts: RealServerOptions): Promise<ServerHandle> {
    if (!this.real) throw new Error('a real-server case needs --server real');
    const { cluster, setup } = await this.real.clusters.start(opts.real);
    this.realSetups.push(setup);
    return { url: cluster.url, kubeconfig: cluster.kubeconfigs.token, startMs: setup.startMs, cluster, stop: () => cluster.stop() };
  }

  private async stop(key: string): Promise<void> {
    const p = this.servers.get(key);
    this.servers.delete(key);
    if (p) await p.then((s) => s.stop(), () => undefined);
  }

  async stopAll(): Promise<void> {
    for (const key of [...this.servers.keys()]) await this.stop(key);
    await this.real?.clusters.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function runCase(c: BenchCase, pool: ServerPool, opts: RunnerOptions): Promise<CaseResult> {
  const metric = c.metric ?? 'wall';
  const base: CaseResult = {
    name: c.name,
    description: c.description,
    issue: c.issue,
    status: 'ok',
    metric,
    unit: UNITS[metric],
    target: c.target,
    server: pool.label(c.server),
  };
  const notReady = (reason: string): CaseResult => ({ ...base, status: 'not-ready', reason });
  if (c.baseline.kind === 'kubectl' && !opts.kubectl) return { ...base, status: 'skipped', reason: 'kubectl not on PATH' };
  if (!c.custom && !c.kdyn) return notReady('the case defines no kdyn command');

  let server: RunningServer | undefined;
  if (c.server) {
    try {
      server = await pool.get(c.server);
    } catch (e) {
      return notReady((e as Error).message);
    }
  }
  const tmp = mkdtempSync(join(tmpdir(), `kdyn-bench-${c.name.replace(/[^a-z0-9-]/gi, '_')}-`));
  try {
    const home = { kdyn: join(tmp, 'home-kdyn'), baseline: join(tmp, 'home-baseline') };
    mkdirSync(home.kdyn);
    mkdirSync(home.baseline);
    const toolEnv = (tool: Tool, homeOf: Tool = tool): Record<string, string> => {
      const e: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home[homeOf], LANG: 'C.UTF-8' };
      if (server) e.KUBECONFIG = server.kubeconfig;
      return e;
    };
    const cacheDir = { kdyn: join(home.kdyn, '.kube', 'cache'), baseline: join(home.baseline, '.kube', 'cache') };
    /** After a kdyn run: waits for its background layout writer (none without a server). */
    const settle = async (tool: Tool): Promise<WriterWait | undefined> => {
      if (tool !== 'kdyn' || !server) return undefined;
      const w = await waitForLayoutWriter(cacheDir.kdyn, server.url);
      if (w.timedOut) opts.log(`  ${c.name}: kdyn's background layout writer still running after ${Math.round(w.waitedMs)} ms; continuing`);
      return w;
    };
    const env: CaseEnv = {
      server,
      home,
      cacheDir,
      tmp,
      kubectl: opts.kubectl?.path,
      minutes: opts.minutes,
      toolEnv: (tool) => toolEnv(tool),
      log: opts.log,
      run: async (tool, args, runOpts) => {
        const bin = tool === 'kdyn' ? KDYN_BIN : opts.kubectl?.path;
        if (!bin) return { code: 127, stderr: 'kubectl not on PATH' };
        const homeOf = runOpts?.homeOf ?? tool;
        const out = await runOnce({ argv: [bin, ...args], env: { ...toolEnv(tool, homeOf), ...runOpts?.env }, cwd: tmp }, { capture: true, timeoutMs: RUN_TIMEOUT_MS });
        await settle(homeOf);
        return { code: out.code, stderr: out.stderr ?? '' };
      },
    };
    const why = await c.prepare?.(env);
    if (why) return notReady(why);
    const runs = c.runs ? Math.min(c.runs, opts.runs) : opts.runs;
    const warmup = c.warmup !== undefined ? Math.min(c.warmup, opts.warmup) : opts.warmup;

    if (c.custom) {
      const samples: CustomSample[] = [];
      try {
        for (let i = 0; i < warmup; i++) await c.custom(env);
        for (let i = 0; i < runs; i++) {
          const s = await c.custom(env);
          samples.push(typeof s === 'number' ? { kdyn: s } : s);
        }
      } catch (e) {
        return notReady((e as Error).message.split('\n')[0]!);
      }
      const baselineLabel =
        c.baseline.kind === 'kubectl' ? ['kubectl', ...c.baseline.args(env)].join(' ') : c.baseline.kind === 'node' ? c.baseline.args.join(' ') : c.baseline.kind;
      return customResult(base, { kdyn: c.description, baseline: baselineLabel }, samples);
    }

    const specs: Partial<Record<Tool, { spec: RunSpec; label: string }>> = {};
    const kargs = c.kdyn!(env);
    specs.kdyn = { spec: { argv: [KDYN_BIN, ...kargs], env: toolEnv('kdyn'), cwd: tmp }, label: ['kdyn', ...kargs].join(' ') };
    if (c.baseline.kind === 'kubectl') {
      const args = c.baseline.args(env);
      const calls = c.baseline.calls ?? 1;
      const loop = c.baseline.loop?.(env);
      if (loop) {
        const script = loop.map((a) => ['"$0"', ...a.map(shellQuote)].join(' ')).join('; ');
        specs.baseline = { spec: { argv: ['/bin/sh', '-c', script, opts.kubectl!.path], env: toolEnv('baseline'), cwd: tmp }, label: loop.map((a) => ['kubectl', ...a].join(' ')).join('; ') };
      } else {
        const argv = calls === 1 ? [opts.kubectl!.path, ...args] : ['/bin/sh', '-c', Array(calls).fill('"$0" "$@"').join('; '), opts.kubectl!.path, ...args];
        specs.baseline = { spec: { argv, env: { ...toolEnv('baseline'), ...c.baseline.env }, cwd: tmp }, label: Array(calls).fill(['kubectl', ...args].join(' ')).join('; ') };
      }
    } else if (c.baseline.kind === 'node') {
      const node = findOnPath('node') ?? process.execPath;
      specs.baseline = { spec: { argv: [node, ...c.baseline.args], env: toolEnv('baseline'), cwd: tmp }, label: ['node', ...c.baseline.args].join(' ') };
    }
    const tools = (['kdyn', 'baseline'] as const).filter((t) => specs[t]);
    const rss = metric === 'rss';

    const output: Partial<Record<Tool, { lines: number; bytes: number }>> = {};
    const beforeRun = async (tool: Tool): Promise<string | undefined> => {
      try {
        await c.beforeRun?.(tool, env);
        return undefined;
      } catch (e) {
        return `before a run of ${tool}: ${(e as Error).message.split('\n')[0]}`;
      }
    };
    for (let w = 0; w < warmup; w++) {
      for (const tool of tools) {
        const failed = await beforeRun(tool);
        if (failed) return notReady(failed);
        const out = await runOnce(specs[tool]!.spec, { capture: w === 0, rss, timeoutMs: RUN_TIMEOUT_MS });
        await settle(tool);
        if (w === 0) output[tool] = { lines: out.stdoutLines ?? 0, bytes: out.stdoutBytes ?? 0 };
        if (w === 0 && !worked(c, out.code)) {
          const msg = (out.stderr ?? '').trim().split('\n')[0] ?? '';
          return notReady(`${specs[tool]!.label} exited ${out.signal ?? out.code}${msg ? `: ${msg}` : ''}`);
        }
        if (w === 0 && tool === 'kdyn' && out.stdoutBytes === 0 && !c.allowEmptyOutput) {
          return notReady(`${specs[tool]!.label} printed nothing on stdout`);
        }
      }
    }
    const samples: Record<Tool, number[]> = { kdyn: [], baseline: [] };
    const layoutMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      for (const tool of tools) {
        const failed = await beforeRun(tool);
        if (failed) return notReady(failed);
        const out = await runOnce(specs[tool]!.spec, { rss, timeoutMs: RUN_TIMEOUT_MS });
        const w = await settle(tool);
        if (w?.writer && w.layoutMs !== undefined) layoutMs.push(out.ms + w.layoutMs);
        if (!worked(c, out.code)) return notReady(`${specs[tool]!.label} exited ${out.signal ?? out.code} on run ${i + 1}`);
        if (rss) {
          if (out.rssKb === undefined) return notReady('peak memory could not be measured');
          samples[tool].push(out.rssKb / 1024);
        } else {
          samples[tool].push(out.ms);
        }
      }
      if ((i + 1) % 5 === 0 && i + 1 < runs) opts.log(`  ${c.name}: ${i + 1}/${runs} runs`);
    }
    const kdyn = {
      ...summarize(specs.kdyn.label, samples.kdyn),
      output: output.kdyn,
      ...(layoutMs.length && !rss ? { layoutComplete: { median: median(layoutMs), runs: layoutMs.length } } : {}),
    };
    const baseline = specs.baseline ? { ...summarize(specs.baseline.label, samples.baseline), output: output.baseline } : undefined;
    const r = baseline ? ratio(kdyn.median, baseline.median) : undefined;
    return { ...base, kdyn, baseline, ratio: r, pass: meets(c.target, kdyn.median, r) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * A custom case's result: kdyn's samples decide (its target is on kdyn's median); the baseline's,
 * when every run has one, are shown beside them with the ratio, for comparison.
 */
export function customResult(base: CaseResult, labels: Record<Tool, string>, samples: readonly CustomSample[]): CaseResult {
  const kdyn = summarize(labels.kdyn, samples.map((s) => s.kdyn));
  const baselineSamples = samples.flatMap((s) => (s.baseline === undefined ? [] : [s.baseline]));
  if (baselineSamples.length === 0 || baselineSamples.length !== samples.length) return { ...base, kdyn, pass: meets(base.target, kdyn.median, undefined) };
  const baseline = summarize(labels.baseline, baselineSamples);
  const r = ratio(kdyn.median, baseline.median);
  return { ...base, kdyn, baseline, ratio: r, pass: meets(base.target, kdyn.median, r) };
}

/** A word for /bin/sh: single-quoted unless it is plain. */
function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Whether a run's exit status is one the case counts as success (default: 0). */
function worked(c: BenchCase, code: number | null | undefined): boolean {
  return code !== null && code !== undefined && (c.exitCodes ?? [0]).includes(code);
}
