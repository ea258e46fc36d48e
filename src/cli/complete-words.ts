/**
 * What to complete for a command line given as words (cobra's `__complete` protocol, which kubectl
 * speaks to a plugin's `kubectl_complete-<plugin>` executable: the plugin's words, the last one being
 * the word under the cursor, possibly empty). The same rules as the bash and fish scripts of
 * ./completion.ts: commands (flags only once a dash is typed), flags, flag values, resource types,
 * object names (TYPE NAME... or TYPE/NAME...), namespaces, contexts. Pure: says what to list; the
 * lists that need the cluster are fetched by `kdyn __complete words` (./commands/complete.ts).
 */
import { COMMANDS, GLOBAL_FLAGS, findCommand, type CommandSpec, type FlagSpec } from './spec.js';
import { CONNECTION_FLAGS, FILE_FLAGS, OUTPUT_FORMATS, SHELLS, TYPE_AND_NAME_COMMANDS, TYPE_ONLY_COMMANDS } from './completion.js';

/** cobra's ShellCompDirective bits. 0 (default): the shell may complete file names when nothing is offered. */
export const NO_SPACE = 2;
export const NO_FILE_COMP = 4;

export type Candidate = string | [word: string, description: string];

export type Plan =
  /** These words (already filtered by the prefix). */
  | { kind: 'words'; words: Candidate[]; directive: number }
  /** The resource types that can be read, starting with `prefix`; each followed by `suffix` (`/` for TYPE/NAME). */
  | { kind: 'types'; prefix: string; suffix: string; directive: number }
  /** Object names of `type`, starting with `prefix`, written as `before + name`, leaving out `exclude`. */
  | { kind: 'names'; type: string; prefix: string; before: string; exclude: string[]; directive: number }
  /** Context names starting with `prefix`, written as `before + name`, leaving out `exclude` (the list before a comma). */
  | { kind: 'contexts'; prefix: string; before: string; exclude: string[]; directive: number };

export interface WordsCompletion {
  plan: Plan;
  /** The connection flags on the line (`--context c`, `-n ns`...), for the lists that ask the cluster. */
  connection: string[];
}

const visible = (): CommandSpec[] => COMMANDS.filter((c) => !c.hidden);
const words = (list: Candidate[], prefix: string, directive = NO_FILE_COMP): Plan => ({
  kind: 'words',
  words: list.filter((c) => (typeof c === 'string' ? c : c[0]).startsWith(prefix)),
  directive,
});
const summary = (f: FlagSpec): string => f.describe.split('. ')[0]!.replace(/\.$/, '');

export function completeWords(all: readonly string[]): WordsCompletion {
  const cur = all.length ? all[all.length - 1]! : '';
  const before = all.slice(0, -1);
  const connection: string[] = [];
  const args: string[] = [];
  let command: CommandSpec | undefined;
  let commandWord: string | undefined;
  let valueOf: FlagSpec | undefined; // the last word is a flag whose value is being completed

  for (let i = 0; i < before.length; i++) {
    const w = before[i]!;
    if (w.startsWith('-') && w.length > 1) {
      const { flag, value } = flagIn(w, command);
      if (!flag) continue;
      const taken = flag.type === 'boolean' || value !== undefined ? [w] : i + 1 < before.length ? [w, before[++i]!] : undefined;
      if (!taken) valueOf = flag;
      else if (CONNECTION_FLAGS.includes(flag.name)) connection.push(...taken);
      continue;
    }
    if (commandWord === undefined) {
      commandWord = w;
      command = findCommand(w);
    } else {
      args.push(w);
    }
  }

  const plan = ((): Plan => {
    if (valueOf) return valuePlan(valueOf, cur, '');
    if (cur.startsWith('-')) {
      const eq = cur.indexOf('=');
      if (eq > 0) {
        const { flag } = flagIn(cur.slice(0, eq), command);
        return flag && flag.type !== 'boolean' ? valuePlan(flag, cur.slice(eq + 1), cur.slice(0, eq + 1)) : words([], '');
      }
      return words(flagCandidates(command), cur);
    }
    if (commandWord === undefined) return words([...visible().map((c): Candidate => [c.name, c.summary]), ['help', 'Help about any command']], cur);
    if (commandWord === 'help') return words(args.length === 0 ? visible().map((c): Candidate => [c.name, c.summary]) : [], cur);
    if (!command) return words([], '');
    if (command.name === 'completion') return words(args.length === 0 ? [...SHELLS] : [], cur);
    if (TYPE_ONLY_COMMANDS.includes(command.name)) return args.length === 0 ? { kind: 'types', prefix: cur, suffix: '', directive: NO_FILE_COMP } : words([], '');
    if (!TYPE_AND_NAME_COMMANDS.includes(command.name)) return words([], '');
    return objectPlan(args, cur);
  })();
  return { plan, connection };
}

