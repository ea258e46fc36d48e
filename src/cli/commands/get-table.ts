/**
 * `kdyn get` with the default or wide output: the server's Table per resource, one table per
 * resource separated by blank lines, `kind/name` names with several kinds (or --show-kind), the
 * NAMESPACE column with -A, and kubectl's `No resources found` on stderr when nothing printed.
 * Only printed cells are kept (TableAccumulator), never the objects.
 */
import type { Table } from '../../core/table.js';
import { TableAccumulator } from '../../printers/table.js';
import type { GetRun, Job } from './get.js';
import { notFoundHandled } from './get.js';

export async function runTable(state: GetRun, jobs: Job[], wide: boolean): Promise<void> {
  const { opts, io } = state;
  const needObject = opts.allNamespaces || opts.showLabels || opts.labelColumns.length > 0;
  // kubectl: --sort-by asks for whole objects and turns chunking off.
  const includeObject = state.sorter ? 'Object' : needObject ? 'Metadata' : 'None';
  const limit = state.sorter ? 0 : opts.chunkSize;

  const groups: Array<{ acc: TableAccumulator; gk: string }> = [];
  const kinds = new Set<string>();
  let allNamespaced = !opts.allNamespaces;
  // kubectl quirk kept for identical output: once one resource printed a NAMESPACE column, every
  // later table has one too (get.go's ToPrinter mutates the shared print flags), empty for
  // cluster-scoped resources.
  let withNamespace = false;

  for (const job of jobs) {
    let acc: TableAccumulator | undefined;
    let ok = false;
    const add = (t: Table) => {
      if (!acc) withNamespace ||= opts.allNamespaces && job.mapping.namespaced;
      acc ??= new TableAccumulator({
        wide,
        noHeaders: opts.noHeaders,
        withNamespace,
        showLabels: opts.showLabels,
        labelColumns: opts.labelColumns,
      });
      if (state.sorter) state.sorter.sortTable(t);
      acc.add(t);
    };
    try {
      await state.withMapping(job, async (j) => {
        if (j.request.names.length === 0) {
          for await (const t of j.handle.listTable({ labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector, limit, includeObject })) {
            add(t);
            ok = true;
          }
          return;
        }
        for (const name of j.request.names) {
          try {
            add(await j.handle.getTable(name, { includeObject }));
            ok = true;
          } catch (e) {
            if (!notFoundHandled(state, e)) throw e;
          }
        }
      });
    } catch (e) {
      state.errors.push(e);
    }
    if (ok) {
      allNamespaced &&= job.mapping.namespaced;
      kinds.add(`${job.mapping.gvk.kind}.${job.mapping.gvk.group}`);
    }
    if (acc) groups.push({ acc, gk: kindPrefix(job) });
  }

  const withKind = opts.showKind || kinds.size > 1;
  let out = '';
  for (const g of groups) {
    const text = g.acc.render(withKind ? g.gk : undefined);
    if (!text) continue;
    if (out && !opts.noHeaders) out += '\n';
    out += text;
  }
  if (out) io.stdout.write(out);
  else if (state.errors.length === 0 && !opts.ignoreNotFound) {
    io.stderr.write(allNamespaced && state.namespace ? `No resources found in ${state.namespace} namespace.\n` : 'No resources found\n');
  }
}

/** kubectl's `strings.ToLower(GroupKind.String())`: `configmap`, `crontab.stable.example.com`. */
function kindPrefix(job: Job): string {
  const { kind, group } = job.mapping.gvk;
  return (group ? `${kind}.${group}` : kind).toLowerCase();
}
