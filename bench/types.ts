/**
 * The benchmark harness's contracts. A case file under bench/cases/ exports `cases: BenchCase[]`;
 * the harness finds every such file itself (bench/registry.ts), so adding a case never means
 * editing the harness.
 */
import type { RealCluster } from '../test/support/real-apiserver.js';

/** Options for the local API server a case runs against (issue 3's `npm run local-apiserver` flags). */
export interface ServerOptions {
  seed?: 'empty' | 'demo';
  extraGroups?: number;
  configmaps?: number;
  namespace?: string;
  discovery?: 'aggregated' | 'legacy';
}

/**
 * A case for the real kube-apiserver v1.32 (`--server real`, bench/real-server.ts): on the "small"
 * cluster (what a fresh cluster serves) or the "crds" one (plus `--crd-groups` CRD groups, default
 * 1,000), as the admin with a bearer token or with a client certificate.
 */
export interface RealServerOptions {
  real: 'small' | 'crds';
  user: 'token' | 'clientCert';
}

/** A running API server, as the harness started it (TLS). */
export interface RunningServer {
  url: string;
  /** The kubeconfig the case's tools use (local server: its own, token and CA data). */
  kubeconfig: string;
  /** Milliseconds from spawn to ready. */
  startMs: number;
  /** Real mode only: the cluster itself, for cases that stop and start it or create objects. */
  cluster?: RealCluster;
}

export type Tool = 'kdyn' | 'baseline';

/** What a case's hooks can see. */
export interface CaseEnv {
  /** Undefined when the case declares `server: null`. */
  server?: RunningServer;
  /** HOME of each tool: separate temp dirs, so each has its own ~/.kube/cache. */
  home: Record<Tool, string>;
  /** Discovery cache root of each tool (`<home>/.kube/cache`). */
  cacheDir: Record<Tool, string>;
  /** A scratch dir for the case, removed afterwards. */
  tmp: string;
  /** The kubectl binary in use (undefined when none was found). */
  kubectl?: string;
  /** `--minutes`, for soak cases (undefined: the case's default). */
  minutes?: number;
  /**
   * Runs a tool once, untimed, with the case's environment (its HOME, KUBECONFIG): `kdyn` runs
   * bin/kdyn, `baseline` runs kubectl. For prepare/beforeRun hooks, e.g. to fill a cache. Like every
   * kdyn run of the harness, it returns once kdyn's background layout writer (if any) has finished.
   * `homeOf`: run with the other tool's HOME (e.g. kubectl on kdyn's cache, which the two share).
   */
  run(tool: Tool, args: string[], opts?: { homeOf?: Tool; env?: Record<string, string> }): Promise<{ code: number | null; stderr: string }>;
  /** A line on the harness's log (stderr), e.g. what a custom case saw in a run. */
  log(line: string): void;
  /** The environment the harness runs a tool with (PATH, HOME, LANG, KUBECONFIG), for cases that start processes themselves. */
  toolEnv(tool: Tool): Record<string, string>;
}

export type Baseline =
  /**
   * `calls`: kubectl run several times in a row within one timed run (through /bin/sh, ~1 ms), for
   * work kubectl needs more than one call for; the last call's exit status counts.
   */
  | {
      kind: 'kubectl';
      args: (env: CaseEnv) => string[];
      calls?: number;
      /** A shell loop: kubectl once per argument list, in a row (e.g. one `--context` each); replaces `args` x `calls`. */
      loop?: (env: CaseEnv) => string[][];
      /** More environment for kubectl (e.g. `KUBECTL_APPLYSET=true`). */
      env?: Record<string, string>;
    }
  | { kind: 'node'; args: string[] }
  | { kind: 'none' };

/** A target the result is compared against; a miss is reported, never fails the process. */
export type Target =
  | { kind: 'ratio'; max: number } // kdyn / baseline (median)
  | { kind: 'absolute'; maxMs: number } // custom cases: median below maxMs
  | { kind: 'size'; maxKiB: number }; // custom cases of metric 'size': median below maxKiB

export type Metric = 'wall' | 'rss' | 'size';
export type Unit = 'ms' | 'MiB' | 'KiB';

export interface BenchCase {
  name: string;
  /** One line, shown in the listing. */
  description: string;
  /** Which issue asked for it, e.g. 'issue 4'. */
  issue?: string;
  /**
   * The local API server to start (shared by cases with equal options); null: none needed. A
   * `RealServerOptions` makes it a case of `--server real`, run only in that mode.
   */
  server: ServerOptions | RealServerOptions | null;
  /**
   * 'wall' (default) times the process; 'rss' compares peak resident memory; 'size': a custom case
   * whose samples are sizes in KiB (e.g. of a built file), not times.
   */
  metric?: Metric;
  target: Target;
  /** kdyn's arguments (the harness runs `bin/kdyn ...args`). */
  kdyn?: (env: CaseEnv) => string[];
  baseline: Baseline;
  /** Runs before every timed or warm-up run of a tool, untimed (e.g. wipe the cache for a cold case). */
  beforeRun?: (tool: Tool, env: CaseEnv) => void | Promise<void>;
  /** Once per case after the server is up; return a string to report the case as not ready. */
  prepare?: (env: CaseEnv) => string | undefined | Promise<string | undefined>;
  /**
   * A case that times something other than a process (e.g. the server itself): one sample per call
   * in ms (KiB for metric 'size'), or a sample for each tool (the baseline's for comparison: a ratio,
   * never the verdict).
   */
  custom?: (env: CaseEnv) => Promise<number | CustomSample>;
  /** Exit statuses that count as a run that worked (default: 0 only; `diff` exits 1 when it found differences). */
  exitCodes?: number[];
  /** The first warm-up run of kdyn must print something on stdout unless this is set. */
  allowEmptyOutput?: boolean;
  /** Default: the --runs value (15); a case's own number caps it. */
  runs?: number;
  /** Default: the --warmup value (2); a case's own number caps it (0: none, for long cases). */
  warmup?: number;
  /** A long case: left out of the default and prefix selections, run only when named exactly with --case. */
  optIn?: boolean;
  /** Set by the harness's own stand-in cases: a case of the same name in another file replaces it. */
  stub?: boolean;
}

export interface CustomSample {
  kdyn: number;
  baseline?: number;
}

export interface SideResult {
  command: string;
  /** What the first warm-up run printed on stdout (a sanity check that both tools did the same work). */
  output?: { lines: number; bytes: number };
  median: number;
  min: number;
  max: number;
  samples: number[];
  /**
   * kdyn only, informational (not part of the ratio): for timed runs that left kdyn's background
   * kubectl-layout writer running, the median ms from kdyn's start until that layout was complete
   * (kdyn's exit plus the untimed wait; see bench/write-behind.ts).
   */
  layoutComplete?: { median: number; runs: number };
}

export interface CaseResult {
  name: string;
  description: string;
  issue?: string;
  status: 'ok' | 'not-ready' | 'skipped';
  reason?: string;
  /** Which server the figures come from: 'local', 'real, small', 'real, 1000 CRD groups', or 'none'. */
  server: string;
  metric: Metric;
  /** 'ms' for wall time, 'MiB' for rss, 'KiB' for size. */
  unit: Unit;
  kdyn?: SideResult;
  baseline?: SideResult;
  ratio?: number;
  target: Target;
  pass?: boolean;
}
