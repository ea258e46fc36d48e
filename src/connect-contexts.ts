/**
 * The library's fan-out over kubeconfig contexts (issue 24): select contexts by name, list or glob,
 * connect to each exactly as `connect({ flags: { context } })` would (its own kubeconfig entry,
 * credentials and discovery cache), run one function per connection, and get each context's result
 * or error (src/fleet/ has the selection, the fan-out and the CLI's fleet commands):
 *
 *   const results = await forEachContext({ contexts: 'prod-*' }, (k) =>
 *     k.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).listAll());
 *   for (const r of results) console.log(r.context, r.ok ? r.value.items.length : r.error);
 */
import { compose, connectComposed, type Connection, type ConnectOptions } from './connect.js';
import { deleteResources, type DeleteEvent, type DeleteRunOptions } from './delete/delete.js';
import type { DeleteSelection } from './delete/targets.js';
import { fanOut, type ContextResult, type FanOutOptions } from './fleet/fanout.js';
import { chooseContexts, listContexts } from './fleet/contexts.js';

export interface ForEachContextOptions<T> extends Omit<ConnectOptions, 'flags'>, Pick<FanOutOptions<Connection, T>, 'concurrency' | 'timeoutMs' | 'signal' | 'onResult'> {
  /** `'east'`, `'east,west'`, `'prod-*'`, or a list of those (default: the current context). */
  contexts?: string | readonly string[];
  /** Every context of the merged kubeconfig. */
  allContexts?: boolean;
  /** Connection flags applied to every context (`namespace`, `as`...); `context` is set per connection. */
  flags?: ConnectOptions['flags'];
}

/**
 * Connects to each selected context and runs `fn` with the connection; every result or error comes
 * back by context, in selection order. Connections are closed when their function settles.
 */
export async function forEachContext<T>(
  options: ForEachContextOptions<T>,
  fn: (connection: Connection, context: string, signal: AbortSignal) => Promise<T>,
): Promise<Array<ContextResult<T>>> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  // The kubeconfig files are read once: each context's connection gets the merged kubeconfig.
  const available = await listContexts({ kubeconfig: options.kubeconfig, env, cwd });
  const names = chooseContexts(available, options);
  const { contexts: _c, allContexts: _a, concurrency, timeoutMs, signal, onResult, ...connectOptions } = options;
  return fanOut<Connection, T>(names, fn, {
    open: (context) => connectComposed({ ...connectOptions, env, cwd, merged: available.merged, flags: { ...options.flags, context } }),
    close: (k) => k.close(),
    concurrency,
    timeoutMs,
    signal,
    clock: options.clock,
    onResult,
  });
}

/**
 * `kdyn delete` for a deploy script: deletes `selection` (manifests, or resource arguments with
 * selectors) in each selected context (default: the current one), as the CLI does, waiting until
 * the objects are gone unless `wait: false`. Yields each context's events together, in selection
 * order, each tagged with its context: `deleted`, `warning`, `error` (an object's), `none`,
 * `failed` (the whole context), then `done`.
 *
 *   for await (const ev of deleteInContexts({ contexts: 'prod-*' }, { manifests }, { timeoutMs: 120_000 }))
 *     if (ev.type === 'error' || ev.type === 'failed') process.exitCode = 1;
 */
export async function* deleteInContexts(
  options: Omit<ForEachContextOptions<void>, 'onResult' | 'timeoutMs'>,
  selection: DeleteSelection,
  deleteOptions: DeleteRunOptions = {},
): AsyncGenerator<DeleteEvent, void, undefined> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const available = await listContexts({ kubeconfig: options.kubeconfig, env, cwd });
  const names = chooseContexts(available, options);
  const { contexts: _c, allContexts: _a, concurrency, signal, ...connectOptions } = options;
  const open = (context: string) => compose({ ...connectOptions, env, cwd, merged: available.merged, flags: { ...options.flags, context } });
  yield* deleteResources(names, open, selection, { contextConcurrency: concurrency, signal, clock: options.clock, ...deleteOptions });
}
