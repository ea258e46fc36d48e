/**
 * The declarative command table: every command and flag kdyn accepts. The lean argv parser
 * (./parse.ts) and the yargs-rendered help (./help.ts) both read it, so they cannot disagree.
 * Each command's entry is a small data module under ./specs/; what runs it is loaded apart, on
 * demand (./command-runs.ts), so start-up only reads this table and nothing here reaches a command.
 */
import type { CommandSpec } from './command-types.js';
import { apiResourcesSpec } from './specs/api-resources.js';
import { applySpec } from './specs/apply.js';
import { applysetSpec } from './specs/applyset.js';
import { completeSpec } from './specs/complete.js';
import { completionSpec } from './specs/completion.js';
import { diffSpec } from './specs/diff.js';
import { explainSpec } from './specs/explain.js';
import { deleteSpec } from './specs/delete.js';
import { getSpec } from './specs/get.js';
import { watchSpec } from './specs/watch.js';
import { typesSpec } from './specs/types.js';
import { versionSpec } from './specs/version.js';

export type { CommandSpec, FlagSpec, FlagType, HelpGroup, ParsedArgs } from './command-types.js';
export { HELP_GROUPS } from './command-types.js';
export { GLOBAL_FLAGS } from './specs/global.js';

export const COMMANDS: CommandSpec[] = [apiResourcesSpec, diffSpec, applySpec, applysetSpec, completeSpec, completionSpec, explainSpec, getSpec, deleteSpec, watchSpec, typesSpec, versionSpec];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
}
