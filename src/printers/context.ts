/**
 * The printer decorator for `get` over contexts (kubectl's `cli-runtime/pkg/printers` adds columns by
 * decoration; issue 24, docs/fleet.md): one context is a fleet of one. With one context and no fleet
 * selector the pages go to `get`'s own printer (./get.ts) and the output is kubectl's, byte for
 * byte; with several contexts (or a fleet selector: `showContext`) or several namespaces each
 * object says where it lives, without the objects themselves changing:
 * - tables (and wide): one table per resource over every context, CONTEXT first (then NAMESPACE
 *   with -A or several namespaces), as ordinary columns of the server's Table (./context-tables.ts);
 * - custom-columns: one table over every context, CONTEXT then the user's columns;
 * - `-o name`: `CONTEXT/kind[.group]/name` (the context is everything before the last two
 *   `/`-separated fields, so a context name with `/` in it stays unambiguous);
 * - `-o jsonl`: `{"context":C,"object":{...}}` per line (watch: `{"context":C,"type":T,"object":{...}}`);
 * - `-o json|yaml` and templates: one kubectl List per context, with a `context` field next to
 *   `items` (`jq '.context as $c | .items[] | "\($c) \(.metadata.name)"'`); a stream of documents.
 * `-o name` and `-o jsonl` write a context's lines as soon as it is done, whatever the others do
 * (each line names its context); the other formats keep the contexts' order. A context whose every
 * request failed prints nothing. With one context and several namespaces (no selector), the objects
 * print as one context's would, the tables with the NAMESPACE column of -A.
 * managedFields are dropped from json, yaml and jsonl unless --show-managed-fields (kubectl's
 * OmitManagedFieldsPrinter; kdyn: jsonl too), here in front of every printer.
 */
import type { IO } from '../core/io.js';
import type { Unstructured } from '../core/unstructured.js';
import type { GroupKind } from './name.js';
import type { ContextStart, GetOutput, GetPrintContext, GetPrinter, OutputFormat } from './types.js';
import { createObjectPrinter, type ObjectPrinter } from './objects.js';
import { createGetPrinter, type ResourcePrinter } from './get.js';
import { contextList, jsonlRecord, prefixLines } from './envelopes.js';

export async function createContextPrinter(o: GetOutput, c: GetPrintContext, io: IO): Promise<GetPrinter> {
  const printer = c.showContext || c.severalNamespaces ? await fleetPrinter(o, c, io) : single(o, c, io);
  if (o.showManagedFields || !(o.format.type === 'json' || o.format.type === 'yaml' || o.format.type === 'jsonl')) return printer;
  return {
    ...printer,
    page(context, page, resource) {
      if (Array.isArray(page)) for (const item of page as Unstructured[]) if (item.metadata?.managedFields !== undefined) delete item.metadata.managedFields;
      printer.page(context, page, resource);
    },
  };
}

/** One context, no selector: get's own printer, made once the arguments are resolved. */
function single(o: GetOutput, c: GetPrintContext, io: IO): GetPrinter {
  let printer: ResourcePrinter | undefined;
  return {
    async start(_context, plan) {
      printer = await createGetPrinter(o, { ...c, singleItemImplied: plan.singleItemImplied, namespace: plan.namespace }, io);
    },
    page: (_context, page, resource) => printer!.page(page, resource),
    done() {},
    settle: () => [],
    end: () => printer?.end(),
  };
}

async function fleetPrinter(o: GetOutput, c: GetPrintContext, io: IO): Promise<GetPrinter> {
  const t = o.template?.compiled;
  if (o.format.type === 'table' || (c.showContext && o.format.type === 'custom-columns' && t?.type === 'columns')) {
    return (await import('./context-tables.js')).createContextTables(o, c, io);
  }
  const format = o.format as Exclude<OutputFormat, { type: 'table' }>;
  // One context, several namespaces: one printer for all, as that context alone.
  if (!c.showContext) return shared(o, await objectPrinter(o, format, c, false), io);
  return perContext(o, format, c, io);
}

