/**
 * The output module: every command's `-o` in one place. A command gives its kind and its flags:
 * 1. `readOutput(kind, flags)` reads `-o` (with `--template`), `--no-headers` and the other printing
 *    flags; a format the command cannot print is a UsageError (exit 2);
 * 2. `prepareOutput(output, io)`, still before any request, reads template files and compiles the
 *    JSONPath, Go template, custom-columns spec or `--sort-by` once for the run (one that does not
 *    parse is a UsageError; `get`'s Go template is compiled with the printer, exit 1 as kubectl);
 * 3. `createPrinter(output, context, io)`, once the command knows what it prints, gives the
 *    `Printer` that writes stdout: `page()` per page (get's objects or server Tables, api-resources'
 *    rows, apply's objects), `event()` per batch of watch events, `end()` for what was held back.
 * Each format's and each kind's module is imported only when used.
 */
import { UsageError } from '../core/errors.js';
import type { IO } from '../core/io.js';
import { asUsageError, compileTemplate, readTemplate, withTemplate } from './template.js';
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

export type CommandKind = 'get' | 'watch' | 'api-resources' | 'apply';

/** The command line's flags (by long name); the printing ones are read here. */
export type OutputFlags = Readonly<Record<string, unknown>>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Step 1: the printing flags of `kind`, checked (sync). */
export function readOutput(kind: 'get', flags: OutputFlags): GetOutput;
export function readOutput(kind: 'watch', flags: OutputFlags): WatchOutput;
export function readOutput(kind: 'api-resources', flags: OutputFlags): ApiResourcesOutput;
export function readOutput(kind: 'apply', flags: OutputFlags): ApplyOutput;
export function readOutput(kind: CommandKind, f: OutputFlags): OutputSpec {
  const output = withTemplate(str(f.output), str(f.template));
  const allowMissingKeys = f['allow-missing-template-keys'] !== false;
  switch (kind) {
    case 'get': {
      const format = parseOutputFormat(output);
      return {
        kind,
        format,
        noHeaders: f['no-headers'] === true,
        showLabels: f['show-labels'] === true,
        labelColumns: Array.isArray(f['label-columns']) ? f['label-columns'].filter((l): l is string => typeof l === 'string' && l !== '') : [],
        sortBy: str(f['sort-by']),
        showKind: f['show-kind'] === true,
        showManagedFields: f['show-managed-fields'] === true,
        allowMissingKeys,
        template: format.type === 'jsonpath' || format.type === 'go-template' || format.type === 'custom-columns' ? { format } : undefined,
      };
    }
    case 'watch': {
      let format = (output ?? 'table') as WatchFormat;
      let template: TemplateFormat | undefined;
      if (!WATCH_FORMATS.includes(format) || output === 'table') {
        template = watchTemplateFormat(output);
        if (!template) throw new UsageError(`unable to match a printer suitable for the output format "${output}" with a watch, allowed formats are: ${WATCH_OUTPUTS.join(',')}`);
        format = 'template';
      }
      return {
        kind,
        format,
        explicit: output !== undefined,
        noHeaders: f['no-headers'] === true,
        showManagedFields: f['show-managed-fields'] === true,
        allowMissingKeys,
        template: template && { format: template },
      };
    }
    case 'api-resources': {
      const format = typeof f.output === 'string' ? f.output : '';
      if (format !== '' && format !== 'wide' && format !== 'name' && format !== 'json' && format !== 'yaml') throw new UsageError(`--output ${format} is not available`);
      return { kind, format, noHeaders: f['no-headers'] === true };
    }
    case 'apply':
      return { kind, format: (str(f.output) ?? 'text') as ApplyOutput['format'], showManagedFields: f['show-managed-fields'] === true };
  }
}

/**
 * Step 2, before any request: `--sort-by` and the template compiled, the template file read.
 * A template or path that does not parse is a UsageError (a Go template for `get` is compiled by
 * createPrinter instead, once the arguments are resolved: exit 1, as kubectl).
 */
export async function prepareOutput<O extends OutputSpec>(o: O, io: IO): Promise<O> {
  // Load get's printing half while the command reads discovery (a failed import surfaces in createPrinter).
  if (o.kind === 'get') import('./get.js').catch(() => undefined);
  if (o.kind === 'get' && o.sortBy) {
    const sortBy = o.sortBy;
    o.sorter = await asUsageError(async () => (await import('./sort.js')).createSorter(sortBy));
  }
  if ((o.kind === 'get' || o.kind === 'watch') && o.template) {
    const t = o.template;
    t.text = await readTemplate(t.format, io);
    if (o.kind === 'watch' || t.format.type !== 'go-template') t.compiled = await asUsageError(() => compileTemplate(t.format, t.text!, o.allowMissingKeys));
  }
  return o;
}

/** What a printer prints a page for: one resource (a job of `get`), its mapping read when printed. */
export async function createPrinter(o: GetOutput, context: GetPrintContext, io: IO): Promise<GetPrinter>;
export async function createPrinter(o: WatchOutput, context: WatchPrintContext, io: IO): Promise<EventPrinter>;
export async function createPrinter(o: ApiResourcesOutput, context: undefined, io: IO): Promise<RowPrinter>;
export async function createPrinter(o: ApplyOutput, context: ApplyPrintContext, io: IO): Promise<ApplyPrinter>;
export async function createPrinter(o: OutputSpec, context: unknown, io: IO): Promise<Printer> {
  switch (o.kind) {
    case 'get':
      return (await import('./get.js')).createGetPrinter(o, context as GetPrintContext, io);
    case 'watch':
      return (await import('./watch.js')).createEventPrinter(o, context as WatchPrintContext, io);
    case 'api-resources':
      return (await import('./api-resources.js')).createRowPrinter(o, io);
    case 'apply':
      return (await import('./apply.js')).createApplyPrinter(o, context as ApplyPrintContext, io);
  }
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
