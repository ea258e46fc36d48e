/**
 * What runs each command of the table (./spec.ts), loaded when that command runs: the one place
 * that reaches the command modules (./commands/), so the parser, the help and completion, which read
 * the table, never load a command, and no command's import leads back here.
 */
import type { IO } from '../core/io.js';
import type { ParsedArgs } from './command-types.js';
import type { Context } from './context.js';

export interface CommandModule {
  run(args: ParsedArgs, ctx: Context, io: IO): Promise<number | void>;
}

const RUNS: Readonly<Record<string, (flags: ParsedArgs['flags']) => Promise<CommandModule>>> = {
  'api-resources': () => import('./commands/api-resources.js'),
  apply: () => import('./commands/apply.js'),
  applyset: () => import('./commands/applyset.js'),
  __complete: () => import('./commands/complete.js'),
  completion: () => import('./commands/completion.js'),
  diff: () => import('./commands/diff.js'),
  explain: () => import('./commands/explain.js'),
  delete: () => import('./commands/delete.js'),
  // `get -w` is the watch command in get's mode (kubectl get --watch): chosen here, so get's own
  // module only lists.
  get: (flags) => (watchesInGet(flags) ? import('./commands/get-watch.js') : import('./commands/get.js')),
  watch: () => import('./commands/watch.js'),
  types: () => import('./commands/types.js'),
  version: () => import('./commands/version.js'),
};

/** The module that runs the command named `name` (a name of the table: ./spec.ts) with these flags. */
export function loadCommand(name: string, flags: ParsedArgs['flags'] = {}): Promise<CommandModule> {
  const load = RUNS[name];
  if (!load) throw new Error(`kdyn: no run module for the command "${name}"`);
  return load(flags);
}

/** Whether `get`'s flags ask for a watch (`-w`, `--watch-only`, `--output-watch-events`). */
export function watchesInGet(flags: ParsedArgs['flags']): boolean {
  return flags.watch === true || flags['watch-only'] === true || flags['output-watch-events'] === true;
}
