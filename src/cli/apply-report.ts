/**
 * What `kdyn apply` says about each context's run (./commands/apply.ts), through apply's printer
 * decorated with the context (../printers/context-apply.ts): the objects on stdout, one stderr line
 * per failure (a fleet's context where every object failed for the same authentication or
 * authorization reason: one line for them all, issue 35), `--wait`'s lines, and the summary. The
 * words are ../apply/report.ts's.
 */
import type { ApplyResult } from '../apply/apply.js';
import { failureReason } from '../apply/conflict.js';
import { clientDryRunSummary, failureLine, objectRef, sharedAuthFailure, summaryLine } from '../apply/report.js';
import type { ContextApply, ContextPlan } from '../fleet/apply.js';
import type { ContextApplyPrinter } from '../printers/context-apply.js';
import type { AppliedObject } from '../printers/index.js';

const isFailure = (r: ApplyResult) => r.status === 'failed' || r.status === 'unknown';

/** An applied object to print (undefined: a failure, or not attempted). */
function applied(r: ApplyResult): AppliedObject | undefined {
  return !isFailure(r) && r.status !== 'skipped' && r.object ? { ref: objectRef(r), unchanged: r.status === 'unchanged', object: r.object } : undefined;
}

/** One object's result as it comes (one context): a failure on stderr, an applied object to the printer. */
export function printResult(out: ContextApplyPrinter, context: string, r: ApplyResult): void {
  if (isFailure(r)) out.error(context, failureLine(r) + '\n');
  const object = applied(r);
  if (object) out.page(context, [object]);
}

/**
 * A context's run once it is done (its objects already printed when `streamed`), then --wait's
 * lines and the summary. True when something failed (an object, or --wait).
 */
export function printReport(out: ContextApplyPrinter, context: string, { report, waited }: ContextApply, o: { streamed: boolean; serverDryRun: boolean }): boolean {
  if (!o.streamed) {
    // A bad token or no rights: one line for the context, not one per object.
    const shared = sharedAuthFailure(report);
    if (shared) out.error(context, shared + '\n');
    const objects: AppliedObject[] = [];
    for (const r of report.results) {
      if (!shared && isFailure(r)) out.error(context, failureLine(r) + '\n');
      const object = applied(r);
      if (object) objects.push(object);
    }
    // A context where nothing was applied and something failed has no document (as a failed context of a fleet get).
    if (objects.length > 0 || report.failed + report.unknown === 0) out.page(context, objects);
  }
  out.endContext(context);
  // --wait: an object not ready is that context's failure, one line each.
  for (const line of waited?.errors ?? []) out.error(context, line);
  out.summary(context, summaryLine(report, { serverDryRun: o.serverDryRun, ready: waited?.ready, interrupted: report.interrupted || waited?.interrupted === true }));
  return report.failed + report.unknown > 0 || (waited?.errors.length ?? 0) > 0;
}

/** --dry-run=client: the requests that would be sent to a context, its errors and summary. True when an object failed. */
export function printPlan(out: ContextApplyPrinter, context: string, plan: ContextPlan, total: number): boolean {
  out.page(context, plan.requests.map((r) => ({ ref: objectRef({ manifest: r.manifest, sent: r.body }), unchanged: false, object: r.body, request: r })));
  out.endContext(context);
  for (const e of plan.errors) out.error(context, `error: ${failureReason(e.error)}\n`);
  out.summary(context, clientDryRunSummary(total, plan.requests.length, plan.errors.length));
  return plan.errors.length > 0;
}
