/**
 * The fan-out over contexts (issue 24): open a connection per context, run one function per
 * connection, at most `concurrency` at a time, and collect each context's result or error. One
 * context failing, hanging past `timeoutMs` or being down never affects the others; the results come
 * back in the order the contexts were given (and, with `onResult`, are handed over in that order as
 * soon as every earlier context has settled, so output can stream without losing its order).
 * Generic over the connection: the library passes ./connect.ts's `Connection`, the CLI its lazily
 * built per-context layers.
 */
import { systemClock, type Clock } from '../core/clock.js';
import { KdynError } from '../core/errors.js';
import { OrderedEmitter, runBounded } from '../apply/bounded.js';

export type ContextResult<T> =
  | { context: string; ok: true; value: T }
  | { context: string; ok: false; error: unknown };

/** The fan-out's default bound on contexts worked on at once. */
export const DEFAULT_CONTEXT_CONCURRENCY = 16;

export interface FanOutOptions<C, T> {
  /** The connection for one context (built lazily or at once; an error here is that context's error). */
  open: (context: string) => C | Promise<C>;
  /** Releases a context's connection when its work settled (keep-alive sockets). */
  close?: (connection: C, context: string) => void | Promise<void>;
  /** Contexts worked on at once (default 16). */
  concurrency?: number;
  /**
   * Bounds each context's whole work (ms; 0 or undefined: none): past it, that context's result is a
   * ContextTimeoutError and its signal is aborted. (`--request-timeout` bounds each request instead.)
   */
  timeoutMs?: number;
  /** Stops the fan-out: contexts not started yet are not started (their result: the signal's reason). */
  signal?: AbortSignal;
  clock?: Clock;
  /** Each result, in the contexts' order, as soon as it and every earlier one are in. */
  onResult?: (result: ContextResult<T>, index: number) => void;
}

/** A context's work did not finish within the fan-out's `timeoutMs`. */
export class ContextTimeoutError extends KdynError {
  constructor(readonly context: string, readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs / 1000}s`);
  }
}

/** The fan-out was stopped before this context started. */
export class ContextNotStartedError extends KdynError {
  constructor(readonly context: string) {
    super('not started: interrupted');
  }
}

export async function fanOut<C, T>(
  contexts: readonly string[],
  work: (connection: C, context: string, signal: AbortSignal) => Promise<T>,
  options: FanOutOptions<C, T>,
): Promise<Array<ContextResult<T>>> {
  const clock = options.clock ?? systemClock;
  const results: Array<ContextResult<T>> = new Array(contexts.length);
  const emitter = new OrderedEmitter<number>(contexts.map((_, i) => i), (i) => options.onResult?.(results[i]!, i));
  const settle = (i: number, r: ContextResult<T>) => {
    results[i] = r;
    emitter.set(i, i);
  };

  const one = async (i: number): Promise<void> => {
    const context = contexts[i]!;
    const ac = new AbortController();
    const stopOuter = () => ac.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', stopOuter, { once: true });
    let connection: C | undefined;
    let timer: AbortController | undefined;
    try {
      const run = (async () => {
        connection = await options.open(context);
        return work(connection, context, ac.signal);
      })();
      let value: T;
      if (options.timeoutMs && options.timeoutMs > 0) {
        timer = new AbortController();
        const limit = options.timeoutMs;
        const expired = clock.sleep(limit, timer.signal).then(() => {
          throw new ContextTimeoutError(context, limit);
        });
        run.catch(() => undefined);
        value = await Promise.race([run, expired]);
      } else value = await run;
      settle(i, { context, ok: true, value });
    } catch (error) {
      ac.abort(error);
      settle(i, { context, ok: false, error });
    } finally {
      timer?.abort();
      options.signal?.removeEventListener('abort', stopOuter);
      if (connection !== undefined) await Promise.resolve(options.close?.(connection, context)).catch(() => undefined);
    }
  };

  const notStarted = await runBounded(contexts.map((_, i) => i), options.concurrency ?? DEFAULT_CONTEXT_CONCURRENCY, one, () => options.signal?.aborted === true);
  for (const i of notStarted) settle(i, { context: contexts[i]!, ok: false, error: new ContextNotStartedError(contexts[i]!) });
  return results;
}
