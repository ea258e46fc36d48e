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

const RUNS: Readonly<Record<string, () => Promise<CommandModule>>> = {
  'api-resources': () => import('./commands/api-resources.js'),
  apply: () => import('./commands/apply.js'),
  __complete: () => import('./commands/complete.js'),
  completion: () => import('./commands/completion.js'),
  diff: () => import('./commands/diff.js'),
  explain: () => import('./commands/explain.js'),
  delete: () => import('./commands/delete.js'),
  get: () => import('./commands/get.js'),
  watch: () => import('./commands/watch.js'),
  types: () => import('./commands/types.js'),
  version: () => import('./commands/version.js'),
};

/** The module that runs the command named `name` (a name of the table: ./spec.ts). */
export function loadCommand(name: string): Promise<CommandModule> {
  const load = RUNS[name];
  if (!load) throw new Error(`kdyn: no run module for the command "${name}"`);
  return load();
}
