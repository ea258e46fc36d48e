/**
 * `kdyn get`'s flags read into its options (./commands/get.ts), shared with the several-context
 * path (./commands/get-fleet.ts).
 */
import { readOutput, type GetOutput } from '../printers/index.js';
import type { ParsedArgs } from './command-types.js';
import { readSelectionFlags, type SelectionFlags } from './get-flags.js';

export interface GetOptions extends SelectionFlags {
  /** -o and the printing flags (../printers/index.ts). */
  output: GetOutput;
  ignoreNotFound: boolean;
}

export function readOptions(flags: ParsedArgs['flags']): GetOptions {
  const selection = readSelectionFlags(flags); // a bad --chunk-size first, as before
  return { output: readOutput('get', flags), ...selection, ignoreNotFound: flags['ignore-not-found'] === true };
}
