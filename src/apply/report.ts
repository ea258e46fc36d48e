/**
 * What an apply run says about its objects (the CLI's `apply` prints these): each object's
 * reference (`configmap/x`), one line per failure, the summary line, and the wait for readiness
 * after an apply (`--wait`) with one line per object that did not become ready.
 */
import { StatusError, errorFromServer } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import { parseGroupVersion } from '../core/gvk.js';
import type { DynamicClient } from '../dynamic/client.js';
import type { ApplyReport, ApplyResult } from './apply.js';
import { failureReason } from './conflict.js';
import { describeOrigin } from './manifests.js';
import { MappingError } from './resolve.js';

/** `configmap/x`, `crontab.stable.example.com/x`: the mapping's kind and group, else the manifest's. */
export function objectRef(r: Pick<ApplyResult, 'mapping' | 'manifest' | 'sent'>): string {
  const obj = r.sent ?? r.manifest.object;
  const kind = (r.mapping?.gvk.kind ?? String(obj.kind)).toLowerCase();
  const group = r.mapping?.gvk.group ?? parseGroupVersion(String(obj.apiVersion)).group;
  return `${group ? `${kind}.${group}` : kind}/${String(obj.metadata?.name)}`;
}

/**
 * One failed object, one line (kubectl's `Error from server (Reason): ...` for server errors); an
 * object whose outcome is unknown (sent, no answer) says so: the server may have applied it.
 */
export function failureLine(r: ApplyResult): string {
  const e = r.error;
  const where = `${objectRef(r)} from ${describeOrigin(r.manifest)}`;
  if (r.status === 'unknown') return `error: ${where}: outcome unknown, the server may have applied it (apply again to know): ${failureReason(e)}`;
  if (e instanceof StatusError) return `${errorFromServer(e.status)}: error when applying ${where}: ${failureReason(e)}`;
  if (e instanceof MappingError) return `error: ${failureReason(e)}`; // already names the object and its origin
  return `error: ${where}: ${failureReason(e)}`;
}

/**
 * When every object of a run failed for one authentication or authorization reason (all 401, or all
 * 403: a bad token, no rights), the one line that says so for them all (issue 35: a fleet context
 * with a bad token is one line, not one per object); undefined otherwise (and for a single object).
 */
export function sharedAuthFailure(report: ApplyReport): string | undefined {
  const [first, ...rest] = report.results;
  const code = first?.error instanceof StatusError ? first.error.code : undefined;
  if (rest.length === 0 || (code !== 401 && code !== 403)) return undefined;
  const same = (r: ApplyResult) => r.status === 'failed' && r.error instanceof StatusError && r.error.code === code;
  if (!same(first!) || !rest.every(same)) return undefined;
  return `${first!.error!.message.split('\n')[0]} (the same for all ${report.results.length} objects)`;
}

/** `3 objects: 2 succeeded (1 unchanged), 1 failed; 2 ready` (`, 8 outcome unknown`, `, 3 not attempted`), `interrupted: ...` after a signal. */
export function summaryLine(report: ApplyReport, opts: { serverDryRun: boolean; ready?: number; interrupted: boolean }): string {
  const total = report.results.length;
  const unchanged = report.results.filter((r) => r.status === 'unchanged').length;
  let s = `${total} object${total === 1 ? '' : 's'}: ${report.succeeded} succeeded${unchanged ? ` (${unchanged} unchanged)` : ''}, ${report.failed} failed`;
  if (report.unknown) s += `, ${report.unknown} outcome unknown`;
  if (report.skipped) s += `, ${report.skipped} not attempted`;
  if (opts.ready !== undefined) s += `; ${opts.ready} ready`;
  if (opts.serverDryRun) s += ' (server dry run)';
  return opts.interrupted ? `interrupted: ${s}` : s;
}

/** A client dry run's summary: `2 objects: 2 would be sent, 0 failed (client dry run)`. */
export function clientDryRunSummary(total: number, sent: number, failed: number): string {
  return `${total} object${total === 1 ? '' : 's'}: ${sent} would be sent, ${failed} failed (client dry run)`;
}

/**
 * Waits until every applied object is ready (./wait.ts). Returns how many are, and one line per
 * object that is not (`error: timed out waiting for deployment.apps/web: ...`).
 */
export async function waitForApplied(report: ApplyReport, client: DynamicClient, opts: { clock: Clock; timeoutMs: number; signal: AbortSignal }): Promise<{ ready: number; errors: string[] }> {
  const { waitReady } = await import('./wait.js');
  const applied = report.results.filter((r) => r.object && r.mapping && r.status !== 'failed' && r.status !== 'unknown' && r.status !== 'skipped');
  const items = applied.map((r) => {
    const h = client.resource(r.mapping!.gvr, { namespaced: r.mapping!.namespaced });
    const ns = r.object!.metadata?.namespace;
    return { handle: r.mapping!.namespaced && ns ? h.namespace(ns) : h, name: String(r.object!.metadata?.name), last: r.object };
  });
  const outcomes = await waitReady(items, opts);
  const errors: string[] = [];
  outcomes.forEach((o, k) => {
    if (o.state === 'ready') return;
    const what = o.state === 'timeout' ? `timed out waiting for ${objectRef(applied[k]!)}` : `${objectRef(applied[k]!)} is not ready (${o.state})`;
    errors.push(`error: ${what}: ${o.message}\n`);
  });
  return { ready: outcomes.length - errors.length, errors };
}
