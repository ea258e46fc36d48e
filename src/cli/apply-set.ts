/**
 * `kdyn apply --prune --applyset=...`'s side of the command line (the work: ../applyset/run.ts): the
 * pruned objects as kubectl prints them (`configmap/b pruned`, ` (server dry run)`, ` (dry run)`;
 * `-o name` `configmap/b`; `-o json|yaml|jsonl` the objects, ../printers/applied-list.ts), a taken-over set's line, conflicts and failed deletions one line each on
 * stderr, and one summary line, for one context or each of a fleet (./apply-report.ts; the apply
 * with its set: ../fleet/apply.ts).
 */
import { failureReason } from '../apply/conflict.js';
import type { ApplySetReport, PruneResult } from '../applyset/run.js';
import { conflictLine, memberRef } from '../applyset/prune.js';
import type { ApplyCommandOptions } from './apply-options.js';
import type { Unstructured } from '../core/unstructured.js';

/** Where the output goes: `prefix` before each stdout line (a fleet's `CONTEXT/`), `objects` for the pruned objects in the object formats, `err` for error lines, `note` for other stderr lines. */
export interface SetOutput {
  prefix: string;
  out(line: string): void;
  objects(objects: readonly Unstructured[]): void;
  err(line: string): void;
  note(line: string): void;
}

/** The suffix kubectl puts after `pruned`. */
function drySuffix(dryRun: ApplyCommandOptions['dryRun']): string {
  return dryRun === 'server' ? ' (server dry run)' : dryRun === 'client' ? ' (dry run)' : '';
}

/** One pruned object's stdout line in the line formats (text, name); the object formats print the objects (SetOutput.objects). */
export function prunedLine(r: PruneResult, opts: Pick<ApplyCommandOptions, 'dryRun' | 'output'>, prefix = ''): string | undefined {
  if (r.error) return undefined;
  if (opts.output.format === 'name') return `${prefix}${memberRef(r.member)}\n`;
  if (opts.output.format !== 'text') return undefined;
  return `${prefix}${memberRef(r.member)} pruned${drySuffix(opts.dryRun)}\n`;
}

/** The set's options from the command line's. */
export function setOptions(opts: ApplyCommandOptions): { parent: string; parentNamespace?: string; takeover: boolean } {
  return { parent: opts.applySet!, parentNamespace: opts.applySetNamespace, takeover: opts.applySetTakeover };
}

/**
 * What a set adds to apply's output: a take-over's line, the pruned objects (stdout, kubectl's
 * lines), conflicts and failed deletions (one error line each). Returns how many failed.
 */
export function printSet(set: ApplySetReport, opts: Pick<ApplyCommandOptions, 'dryRun' | 'output'>, out: SetOutput): number {
  if (set.takenOverFrom !== undefined) out.note(`ApplySet ${set.parent.ref} taken over from tooling ${JSON.stringify(set.takenOverFrom)}${drySuffix(opts.dryRun)}\n`);
  const text = set.pruned.map((r) => prunedLine(r, opts, out.prefix) ?? '').join('');
  if (text) out.out(text);
  // -o json|yaml|jsonl: the objects as they were before their deletion, as kubectl prints them.
  const gone = set.pruned.filter((r) => !r.error).map((r) => r.member.object);
  if (gone.length > 0 && !['text', 'name'].includes(opts.output.format)) out.objects(gone);
  const errors = [...set.conflicts.map(conflictLine), ...set.pruned.filter((r) => r.error).map((r) => `error: pruning ${memberRef(r.member)}: ${failureReason(r.error)}`)];
  for (const line of errors) out.err(line + '\n');
  return errors.length;
}

/** The set's summary line: `ApplySet configmaps./app: 2 pruned` (with what was not, and why the parent kept the union). */
export function setSummary(set: ApplySetReport, dryRun: ApplyCommandOptions['dryRun']): string {
  const pruned = set.pruned.filter((r) => !r.error).length;
  let s = `ApplySet ${set.parent.ref}: ${pruned} pruned`;
  const notPruned = set.pruned.length - pruned + set.conflicts.length;
  if (notPruned) s += `, ${notPruned} not pruned`;
  if (set.apply && (set.apply.failed + set.apply.unknown + set.apply.skipped > 0 || set.apply.interrupted)) s += ' (apply failed: nothing pruned)';
  else if (!set.complete) s += ' (the parent keeps the previous group-kinds and namespaces until a complete run)';
  return s + drySuffix(dryRun);
}
