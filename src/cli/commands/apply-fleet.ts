/**
 * `kdyn apply` to several contexts: flags -> ../../fleet/apply.ts -> per context, in the contexts'
 * order, its lines (`CONTEXT/kind/name serverside-applied`; `-o name` `CONTEXT/kind/name`; `-o
 * jsonl` `{"context":C,"object":O}`; `-o json|yaml` a List per context with its `context`), its
 * failures on stderr (`error: context "C": ...`) and one summary line (`context "C": N objects: ...`).
 * Exit 1 if any object or context failed; 130/143 after SIGINT/SIGTERM.
 */
import type { ParsedArgs } from '../spec.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { UsageError } from '../../core/errors.js';
import type { Unstructured } from '../../core/unstructured.js';
import type { Manifest } from '../../apply/manifests.js';
import type { ApplyReport } from '../../apply/apply.js';
import { fleetRequest } from '../fleet.js';
import { fleetApply } from '../../fleet/apply.js';
import { contextErrorLine, contextList, jsonlRecord } from '../../fleet/output.js';
import type { ApplyCommandOptions } from './apply.js';
import { failureLine, objectRef, summaryLine } from '../../apply/report.js';

export async function runFleet(args: ParsedArgs, ctx: Context, io: IO, opts: ApplyCommandOptions, manifests: Manifest[]): Promise<number> {
  if (opts.dryRun === 'client') throw new UsageError('--dry-run=client is not supported with several contexts: use --dry-run=server');
  if (opts.wait) throw new UsageError('--wait is not supported with several contexts');
  const fleet = await fleetRequest(args, ctx, { namespaces: false });
  const shape = opts.output.format;
  const encode = shape === 'json' ? (await import('../../printers/json.js')).toJSON : shape === 'yaml' ? (await import('../../printers/yaml.js')).toYAML : undefined;
  const dry = opts.dryRun === 'server' ? ' (server dry run)' : '';
  const stop = new AbortController();
  let signalled: 'SIGINT' | 'SIGTERM' | undefined;
  const unregister = io.onSignal?.((sig) => {
    signalled ??= sig;
    stop.abort();
  });
  let failed = false;
  let docs = 0;
  const print = (context: string, report: ApplyReport) => {
    let text = '';
    const objects: Unstructured[] = [];
    for (const r of report.results) {
      if (r.status === 'failed') io.stderr.write(contextErrorLine(context, failureLine(r)));
      if (r.status === 'failed' || r.status === 'skipped' || !r.object) continue;
      const obj = r.object;
      if (!opts.output.showManagedFields && obj.metadata?.managedFields !== undefined) delete obj.metadata.managedFields;
      if (shape === 'text') text += `${context}/${objectRef(r)} ${r.status === 'unchanged' ? 'unchanged' : 'serverside-applied'}${dry}\n`;
      else if (shape === 'name') text += `${context}/${objectRef(r)}\n`;
      else if (shape === 'jsonl') text += jsonlRecord(context, obj);
      else objects.push(obj);
    }
    if (encode) text = (docs++ > 0 && shape === 'yaml' ? '---\n' : '') + encode(contextList(context, objects));
    io.stdout.write(text);
    io.stderr.write(`context ${JSON.stringify(context)}: ${summaryLine(report, { serverDryRun: opts.dryRun === 'server', interrupted: report.interrupted })}\n`);
  };
  try {
    await fleetApply(fleet.contexts, fleet.open, manifests, {
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
      onContext: (r) => {
        if (!r.ok) {
          failed = true;
          return fleet.report(r.context, r.error);
        }
        failed ||= r.value.failed > 0;
        print(r.context, r.value);
      },
    });
  } finally {
    unregister?.();
  }
  if (signalled) return signalled === 'SIGINT' ? 130 : 143;
  return failed ? 1 : 0;
}
