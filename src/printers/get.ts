/**
 * `get`'s printer for one context (kubectl `KC/pkg/cmd/get/get.go`'s printing half; ./context.ts
 * gives it the pages of a context without a fleet selector), in two modes:
 * - the objects (every `-o` format): each page written as it arrives (one write per page) and
 *   dropped; with --sort-by every object is held and sorted at the end (kubectl sorts the whole
 *   List);
 * - the default and wide output: the server's Table per resource, one table per resource separated
 *   by blank lines, `kind/name` names with several kinds (or --show-kind), the NAMESPACE column
 *   with -A, and kubectl's `No resources found` on stderr when nothing printed. Only printed cells
 *   are kept (TableAccumulator), never the objects.
 */
import type { IO } from '../core/io.js';
import type { Table } from '../core/table.js';
import type { Unstructured } from '../core/unstructured.js';
import type { GroupKind } from './name.js';
import type { GetOutput, PrintedResource, Printer } from './types.js';
import { createObjectPrinter } from './objects.js';
import { TableAccumulator } from './table.js';

/** Pages of one context, each of one resource. */
export interface ResourcePrinter extends Printer {
  page(page: readonly Unstructured[] | Table, resource: PrintedResource): void;
}

export interface SinglePrintContext {
  /** The user named exactly one object: print it, not a List (kubectl's singleItemImplied). */
  singleItemImplied: boolean;
  ignoreNotFound: boolean;
  /** -A */
  allNamespaces: boolean;
  /** The namespace listed in (`No resources found in NS namespace.`). */
  namespace: string | undefined;
  /** The run's errors so far: `No resources found` is said only when there are none. */
  errors: readonly unknown[];
}

export async function createGetPrinter(o: GetOutput, ctx: SinglePrintContext, io: IO): Promise<ResourcePrinter> {
  return o.format.type === 'table' ? tablePrinter(o, o.format.wide, ctx, io) : objectsPrinter(o, o.format, ctx, io);
}

async function objectsPrinter(o: GetOutput, format: Exclude<GetOutput['format'], { type: 'table' }>, ctx: SinglePrintContext, io: IO): Promise<ResourcePrinter> {
  const printer = await createObjectPrinter(format, {
    singleItemImplied: ctx.singleItemImplied,
    ignoreNotFound: ctx.ignoreNotFound,
    noHeaders: o.noHeaders,
    template: o.template?.text,
    compiled: o.template?.compiled,
    allowMissingKeys: o.allowMissingKeys,
  });
  const sorted: Array<{ obj: Unstructured; gk: GroupKind }> | undefined = o.sorter ? [] : undefined;
  return {
    page(page, resource) {
      const items = page as Unstructured[];
      // The group and kind as served (not lower-cased): what `-o name` falls back to for an object without apiVersion/kind.
      const gk = { group: resource.mapping.gvk.group, kind: resource.mapping.gvk.kind };
      if (sorted) {
        for (const obj of items) sorted.push({ obj, gk });
        return;
      }
      const text = printer.page(items, gk);
      if (text) io.stdout.write(text);
    },
    end() {
      if (sorted && o.sorter) {
        const objs = sorted.map((s) => s.obj);
        const gkOf = new Map(sorted.map((s) => [s.obj, s.gk]));
        o.sorter.sortObjects(objs);
        let text = '';
        for (const obj of objs) text += printer.page([obj], gkOf.get(obj)!);
        if (text) io.stdout.write(text);
      }
      let tail: string;
      try {
        tail = printer.end();
      } catch (e) {
        // A go-template that fails writes its output so far and kubectl's debugging dump to stdout first.
        const partial = (e as { output?: unknown }).output;
        if (typeof partial === 'string' && partial) io.stdout.write(partial);
        throw e;
      }
      if (tail) io.stdout.write(tail);
    },
  };
}

function tablePrinter(o: GetOutput, wide: boolean, ctx: SinglePrintContext, io: IO): ResourcePrinter {
  /** One table per resource (per job of the command), in order; `ok` once a Table was added. */
  const groups: Array<{ resource: PrintedResource; acc: TableAccumulator; ok: boolean }> = [];
  // kubectl quirk kept for identical output: once one resource printed a NAMESPACE column, every
  // later table has one too (get.go's ToPrinter mutates the shared print flags), empty for
  // cluster-scoped resources.
  let withNamespace = false;
  return {
    page(page, resource) {
      let g = groups.at(-1);
      if (g?.resource !== resource) {
        withNamespace ||= ctx.allNamespaces && resource.mapping.namespaced;
        const acc = new TableAccumulator({ wide, noHeaders: o.noHeaders, withNamespace, showLabels: o.showLabels, labelColumns: o.labelColumns });
        groups.push((g = { resource, acc, ok: false }));
      }
      const t = page as Table;
      if (o.sorter) o.sorter.sortTable(t);
      g.acc.add(t);
      g.ok = true;
    },
    end() {
      const kinds = new Set<string>();
      let allNamespaced = !ctx.allNamespaces;
      for (const g of groups) {
        if (!g.ok) continue;
        allNamespaced &&= g.resource.mapping.namespaced;
        kinds.add(`${g.resource.mapping.gvk.kind}.${g.resource.mapping.gvk.group}`);
      }
      const withKind = o.showKind || kinds.size > 1;
      let out = '';
      for (const g of groups) {
        const text = g.acc.render(withKind ? kindPrefix(g.resource.mapping.gvk) : undefined);
        if (!text) continue;
        if (out && !o.noHeaders) out += '\n';
        out += text;
      }
      if (out) io.stdout.write(out);
      else if (ctx.errors.length === 0 && !ctx.ignoreNotFound) {
        io.stderr.write(allNamespaced && ctx.namespace ? `No resources found in ${ctx.namespace} namespace.\n` : 'No resources found\n');
      }
    },
  };
}

/** kubectl's `strings.ToLower(GroupKind.String())`: `configmap`, `crontab.stable.example.com`. */
function kindPrefix({ kind, group }: GroupKind): string {
  return (group ? `${kind}.${group}` : kind).toLowerCase();
}
