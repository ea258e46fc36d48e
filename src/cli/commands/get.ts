/**
 * `kdyn get` (kubectl `KC/pkg/cmd/get/get.go`): resolve the arguments through the RESTMapper, then
 * per resource either the server's Table (default and `-o wide`, printed by ../../printers/table.ts)
 * or the objects (every `-o` format, printed page by page by ../../printers/index.ts).
 * A 404 on a mapped collection (its CRD was deleted) refreshes discovery and retries with the new
 * mapping; if the name now maps to nothing, the unknown-name error.
 */
import type { ParsedArgs } from '../spec.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { StatusError } from '../../core/errors.js';
import { gvrString, sameGVR } from '../../core/gvk.js';
import type { DynamicClient, ResourceClient } from '../../dynamic/client.js';
import type { RESTMapper, ResourceMapping } from '../../restmapper/types.js';
import { parseGetArgs, resolveGetArgs, type GetRequest } from '../../restmapper/args.js';
import { parseOutputFormat, type OutputFormat } from '../../printers/index.js';
import type { Sorter } from '../../printers/sort.js';
import { reportError } from '../report-error.js';
import { checkNamesWithSelection, readSelectionFlags, stringFlag, type SelectionFlags } from '../get-flags.js';
import { asUsageError, readTemplate, withTemplate } from '../output-template.js';
import { wantsFleet } from '../fleet.js';

export interface GetOptions extends SelectionFlags {
  format: OutputFormat;
  ignoreNotFound: boolean;
  noHeaders: boolean;
  showLabels: boolean;
  labelColumns: string[];
  sortBy?: string;
  showKind: boolean;
  showManagedFields: boolean;
  /** `--allow-missing-template-keys` (default true): missing keys in jsonpath/go-template print nothing / `<no value>`. */
  allowMissingKeys: boolean;
}

export function readOptions(flags: ParsedArgs['flags']): GetOptions {
  const str = stringFlag;
  const selection = readSelectionFlags(flags); // a bad --chunk-size first, as before
  return {
    format: parseOutputFormat(withTemplate(str(flags.output), str(flags.template))),
    ...selection,
    ignoreNotFound: flags['ignore-not-found'] === true,
    noHeaders: flags['no-headers'] === true,
    showLabels: flags['show-labels'] === true,
    labelColumns: Array.isArray(flags['label-columns']) ? flags['label-columns'].filter((l) => l !== '') : [],
    sortBy: str(flags['sort-by']),
    showKind: flags['show-kind'] === true,
    showManagedFields: flags['show-managed-fields'] === true,
    allowMissingKeys: flags['allow-missing-template-keys'] !== false,
  };
}

/** What one request resolves to while running (the mapping may change after a refresh). */
export interface Job {
  request: GetRequest;
  mapping: ResourceMapping;
  handle: ResourceClient;
}

/** Shared state of one `get` run, handed to the table and object runners. */
export interface GetRun {
  opts: GetOptions;
  io: IO;
  client: DynamicClient;
  mapper: RESTMapper;
  namespace: string | undefined;
  sorter?: Sorter;
  /** Errors to report after the output (kubectl aggregates them), in order. */
  errors: unknown[];
  /** Runs `fn` for a job; on a 404 for the whole collection, refreshes the mapper and retries once. */
  withMapping<T>(job: Job, fn: (job: Job) => Promise<T>): Promise<T>;
}

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  if (args.flags.watch === true || args.flags['watch-only'] === true || args.flags['output-watch-events'] === true) {
    return (await import('./watch.js')).run(args, ctx, io, 'get');
  }
  const opts = readOptions(args.flags);
  // Argument and flag errors before any kubeconfig or network work.
  checkNamesWithSelection(parseGetArgs(args.args, args.prog), opts);
  // A --sort-by path or an -o template that does not parse is a usage error, found before any request.
  let sorter: Sorter | undefined;
  if (opts.sortBy) sorter = await asUsageError(async () => (await import('../../printers/sort.js')).createSorter(opts.sortBy!));
  const template = await readTemplate(opts.format, io);
  if (opts.format.type === 'jsonpath') {
    const { compileJSONPath } = await import('../../printers/jsonpath.js');
    await asUsageError(async () => compileJSONPath(template ?? ''));
  } else if (opts.format.type === 'custom-columns') {
    const file = opts.format.file;
    await asUsageError(async () => {
      const cc = await import('../../printers/custom-columns.js');
      cc.compileColumns(file !== undefined ? cc.parseCustomColumnsTemplate(template ?? '') : cc.parseCustomColumnsSpec(template ?? ''));
    });
  }

  // Several contexts or namespaces (issue 24): ../../fleet/get.ts.
  if (wantsFleet(args.flags)) return (await import('./get-fleet.js')).runFleet(args, ctx, opts, { sorter, template });

  // Load the printing half while the mapper reads discovery (a failed import surfaces where awaited).
  const runner = opts.format.type === 'table' ? import('./get-table.js') : import('./get-objects.js');
  runner.catch(() => undefined);
  await ctx.preconnect(); // every get asks the server: handshake while discovery and names are resolved
  const [mapper, client] = await Promise.all([ctx.mapper(), ctx.dynamic()]);
  const [plan, namespace] = await Promise.all([resolveGetArgs(args.args, mapper, args.prog), opts.allNamespaces ? undefined : ctx.namespace()]);

  const state: GetRun = {
    opts,
    io,
    client,
    mapper,
    namespace,
    sorter,
    errors: [],
    withMapping: (job, fn) => withMapping(state, job, fn),
  };
  const jobs: Job[] = plan.requests.map((request) => ({ request, mapping: request.mapping, handle: handleFor(state, request.mapping) }));

  if (opts.format.type === 'table') {
    const { runTable } = (await runner) as typeof import('./get-table.js');
    await runTable(state, jobs, opts.format.wide);
  } else {
    const { runObjects } = (await runner) as typeof import('./get-objects.js');
    await runObjects(state, jobs, opts.format, { singleItemImplied: plan.singleItemImplied, template });
  }

  let code = 0;
  const verbosity = typeof args.flags.v === 'number' ? args.flags.v : 0;
  for (const e of state.errors) code = Math.max(code, reportError(e, verbosity, io, 'get', args.prog));
  return code;
}