function objectPrinter(o: GetOutput, format: Exclude<OutputFormat, { type: 'table' }>, c: GetPrintContext, perContext: boolean): Promise<ObjectPrinter> {
  return createObjectPrinter(format, {
    // Per context the one document printed is the context's List.
    singleItemImplied: perContext,
    ignoreNotFound: c.ignoreNotFound,
    noHeaders: o.noHeaders,
    template: o.template?.text,
    compiled: o.template?.compiled,
    allowMissingKeys: o.allowMissingKeys,
  });
}

/** A context's objects, sorted with --sort-by, each with its group and kind (what `-o name` falls back to). */
class Held {
  readonly items: Unstructured[] = [];
  readonly #kinds = new Map<Unstructured, GroupKind>();
  /** `withKinds`: each object's group and kind kept too (what is printed one by one needs them). */
  constructor(private readonly withKinds: boolean) {}
  add(page: readonly Unstructured[], gk: GroupKind): void {
    if (this.withKinds) for (const i of page) this.#kinds.set(i, gk);
    this.items.push(...page);
  }
  /** The objects, sorted with --sort-by. */
  sorted(o: GetOutput): Unstructured[] {
    o.sorter?.sortObjects(this.items);
    return this.items;
  }
  /** An object's group and kind (kept `withKinds`). */
  kindOf(item: Unstructured): GroupKind {
    return this.#kinds.get(item)!;
  }
}

const gkOf = (r: { mapping: { gvk: GroupKind } }): GroupKind => ({ group: r.mapping.gvk.group, kind: r.mapping.gvk.kind });

function shared(o: GetOutput, printer: ObjectPrinter, io: IO): GetPrinter {
  const held = new Map<string, Held>();
  return {
    async start(context) {
      if (o.sorter) held.set(context, new Held(true));
    },
    page(context, page, resource) {
      if (o.sorter) held.get(context)!.add(page as Unstructured[], gkOf(resource));
      else io.stdout.write(printer.page(page as Unstructured[], gkOf(resource)));
    },
    done(context, failed) {
      const h = held.get(context);
      if (h && !failed) for (const i of h.sorted(o)) io.stdout.write(printer.page([i], h.kindOf(i)));
    },
    settle: () => [],
    end() {
      const tail = printer.end();
      if (tail) io.stdout.write(tail);
    },
  };
}

/** Each context's own text: `-o name` and `-o jsonl` written when it is done, Lists in the contexts' order. */
function perContext(o: GetOutput, format: Exclude<OutputFormat, { type: 'table' }>, c: GetPrintContext, io: IO): GetPrinter {
  const lines = format.type === 'name' || format.type === 'jsonl';
  const streams = lines && !o.sorter;
  const state = new Map<string, { printer: ObjectPrinter; held: Held; text: string }>();
  const render = (s: { printer: ObjectPrinter; text: string }, context: string, page: readonly Unstructured[], gk: GroupKind) => {
    if (format.type === 'name') s.text += prefixLines(s.printer.page(page, gk), context);
    else for (const i of page) s.text += jsonlRecord(context, i);
  };
  let printed = false;
  return {
    async start(context) {
      state.set(context, { printer: await objectPrinter(o, format, c, true), held: new Held(lines), text: '' });
    },
    page(context, page, resource) {
      const s = state.get(context)!;
      if (streams) render(s, context, page as Unstructured[], gkOf(resource));
      else s.held.add(page as Unstructured[], gkOf(resource));
    },
    done(context, failed) {
      const s = state.get(context)!;
      if (failed) return void state.delete(context);
      if (lines) {
        if (!streams) for (const i of s.held.sorted(o)) render(s, context, [i], s.held.kindOf(i));
        io.stdout.write(s.text); // each line names its context: out as soon as the context is done
        s.text = '';
      } else s.text = s.printer.page([contextList(context, s.held.sorted(o))], { group: '', kind: 'List' }) + s.printer.end();
    },
    settle(context) {
      const text = state.get(context)?.text;
      state.delete(context);
      if (text) {
        // Several YAML documents (a List per context) are separated as a YAML stream.
        io.stdout.write(printed && format.type === 'yaml' ? `---\n${text}` : text);
        printed = true;
      }
      return [];
    },
    end() {},
  };
}
