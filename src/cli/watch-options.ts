/**
 * `kdyn watch`'s and `get -w`'s flags as options: -o (and its templates), --for, --timeout,
 * --max-events, --request-timeout, --retry-for, and the flags shared with get (./get-flags.ts). Usage errors are
 * thrown here, before any request.
 */
import type { ParsedArgs } from './command-types.js';
import type { IO } from '../core/io.js';
import { UsageError } from '../core/errors.js';
import { parseDuration } from './duration.js';
import { readSelectionFlags, stringFlag, type SelectionFlags } from './get-flags.js';
import type { WaitCondition, WaitSubject } from '../wait/wait-for.js';
import { waitTimeoutMs } from './wait-timeout.js';
import { prepareOutput, type WatchOutput } from '../printers/index.js';
import { watchPrintOptions } from './print-flags.js';
import type { MultiWatchOptions, MultiWatchResult } from '../watch/multi.js';

/** --for's code (and the JSONPath engine) is loaded only when --for is given. */
type WaitFor = typeof import('../wait/wait-for.js');

export interface WatchOptions extends SelectionFlags {
  /** -o and the printing flags, the template compiled (../printers/index.ts); `explicit`: -o given (with --for, events are printed only then). */
  output: WatchOutput;
  events: boolean;
  initialEvents: boolean;
  resourceVersion?: string;
  timeoutMs?: number;
  /** --for with --timeout 0: check once the lists are in, then end (kubectl wait's `condition not met`). */
  checkOnce: boolean;
  /** --request-timeout: each watch request's time limit. */
  requestTimeoutMs?: number;
  /** --retry-for: how long a 401/403/404 is retried while a watch is re-established after a lost connection (ms). */
  retryForMs?: number;
  maxEvents?: number;
  /** Every --for given (all must hold). */
  waitFor?: WaitCondition[];
  wait?: WaitFor;
  /** --sort-by (the live view's order: ./watch-live.ts). */
  sortBy?: string;
}

export async function readWatchOptions(args: ParsedArgs, mode: 'watch' | 'get', io: IO): Promise<WatchOptions> {
  const f = args.flags;
  const str = stringFlag;
  const selection = readSelectionFlags(f);
  const printing = watchPrintOptions(f); // the printing flags, typed; the output module compiles them last
  const forSpecs = Array.isArray(f.for) ? f.for : [];
  const wait = forSpecs.length > 0 ? await import('../wait/wait-for.js') : undefined;
  const waitFor = wait?.parseWaitFors(forSpecs);
  const maxEvents = typeof f['max-events'] === 'number' ? f['max-events'] : undefined;
  if (maxEvents !== undefined && (maxEvents < 1 || !Number.isInteger(maxEvents))) throw new UsageError(`--max-events must be a positive integer (got ${maxEvents})`);
  const timeout = str(f.timeout);
  // With --for, kubectl wait's --timeout: 30 s when unset, 0 = check once, negative = a week.
  const timeoutMs = wait ? waitTimeoutMs(timeout) : timeout !== undefined ? parseDuration(timeout, 'timeout') : undefined;
  const requestTimeoutMs = parseDuration(String(f['request-timeout'] ?? '0'), 'request-timeout');
  const retryFor = str(f['retry-for']);
  const retryForMs = retryFor !== undefined ? parseDuration(retryFor, 'retry-for') : undefined;
  // Every flag is read; the output module comes last, so the data never climbs from printers/ back to cli/.
  const output = await prepareOutput(printing, io);
  if (waitFor && (output.format === 'table' || output.format === 'wide') && output.explicit) {
    throw new UsageError('--for prints objects: -o must be one of name, json, yaml, jsonl');
  }
  return {
    output: waitFor && !output.explicit ? { ...output, format: 'name' } : output,
    events: mode === 'watch' || f['output-watch-events'] === true,
    initialEvents: f['watch-only'] !== true,
    ...selection,
    resourceVersion: str(f['resource-version']),
    sortBy: str(f['sort-by']),
    timeoutMs: timeoutMs !== undefined && timeoutMs > 0 ? timeoutMs : undefined,
    checkOnce: wait !== undefined && timeoutMs === 0,
    requestTimeoutMs: requestTimeoutMs > 0 ? requestTimeoutMs : undefined,
    retryForMs,
    maxEvents,
    waitFor,
    wait,
  };
}

/** The MultiWatch options the flags give, for `watch` and `get -w` (one context or a fleet's each). */
export function streamOptions(opts: WatchOptions, mode: 'watch' | 'get', table: boolean): MultiWatchOptions {
  return {
    labelSelector: opts.labelSelector,
    fieldSelector: opts.fieldSelector,
    resourceVersion: opts.resourceVersion,
    initialEvents: opts.initialEvents,
    table,
    initialBlock: table,
    pageSize: opts.chunkSize,
    // --request-timeout bounds each watch request; `get -w` then ends with it, as kubectl.
    requestTimeoutMs: opts.requestTimeoutMs,
    endWithRequest: mode === 'get' && opts.requestTimeoutMs !== undefined,
    retryForMs: opts.retryForMs,
    timeoutMs: opts.timeoutMs,
  };
}

/** `--for` as a MultiWatch `until`: every watched resource's objects meet every condition (undefined without --for). */
export function waitForUntil(opts: WatchOptions): MultiWatchOptions['until'] {
  const conds = opts.waitFor;
  return conds && ((sources) => sources.every((s) => opts.wait!.allSatisfyAll(conds, s.objects())));
}

/** What a `--for` watch says when it ended (kubectl wait's lines), and whether its conditions were met. */
export interface WaitForEnd {
  /** `configmap/x condition met` lines; at a timeout, then the last state of each unmet object. */
  stdout: string;
  /** kubectl's error for the unmet objects (`error: timed out waiting for the condition on configmaps/x`). */
  stderr: string;
  /** False when the watch ended with the conditions unmet (a timeout, or every stream gone). */
  met: boolean;
}

/**
 * The end of a `--for` watch of one context (`result`: its MultiWatch's): nothing to say after an
 * error or a signal (reported elsewhere), the met lines when `until` held, the last state at a
 * timeout. (`watch` and each context of a fleet watch.)
 */
export function waitForEnd(opts: WatchOptions, result: MultiWatchResult): WaitForEnd {
  const wait = opts.wait!;
  const conds = opts.waitFor!;
  const subjects: WaitSubject[] = result.sources.map((s) => ({ resource: s.resource, gk: s.gk, name: s.name, objects: s.objects(), gone: s.gone() }));
  // Every stream ended (their types went away) before --for was met.
  if (result.reason === undefined && result.error === undefined) return { stdout: '', stderr: '', met: false };
  if (result.reason === 'done') return { stdout: wait.metLines(conds, subjects), stderr: '', met: true };
  if (result.reason === 'timeout' && result.error === undefined) {
    const report = wait.unmetReport(conds, subjects, opts.checkOnce);
    return { stdout: wait.metLines(conds, subjects) + report.stdout, stderr: report.stderr, met: false };
  }
  return { stdout: '', stderr: '', met: true };
}
