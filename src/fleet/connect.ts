/**
 * The library's fan-out over kubeconfig contexts (issue 24): select contexts by name, list or glob,
 * connect to each exactly as `connect({ flags: { context } })` would (its own kubeconfig entry,
 * credentials and discovery cache), run one function per connection, and get each context's result
 * or error:
 *
 *   const results = await forEachContext({ contexts: 'prod-*' }, (k) =>
 *     k.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).listAll());
 *   for (const r of results) console.log(r.context, r.ok ? r.value.items.length : r.error);
 */
import { ConfigError } from '../core/errors.js';
import { connect, type Connection, type ConnectOptions } from '../dynamic/connect.js';
import { loadMerged, selectFiles } from '../kubeconfig/merge.js';
import { fanOut, type ContextResult, type FanOutOptions } from './fanout.js';
import { parseContextSelector, selectContexts } from './select.js';

export interface KubeconfigContexts {
  /** Every context name of the merged kubeconfig, in file order. */
  names: string[];
  /** The kubeconfig files, for messages (`kubeconfig "a:b"`). */
  where: string;
  currentContext?: string;
}

/** The contexts of the merged kubeconfig (`--kubeconfig`, else $KUBECONFIG, else ~/.kube/config). */
export async function listContexts(o: { kubeconfig?: string; env: Record<string, string | undefined>; cwd: string }): Promise<KubeconfigContexts> {
  const sel = selectFiles(o.kubeconfig || undefined, o.env, o.cwd, o.env.HOME || o.env.USERPROFILE || undefined);
  const merged = await loadMerged(sel);
  const where = merged.files.length ? `kubeconfig "${merged.files.map((f) => sel.shown.get(f) ?? f).join(':')}"` : 'the kubeconfig (no file loaded)';
  return { names: [...merged.contexts.keys()], where, currentContext: merged.currentContext };
}

/**
 * The context names a selection means: `contexts` as `--context` reads it (a name, `a,b`, `prod-*`)
 * or a list of those, or `allContexts`. Errors name what matched nothing.
 */
export async function resolveContexts(o: { contexts?: string | readonly string[]; allContexts?: boolean; kubeconfig?: string; env: Record<string, string | undefined>; cwd: string }): Promise<string[]> {
  const available = await listContexts(o);
  const text = Array.isArray(o.contexts) ? o.contexts.join(',') : (o.contexts as string | undefined);
  const selector = parseContextSelector(text, o.allContexts === true);
  if (selector.kind === 'single') {
    const name = selector.name ?? available.currentContext;
    if (name === undefined) throw new ConfigError(`no context given and no current-context in ${available.where}`);
    return selectContexts({ kind: 'fleet', patterns: [name], all: false }, available.names, available.where);
  }
  return selectContexts(selector, available.names, available.where);
}

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
  const names = await resolveContexts({ ...options, env, cwd });
  const { contexts: _c, allContexts: _a, concurrency, timeoutMs, signal, onResult, ...connectOptions } = options;
  return fanOut<Connection, T>(names, fn, {
    open: (context) => connect({ ...connectOptions, env, cwd, flags: { ...options.flags, context } }),
    close: (k) => k.close(),
    concurrency,
    timeoutMs,
    signal,
    clock: options.clock,
    onResult,
  });
}
