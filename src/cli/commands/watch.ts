/**
 * `kdyn watch TYPE[,TYPE...] [NAME]`, and `kdyn get -w|--watch-only [--output-watch-events]` (which
 * prints what kubectl prints). Each resource (and each name) gets its own Reflector-style watcher
 * (../../watch/watcher.ts): the stream resumes, relists on 410 and never ends on its own. Events of
 * all watchers are printed as they arrive (../../printers/watch.ts); a table prints each type's
 * initial list as one block, as kubectl does.
 *
 * Ends: `--timeout` (exit 0; with --for, 1 and the last state; --for's default is kubectl wait's
 * 30 s, 0 checks once), `--max-events N` (0), every `--for` satisfied (0), for `get -w` the end of a
 * watch request bounded by --request-timeout (0, as kubectl; `kdyn watch` resumes after each such
 * request instead), SIGINT (130) or SIGTERM (143) after flushing the output (kubectl v1.32 exits 1 on
 * both; 128+signal lets a script tell an interrupt from a failure), a closed stdout (0, quietly:
 * src/cli/stdio.ts). An error that stops a watcher (401, 403, a bad selector) exits 1 after the
 * output so far. A type that goes away (its CRD deleted: 404 once it had been listed) ends its own
 * stream after the DELETED events, with one stderr line; the other types go on, and when none is
 * left the watch exits 0, as kubectl get -w after the DELETED rows (1 with an unmet --for).
 */
import type { ParsedArgs } from '../spec.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { StatusError, UsageError, oneLine } from '../../core/errors.js';
import { parseGetArgs, resolveGetArgs } from '../../restmapper/args.js';
import { parseDuration } from '../duration.js';
import { checkNamesWithSelection, readSelectionFlags, stringFlag, type SelectionFlags } from '../get-flags.js';
import { MultiWatch, type MultiWatchSource, type MultiWatchTarget } from '../../watch/multi.js';
import type { ResumeInfo, RetryInfo } from '../../watch/types.js';
import { WATCH_FORMATS, createWatchPrinter, type WatchFormat } from '../../printers/watch.js';
import type { WaitCondition, WaitSubject } from '../watch-for.js';
import { compileValueTemplate, readTemplate, withTemplate } from '../output-template.js';
import { ALLOWED_FORMATS, parseOutputFormat, type OutputFormat } from '../../printers/index.js';
import { nodeHeap, youngGenerationCap, type HeapControl } from '../young-gen-cap.js';

/** --for's code (and the JSONPath engine) is loaded only when --for is given. */
type WaitFor = typeof import('../watch-for.js');

interface Options extends SelectionFlags {
  format: WatchFormat;
  /** -o given (with --for, events are printed only then). */
  explicitFormat: boolean;
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
  noHeaders: boolean;
  showManagedFields: boolean;
  /** -o jsonpath/go-template: the compiled template. */
  render?: (data: unknown) => string;
}

const EXIT_FOR_SIGNAL = { SIGINT: 130, SIGTERM: 143 } as const;

async function readOptions(args: ParsedArgs, mode: 'watch' | 'get', io: IO): Promise<Options> {
  const f = args.flags;
  const str = stringFlag;
  const selection = readSelectionFlags(f);
  const output = withTemplate(str(f.output), str(f.template));
  let format = (output ?? 'table') as WatchFormat;
  let render: Options['render'];
  if (!WATCH_FORMATS.includes(format) || output === 'table') {
    const parsed = templateFormat(output);
    if (!parsed) throw new UsageError(`unable to match a printer suitable for the output format "${output}" with a watch, allowed formats are: ${WATCH_OUTPUTS.join(',')}`);
    render = await compileValueTemplate(parsed, (await readTemplate(parsed, io)) ?? '', f['allow-missing-template-keys'] !== false);
    format = 'template';
  }
  const forSpecs = Array.isArray(f.for) ? f.for : [];
  const wait = forSpecs.length > 0 ? await import('../watch-for.js') : undefined;
  const waitFor = wait?.parseWaitFors(forSpecs);
  if (waitFor && (format === 'table' || format === 'wide') && output !== undefined) {
    throw new UsageError('--for prints objects: -o must be one of name, json, yaml, jsonl');
  }
  const maxEvents = typeof f['max-events'] === 'number' ? f['max-events'] : undefined;
  if (maxEvents !== undefined && (maxEvents < 1 || !Number.isInteger(maxEvents))) throw new UsageError(`--max-events must be a positive integer (got ${maxEvents})`);
  const timeout = str(f.timeout);
  // With --for, kubectl wait's --timeout: 30 s when unset, 0 = check once, negative = a week.
  const timeoutMs = wait ? wait.waitTimeoutMs(timeout) : timeout !== undefined ? parseDuration(timeout, 'timeout') : undefined;
  const requestTimeoutMs = parseDuration(String(f['request-timeout'] ?? '0'), 'request-timeout');
  return {
    format: waitFor && output === undefined ? 'name' : format,
    explicitFormat: output !== undefined,
    events: mode === 'watch' || f['output-watch-events'] === true,
    initialEvents: f['watch-only'] !== true,
    ...selection,
    resourceVersion: str(f['resource-version']),
    timeoutMs: timeoutMs !== undefined && timeoutMs > 0 ? timeoutMs : undefined,
    checkOnce: wait !== undefined && timeoutMs === 0,
    requestTimeoutMs: requestTimeoutMs > 0 ? requestTimeoutMs : undefined,
    maxEvents,
    waitFor,
    wait,
    noHeaders: f['no-headers'] === true,
    showManagedFields: f['show-managed-fields'] === true,
    render,
  };
}

