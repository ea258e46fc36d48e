/**
 * `get` over several contexts and/or several namespaces (issue 24): per context, the arguments are
 * resolved with that context's own RESTMapper (its own discovery cache), each selected namespace is
 * listed with one request (paged), and the output says where each object lives (./output.ts):
 * - tables: one table per resource over every context, CONTEXT first (NAMESPACE next, with -A or
 *   several namespaces); only printed cells are kept;
 * - custom-columns: one table over every context, CONTEXT then the user's columns (./custom-columns.ts);
 * - object formats: each context's output is produced on its own and written in the contexts'
 *   order as soon as every earlier context is done (./fanout.ts), so memory stays that of the
 *   objects printed, not of the number of clusters; `-o name` and `-o jsonl`, whose every line names
 *   its context, as soon as that context is done, whatever the others do.
 * Per context, names are mapped as a single-context get maps them: a name missing from a cached
 * discovery refetches it once (the context's DeferredRESTMapper), and a collection that is gone
 * (a 404 on it: its CRD was deleted) refreshes that context's mapping and lists again
 * (../restmapper/stale.ts), with kubectl's `Unable to list ...` wording otherwise.
 * A context that fails (down, forbidden, too slow) is reported by `onError` after its output (if
 * any); the others are printed in full. A context whose every request failed has no output at all
 * (no List document, no rows, no custom-columns header), whether its discovery failed (a cold cache)
 * or its lists did (a warm one). With `context` undefined (one context, several
 * namespaces), the output is the single-context get's with the NAMESPACE column of -A.
 */
import { StatusError } from '../core/errors.js';
import type { Output } from '../core/io.js';
import type { Table } from '../core/table.js';
import type { Unstructured } from '../core/unstructured.js';
import type { DynamicClient, ResourceClient } from '../dynamic/client.js';
import type { RESTMapper, ResourceMapping } from '../restmapper/types.js';
import { resolveGetArgs, type GetRequest } from '../restmapper/args.js';
import { listError, withFreshMapping } from '../restmapper/stale.js';
import type { GetOutput, OutputFormat } from '../printers/index.js';
import { createObjectPrinter, type ObjectPrinter } from '../printers/objects.js';
import { formatColumns } from '../printers/columns.js';
import { TABWRITER_MIN_WIDTH, TableAccumulator } from '../printers/table.js';
import { fanOut } from './fanout.js';
import { contextList, jsonlRecord, prefixLines, withLeadingColumns } from './output.js';
import { ContextColumns, renderContextColumns } from './custom-columns.js';

/** What the fleet needs of one context's connection (the CLI's lazily built layers fit). */
export interface Member {
  mapper(): Promise<RESTMapper>;
  dynamic(): Promise<DynamicClient>;
  /** The context's namespace (kubeconfig's, else `default`). */
  namespace(): Promise<string>;
  preconnect?(): Promise<void>;
  flush?(): Promise<void>;
  close(): void;
}

export interface FleetGetOptions {
  args: readonly string[];
  prog?: string;
  /** -o and the printing flags, prepared (../printers/index.ts: the template compiled). */
  output: GetOutput;
  /** Print the CONTEXT (false: one context, several namespaces: the single-context output). */
  showContext: boolean;
  /** Namespaces to list (undefined: each context's own; ignored with allNamespaces). */
  namespaces?: readonly string[];
  allNamespaces: boolean;
  labelSelector?: string;
  fieldSelector?: string;
  chunkSize: number;
  ignoreNotFound: boolean;
  concurrency?: number;
  stdout: Output;
  stderr: Output;
  /** Reports one error of one context (after that context's output). */
  onError(context: string, error: unknown): void;
}

interface TableGroup {
  key: string;
  kindPrefix: string;
  namespaced: boolean;
  acc: TableAccumulator;
}

interface ContextOutput {
  /** Every request of the context failed: it contributes no document and no rows, only its errors. */
  failed?: boolean;
  groups: TableGroup[];
  text: string;
  /** custom-columns with the context: the rows, CONTEXT first. */
  columns?: string[][];
  errors: unknown[];
}

