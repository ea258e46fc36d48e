/**
 * `kdyn apply`'s flags read into its options (./commands/apply.ts), for one context or several:
 * every usage error before any file is read or request made.
 */
import { UsageError } from '../core/errors.js';
import type { FieldValidation } from '../apply/apply.js';
import type { ApplyOutput } from '../printers/index.js';
import { applyPrintOptions } from './print-flags.js';
import type { ParsedArgs } from './command-types.js';
import { parseDuration } from './duration.js';

export interface ApplyCommandOptions {
  files: string[];
  recursive: boolean;
  output: ApplyOutput;
  dryRun: 'none' | 'server' | 'client';
  fieldManager: string;
  force: boolean;
  validation: FieldValidation;
  concurrency: number;
  wait: boolean;
  timeoutMs: number;
  /** Whether --timeout was given (it then also bounds the wait for new CRDs). */
  timeoutGiven: boolean;
}

/** Flags -> options; every usage error before any file is read or request made. */
export function readOptions(flags: ParsedArgs['flags'], explicit: ReadonlySet<string>): ApplyCommandOptions {
  if (explicit.has('kustomize')) throw new UsageError('-k/--kustomize is not supported: run `kustomize build DIR | kdyn apply -f -`');
  if (flags['server-side'] === false) throw new UsageError('kdyn apply is server-side apply only: --server-side=false (client-side apply) is not supported');
  const files = Array.isArray(flags.filename) ? flags.filename : [];
  if (files.length === 0) throw new UsageError('must specify -f (a file, a directory, or - for stdin)');
  const concurrency = typeof flags.concurrency === 'number' ? flags.concurrency : 8;
  if (concurrency < 1) throw new UsageError(`invalid argument "${concurrency}" for "--concurrency" flag: must be at least 1`);
  const validate = String(flags.validate ?? 'strict');
  const validation: FieldValidation = validate === 'warn' ? 'Warn' : validate === 'ignore' || validate === 'false' ? 'Ignore' : 'Strict';
  return {
    files,
    recursive: flags.recursive === true,
    output: applyPrintOptions(flags),
    dryRun: (flags['dry-run'] ?? 'none') as ApplyCommandOptions['dryRun'],
    fieldManager: typeof flags['field-manager'] === 'string' && flags['field-manager'] ? flags['field-manager'] : 'kdyn',
    force: flags['force-conflicts'] === true,
    validation,
    concurrency,
    wait: flags.wait === true,
    timeoutMs: parseDuration(String(flags.timeout ?? '5m'), 'timeout'),
    timeoutGiven: explicit.has('timeout'),
  };
}