/** What `-o` may be with a watch: get's formats without custom-columns. */
const WATCH_OUTPUTS = ALLOWED_FORMATS.filter((f) => !f.startsWith('custom-columns'));

/** A jsonpath or go-template -o (with its file forms), else undefined. */
function templateFormat(output: string | undefined): Extract<OutputFormat, { type: 'jsonpath' | 'go-template' }> | undefined {
  const key = output?.split('=', 1)[0];
  if (key === undefined || !WATCH_OUTPUTS.includes(key) || (WATCH_FORMATS as readonly string[]).includes(key)) return undefined;
  const format = parseOutputFormat(output);
  return format.type === 'jsonpath' || format.type === 'go-template' ? format : undefined;
}

export async function run(args: ParsedArgs, ctx: Context, io: IO, mode: 'watch' | 'get' = 'watch', heap: HeapControl = nodeHeap): Promise<number> {
  const opts = await readOptions(args, mode, io);
  checkNamesWithSelection(parseGetArgs(args.args, args.prog), opts);
  if (mode === 'get' && args.flags['output-watch-events'] === true && args.flags.watch !== true && args.flags['watch-only'] !== true) {
    throw new UsageError('--output-watch-events requires --watch or --watch-only');
  }

  await ctx.preconnect();
  const [mapper, client] = await Promise.all([ctx.mapper(), ctx.dynamic()]);
  const [plan, namespace] = await Promise.all([resolveGetArgs(args.args, mapper, args.prog), opts.allNamespaces ? undefined : ctx.namespace()]);

  const targets: MultiWatchTarget[] = [];
  for (const req of plan.requests) {
    let handle = client.resource(req.mapping.gvr, { namespaced: req.mapping.namespaced });
    if (req.mapping.namespaced && namespace) handle = handle.namespace(namespace);
    const gk = { group: req.mapping.gvk.group, kind: req.mapping.gvk.kind };
    const type = req.mapping.gvr.group ? `${req.mapping.gvr.resource}.${req.mapping.gvr.group}` : req.mapping.gvr.resource;
    for (const name of req.names.length > 0 ? req.names : [undefined]) targets.push({ handle, gk, type, resource: req.mapping.gvr.resource, name });
  }

  const table = (opts.format === 'table' || opts.format === 'wide') && !opts.waitFor;
  const out = new OutputBuffer(io);
  // Flat memory on long streams (../young-gen-cap.ts): checked every 1,024 events.
  const capYoungGeneration = youngGenerationCap(heap);
  let received = 0;
  const gone = new Set<string>();
  const notices = new Map<MultiWatchSource, ReturnType<typeof outageNotices>>();
  const noticesFor = (s: MultiWatchSource) => {
    let n = notices.get(s);
    if (!n) notices.set(s, (n = outageNotices(s.type, io, ctx.logger.enabled(1))));
    return n;
  };
  const multi = new MultiWatch(targets, {
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
    maxEvents: opts.maxEvents,
    until: opts.waitFor && ((sources) => sources.every((s) => opts.wait!.allSatisfyAll(opts.waitFor!, s.objects()))),
    checkOnce: opts.checkOnce,
    trackGone: opts.waitFor !== undefined,
    clock: ctx.clock,
    logger: ctx.logger,
    onReceive: () => {
      if ((++received & 1023) === 0) capYoungGeneration();
    },
    onRetry: (r, s) => noticesFor(s).onRetry(r),
    onResume: (r, s) => noticesFor(s).onResume(r),
    // A 410 before any list (a watch from --resource-version): the relist prints every object as
    // ADDED, which a script asking for the changes since RV could not tell from creations. (After
    // a list, a relist prints only the differences: nothing to say.)
    onRelist: (r, s) => {
      if (s.listed) return;
      out.flush();
      const which = r.resourceVersion === opts.resourceVersion ? `--resource-version ${r.resourceVersion}` : `resourceVersion ${r.resourceVersion}`;
      io.stderr.write(`Warning: watch of ${s.type}: ${which} has expired (${expiredText(r.error)}); relisting: what follows is every current object, printed as ADDED\n`);
    },
    onGone: (s, e) => {
      if (gone.has(s.type)) return;
      gone.add(s.type);
      out.flush();
      io.stderr.write(`Warning: watch of ${s.type} ended: the resource type is no longer served (${oneLine(e.status.message ?? e.message)})\n`);
    },
  });
  let signal: 'SIGINT' | 'SIGTERM' | undefined;
  const unlisten = io.onSignal?.((sig) => {
    if (multi.stop(sig)) signal = sig;
  });

  const printer = await createWatchPrinter({
    format: opts.format,
    events: opts.events,
    withNamespace: opts.allNamespaces && plan.requests.some((r) => r.mapping.namespaced),
    noHeaders: opts.noHeaders,
    withKind: new Set(targets.map((s) => `${s.gk.kind}.${s.gk.group}`)).size > 1,
    keepManagedFields: opts.showManagedFields || (mode === 'get' && opts.events && (opts.format === 'json' || opts.format === 'yaml')),
    render: opts.render,
  });
  const printEvents = !opts.waitFor || opts.explicitFormat;
  const result = await multi.run((events) => {
    if (printEvents) out.write(table ? printer.printBlock(events) : events.map((e) => printer.print(e)).join(''));
  });
  unlisten?.();

  let code = 0;
  // Every stream ended (their types went away) before --for was met.
  if (opts.waitFor && result.reason === undefined && result.error === undefined) code = 1;
  if (opts.waitFor) {
    const subjects: WaitSubject[] = result.sources.map((s) => ({ resource: s.resource, gk: s.gk, name: s.name, objects: s.objects(), gone: s.gone() }));
    if (result.reason === 'done') out.write(opts.wait!.metLines(opts.waitFor, subjects));
    else if (result.reason === 'timeout' && result.error === undefined) {
      const report = opts.wait!.unmetReport(opts.waitFor, subjects, opts.checkOnce);
      out.write(opts.wait!.metLines(opts.waitFor, subjects) + report.stdout);
      out.flush();
      io.stderr.write(report.stderr);
      code = 1;
    }
  }
  out.flush();
  if (result.error !== undefined) throw result.error;
  if (signal !== undefined && result.reason === signal) return EXIT_FOR_SIGNAL[signal];
  return code;
}

