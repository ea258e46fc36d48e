/**
 * `kdyn delete`'s flags read into the library's selection and options (../delete/), with kubectl
 * delete's checks and messages (`KC/pkg/cmd/delete/delete.go` Complete and Validate, the resource
 * builder's argument errors), every usage error before any file is read or request made, and the
 * warnings kubectl prints for some flags.
 */
import { UsageError } from '../core/errors.js';
import { parseGetArgs } from '../restmapper/args.js';
import type { DeleteRunOptions, DryRun } from '../delete/delete.js';
import type { DeleteSelection } from '../delete/targets.js';
import type { ParsedArgs } from './command-types.js';
import { parseDuration } from './duration.js';

export interface DeleteCommandOptions {
  files: string[];
  recursive: boolean;
  /** The selection without manifests and namespace (the command adds them). */
  selection: DeleteSelection;
  options: DeleteRunOptions;
  output?: 'name';
  /** kubectl's warnings about the flags, printed before anything is sent. */
  warnings: string[];
}

export function readDeleteOptions(args: ParsedArgs): DeleteCommandOptions {
  const f = args.flags;
  const has = (name: string) => args.explicit.has(name);
  if (has('kustomize')) throw new UsageError('-k/--kustomize is not supported: run `kustomize build DIR | kdyn delete -f -`');
  const warnings: string[] = [];
  const files = Array.isArray(f.filename) ? f.filename : [];
  const labelSelector = typeof f.selector === 'string' && f.selector !== '' ? f.selector : undefined;
  const fieldSelector = typeof f['field-selector'] === 'string' && f['field-selector'] !== '' ? f['field-selector'] : undefined;
  const all = f.all === true;
  const allNamespaces = f['all-namespaces'] === true;
  const force = f.force === true;
  let grace = typeof f['grace-period'] === 'number' ? f['grace-period'] : -1;
  // Complete(): --now, then --grace-period=0 without --force is 1, --force alone is 0.
  if (f.now === true) {
    if (grace !== -1) throw new UsageError('--now and --grace-period cannot be specified together');
    grace = 1;
  }
  if (grace === 0 && !force) grace = 1;
  if (force && grace < 0) grace = 0;
  checkArguments(args, files, { labelSelector, fieldSelector, all, allNamespaces });
  // Validate().
  const output = typeof f.output === 'string' ? f.output : '';
  if (output !== '' && output !== 'name') throw new UsageError(`unexpected -o output mode: ${output}. We only support '-o name'`);
  if (force && grace > 0) throw new UsageError('--force and --grace-period greater than 0 cannot be specified together');
  if (force && grace === 0) warnings.push('Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.');
  const concurrency = typeof f.concurrency === 'number' ? f.concurrency : 16;
  if (concurrency < 1) throw new UsageError(`invalid argument "${concurrency}" for "--concurrency" flag: must be at least 1`);
  return {
    files,
    recursive: f.recursive === true,
    output: output === 'name' ? 'name' : undefined,
    warnings,
    selection: { args: args.args, labelSelector, fieldSelector, all, allNamespaces, enforceNamespace: has('namespace'), prog: args.prog },
    options: {
      cascade: cascade(String(f.cascade ?? 'background'), warnings),
      gracePeriodSeconds: grace >= 0 ? grace : undefined,
      dryRun: dryRun(String(f['dry-run'] ?? 'none'), warnings),
      // kubectl: --all, -l and --field-selector ignore NotFound unless --ignore-not-found is given.
      ignoreNotFound: has('ignore-not-found') ? f['ignore-not-found'] === true : all || !!labelSelector || !!fieldSelector,
      wait: f.wait !== false,
      timeoutMs: parseDuration(String(f.timeout ?? '0s'), 'timeout'),
      concurrency,
    },
  };
}

/** The resource builder's argument errors, in kubectl's order and words. */
function checkArguments(args: ParsedArgs, files: string[], s: { labelSelector?: string; fieldSelector?: string; all: boolean; allNamespaces: boolean }): void {
  const selecting = !!s.labelSelector || !!s.fieldSelector;
  if (files.length > 0) {
    if (args.args.length > 0) throw new UsageError('resource/name arguments cannot be provided when a path is specified');
    return;
  }
  if (args.args.length === 0) {
    if (selecting || s.all) throw new UsageError('at least one resource must be specified to use a selector');
    throw new UsageError(
      "You must provide one or more resources by argument or filename. Example resource specifications include: '-f rsrc.yaml', '--filename=rsrc.json', '<resource> <name>', '<resource>'",
    );
  }
  if (s.all && selecting) throw new UsageError("setting 'all' parameter but found a non empty selector. ");
  const parsed = parseGetArgs(args.args, args.prog);
  const named = parsed.form === 'type-name' || parsed.names.length > 0;
  if (named && (selecting || s.all)) throw new UsageError('name cannot be provided when a selector is specified');
  if (named && s.allNamespaces) throw new UsageError('a resource cannot be retrieved by name across all namespaces');
  if (!named && !selecting && !s.all) throw new UsageError('resource(s) were provided, but no name was specified');
}

function cascade(value: string, warnings: string[]): DeleteRunOptions['cascade'] {
  switch (value) {
    case 'background':
    case 'foreground':
    case 'orphan':
      return value;
    case 'true':
    case 'false': {
      const now = value === 'true' ? 'background' : 'orphan';
      warnings.push(`warning: --cascade=${value} is deprecated (boolean value) and can be replaced with --cascade=${now}.`);
      return now;
    }
    default:
      throw new UsageError(`invalid cascade value (${value}). Must be "background", "foreground", or "orphan"`);
  }
}

function dryRun(value: string, warnings: string[]): DryRun {
  if (value === 'unchanged') {
    warnings.push('Warning: --dry-run is deprecated and can be replaced with --dry-run=client.');
    return 'client';
  }
  if (value === 'none' || value === 'server' || value === 'client') return value;
  throw new UsageError(`Invalid dry-run value (${value}). Must be "none", "server", or "client".`);
}