/** kubectl's TYPE / TYPE NAME... / TYPE/NAME... arguments (kubectl's resourceTypeAndNameCompletionFunc). */
function objectPlan(args: string[], cur: string): Plan {
  const first = args[0];
  const slash = cur.indexOf('/');
  if (slash >= 0) {
    // TYPE/NAME: only as the first argument or after other TYPE/NAME words.
    if (first !== undefined && !first.includes('/')) return words([], '');
    const type = cur.slice(0, slash);
    return { kind: 'names', type, prefix: cur.slice(slash + 1), before: `${type}/`, exclude: [], directive: NO_FILE_COMP };
  }
  if (first === undefined) return { kind: 'types', prefix: cur, suffix: '', directive: NO_FILE_COMP };
  if (first.includes('/')) return { kind: 'types', prefix: cur, suffix: '/', directive: NO_FILE_COMP | NO_SPACE };
  if (first.includes(',')) return words([], '');
  return { kind: 'names', type: first, prefix: cur, before: '', exclude: args.slice(1), directive: NO_FILE_COMP };
}

function valuePlan(flag: FlagSpec, cur: string, before: string): Plan {
  const add = (list: readonly string[]): string[] => list.map((w) => `${before}${w}`);
  if (flag.name === 'output') {
    const list = add(flag.choices ?? OUTPUT_FORMATS).filter((w) => w.startsWith(before + cur));
    return { kind: 'words', words: list, directive: NO_FILE_COMP | (list.length > 0 && list.every((w) => w.endsWith('=')) ? NO_SPACE : 0) };
  }
  if (flag.name === 'namespace') return { kind: 'names', type: 'namespaces', prefix: cur, before, exclude: [], directive: NO_FILE_COMP };
  if (flag.name === 'context') {
    // `--context east,w<TAB>`: the name after the last comma, the others kept and not offered again.
    const comma = cur.lastIndexOf(',');
    const listed = cur.slice(0, comma + 1);
    return { kind: 'contexts', prefix: cur.slice(comma + 1), before: before + listed, exclude: listed.split(',').filter((c) => c !== ''), directive: NO_FILE_COMP };
  }
  if (flag.choices) return words(add(flag.choices), before + cur);
  if (FILE_FLAGS.includes(`--${flag.name}`)) return { kind: 'words', words: [], directive: 0 };
  return words([], '');
}

function flagCandidates(command: CommandSpec | undefined): Candidate[] {
  const out: Candidate[] = [];
  for (const f of [...(command?.flags ?? []), ...GLOBAL_FLAGS]) {
    if (f.hidden) continue;
    out.push([f.name.length === 1 ? `-${f.name}` : `--${f.name}`, summary(f)]);
    if (f.short && f.short !== f.name) out.push([`-${f.short}`, summary(f)]);
  }
  return out;
}

/** The flag a word names (`--output`, `--output=json`, `-o`, `-ojson`, `-o=json`), and its value when the word holds one. */
function flagIn(word: string, command: CommandSpec | undefined): { flag?: FlagSpec; value?: string } {
  const all = [...(command?.flags ?? []), ...GLOBAL_FLAGS];
  if (word.startsWith('--')) {
    const eq = word.indexOf('=');
    const name = eq < 0 ? word.slice(2) : word.slice(2, eq);
    return { flag: all.find((f) => f.name === name), value: eq < 0 ? undefined : word.slice(eq + 1) };
  }
  const flag = all.find((f) => f.short === word[1] || (f.name.length === 1 && f.name === word[1]));
  const rest = word.slice(2).replace(/^=/, '');
  return { flag, value: word.length > 2 ? rest : undefined };
}
