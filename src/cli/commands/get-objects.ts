/**
 * `kdyn get -o name|json|yaml|jsonl|jsonpath|custom-columns`: the objects themselves, page by page.
 * Streaming formats write each page as it arrives (one write per page) and drop it; with --sort-by
 * every object is collected first (kubectl sorts the whole List).
 */
import type { Unstructured } from '../../core/unstructured.js';
import { createObjectPrinter, type OutputFormat } from '../../printers/index.js';
import type { GroupKind } from '../../printers/name.js';
import type { GetRun, Job } from './get.js';
import { groupKindOf, notFoundHandled } from './get.js';

export async function runObjects(
  state: GetRun,
  jobs: Job[],
  format: Exclude<OutputFormat, { type: 'table' }>,
  extra: { singleItemImplied: boolean; template?: string },
): Promise<void> {
  const { opts, io } = state;
  const printer = await createObjectPrinter(format, {
    singleItemImplied: extra.singleItemImplied,
    ignoreNotFound: opts.ignoreNotFound,
    noHeaders: opts.noHeaders,
    template: extra.template,
    allowMissingKeys: opts.allowMissingKeys,
  });
  const sorted: Array<{ obj: Unstructured; gk: GroupKind }> | undefined = state.sorter ? [] : undefined;
  // kubectl omits metadata.managedFields from json and yaml unless --show-managed-fields (kdyn: jsonl too).
  const omitManagedFields = !opts.showManagedFields && (format.type === 'json' || format.type === 'yaml' || format.type === 'jsonl');
  const emit = (items: Unstructured[], gk: GroupKind) => {
    if (omitManagedFields) for (const item of items) if (item.metadata?.managedFields !== undefined) delete item.metadata.managedFields;
    if (sorted) {
      for (const obj of items) sorted.push({ obj, gk });
      return;
    }
    const text = printer.page(items, gk);
    if (text) io.stdout.write(text);
  };

  for (const job of jobs) {
    try {
      await state.withMapping(job, async (j) => {
        const gk = groupKindOf(j.mapping);
        if (j.request.names.length === 0) {
          for await (const page of j.handle.list({ labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector, limit: opts.chunkSize })) {
            emit(page.items, gk);
          }
          return;
        }
        for (const name of j.request.names) {
          try {
            emit([await j.handle.get(name)], gk);
          } catch (e) {
            if (!notFoundHandled(state, e)) throw e;
          }
        }
      });
    } catch (e) {
      state.errors.push(e);
    }
  }

  if (sorted && state.sorter) {
    const objs = sorted.map((s) => s.obj);
    const gkOf = new Map(sorted.map((s) => [s.obj, s.gk]));
    state.sorter.sortObjects(objs);
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
}