/** Runs the get; resolves to the number of errors reported. */
export async function fleetGet(contexts: readonly string[], open: (context: string) => Member, o: FleetGetOptions): Promise<number> {
  const table = o.output.format.type === 'table';
  const shared = !o.showContext && !table ? await objectPrinter(o, false) : undefined;
  const columns = contextColumnsTemplate(o);
  const allColumns: string[][][] = [];
  const allGroups = new Map<string, { kindPrefix: string; namespaced: boolean; parts: TableAccumulator[] }>();
  let failures = 0;
  let printed = false;
  const report = (context: string, errors: unknown[]) => {
    for (const e of errors) o.onError(context, e);
    failures += errors.length;
  };

  await fanOut<Member, ContextOutput>(contexts, (m, context) => oneContext(m, context, o, shared), {
    open,
    close: async (m) => {
      await m.flush?.();
      m.close();
    },
    concurrency: o.concurrency,
    onResult: (r) => {
      if (!r.ok) return report(r.context, [r.error]);
      const out = r.value;
      if (out.failed) return report(r.context, out.errors);
      if (out.columns) allColumns.push(out.columns);
      for (const g of out.groups) {
        let all = allGroups.get(g.key);
        if (!all) allGroups.set(g.key, (all = { kindPrefix: g.kindPrefix, namespaced: g.namespaced, parts: [] }));
        all.parts.push(g.acc);
      }
      if (out.text) {
        // Several YAML documents (a List per context) are separated as a YAML stream.
        o.stdout.write(printed && o.output.format.type === 'yaml' ? `---\n${out.text}` : out.text);
        printed = true;
      }
      report(r.context, out.errors);
    },
  });

  if (shared) {
    const tail = shared.end();
    if (tail) o.stdout.write(tail);
  }
  if (columns && allColumns.length > 0) {
    // As a single-context get: the header even when no context had objects.
    o.stdout.write(renderContextColumns(columns, allColumns, o.output.noHeaders));
    printed = true;
  }
  if (table) {
    const withKind = o.output.showKind || allGroups.size > 1;
    let out = '';
    for (const g of allGroups.values()) {
      const rows = mergeRows(g.parts.map((acc) => acc.cells(withKind ? g.kindPrefix : undefined)), o.output.noHeaders);
      if (rows.length === 0) continue;
      if (out && !o.output.noHeaders) out += '\n';
      out += formatColumns(rows, { minWidth: TABWRITER_MIN_WIDTH });
    }
    if (out) {
      o.stdout.write(out);
      printed = true;
    }
  }
  if (!printed && failures === 0 && !o.ignoreNotFound && table) o.stderr.write('No resources found\n');
  return failures;
}

/** One context's lists: its table cells, or its object output as text (or fed to the shared printer). */
async function oneContext(m: Member, context: string, o: FleetGetOptions, shared: ObjectPrinter | undefined): Promise<ContextOutput> {
  await m.preconnect?.();
  const [mapper, client] = await Promise.all([m.mapper(), m.dynamic()]);
  const plan = await resolveGetArgs(o.args, mapper, o.prog);
  const namespaces: ReadonlyArray<string | undefined> = o.allNamespaces ? [undefined] : (o.namespaces ?? [await m.namespace()]);
  const withNamespace = o.allNamespaces || namespaces.length > 1;
  const out: ContextOutput = { groups: [], text: '', errors: [] };
  const label = o.showContext ? context : undefined;

  const template = contextColumnsTemplate(o);
  const columns = template && new ContextColumns(template);
  const printer = o.output.format.type === 'table' || columns ? undefined : (shared ?? (await objectPrinter(o, true)));
  const items: Unstructured[] = [];
  const omitManagedFields = !o.output.showManagedFields && ['json', 'yaml', 'jsonl'].includes(o.output.format.type);
  // name and jsonl stream page by page; the List formats (and --sort-by) hold the context's objects.
  const perObject = shared !== undefined || columns !== undefined || o.output.format.type === 'name' || o.output.format.type === 'jsonl';
  const streams = !o.output.sorter && perObject;
  const render = (page: Unstructured[], gk: { group: string; kind: string }) => {
    if (shared) o.stdout.write(shared.page(page, gk));
    else if (columns) columns.add(page);
    else if (o.output.format.type === 'name') out.text += prefixLines(printer!.page(page, gk), context);
    else for (const i of page) out.text += jsonlRecord(context, i);
  };
  const kinds = new Map<Unstructured, { group: string; kind: string }>();
  const emit = (page: Unstructured[], mapping: ResourceMapping) => {
    if (omitManagedFields) for (const i of page) if (i.metadata?.managedFields !== undefined) delete i.metadata.managedFields;
    const gk = { group: mapping.gvk.group, kind: mapping.gvk.kind };
    if (streams) return render(page, gk);
    if (o.output.sorter) for (const i of page) kinds.set(i, gk);
    items.push(...page);
  };

  // Whether any request was answered: a context whose every request failed (down, a bad token, no
  // rights) contributes nothing, as when its discovery failed (a cold cache): the output never
  // depends on the cache's age.
  let answered = false;
  for (const req of plan.requests) {
    // The mapping may change once, when the collection is gone (../restmapper/stale.ts): as for one context.
    let mapping = req.mapping;
    const acc = new TableAccumulator({ wide: o.output.format.type === 'table' && o.output.format.wide, noHeaders: o.output.noHeaders, showLabels: o.output.showLabels, labelColumns: o.output.labelColumns });
    const addTable = (t: Table) => {
      if (o.output.sorter) o.output.sorter.sortTable(t);
      acc.add(withLeadingColumns(t, { context: label, withNamespace: withNamespace && mapping.namespaced }));
    };
    const list = async (m: ResourceMapping, ns: string | undefined) => {
      mapping = m;
      const base = client.resource(m.gvr, { namespaced: m.namespaced });
      const handle = ns !== undefined && m.namespaced ? base.namespace(ns) : base;
      if (o.output.format.type === 'table') await tables(handle, req, o, withNamespace, addTable, out);
      else await objects(handle, req, o, (page) => emit(page, m), out);
    };
    for (const ns of mapping.namespaced ? namespaces : [undefined]) {
      try {
        await withFreshMapping(mapper, req.arg, mapping, (m) => list(m, ns));
        answered = true;
      } catch (e) {
        out.errors.push(listError(e, { gvr: mapping.gvr, named: req.names.length > 0, labelSelector: o.labelSelector, fieldSelector: o.fieldSelector }));
      }
      // The mapping refreshed to a cluster-scoped resource (its CRD replaced by one of that scope): its
      // one list (or error) stands for every namespace.
      if (!mapping.namespaced) break;
    }
    if (o.output.format.type === 'table') {
      const { gvr, gvk, namespaced } = mapping;
      out.groups.push({ key: `${gvr.group}/${gvr.resource}`, kindPrefix: (gvk.group ? `${gvk.kind}.${gvk.group}` : gvk.kind).toLowerCase(), namespaced, acc });
    }
  }
  if (!answered && plan.requests.length > 0) return { failed: true, groups: [], text: '', errors: out.errors };
  if ((printer || columns) && !streams) {
    if (o.output.sorter) o.output.sorter.sortObjects(items);
    if (perObject) for (const i of items) render([i], kinds.get(i)!);
    else out.text = printer!.page([contextList(context, items)], { group: '', kind: 'List' }) + printer!.end();
  }
  if (columns) {
    out.columns = columns.rows(context);
    if (columns.failure !== undefined) out.errors.push(columns.failure);
  }
  // -o name and -o jsonl: each line names its context, so a context's lines go out as soon as it is
  // done, not after the contexts before it (one that hangs would hold every other back).
  if (label !== undefined && (o.output.format.type === 'name' || o.output.format.type === 'jsonl')) {
    o.stdout.write(out.text);
    out.text = '';
  }
  return out;
}

