/**
 * The informer side of the informer benchmarks (bench/cases/informer.ts), as its own process, so its
 * time and memory are its own: `node --expose-gc informer-probe.js NAMESPACE [REPORT_MS [digest]]` with
 * KUBECONFIG set. It loads kdyn as a user does (the package's entry point, dist/lib), starts an
 * informer on the ConfigMaps of NAMESPACE, prints `synced <objects> <ms from start() to synced>
 * <ms before start()>` once it has synced, and then,
 * with REPORT_MS, every REPORT_MS a line `report <json>`: events handled, heap after a GC, RSS, the
 * store's digest with `digest` (sha1 of its sorted `key resourceVersion` lines) and the informer's health.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './tools.js';
import type * as Kdyn from '../src/index.js';

export interface ProbeReport {
  events: number;
  /** The highest `data.seq` an update carried (the feeds number their writes). */
  lastSeq: number;
  heapUsed: number;
  rss: number;
  objects: number;
  /** '' without the `digest` argument. */
  digest: string;
  health: Kdyn.InformerHealth;
}

/** What the probes and the feeds compare: sha1 of the sorted `key resourceVersion` lines. */
export function stateDigest(objects: Iterable<{ metadata?: { name?: string; namespace?: string; resourceVersion?: string } }>): string {
  const lines: string[] = [];
  for (const o of objects) lines.push(`${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''} ${o.metadata?.resourceVersion ?? ''}`);
  return createHash('sha1').update(lines.sort().join('\n')).digest('hex');
}

async function main(): Promise<void> {
  const [namespace, reportArg, digestArg] = process.argv.slice(2);
  if (!namespace) {
    process.stderr.write('usage: informer-probe NAMESPACE [REPORT_MS]\n');
    process.exit(2);
  }
  const kdyn = (await import(pathToFileURL(join(ROOT, 'dist', 'lib', 'index.js')).href)) as typeof Kdyn;
  const k = await kdyn.connect();
  const handle = k.client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace(namespace);
  const inf = kdyn.informer(handle);
  let events = 0;
  let lastSeq = -1;
  inf.addEventHandler({
    onAdd: () => events++,
    onUpdate: (_old, obj) => {
      events++;
      const seq = Number((obj.data as Record<string, string> | undefined)?.seq);
      if (seq > lastSeq) lastSeq = seq;
    },
    onDelete: () => events++,
  });
  const startedAt = performance.now();
  inf.start();
  await inf.waitForSync();
  // Objects, then the ms from start() to synced, then the ms before start() (loading kdyn, connect()).
  process.stdout.write(`synced ${inf.size} ${Math.round(performance.now() - startedAt)} ${Math.round(startedAt)}\n`);
  const reportMs = Number(reportArg);
  if (!reportMs) {
    k.close();
    process.exit(0);
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  setInterval(() => {
    gc?.();
    const mem = process.memoryUsage();
    const report: ProbeReport = { events, lastSeq, heapUsed: mem.heapUsed, rss: mem.rss, objects: inf.size, digest: digestArg === 'digest' ? stateDigest(inf.list()) : '', health: inf.health() };
    process.stdout.write(`report ${JSON.stringify(report)}\n`);
  }, reportMs);
  process.once('SIGTERM', () => {
    inf.stop();
    k.close();
    process.exit(0);
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
