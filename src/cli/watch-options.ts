/**
 * `kdyn watch`'s and `get -w`'s flags as options: -o (and its templates), --for, --timeout,
 * --max-events, --request-timeout, and the flags shared with get (./get-flags.ts). Usage errors are
 * thrown here, before any request.
 */
import type { ParsedArgs } from './spec.js';
import type { IO } from '../core/io.js';
import { UsageError } from '../core/errors.js';
import { parseDuration } from './duration.js';
import { readSelectionFlags, stringFlag, type SelectionFlags } from './get-flags.js';
import type { WaitCondition } from '../wait/wait-for.js';
import { waitTimeoutMs } from './wait-timeout.js';
import { prepareOutput, readOutput, type WatchOutput } from '../printers/index.js';
import type { MultiWatchOptions } from '../watch/multi.js';

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
  const output = await prepareOutput(readOutput('watch', f), io);
  const forSpecs = Array.isArray(f.for) ? f.for : [];
  const wait = forSpecs.length > 0 ? await import('../wait/wait-for.js') : undefined;
  const waitFor = wait?.parseWaitFors(forSpecs);
  if (waitFor && (output.format === 'table' || output.format === 'wide') && output.explicit) {
    throw new UsageError('--for prints objects: -o must be one of name, json, yaml, jsonl');
  }
  const maxEvents = typeof f['max-events'] === 'number' ? f['max-events'] : undefined;
  if (maxEvents !== undefined && (maxEvents < 1 || !Number.isInteger(maxEvents))) throw new UsageError(`--max-events must be a positive integer (got ${maxEvents})`);
  const timeout = str(f.timeout);
  // With --for, kubectl wait's --timeout: 30 s when unset, 0 = check once, negative = a week.
  const timeoutMs = wait ? waitTimeoutMs(timeout) : timeout !== undefined ? parseDuration(timeout, 'timeout') : undefined;
  const requestTimeoutMs = parseDuration(String(f['request-timeout'] ?? '0'), 'request-timeout');
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
    timeoutMs: opts.timeoutMs,
  };
}
