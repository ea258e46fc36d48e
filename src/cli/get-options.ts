/**
 * `kdyn get`'s flags read into its options (./commands/get.ts): the selection, the printing flags
 * (./print-flags.ts) and --ignore-not-found.
 */
import type { GetOutput } from '../printers/index.js';
import { getPrintOptions } from './print-flags.js';
import type { ParsedArgs } from './command-types.js';
import { readSelectionFlags, type SelectionFlags } from './get-flags.js';

export interface GetOptions extends SelectionFlags {
  /** -o and the printing flags (../printers/index.ts). */
  output: GetOutput;
  ignoreNotFound: boolean;
}

export function readOptions(flags: ParsedArgs['flags']): GetOptions {
  const selection = readSelectionFlags(flags); // a bad --chunk-size first, as before
  return { output: getPrintOptions(flags), ...selection, ignoreNotFound: flags['ignore-not-found'] === true };
}
