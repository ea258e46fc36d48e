/**
 * `kdyn get` (kubectl `KC/pkg/cmd/get/get.go`): resolve the arguments through the RESTMapper, then
 * per resource either the server's Table (default and `-o wide`) or the objects (every other `-o`),
 * list page by page or the named objects, each page handed to the printer (../../printers/get.ts).
 * A 404 on a mapped collection (its CRD was deleted) refreshes discovery and retries with the new
 * mapping; if the name now maps to nothing, the unknown-name error.
 */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { StatusError } from '../../core/errors.js';
import type { DynamicClient, ResourceClient } from '../../dynamic/client.js';
import type { RESTMapper, ResourceMapping } from '../../restmapper/types.js';
import { parseGetArgs, resolveGetArgs, type GetRequest } from '../../restmapper/args.js';
import { listError, withFreshMapping } from '../../restmapper/stale.js';
import { createPrinter, prepareOutput, type GetPrinter } from '../../printers/index.js';
import { reportError } from '../report-error.js';
import { wantsFleet } from '../fleet.js';
import { checkNamesWithSelection } from '../get-flags.js';
import { readOptions, type GetOptions } from '../get-options.js';

/** What one request resolves to while running (the mapping may change after a refresh). */
export interface Job {
  request: GetRequest;
  mapping: ResourceMapping;
  handle: ResourceClient;
}

/** Shared state of one `get` run. */
export interface GetRun {
  opts: GetOptions;
  client: DynamicClient;
  mapper: RESTMapper;
  namespace: string | undefined;
  /** Errors to report after the output (kubectl aggregates them), in order. */
  errors: unknown[];
}

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  if (args.flags.watch === true || args.flags['watch-only'] === true || args.flags['output-watch-events'] === true) {
    return (await import('./watch.js')).run(args, ctx, io, 'get');
  }
  const opts = readOptions(args.flags);
  // Argument and flag errors before any kubeconfig or network work.
  checkNamesWithSelection(parseGetArgs(args.args, args.prog), opts);
  // A --sort-by path or an -o template that does not parse is a usage error, found before any request.
  const output = await prepareOutput(opts.output, io);
  // Several contexts or namespaces (issue 24): ../../fleet/get.ts.
  if (wantsFleet(args.flags)) return (await import('./get-fleet.js')).runFleet(args, ctx, opts, output);

  await ctx.preconnect(); // every get asks the server: handshake while discovery and names are resolved
  const [mapper, client] = await Promise.all([ctx.mapper(), ctx.dynamic()]);
  const [plan, namespace] = await Promise.all([resolveGetArgs(args.args, mapper, args.prog), opts.allNamespaces ? undefined : ctx.namespace()]);

  const state: GetRun = { opts, client, mapper, namespace, errors: [] };
  const printer = await createPrinter(output, { singleItemImplied: plan.singleItemImplied, ignoreNotFound: opts.ignoreNotFound, allNamespaces: opts.allNamespaces, namespace, errors: state.errors }, io);
  for (const request of plan.requests) {
    const job: Job = { request, mapping: request.mapping, handle: handleFor(state, request.mapping) };
    try {
      await withMapping(state, job, () => printJob(state, job, printer));
    } catch (e) {
      state.errors.push(e);
    }
  }
  printer.end();

  let code = 0;
  const verbosity = typeof args.flags.v === 'number' ? args.flags.v : 0;
  for (const e of state.errors) code = Math.max(code, reportError(e, verbosity, io, 'get', args.prog));
  return code;
}

/** One request's objects (its list, page by page, or the objects it names) to the printer. */
async function printJob(state: GetRun, job: Job, printer: GetPrinter): Promise<void> {
  const { opts } = state;
  const { output } = opts;
  const table = output.format.type === 'table';
  // kubectl's table requests: --sort-by asks for whole objects and turns chunking off; -A and labels need metadata.
  const includeObject = output.sorter ? 'Object' : opts.allNamespaces || output.showLabels || output.labelColumns.length > 0 ? 'Metadata' : 'None';
  const selection = { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector };
  if (job.request.names.length === 0) {
    if (table) for await (const t of job.handle.listTable({ ...selection, limit: output.sorter ? 0 : opts.chunkSize, includeObject })) printer.page(t, job);
    else for await (const page of job.handle.list({ ...selection, limit: opts.chunkSize })) printer.page(page.items, job);
    return;
  }
  for (const name of job.request.names) {
    try {
      printer.page(table ? await job.handle.getTable(name, { includeObject }) : [await job.handle.get(name)], job);
    } catch (e) {
      if (!notFoundHandled(state, e)) throw e;
    }
  }
}

export function handleFor(state: Pick<GetRun, 'client' | 'namespace'>, mapping: ResourceMapping): ResourceClient {
  const h = state.client.resource(mapping.gvr, { namespaced: mapping.namespaced });
  return mapping.namespaced && state.namespace ? h.namespace(state.namespace) : h;
}

async function withMapping<T>(state: GetRun, job: Job, fn: (job: Job) => Promise<T>): Promise<T> {
  try {
    return await withFreshMapping(state.mapper, job.request.arg, job.mapping, (mapping) => {
      if (mapping !== job.mapping) {
        job.mapping = mapping;
        job.handle = handleFor(state, mapping);
      }
      return fn(job);
    });
  } catch (e) {
    throw listError(e, { gvr: job.mapping.gvr, named: job.request.names.length > 0, labelSelector: state.opts.labelSelector, fieldSelector: state.opts.fieldSelector });
  }
}

/** Objects the user named with NotFound ignored (--ignore-not-found) or recorded for the end. */
export function notFoundHandled(state: GetRun, e: unknown): boolean {
  if (e instanceof StatusError && e.code === 404 && e.status.details?.name !== undefined) {
    if (!state.opts.ignoreNotFound) state.errors.push(e);
    return true;
  }
  return false;
}

