/**
 * `kdyn __complete types|names TYPE|contexts|words -- WORD...` (hidden): the dynamic half of shell completion
 * (../completion.ts). `types` answers from the discovery cache within its TTL (no request, so a TAB
 * press stays local; past the TTL revalidated within a second), the types that can be read;
 * `names TYPE` lists object names of TYPE in the namespace of `-n`/the context (`names TYPE/...`:
 * as TYPE/NAME), giving up after one second;
 * `contexts` reads the kubeconfig. `words` is cobra's `__complete`, for kubectl's plugin completion
 * (bin/kubectl_complete-kdyn): the whole line, one candidate a line, then `:DIRECTIVE`. Completion must never
 * print an error into the user's command line: every failure prints nothing and exits 0.
 */
import type { ParsedArgs } from '../command-types.js';
import { createContext, type Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { parseArgv } from '../parse.js';
import { resolveGetArgs } from '../../restmapper/args.js';
import { limitMs, withTimeout } from '../complete-limits.js';

/** The list's page size (get's default --chunk-size). */
const NAMES_PAGE_SIZE = 500;

export async function run(args: ParsedArgs, ctx0: Context, io: IO): Promise<number> {
  const [what, type] = args.args;
  let ctx = ctx0;
  try {
    if (what === 'types' || what === 'names') ctx = await firstOfFleet(args, ctx0, io);
    if (what === 'types') io.stdout.write(await types(ctx, limitMs(io.env)));
    else if (what === 'contexts') io.stdout.write(await contexts(args, io, type));
    else if (what === 'names' && type) io.stdout.write(await withTimeout(names(args, ctx, type), limitMs(io.env), ''));
    else if (what === 'words') io.stdout.write(await completeLine(args.args.slice(1), ctx, io));
  } catch {
    // nothing: a TAB press shows no candidates rather than an error
  }
  return 0;
}

/**
 * The types that can be read (kubectl's `api-resources --cached --verbs=get -o name`): no `bindings` or
 * `tokenreviews`. As kubectl's `--cached`, from the cache while it is within its TTL (no request);
 * past it, or after kdyn's own write of a CRD or APIService marked it stale, revalidated (ETags),
 * giving up after the limit (NAMES_TIMEOUT_MS) for whatever the disk holds: never a list older than the TTL
 * when the server can answer.
 */
async function types(ctx: Context, limit: number): Promise<string> {
  const [discovery, { formatNames, selectRows }] = await Promise.all([ctx.discovery(), import('../../printers/api-resources.js')]);
  const live = await withTimeout(discovery.snapshot(), limit, undefined);
  const snapshot = live ?? (await discovery.snapshot({ cachedOnly: true }));
  return formatNames(selectRows(snapshot, { verbs: ['get'] }));
}

/**
 * The context names, one a line. With the word being completed (`east,w`), a fleet list: each name
 * not listed yet, after the names before the last comma (`east,west`).
 */
async function contexts(args: ParsedArgs, io: IO, word = ''): Promise<string> {
  const { listContexts } = await import('../../fleet/contexts.js');
  const flag = typeof args.flags.kubeconfig === 'string' && args.flags.kubeconfig ? args.flags.kubeconfig : undefined;
  const { names } = await listContexts({ kubeconfig: flag, env: io.env, cwd: io.cwd });
  const listed = word.slice(0, word.lastIndexOf(',') + 1);
  const taken = new Set(listed.split(','));
  return names.filter((n) => !taken.has(n)).sort().map((n) => `${listed}${n}\n`).join('');
}

/**
 * TYPE's object names, one a line, or nothing on any error. `TYPE/...`
 * (the word being completed in `kdyn get rockets/fa<TAB>`) gives the names as `TYPE/NAME`.
 */
async function names(args: ParsedArgs, ctx: Context, word: string): Promise<string> {
  const slash = word.indexOf('/');
  if (slash < 0) return namesOf(args, ctx, word);
  const type = word.slice(0, slash);
  if (type === '') return '';
  const list = await namesOf(args, ctx, type);
  return list.split('\n').filter((n) => n !== '').map((n) => `${type}/${n}\n`).join('');
}

/**
 * The names of TYPE's objects (`TYPE` may be a category or `a,b`, as with get), in the namespace of
 * `-n`/the context (all with `-A`), one a line, listed with the library directly; any error
 * (an unknown type, a denied list) throws, and the caller offers nothing.
 */
async function namesOf(args: ParsedArgs, ctx: Context, type: string): Promise<string> {
  const f = args.flags;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const allNamespaces = f['all-namespaces'] === true;
  await ctx.preconnect(); // the handshake while discovery resolves the type
  const [mapper, client] = await Promise.all([ctx.mapper(), ctx.dynamic()]);
  const [plan, namespace] = await Promise.all([resolveGetArgs([type], mapper, args.prog), allNamespaces ? undefined : ctx.namespace()]);
  let text = '';
  for (const { mapping } of plan.requests) {
    let handle = client.resource(mapping.gvr, { namespaced: mapping.namespaced });
    if (mapping.namespaced && namespace) handle = handle.namespace(namespace);
    for await (const page of handle.list({ labelSelector: str(f.selector), fieldSelector: str(f['field-selector']), limit: NAMES_PAGE_SIZE })) {
      for (const item of page.items) text += `${item.metadata?.name ?? ''}\n`;
    }
  }
  return text;
}

/**
 * Types and names for a line with a fleet `--context` (`a,b`, `prod-*`, --all-contexts): those of
 * its first context (the lists of one cluster, not a failed lookup of a context named `a,b`).
 */
async function firstOfFleet(args: ParsedArgs, ctx: Context, io: IO): Promise<Context> {
  const { wantsFleet } = await import('../fleet.js');
  if (!wantsFleet(args.flags, false)) return ctx;
  const { resolveContexts } = await import('../../fleet/contexts.js');
  const f = args.flags;
  const kubeconfig = typeof f.kubeconfig === 'string' ? f.kubeconfig : undefined;
  const [first] = await resolveContexts({ contexts: f.context as string | undefined, allContexts: f['all-contexts'] === true, kubeconfig, env: io.env, cwd: io.cwd });
  return createContext({ flags: { ...f, context: first, 'all-contexts': false }, explicit: args.explicit }, io, ctx.clock, ctx.logger, { discoveryTimeoutMs: ctx.discoveryTimeoutMs });
}

/** cobra's `__complete` answer for the words of a command line: candidates (`word\tdescription`), then `:DIRECTIVE`. */
async function completeLine(words: string[], ctx: Context, io: IO): Promise<string> {
  const { completeWords } = await import('../complete-words.js');
  const { plan, connection } = completeWords(words);
  let found: string[] = [];
  if (plan.kind === 'words') {
    found = plan.words.map((w) => (typeof w === 'string' ? w : `${w[0]}\t${w[1]}`));
  } else {
    // The lists that ask the cluster, with the connection flags on the line (not this process's).
    let own: Context | undefined;
    const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');
    try {
      const parsed = parseArgv(['__complete', 'words', ...connection]);
      own = await firstOfFleet(parsed, createContext(parsed, io, ctx.clock, ctx.logger, { discoveryTimeoutMs: ctx.discoveryTimeoutMs }), io);
      if (plan.kind === 'types') {
        found = lines(await types(own, limitMs(io.env))).filter((t) => t.startsWith(plan.prefix)).map((t) => t + plan.suffix);
      } else if (plan.kind === 'names') {
        const all = lines(await withTimeout(namesOf(parsed, own, plan.type), limitMs(io.env), ''));
        found = all.filter((n) => n.startsWith(plan.prefix) && !plan.exclude.includes(n)).map((n) => plan.before + n);
      } else {
        found = lines(await contexts(parsed, io)).filter((c) => c.startsWith(plan.prefix) && !plan.exclude.includes(c)).map((c) => plan.before + c);
      }
    } catch {
      found = []; // nothing offered, rather than an error in the command line
    } finally {
      await own?.flush();
      own?.close();
    }
  }
  return found.map((l) => `${l}\n`).join('') + `:${plan.directive}\n`;
}