/** The server's words for a 410 (`too old resource version: 5 (12)`). */
function expiredText(e: Error): string {
  return e instanceof StatusError ? (e.status.message ?? e.message) : e.message;
}

/**
 * What a watch says on stderr about failed attempts. While the server cannot be reached at all
 * (refused or reset connections; the watcher retries about every second), one line when that
 * begins and one when the watch is answered again, whatever the outage's length (`-v=1`: every
 * attempt too). Other failures (429, 5xx, broken streams): a line per attempt from the second in a
 * row (`-v=1`: from the first). kubectl's `get -w` prints none of these: it exits at the first
 * disconnection.
 */
function outageNotices(label: string, io: IO, verbose: boolean): { onRetry: (r: RetryInfo) => void; onResume: (r: ResumeInfo) => void } {
  let unreachable = false;
  const retryLine = (r: RetryInfo) => io.stderr.write(`Warning: watch of ${label}: ${errorLine(r.error)}; retrying in ${(r.delayMs / 1000).toFixed(1)}s\n`);
  return {
    onRetry: (r) => {
      if (r.unreachable && !unreachable) {
        unreachable = true;
        io.stderr.write(`Warning: watch of ${label}: ${errorLine(r.error)}; retrying every second until the server is back\n`);
      } else if (verbose || (!r.unreachable && r.failures > 1)) retryLine(r);
    },
    onResume: (r) => {
      if (!unreachable) return;
      unreachable = false;
      io.stderr.write(`watch of ${label}: the server is back after ${(r.failingMs / 1000).toFixed(1)}s; watching again\n`);
    },
  };
}

function errorLine(e: unknown): string {
  return e instanceof Error ? e.message.split('\n')[0]! : String(e);
}

/**
 * Output in batches: events that arrive together (one network chunk) are written with one write;
 * a write happens at the latest on the next turn of the event loop, or at 64 KiB.
 */
class OutputBuffer {
  private pending = '';
  private scheduled = false;

  constructor(private readonly io: IO) {}

  write(text: string): void {
    if (!text) return;
    this.pending += text;
    if (this.pending.length >= 65536) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  flush(): void {
    if (!this.pending) return;
    const text = this.pending;
    this.pending = '';
    this.io.stdout.write(text);
  }
}
