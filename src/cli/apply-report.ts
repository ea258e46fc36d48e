/**
 * What `kdyn apply` says about each context's run (./commands/apply.ts), through apply's printer
 * decorated with the context (../printers/context-apply.ts): the objects on stdout, one stderr line
 * per failure (a fleet's context where every object failed for the same authentication or
 * authorization reason: one line for them all, issue 35), `--wait`'s lines, and the summary. The
 * words are ../apply/report.ts's. With `--prune --applyset` (issue 37), each context's set adds its
 * lines (./apply-set.ts: `[CONTEXT/]kind/name pruned`, conflicts) and its summary.
 */
import type { ApplyResult } from '../apply/apply.js';
import { failureReason } from '../apply/conflict.js';
import { clientDryRunSummary, failureLine, objectRef, sharedAuthFailure, summaryLine } from '../apply/report.js';
import type { ContextApply, ContextPlan } from '../fleet/apply.js';
import type { ContextApplyPrinter } from '../printers/context-apply.js';
import type { AppliedObject } from '../printers/index.js';
import type { ApplySetReport } from '../applyset/run.js';
import type { ApplyCommandOptions } from './apply-options.js';
import { printSet, setSummary } from './apply-set.js';

/** What the set's lines depend on: the command's dry run and output, and whether lines name their context. */
export interface ReportOptions extends Pick<ApplyCommandOptions, 'dryRun' | 'output'> {
  showContext: boolean;
}

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
export function printReport(out: ContextApplyPrinter, context: string, { report, waited, set }: ContextApply, o: ReportOptions & { streamed: boolean }): boolean {
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
  // The pruned objects after the applied ones (-o json|yaml: after the document printed at the end).
  const setFailed = set ? printSetOf(out, context, set, o) : false;
  // --wait: an object not ready is that context's failure, one line each.
  for (const line of waited?.errors ?? []) out.error(context, line);
  out.summary(context, summaryLine(report, { serverDryRun: o.dryRun === 'server', ready: waited?.ready, interrupted: report.interrupted || waited?.interrupted === true }));
  if (set) out.summary(context, setSummary(set, o.dryRun));
  return report.failed + report.unknown > 0 || (waited?.errors.length ?? 0) > 0 || setFailed;
}

/** --prune --applyset: a context's pruned objects (`[# ][CONTEXT/]kind/name pruned`), its conflicts and failed deletions; true if any failed. */
function printSetOf(out: ContextApplyPrinter, context: string, set: ApplySetReport, o: ReportOptions, comment = ''): boolean {
  const prefix = comment + (o.showContext ? `${context}/` : '');
  return printSet(set, o, { prefix, out: (l) => out.text(context, l), objects: (x) => out.pruned(context, x), err: (l) => out.error(context, l), note: (l) => out.summary(context, l.trimEnd()) }) > 0;
}

/** --dry-run=client: the requests that would be sent to a context, its errors and summary. True when an object failed. */
export function printPlan(out: ContextApplyPrinter, context: string, plan: ContextPlan, total: number, o: ReportOptions): boolean {
  out.page(context, plan.requests.map((r) => ({ ref: objectRef({ manifest: r.manifest, sent: r.body }), unchanged: false, object: r.body, request: r })));
  out.endContext(context);
  // With --applyset: what would be pruned follows the requests, as YAML comments in text output.
  const setFailed = plan.set ? printSetOf(out, context, plan.set, o, o.output.format === 'text' ? '# ' : '') : false;
  for (const e of plan.errors) out.error(context, `error: ${failureReason(e.error)}\n`);
  out.summary(context, clientDryRunSummary(total, plan.requests.length, plan.errors.length));
  return plan.errors.length > 0 || setFailed;
}
