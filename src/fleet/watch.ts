/**
 * `watch` over one or more contexts (issue 24; one cluster is a fleet of one, issue 36): per
 * context, the arguments are resolved with its own RESTMapper and one MultiWatch (../watch/multi.ts)
 * watches every type (and namespace) there, with its own reflectors and backoff; its events are
 * handed over tagged with the context. Every context runs at once; one that is down is retried by
 * its watchers (a warm discovery cache lets it start while down) and one whose watch fails for good
 * (forbidden, a bad selector) is reported and stops alone; the others go on until the shared stop
 * (`stop()`: a signal, `q`; a timeout; `maxEvents` over all contexts). With `until` (`--for`) each
 * context also ends on its own once its condition holds. Nothing here prints.
 */
import { resolveGetArgs, type GetPlan } from '../restmapper/args.js';
import { MultiWatch, type MultiWatchEvent, type MultiWatchOptions, type MultiWatchResult, type MultiWatchSource, type MultiWatchStopReason } from '../watch/multi.js';
import { watchTargets } from '../watch/targets.js';
import { fanOut } from './fanout.js';
import type { Member } from './member.js';

type Hook<K extends 'onRetry' | 'onResume' | 'onRelist' | 'onListed' | 'onGone'> = (context: string, ...a: Parameters<NonNullable<MultiWatchOptions[K]>>) => void;

/** What MultiWatch's hooks see, with the context they belong to. */
export interface ContextWatchHooks {
  onRetry?: Hook<'onRetry'>;
  onResume?: Hook<'onResume'>;
  onRelist?: Hook<'onRelist'>;
  onListed?: Hook<'onListed'>;
  onGone?: Hook<'onGone'>;
}

export interface ContextWatchOptions extends ContextWatchHooks {
  args: readonly string[];
  prog?: string;
  /** The namespaces to watch (undefined: each context's own; ignored with allNamespaces). */
  namespaces?: readonly string[];
  allNamespaces: boolean;
  /** Every context's MultiWatch options (not its hooks, `signal`, `until`). */
  watch: Omit<MultiWatchOptions, 'signal' | 'maxEvents' | 'until' | 'checkOnce' | 'onRetry' | 'onResume' | 'onRelist' | 'onListed' | 'onGone'>;
  /** Stop every context once this many events were delivered in all. */
  maxEvents?: number;
  /**
   * Each context's own end (`--for`): its watch stops (reason `done`) once this holds for its
   * sources, or at its `timeoutMs` (`timeout`); the others go on.
   */
  until?: MultiWatchOptions['until'];
  /** With `until`: check once every target is synced, then stop (`timeout` if unmet). */
  checkOnce?: boolean;
  /** A context's arguments are resolved and its targets about to be watched (awaited: e.g. to open a view over them). */
  onStart?(context: string, sources: readonly MultiWatchSource[], plan: GetPlan): void | Promise<void>;
  /** A batch of one context's events (its initial list in one batch with `initialBlock`). */
  onEvents(context: string, events: MultiWatchEvent[], sources: readonly MultiWatchSource[]): void;
  /** A context whose watch could not start or ended with an error; the others go on. */
  onError(context: string, error: unknown): void;
  /** A context's watch ended without an error (its reason and sources: what `--for` reports). */
  onEnd?(context: string, result: MultiWatchResult): void;
}

export interface ContextWatchResult {
  /** Why the run stopped: `stop()`'s reason, `done` (maxEvents), a context's MultiWatch reason (`timeout`), or undefined. */
  reason?: MultiWatchStopReason;
  failures: number;
}

/** A running watch over contexts. */
export interface ContextWatch {
  /** Stops every context with `reason` unless the run stopped or ended already; true when this call stopped it. */
  stop(reason: MultiWatchStopReason): boolean;
  readonly result: Promise<ContextWatchResult>;
}

export function watchContexts(contexts: readonly string[], open: (context: string) => Member, o: ContextWatchOptions): ContextWatch {
  const ac = new AbortController();
  let stopped: MultiWatchStopReason | undefined;
  let running = contexts.length;
  const stop = (reason: MultiWatchStopReason): boolean => {
    if (stopped !== undefined || running === 0) return false;
    stopped = reason;
    ac.abort();
    return true;
  };
  let delivered = 0;
  let reason: MultiWatchStopReason | undefined;
  let failures = 0;
  const fail = (context: string, e: unknown) => {
    failures++;
    o.onError(context, e);
  };
  const watchOne = async (m: Member, context: string): Promise<void> => {
    await m.preconnect?.();
    const [mapper, client] = await Promise.all([m.mapper(), m.dynamic()]);
    const [plan, namespace] = await Promise.all([resolveGetArgs(o.args, mapper, o.prog), o.allNamespaces || o.namespaces ? undefined : m.namespace()]);
    const multi = new MultiWatch(watchTargets(plan.requests, client, o.allNamespaces ? [undefined] : (o.namespaces ?? [namespace])), {
      ...o.watch,
      maxEvents: o.maxEvents, // no context delivers more than every context together
      until: o.until,
      checkOnce: o.checkOnce,
      signal: ac.signal,
      onRetry: (r, s) => o.onRetry?.(context, r, s),
      onResume: (r, s) => o.onResume?.(context, r, s),
      onRelist: (r, s) => o.onRelist?.(context, r, s),
      onListed: (s) => o.onListed?.(context, s),
      onGone: (s, e) => o.onGone?.(context, s, e),
    });
    await o.onStart?.(context, multi.sources, plan);
    const result = await multi.run((events) => {
      if (stopped === 'done') return;
      if (o.maxEvents !== undefined && delivered + events.length >= o.maxEvents) {
        events = events.slice(0, o.maxEvents - delivered);
        stop('done');
      }
      delivered += events.length;
      o.onEvents(context, events, multi.sources);
    });
    if (result.error !== undefined) throw result.error;
    if (result.reason !== 'aborted') reason ??= result.reason;
    // --max-events ended the run: every context ends as a watch of one context ending on it does
    // (with --for: the lines of what is met, exit 0), not as a context stopped from outside.
    o.onEnd?.(context, stopped === 'done' ? { ...result, reason: 'done' } : result);
  };
  const run = async (): Promise<ContextWatchResult> => {
    await fanOut<Member, void>(
      contexts,
      async (m, context) => {
        // Reported at once (not in the contexts' order): the others' watches go on for ever.
        try {
          await watchOne(m, context);
        } catch (e) {
          if (!ac.signal.aborted) fail(context, e);
        } finally {
          running--;
        }
      },
      {
        open,
        close: async (m) => {
          await m.flush?.();
          m.close();
        },
        // Every watch runs until the end: no context may wait for another's turn.
        concurrency: contexts.length,
        onResult: (r) => {
          if (!r.ok) fail(r.context, r.error);
        },
      },
    );
    running = 0;
    return { reason: stopped ?? reason, failures };
  };
  return { stop, result: run() };
}
