/**
 * The output module: every `-o` format in one place. It knows formats, never commands or flags:
 * 1. the command line turns its flags into typed options (kubectl's PrintFlags, in the CLI): an
 *    OutputSpec saying what is printed (objects, events, API resources, applied objects) and in
 *    which format (./types.ts);
 * 2. `prepareOutput(output, io)`, still before any request, reads template files and compiles the
 *    JSONPath, Go template, custom-columns spec or `--sort-by` once for the run (one that does not
 *    parse is a UsageError; `get`'s Go template is compiled with the printer, exit 1 as kubectl);
 * 3. `createPrinter(output, context, io)`, once the command knows what it prints, gives the
 *    `Printer` that writes stdout: `page()` per page (objects or server Tables of a context,
 *    API resource rows, applied objects), `event()` per batch of watch events, `end()` for what was
 *    held back. Output over several contexts is decorated with the context (./context.ts).
 * Each format's and each kind's module is imported only when used.
 */
import type { IO } from '../core/io.js';
import { asUsageError, compileTemplate, readTemplate } from './template.js';
import type {
  ApiResourcesOutput,
  ApplyOutput,
  ApplyPrintContext,
  ApplyPrinter,
  EventPrinter,
  GetOutput,
  GetPrintContext,
  GetPrinter,
  OutputSpec,
  Printer,
  RowPrintContext,
  RowPrinter,
  WatchOutput,
  WatchPrintContext,
} from './types.js';

export type * from './types.js';

/**
 * Step 2, before any request: `--sort-by` and the template compiled, the template file read.
 * A template or path that does not parse is a UsageError (a Go template for `get` is compiled by
 * createPrinter instead, once the arguments are resolved: exit 1, as kubectl).
 */
export async function prepareOutput<O extends OutputSpec>(o: O, io: IO): Promise<O> {
  // Load get's printing half while the command reads discovery (a failed import surfaces in createPrinter).
  if (o.kind === 'objects') import('./context.js').catch(() => undefined);
  if (o.kind === 'objects' && o.sortBy) {
    const sortBy = o.sortBy;
    o.sorter = await asUsageError(async () => (await import('./sort.js')).createSorter(sortBy));
  }
  if ((o.kind === 'objects' || o.kind === 'events') && o.template) {
    const t = o.template;
    t.text = await readTemplate(t.format, io);
    if (o.kind === 'events' || t.format.type !== 'go-template') t.compiled = await asUsageError(() => compileTemplate(t.format, t.text!, o.allowMissingKeys));
  }
  return o;
}

/** Step 3: the printer, writing to io.stdout (objects over one or more contexts: ./context.ts). */
export async function createPrinter(o: GetOutput, context: GetPrintContext, io: IO): Promise<GetPrinter>;
export async function createPrinter(o: WatchOutput, context: WatchPrintContext, io: IO): Promise<EventPrinter>;
export async function createPrinter(o: ApiResourcesOutput, context: RowPrintContext, io: IO): Promise<RowPrinter>;
export async function createPrinter(o: ApplyOutput, context: ApplyPrintContext, io: IO): Promise<ApplyPrinter>;
export async function createPrinter(o: OutputSpec, context: unknown, io: IO): Promise<Printer> {
  switch (o.kind) {
    case 'objects':
      return (await import('./context.js')).createContextPrinter(o, context as GetPrintContext, io);
    case 'events':
      return (await import('./watch.js')).createEventPrinter(o, context as WatchPrintContext, io);
    case 'resources':
      return (await import('./api-resources.js')).createRowPrinter(o, context as RowPrintContext, io);
    case 'applied':
      return (await import('./apply.js')).createApplyPrinter(o, context as ApplyPrintContext, io);
  }
}

/**
 * What `get`'s default and wide output needs of the server's Tables (kubectl's printer flags shape
 * the requests): whole objects for --sort-by, which also turns chunking off; metadata for label
 * columns. Undefined for the object formats.
 */
export function tableRequest(o: GetOutput): { includeObject: 'Object' | 'Metadata' | 'None'; unchunked: boolean } | undefined {
  if (o.format.type !== 'table') return undefined;
  return { includeObject: o.sorter ? 'Object' : o.showLabels || o.labelColumns.length > 0 ? 'Metadata' : 'None', unchunked: o.sorter !== undefined };
}
