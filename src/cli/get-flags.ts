/**
 * The flags `get` and `watch` (and `get -w`) share, read in one place so the two cannot drift:
 * what to select (`-A`, `-l`, `--field-selector`), how to page (`--chunk-size`), and the checks of
 * names against them, worded as kubectl's and with kubectl's exit code (1: kubectl get returns
 * these from its resource builder, with or without -w, before any request).
 */
import { KdynError, UsageError } from '../core/errors.js';
import type { GetArgs } from '../restmapper/args.js';
import type { ParsedArgs } from './command-types.js';

export interface SelectionFlags {
  allNamespaces: boolean;
  labelSelector?: string;
  fieldSelector?: string;
  /** List page size; 0: one request. */
  chunkSize: number;
}

/** A flag's string value, undefined when unset or empty. */
export function stringFlag(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * `-A`, `-l`, `--field-selector`, `--chunk-size` (default 500). A negative chunk size is refused
 * before any request (kubectl sends it and the server answers 400, with or without -w).
 */
export function readSelectionFlags(flags: ParsedArgs['flags']): SelectionFlags {
  const chunk = typeof flags['chunk-size'] === 'number' ? flags['chunk-size'] : 500;
  if (chunk < 0 || !Number.isInteger(chunk)) throw new UsageError(`invalid argument "${chunk}" for "--chunk-size" flag: must be a non-negative integer`);
  return {
    allNamespaces: flags['all-namespaces'] === true,
    labelSelector: stringFlag(flags.selector),
    fieldSelector: stringFlag(flags['field-selector']),
    chunkSize: chunk,
  };
}

/** Names cannot go with a selector or -A: kubectl's resource builder errors (exit 1, as kubectl). */
export function checkNamesWithSelection(parsed: GetArgs, sel: SelectionFlags): void {
  const names = parsed.form === 'types' ? parsed.names : parsed.tuples;
  if (names.length === 0) return;
  if (sel.labelSelector) throw new KdynError('name cannot be provided when a selector is specified');
  if (sel.allNamespaces) throw new KdynError('a resource cannot be retrieved by name across all namespaces');
}
