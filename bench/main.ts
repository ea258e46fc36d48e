/**
 * `npm run bench -- [--server local|real] [--case NAME]... [--json FILE] [--runs N] [--warmup N] [--list]`
 *
 * Times kdyn against kubectl (or `node -e 0`) on the same API server: the project's local one by
 * default, or with `--server real` a real kube-apiserver v1.32 (bench/real-server.ts), each mode with
 * its own cases. Results are printed per case (server, median, min, ratio, target pass/MISS); a
 * missed target never fails the process, only a broken harness does (exit 1), or bad arguments or a
 * real mode without its assets (exit 2).
 */
import { writeFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';
import { realAssets } from '../test/support/real-apiserver.js';
import { rssMethod } from './measure.js';
import { NO_ASSETS, RealClusters } from './real-server.js';
import { loadCases } from './registry.js';
import { runCase, ServerPool } from './runner.js';
import { summaryTable } from './report.js';
import { DEFAULT_CRD_GROUPS, DEFAULT_RUNS, describeTarget, formatResult, markdownTable, parseBenchArgs, selectCases, type BenchArgs, type ServerMode } from './stats.js';
import { findKubectl } from './tools.js';
import { isRealServer, serverKey } from './server.js';
import type { BenchCase, CaseResult } from './types.js';

const USAGE = `Usage: npm run bench -- [--server local|real] [--case NAME[,NAME]]... [--json FILE] [--runs N] [--warmup N] [--list]
  --server S      local (default): the project's local API server; real: a real kube-apiserver v1.32
                  and etcd from $KUBEBUILDER_ASSETS (a small cluster and one with --crd-groups CRD groups)
  --case NAME     run only these cases of that server (NAME* matches a prefix); default: all but opt-in ones
  --crd-groups N  real mode: CRD groups of the big cluster (default ${DEFAULT_CRD_GROUPS})
  --minutes N     how long a soak case runs (e.g. --case informer-soak --minutes 120)
  --json FILE     also write the results as JSON
  --runs N        timed runs per tool (default ${DEFAULT_RUNS}; medians need >= 15 to mean much)
  --warmup N      untimed runs per tool first (default 2; the first one is checked for errors)
  --list          list the cases (both servers; [opt-in]: run only when named with --case) and exit
Env: KDYN_BENCH_KUBECTL=/path/to/kubectl picks the kubectl binary.`;

async function main(): Promise<number> {
  let args: BenchArgs;
  try {
    args = parseBenchArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`bench: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const registry = await loadCases();
  for (const w of registry.warnings) process.stderr.write(`bench: warning: ${w}\n`);
  if (args.list) {
    for (const c of registry.cases) {
      const notes = `${c.stub ? ' [stub]' : ''}${c.optIn ? ' [opt-in]' : ''}`;
      process.stdout.write(`${c.name.padEnd(30)} ${caseMode(c).padEnd(6)} ${describeTarget(c.target).padEnd(10)} ${c.description}${notes}\n`);
    }
    return 0;
  }
  if (args.server === 'real' && !realAssets()) {
    process.stderr.write(`bench: ${NO_ASSETS}\n`);
    return 2;
  }
  let selected;
  try {
    selected = selectCases(registry.cases.filter((c) => caseMode(c) === args.server), args.cases);
  } catch (e) {
    const other = registry.cases.filter((c) => caseMode(c) !== args.server && args.cases.includes(c.name));
    const hint = other.length ? ` (${other.map((c) => c.name).join(', ')}: run with --server ${caseMode(other[0]!)})` : '';
    process.stderr.write(`bench: ${(e as Error).message}${hint}\n`);
    return 2;
  }
  selected = groupByServer(selected);
  const kubectl = findKubectl();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(`bench: node ${process.version}, ${platform()} ${release()}, ${cpus().length} CPUs`);
  log(`bench: kubectl: ${kubectl ? `${kubectl.path} (${kubectl.version}; ${kubectl.note})` : 'not found on PATH: kubectl cases are skipped'}`);
  log(`bench: ${args.runs} timed runs per tool after ${args.warmup} warm-up, alternating; peak memory via ${rssMethod()}`);
  log(`bench: server: ${args.server === 'real' ? `real kube-apiserver from ${realAssets()}, CRD cluster with ${args.crdGroups} groups` : 'local API server (test/support/apiserver)'}`);

  const pool = new ServerPool(args.server === 'real' ? { clusters: new RealClusters(args.crdGroups, log), crdGroups: args.crdGroups } : undefined);
  const results: CaseResult[] = [];
  const stop = () => {
    void pool.stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    for (const c of selected) {
      log(`bench: ${c.name}: ${c.description}`);
      const r = await runCase(c, pool, { runs: args.runs, warmup: args.warmup, kubectl, log, minutes: args.minutes });
      results.push(r);
      process.stdout.write(`${formatResult(r)}\n`);
      if (r.status === 'ok' && r.baseline) {
        const lines = (s: { output?: { lines: number } }) => (s.output ? `, ${s.output.lines} lines` : '');
        process.stdout.write(`${''.padEnd(30)} (${r.kdyn!.command}${lines(r.kdyn!)}  vs  ${r.baseline.command}${lines(r.baseline)})\n`);
        const layout = r.kdyn!.layoutComplete;
        if (layout) {
          process.stdout.write(`${''.padEnd(30)} (kdyn's kubectl-layout files complete after ${layout.median.toFixed(1)} ms, median of ${layout.runs}; written behind, untimed)\n`);
        }
      }
    }
  } finally {
    await pool.stopAll();
  }
  process.stdout.write(`\n${summaryTable(results)}\n\n${markdownTable(results)}\n`);
  if (args.json) {
    const doc = {
      date: new Date().toISOString(),
      node: process.version,
      platform: `${platform()} ${release()}`,
      cpus: cpus().length,
      kubectl: kubectl ?? null,
      rssMethod: rssMethod(),
      runs: args.runs,
      warmup: args.warmup,
      server: args.server,
      ...(args.server === 'real' ? { crdGroups: args.crdGroups, realServers: pool.realSetups } : {}),
      results,
    };
    writeFileSync(args.json, `${JSON.stringify(doc, null, 2)}\n`);
    log(`bench: wrote ${args.json}`);
  }
  return 0;
}

/** Which --server mode a case belongs to. */
function caseMode(c: BenchCase): ServerMode {
  return c.server && isRealServer(c.server) ? 'real' : 'local';
}

/** Keeps the cases' order but runs cases sharing a server's options together (one start each). */
function groupByServer(cases: BenchCase[]): BenchCase[] {
  const groups = new Map<string, BenchCase[]>();
  cases.forEach((c, i) => {
    const key = c.server ? serverKey(c.server) : `none-${i}`;
    const g = groups.get(key);
    if (g) g.push(c);
    else groups.set(key, [c]);
  });
  return [...groups.values()].flat();
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`bench: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