async function tables(handle: ResourceClient, req: GetRequest, o: FleetGetOptions, withNamespace: boolean, add: (t: Table) => void, out: ContextOutput): Promise<void> {
  const needObject = withNamespace || o.output.showLabels || o.output.labelColumns.length > 0;
  const includeObject = o.output.sorter ? 'Object' : needObject ? 'Metadata' : 'None';
  if (req.names.length === 0) {
    for await (const t of handle.listTable({ labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit: o.output.sorter ? 0 : o.chunkSize, includeObject })) add(t);
    return;
  }
  for (const name of req.names) {
    try {
      add(await handle.getTable(name, { includeObject }));
    } catch (e) {
      if (!notFound(e, o)) throw e;
      if (!o.ignoreNotFound) out.errors.push(e);
    }
  }
}

async function objects(handle: ResourceClient, req: GetRequest, o: FleetGetOptions, emit: (page: Unstructured[]) => void, out: ContextOutput): Promise<void> {
  if (req.names.length === 0) {
    for await (const page of handle.list({ labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit: o.chunkSize })) emit(page.items);
    return;
  }
  for (const name of req.names) {
    try {
      emit([await handle.get(name)]);
    } catch (e) {
      if (!notFound(e, o)) throw e;
      if (!o.ignoreNotFound) out.errors.push(e);
    }
  }
}

function notFound(e: unknown, _o: FleetGetOptions): boolean {
  return e instanceof StatusError && e.code === 404 && e.status.details?.name !== undefined;
}

/** The compiled custom columns when they are printed with the context (undefined otherwise). */
function contextColumnsTemplate(o: FleetGetOptions) {
  const t = o.output.template?.compiled;
  return o.showContext && o.output.format.type === 'custom-columns' && t?.type === 'columns' ? t : undefined;
}

/**
 * The object printer: per context (`perContext`) it prints one document, the context's List (so
 * json/yaml/templates see `context` and `items`); shared (one context, several namespaces) it is
 * the single-context printer.
 */
async function objectPrinter(o: FleetGetOptions, perContext: boolean): Promise<ObjectPrinter> {
  const format = o.output.format as Exclude<OutputFormat, { type: 'table' }>;
  return createObjectPrinter(format, {
    singleItemImplied: perContext,
    ignoreNotFound: o.ignoreNotFound,
    noHeaders: o.output.noHeaders,
    template: o.output.template?.text,
    compiled: o.output.template?.compiled,
    allowMissingKeys: o.output.allowMissingKeys,
  });
}

/**
 * One table's lines over several contexts: the contexts' lines in order, a context's header left
 * out when it repeats the one above (the same columns), kept when the columns differ.
 */
export function mergeRows(parts: readonly string[][][], noHeaders: boolean): string[][] {
  const rows: string[][] = [];
  let header: string[] | undefined;
  for (const cells of parts) {
    if (cells.length === 0) continue;
    let start = 0;
    if (!noHeaders) {
      const h = cells[0]!;
      if (header && h.length === header.length && h.every((c, i) => c === header![i])) start = 1;
      header = h;
    }
    for (let i = start; i < cells.length; i++) rows.push(cells[i]!);
  }
  return rows;
}
