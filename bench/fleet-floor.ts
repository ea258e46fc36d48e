/**
 * Issue 24's `fleet-get-10-vs-1` target (10 clusters within 1.5x kdyn's one-cluster `get`) next to
 * what the same 9 extra clusters cost a minimal client (./fleet-floor-client.ts: the kubeconfig read,
 * a TLS connection verified against each cluster's CA, one GET each; nothing else). The two are run
 * in turn on the 10 local servers of bench/cases/fleet.ts (./fleet-servers.ts, their own process):
 * kdyn on c0, kdyn on every context, the minimal client on c0, then on all 10. Prints each median,
 * kdyn's ratio, the minimal client's, and what 9 more clusters cost each (results:
 * bench/results/2026-11-25-fleet-floor.md).
 *
 * Usage: node build/bench/fleet-floor.js [--runs N] (default 31; 2 untimed warm-up runs of each first).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runOnce, type RunSpec } from './measure.js';
import { median } from './stats.js';
import { KDYN_BIN } from './tools.js';
import { spawnFleetServers } from './fleet-spawn.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const CLUSTERS = 10;

async function main(): Promise<void> {
  const i = process.argv.indexOf('--runs');
  const runs = i >= 0 ? Number(process.argv[i + 1]) : 31;
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a positive whole number');
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-fleet-floor-'));
  let servers: ChildProcess | undefined;
  try {
    servers = await spawnFleetServers(dir, CLUSTERS, (c) => (servers = c));
    const kubeconfig = join(dir, 'kubeconfig');
    // Each kdyn command its own HOME (discovery and code caches), as the harness gives each tool its own.
    const home = (name: string) => {
      const h = join(dir, name);
      mkdirSync(h);
      return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: h, LANG: 'C.UTF-8' };
    };
    const get = ['get', 'namespaces', '--kubeconfig', kubeconfig];
    const floor = join(HERE, 'fleet-floor-client.js');
    const commands: Array<[string, RunSpec]> = [
      ['kdyn, 1 cluster', { argv: [KDYN_BIN, ...get, '--context', 'c0'], env: home('one') }],
      [`kdyn, ${CLUSTERS} clusters`, { argv: [KDYN_BIN, ...get, '--all-contexts'], env: home('all') }],
      ['minimal client, 1 cluster', { argv: [process.execPath, floor, kubeconfig, '1'], env: home('floor-one') }],
      [`minimal client, ${CLUSTERS} clusters`, { argv: [process.execPath, floor, kubeconfig, String(CLUSTERS)], env: home('floor-all') }],
      // The same client with each CA given to OpenSSL and its verdict required, as kdyn must (its two verdicts).
      ['minimal + OpenSSL CA, 1', { argv: [process.execPath, floor, kubeconfig, '1', '--openssl-ca'], env: home('floor-ca-one') }],
      [`minimal + OpenSSL CA, ${CLUSTERS}`, { argv: [process.execPath, floor, kubeconfig, String(CLUSTERS), '--openssl-ca'], env: home('floor-ca-all') }],
    ];
    for (const [name, spec] of commands) {
      for (let w = 0; w < 2; w++) {
        const out = await runOnce(spec, { capture: true });
        if (out.code !== 0) throw new Error(`${name} exited ${out.code}: ${(out.stderr ?? '').trim().split('\n')[0]}`);
      }
    }
    const samples = commands.map(() => [] as number[]);
    for (let r = 0; r < runs; r++) {
      for (const [k, [, spec]] of commands.entries()) samples[k]!.push((await runOnce(spec)).ms);
    }
    const m = samples.map((s) => median(s));
    for (const [k, [name]] of commands.entries()) process.stdout.write(`${name.padEnd(28)} ${m[k]!.toFixed(1)} ms\n`);
    process.stdout.write(`kdyn ${CLUSTERS} vs 1:               ${(m[1]! / m[0]!).toFixed(2)}x (target <= 1.50x)\n`);
    process.stdout.write(`minimal client ${CLUSTERS} vs 1:     ${(m[3]! / m[2]!).toFixed(2)}x\n`);
    process.stdout.write(`minimal client ${CLUSTERS} vs kdyn 1: ${(m[3]! / m[0]!).toFixed(2)}x\n`);
    process.stdout.write(`kdyn 1 vs minimal client 1:   ${(m[0]! / m[2]!).toFixed(2)}x (issue 36: <= 1.15x); vs minimal + OpenSSL CA: ${(m[0]! / m[4]!).toFixed(2)}x\n`);
    process.stdout.write(`${CLUSTERS - 1} more clusters cost kdyn ${(m[1]! - m[0]!).toFixed(1)} ms, the minimal client ${(m[3]! - m[2]!).toFixed(1)} ms (${runs} alternating runs, medians)\n`);
  } finally {
    servers?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: Error) => {
  process.stderr.write(`fleet-floor: ${e.message}\n`);
  process.exit(1);
});