export function handleFor(state: Pick<GetRun, 'client' | 'namespace'>, mapping: ResourceMapping): ResourceClient {
  const h = state.client.resource(mapping.gvr, { namespaced: mapping.namespaced });
  return mapping.namespaced && state.namespace ? h.namespace(state.namespace) : h;
}

/** A 404 that is not about one object: the collection itself is gone (e.g. its CRD was deleted). */
export function isCollectionGone(e: unknown): boolean {
  return e instanceof StatusError && e.code === 404 && !e.status.details?.name;
}

async function withMapping<T>(state: GetRun, job: Job, fn: (job: Job) => Promise<T>): Promise<T> {
  try {
    return await fn(job);
  } catch (e) {
    if (!isCollectionGone(e)) throw listError(e, job, state.opts);
    // The mapping is stale (e.g. its CRD was deleted): ask discovery again. A name that now maps
    // to nothing throws NoResourceMatchError, kubectl's unknown-name error.
    await state.mapper.refresh();
    const mapping = await state.mapper.resourceFor(job.request.arg);
    if (sameGVR(mapping.gvr, job.mapping.gvr)) throw listError(e, job, state.opts);
    job.mapping = mapping;
    job.handle = handleFor(state, mapping);
    try {
      return await fn(job);
    } catch (e2) {
      throw listError(e2, job, state.opts);
    }
  }
}

/**
 * kubectl's wording for a list that failed with 400 or 404 (`CR/pkg/resource/selector.go`):
 * `Unable to list "g/v, Resource=r": ...`, or `Unable to find ... that match label selector ...`.
 */
export function listError(e: unknown, job: Job, opts: GetOptions): unknown {
  if (!(e instanceof StatusError) || job.request.names.length > 0 || (e.code !== 400 && e.code !== 404)) return e;
  const what = JSON.stringify(gvrString(job.mapping.gvr));
  const msg = e.status.message ?? '';
  const text = opts.labelSelector || opts.fieldSelector
    ? `Unable to find ${what} that match label selector ${JSON.stringify(opts.labelSelector ?? '')}, field selector ${JSON.stringify(opts.fieldSelector ?? '')}: ${msg}`
    : `Unable to list ${what}: ${msg}`;
  return new StatusError({ ...e.status, message: text }, e.httpStatus);
}

/** Objects the user named with NotFound ignored (--ignore-not-found) or recorded for the end. */
export function notFoundHandled(state: GetRun, e: unknown): boolean {
  if (e instanceof StatusError && e.code === 404 && e.status.details?.name !== undefined) {
    if (!state.opts.ignoreNotFound) state.errors.push(e);
    return true;
  }
  return false;
}

/**
 * The group and kind of a mapping's objects, as served (not lower-cased): what `-o name` falls back
 * to for an object without apiVersion/kind (the name printer lower-cases the kind itself).
 */
export function groupKindOf(mapping: ResourceMapping): { group: string; kind: string } {
  return { group: mapping.gvk.group, kind: mapping.gvk.kind };
}
