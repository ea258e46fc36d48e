/**
 * `kdyn apply` to several contexts: flags -> ../../fleet/apply.ts -> per context, in the contexts'
 * order, its lines (`CONTEXT/kind/name serverside-applied`; `-o name` `CONTEXT/kind/name`; `-o
 * jsonl` `{"context":C,"object":O}`; `-o json|yaml` a List per context with its `context`), its
 * failures on stderr (`error: context "C": ...`) and one summary line (`context "C": N objects: ...`).
 * `--dry-run=client` prints each context's requests the same way (the text output: its YAML request
 * documents, `# context "C": PATCH ...`); `--wait` waits per context, an object not ready being one
 * `error: context "C": ...` line and a failure of that context. Exit 1 if any object or context failed; 130/143 after
 * SIGINT/SIGTERM.
 */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import type { Unstructured } from '../../core/unstructured.js';
import type { Manifest } from '../../apply/manifests.js';
import type { PlannedRequest } from '../../apply/requests.js';
import { failureReason } from '../../apply/conflict.js';
import { fleetRequest } from '../fleet.js';
import { fleetApply, fleetPlan, type ContextApply } from '../../fleet/apply.js';
import type { ContextResult } from '../../fleet/fanout.js';
import { contextErrorLine, contextList, jsonlRecord } from '../../printers/envelopes.js';
import { requestDocument } from '../../printers/apply.js';
import type { ApplyCommandOptions } from '../apply-options.js';
import { clientDryRunSummary, failureLine, objectRef, sharedAuthFailure, summaryLine } from '../../apply/report.js';

/** One object to print: applied (server) or as it would be sent (client dry run). */
interface Entry {
  ref: string;
  object: Unstructured;
  unchanged?: boolean;
  request?: PlannedRequest;
}

export async function runFleet(args: ParsedArgs, ctx: Context, io: IO, opts: ApplyCommandOptions, manifests: Manifest[]): Promise<number> {
  const fleet = await fleetRequest(args, ctx, { namespaces: false });
  const shape = opts.output.format;
  const clientDryRun = opts.dryRun === 'client';
  const encode = shape === 'json' ? (await import('../../printers/json.js')).toJSON : shape === 'yaml' || (clientDryRun && shape === 'text') ? (await import('../../printers/yaml.js')).toYAML : undefined;
  const dry = opts.dryRun === 'server' ? ' (server dry run)' : '';
  const stop = new AbortController();
  let signalled: 'SIGINT' | 'SIGTERM' | undefined;
  const unregister = io.onSignal?.((sig) => {
    signalled ??= sig;
    stop.abort();
  });
  let failed = false;
  let docs = 0;
  const write = (context: string, entries: Entry[]) => {
    let text = '';
    const objects: Unstructured[] = [];
    for (const { ref, object, unchanged, request } of entries) {
      if (!clientDryRun && !opts.output.showManagedFields && object.metadata?.managedFields !== undefined) delete object.metadata.managedFields;
      if (request && shape === 'text') text += (docs++ > 0 ? '---\n' : '') + requestDocument(request, encode!(object), `context ${JSON.stringify(context)}: `);
      else if (shape === 'text') text += `${context}/${ref} ${unchanged ? 'unchanged' : 'serverside-applied'}${dry}\n`;
      else if (shape === 'name') text += `${context}/${ref}\n`;
      else if (shape === 'jsonl') text += jsonlRecord(context, object);
      else objects.push(object);
    }
    if (shape === 'json' || shape === 'yaml') text = (docs++ > 0 && shape === 'yaml' ? '---\n' : '') + encode!(contextList(context, objects));
    io.stdout.write(text);
  };
  const summary = (context: string, line: string) => io.stderr.write(`context ${JSON.stringify(context)}: ${line}\n`);
  const printReport = (context: string, { report, waited }: ContextApply) => {
    const entries: Entry[] = [];
    // A bad token or no rights: one line for the context, not one per object.
    const shared = sharedAuthFailure(report);
    if (shared) io.stderr.write(contextErrorLine(context, shared));
    for (const r of report.results) {
      if (!shared && (r.status === 'failed' || r.status === 'unknown')) io.stderr.write(contextErrorLine(context, failureLine(r)));
      if (r.status !== 'failed' && r.status !== 'unknown' && r.status !== 'skipped' && r.object) entries.push({ ref: objectRef(r), object: r.object, unchanged: r.status === 'unchanged' });
    }
    // A context where nothing was applied and something failed has no document (as a failed context of a fleet get).
    if (entries.length > 0 || report.failed + report.unknown === 0) write(context, entries);
    // --wait: an object not ready is that context's failure, one line each (as a single-context --wait).
    for (const line of waited?.errors ?? []) io.stderr.write(contextErrorLine(context, line));
    failed ||= report.failed + report.unknown > 0 || (waited?.errors.length ?? 0) > 0;
    summary(context, summaryLine(report, { serverDryRun: opts.dryRun === 'server', ready: waited?.ready, interrupted: report.interrupted || waited?.interrupted === true }));
  };
  const fanOpts = {
    apply: {
      fieldManager: opts.fieldManager,
      force: opts.force,
      dryRun: opts.dryRun === 'server',
      fieldValidation: opts.validation,
      concurrency: opts.concurrency,
      enforceNamespace: ctx.explicit.has('namespace'),
      detectUnchanged: shape === 'text',
      establishTimeoutMs: opts.timeoutGiven ? opts.timeoutMs : undefined,
    },
    concurrency: fleet.concurrency,
    signal: stop.signal,
    clock: ctx.clock,
  };
  /** A context's result: its output, or (down, unmappable input) its one error line. */
  const each = <T>(print: (context: string, value: T) => void) => (r: ContextResult<T>) => {
    if (r.ok) return print(r.context, r.value);
    failed = true;
    fleet.report(r.context, r.error);
  };
  try {
    if (clientDryRun) {
      await fleetPlan(fleet.contexts, fleet.open, manifests, {
        ...fanOpts,
        onContext: each((context, plan) => {
          write(context, plan.requests.map((r) => ({ ref: objectRef({ manifest: r.manifest, sent: r.body }), object: r.body, request: r })));
          for (const e of plan.errors) io.stderr.write(contextErrorLine(context, failureReason(e.error)));
          failed ||= plan.errors.length > 0;
          summary(context, clientDryRunSummary(manifests.length, plan.requests.length, plan.errors.length));
        }),
      });
    } else await fleetApply(fleet.contexts, fleet.open, manifests, { ...fanOpts, wait: opts.wait ? { timeoutMs: opts.timeoutMs } : undefined, onContext: each(printReport) });
  } finally {
    unregister?.();
  }
  if (signalled) return signalled === 'SIGINT' ? 130 : 143;
  return failed ? 1 : 0;
}
