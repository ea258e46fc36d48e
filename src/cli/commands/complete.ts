/**
 * `kdyn __complete types|names TYPE|contexts|words -- WORD...` (hidden): the dynamic half of shell completion
 * (../completion.ts). `types` answers from the discovery cache only (never a request, so a TAB
 * press stays local), the types that can be read; `names TYPE` lists object names of TYPE in the
 * namespace of `-n`/the context (`names TYPE/...`: as TYPE/NAME), giving up after one second;
 * `contexts` reads the kubeconfig. `words` is cobra's `__complete`, for kubectl's plugin completion
 * (bin/kubectl_complete-kdyn): the whole line, one candidate a line, then `:DIRECTIVE`. Completion must never
 * print an error into the user's command line: every failure prints nothing and exits 0.
 */
import type { ParsedArgs } from '../spec.js';
import { createContext, type Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { parseArgv } from '../parse.js';
import { resolveGetArgs } from '../../restmapper/args.js';

/** How long `names` may take (the TAB press waits for it). */
export const NAMES_TIMEOUT_MS = 1000;

/** The list's page size (get's default --chunk-size). */
const NAMES_PAGE_SIZE = 500;

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  const [what, type] = args.args;
  try {
    if (what === 'types') io.stdout.write(await types(ctx));
    else if (what === 'contexts') io.stdout.write(await contexts(args, io));
    else if (what === 'names' && type) io.stdout.write(await withTimeout(names(args, ctx, type), NAMES_TIMEOUT_MS, ''));
    else if (what === 'words') io.stdout.write(await completeLine(args.args.slice(1), ctx, io));
  } catch {
    // nothing: a TAB press shows no candidates rather than an error
  }
  return 0;
}

/** The types that can be read (kubectl's `api-resources --cached --verbs=get -o name`): no `bindings` or `tokenreviews`. */
async function types(ctx: Context): Promise<string> {
  const [discovery, { formatNames, selectRows }] = await Promise.all([ctx.discovery(), import('../../printers/api-resources.js')]);
  const snapshot = await discovery.snapshot({ cachedOnly: true });
  return formatNames(selectRows(snapshot, { verbs: ['get'] }));
}

async function contexts(args: ParsedArgs, io: IO): Promise<string> {
  const { selectFiles, loadMerged } = await import('../../kubeconfig/merge.js');
  const flag = typeof args.flags.kubeconfig === 'string' && args.flags.kubeconfig ? args.flags.kubeconfig : undefined;
  const merged = await loadMerged(selectFiles(flag, io.env, io.cwd, io.env.HOME || io.env.USERPROFILE || undefined));
  return [...merged.contexts.keys()].sort().map((n) => `${n}\n`).join('');
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

function withTimeout<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([p.catch(() => fallback), timeout]).finally(() => clearTimeout(timer));
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
      own = createContext(parsed, io, ctx.clock, ctx.logger, { discoveryTimeoutMs: ctx.discoveryTimeoutMs });
      if (plan.kind === 'types') {
        found = lines(await types(own)).filter((t) => t.startsWith(plan.prefix)).map((t) => t + plan.suffix);
      } else if (plan.kind === 'names') {
        const all = lines(await withTimeout(namesOf(parsed, own, plan.type), NAMES_TIMEOUT_MS, ''));
        found = all.filter((n) => n.startsWith(plan.prefix) && !plan.exclude.includes(n)).map((n) => plan.before + n);
      } else {
        found = lines(await contexts(parsed, io)).filter((c) => c.startsWith(plan.prefix)).map((c) => plan.before + c);
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
