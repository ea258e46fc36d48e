/**
 * Which kubeconfig contexts a command runs against (issue 24). `--context` is one name as with
 * kubectl, or a fleet: a comma list (`east,west`), a glob (`prod-*`, `*-eu-?`, `[ab]*`) or both
 * (`prod-*,staging`); `--all-contexts` is every context of the merged kubeconfig. One plain name
 * keeps kubectl's single-context behaviour and output exactly; any other form is a fleet, even when
 * it matches one context (a script gets the same shape of output whatever the match).
 * Pure: the merged kubeconfig comes from ../kubeconfig/merge.ts.
 */
import { ConfigError, UsageError } from '../core/errors.js';
import { naturalCompare } from '../core/natural.js';

export type ContextSelector =
  /** kubectl's: the named context, or the current one when undefined. */
  | { kind: 'single'; name?: string }
  /** Several: each pattern a name or a glob, in the order given; `all` for --all-contexts. */
  | { kind: 'fleet'; patterns: string[]; all: boolean };

const GLOB = /[*?[]/;

/** `--context` and `--all-contexts` as a selector; a usage error for an empty item or both flags. */
export function parseContextSelector(context: string | undefined, allContexts: boolean): ContextSelector {
  if (allContexts) {
    if (context !== undefined && context !== '') throw new UsageError('--context and --all-contexts cannot be used together');
    return { kind: 'fleet', patterns: [], all: true };
  }
  if (context === undefined || context === '' || (!context.includes(',') && !GLOB.test(context))) return { kind: 'single', name: context || undefined };
  const patterns = context.split(',').map((p) => p.trim());
  if (patterns.some((p) => p === '')) throw new UsageError(`invalid argument "${context}" for "--context" flag: empty context name in the list`);
  return { kind: 'fleet', patterns, all: false };
}

/** Whether `--context`/`--all-contexts` ask for several contexts. */
export function isFleet(context: unknown, allContexts: unknown): boolean {
  return parseContextSelector(typeof context === 'string' ? context : undefined, allContexts === true).kind === 'fleet';
}

/**
 * The contexts a fleet selector names, each once: names in the order given, a glob's matches sorted,
 * `all` every context sorted, in natural order (`f1, f2, f10`). A name that does not exist or a glob that matches nothing is an error
 * naming it (`where`: the kubeconfig files, for the message), so a typo never shrinks a fleet silently.
 */
export function selectContexts(selector: Extract<ContextSelector, { kind: 'fleet' }>, available: Iterable<string>, where = 'the kubeconfig'): string[] {
  const names = [...available];
  const sorted = [...names].sort(naturalCompare);
  if (selector.all) {
    if (sorted.length === 0) throw new ConfigError(`--all-contexts: no contexts in ${where}`);
    return sorted;
  }
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (n: string) => {
    if (!seen.has(n)) {
      seen.add(n);
      out.push(n);
    }
  };
  for (const p of selector.patterns) {
    if (!GLOB.test(p)) {
      if (!names.includes(p)) throw new ConfigError(`context "${p}" does not exist in ${where}`);
      add(p);
      continue;
    }
    const re = globToRegExp(p);
    const matches = sorted.filter((n) => re.test(n));
    if (matches.length === 0) throw new ConfigError(`--context pattern "${p}" matches no context in ${where}`);
    matches.forEach(add);
  }
  return out;
}

/**
 * A shell glob as a RegExp over a whole context name: `*` any run of characters (`/` included:
 * context names are not paths), `?` one character, `[abc]`, `[a-z]`, `[!a]`/`[^a]` a class.
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        re += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, end);
      if (body.startsWith('!')) body = '^' + body.slice(1);
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}
