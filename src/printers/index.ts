/**
 * The output module: every `-o` format in one place. It knows formats, never commands or flags:
 * 1. the command line turns its flags into typed options (../cli/print-flags.ts, kubectl's
 *    PrintFlags): an OutputSpec saying what is printed (objects, events, API resources, applied
 *    objects) and how; `parseOutputFormat` reads kubectl's `-o` grammar, and a format that cannot
 *    print that kind of output is a UsageError (exit 2);
 * 2. `prepareOutput(output, io)`, still before any request, reads template files and compiles the
 *    JSONPath, Go template, custom-columns spec or `--sort-by` once for the run (one that does not
 *    parse is a UsageError; `get`'s Go template is compiled with the printer, exit 1 as kubectl);
 * 3. `createPrinter(output, context, io)`, once the command knows what it prints, gives the
 *    `Printer` that writes stdout: `page()` per page (objects or server Tables of a context,
 *    API resource rows, applied objects), `event()` per batch of watch events, `end()` for what was
 *    held back. Output over several contexts is decorated with the context (./context.ts).
 * Each format's and each kind's module is imported only when used.
 */
import { UsageError } from '../core/errors.js';
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
  OutputFormat,
  OutputSpec,
  Printer,
  RowPrintContext,
  RowPrinter,
  TemplateFormat,
  WatchFormat,
  WatchOutput,
  WatchPrintContext,
} from './types.js';

export type * from './types.js';

export const ALLOWED_FORMATS = [
  'custom-columns', 'custom-columns-file', 'go-template', 'go-template-file', 'json', 'jsonl', 'jsonpath', 'jsonpath-as-json',
  'jsonpath-file', 'name', 'template', 'templatefile', 'wide', 'yaml',
];

/** `-o` as kubectl reads it (`jsonpath=TEMPLATE`, `custom-columns-file=FILE`, ...). Throws UsageError otherwise. */
export function parseOutputFormat(output: string | undefined): OutputFormat {
  const o = output ?? '';
  if (o === '') return { type: 'table', wide: false };
  if (o === 'wide') return { type: 'table', wide: true };
  if (o === 'name' || o === 'json' || o === 'yaml' || o === 'jsonl') return { type: o };
  const eq = o.indexOf('=');
  const key = eq < 0 ? o : o.slice(0, eq);
  const value = eq < 0 ? '' : o.slice(eq + 1);
  switch (key) {
    case 'jsonpath':
      if (!value) throw new UsageError('template format specified but no template given');
      return { type: 'jsonpath', template: value };
    case 'jsonpath-file':
      if (!value) throw new UsageError('template format specified but no template file given');
      return { type: 'jsonpath', file: value };
    case 'jsonpath-as-json':
      if (!value) throw new UsageError('template format specified but no template given');
      return { type: 'jsonpath', template: value, asJSON: true };
    case 'go-template':
    case 'template':
      if (!value) throw new UsageError('template format specified but no template given');
      return { type: 'go-template', template: value };
    case 'go-template-file':
    case 'templatefile':
      if (!value) throw new UsageError('template format specified but no template given');
      return { type: 'go-template', file: value };
    case 'custom-columns':
      if (!value) throw new UsageError('custom-columns format specified but no custom columns given');
      return { type: 'custom-columns', spec: value };
    case 'custom-columns-file':
      if (!value) throw new UsageError('custom-columns-file format specified but no file given');
      return { type: 'custom-columns', file: value };
  }
  throw new UsageError(`unable to match a printer suitable for the output format "${o}", allowed formats are: ${ALLOWED_FORMATS.join(',')}`);
}

/**
 * A watch's `-o` (undefined: not given): the plain formats print each event as is, a jsonpath or
 * go-template (with its file forms) is 'template'; anything else (custom columns included) is a UsageError.
 */
export function parseWatchFormat(output: string | undefined): { format: WatchFormat; template?: TemplateFormat } {
  const format = (output ?? 'table') as WatchFormat;
  if (WATCH_FORMATS.includes(format) && output !== 'table') return { format };
  const template = watchTemplateFormat(output);
  if (!template) throw new UsageError(`unable to match a printer suitable for the output format "${output}" with a watch, allowed formats are: ${WATCH_OUTPUTS.join(',')}`);
  return { format: 'template', template };
}

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

/** The plain watch formats; 'template' comes from a jsonpath or go-template -o. */
export const WATCH_FORMATS: readonly WatchFormat[] = ['table', 'wide', 'name', 'json', 'yaml', 'jsonl'];

/** What `-o` may be with a watch: get's formats without custom-columns. */
const WATCH_OUTPUTS = ALLOWED_FORMATS.filter((f) => !f.startsWith('custom-columns'));

/** A jsonpath or go-template -o (with its file forms), else undefined. */
function watchTemplateFormat(output: string | undefined): Extract<OutputFormat, { type: 'jsonpath' | 'go-template' }> | undefined {
  const key = output?.split('=', 1)[0];
  if (key === undefined || !WATCH_OUTPUTS.includes(key) || (WATCH_FORMATS as readonly string[]).includes(key)) return undefined;
  const format = parseOutputFormat(output);
  return format.type === 'jsonpath' || format.type === 'go-template' ? format : undefined;
}
