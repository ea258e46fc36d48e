/**
 * `kdyn apply`'s flags read into its options (./commands/apply.ts), for one context or several:
 * every usage error before any file is read or request made.
 */
import { KdynError, UsageError } from '../core/errors.js';
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
  /** `--prune --applyset=REF` (KEP-3659, ../applyset/): the parent; undefined without --applyset. */
  applySet?: string;
  /** The parent's namespace: `-n` only, as kubectl (a namespaced parent without `-n` is refused). */
  applySetNamespace?: string;
  /** `--applyset-takeover`: manage a set kubectl made (any other tool's stays refused). */
  applySetTakeover: boolean;
}

/** Flags -> options; every usage error before any file is read or request made. */
export function readOptions(flags: ParsedArgs['flags'], explicit: ReadonlySet<string>): ApplyCommandOptions {
  if (explicit.has('kustomize')) throw new UsageError('-k/--kustomize is not supported: run `kustomize build DIR | kdyn apply -f -`');
  if (flags['server-side'] === false) throw new UsageError('kdyn apply is server-side apply only: --server-side=false (client-side apply) is not supported');
  const files = Array.isArray(flags.filename) ? flags.filename : [];
  if (files.length === 0) throw new UsageError('must specify -f (a file, a directory, or - for stdin)');
  const concurrency = typeof flags.concurrency === 'number' ? flags.concurrency : 8;
  if (concurrency < 1) throw new UsageError(`invalid argument "${concurrency}" for "--concurrency" flag: must be at least 1`);
  // kubectl's checks and words (exit 1); kdyn prunes with ApplySets only.
  const applySet = typeof flags.applyset === 'string' && explicit.has('applyset') ? flags.applyset : undefined;
  if (applySet !== undefined && flags.prune !== true) throw new KdynError('--applyset requires --prune');
  if (flags.prune === true && applySet === undefined) throw new KdynError('--prune requires --applyset=[RESOURCE][.GROUP]/NAME: kdyn prunes with ApplySets only (label-selector pruning, --all and --prune-allowlist are not supported)');
  if (flags['applyset-takeover'] === true && applySet === undefined) throw new KdynError('--applyset-takeover requires --prune --applyset=...');
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
    applySet,
    applySetNamespace: applySet !== undefined && explicit.has('namespace') && typeof flags.namespace === 'string' ? flags.namespace : undefined,
    applySetTakeover: flags['applyset-takeover'] === true,
  };
}
