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
import type { Table } from '../core/table.js';
import type { Unstructured } from '../core/unstructured.js';
import type { GroupKind } from './name.js';
import type { Sorter } from './sort.js';
import type { ResourceRow } from './api-resources.js';
import type { PrintedEvent, WatchFormat } from './watch.js';
import type { ResumeInfo, RetryInfo } from './watch-notices.js';
import { asUsageError, compileTemplate, readTemplate, withTemplate, type CompiledTemplate, type TemplateFormat } from './template.js';

export type OutputFormat =
  | { type: 'table'; wide: boolean }
  | { type: 'name' }
  | { type: 'json' }
  | { type: 'yaml' }
  | { type: 'jsonl' }
  | { type: 'jsonpath'; template?: string; file?: string; asJSON?: boolean }
  | { type: 'go-template'; template?: string; file?: string }
  | { type: 'custom-columns'; spec?: string; file?: string };

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

interface TemplateOutput {
  allowMissingKeys: boolean;
  /** A jsonpath, go-template or custom-columns -o: its format, its text once read, and compiled. */
  template?: { format: TemplateFormat; text?: string; compiled?: CompiledTemplate };
}

export interface GetOutput extends TemplateOutput {
  kind: 'get';
  format: OutputFormat;
  noHeaders: boolean;
  showLabels: boolean;
  labelColumns: string[];
  showKind: boolean;
  showManagedFields: boolean;
  sortBy?: string;
  /** `--sort-by` compiled (by prepareOutput). */
  sorter?: Sorter;
}

export interface WatchOutput extends TemplateOutput {
  kind: 'watch';
  /** 'template' for a jsonpath or go-template -o. */
  format: WatchFormat;
  /** -o was given. */
  explicit: boolean;
  noHeaders: boolean;
  showManagedFields: boolean;
}

export interface ApiResourcesOutput {
  kind: 'api-resources';
  format: '' | 'wide' | 'name' | 'json' | 'yaml';
  noHeaders: boolean;
}

export interface ApplyOutput {
  kind: 'apply';
  /** 'text': one `kind.group/name serverside-applied` line per object. */
  format: 'text' | 'name' | 'json' | 'yaml' | 'jsonl';
  showManagedFields: boolean;
}

export type OutputSpec = GetOutput | WatchOutput | ApiResourcesOutput | ApplyOutput;

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
export interface PrintedResource {
  readonly mapping: { readonly gvk: GroupKind; readonly namespaced: boolean };
}

/** Every printer: end() writes what was held back (a List's tail, sorted objects, tables, a template's output). */
export interface Printer {
  end(): void;
}

/** `get`: pages of one resource's objects, or (default and wide output) the server's Tables. */
export interface GetPrinter extends Printer {
  page(page: readonly Unstructured[] | Table, resource: PrintedResource): void;
}

export interface GetPrintContext {
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

/** `watch` and `get -w`: events as they arrive, stdout batched; stderr notices flush it first. */
export interface EventPrinter extends Printer {
  /** Events that arrived together (a table prints them as one block). */
  event(events: readonly PrintedEvent[]): void;
  /** Other stdout text (--for's report). */
  text(text: string): void;
  /** A stderr line, after the events before it. */
  notice(text: string): void;
  /** A watcher's failed attempt and its answer again: the outage notices of `source` (./watch-notices.ts). */
  retry(source: WatchedSource, info: RetryInfo): void;
  resume(source: WatchedSource, info: ResumeInfo): void;
}

/** One watched target (a type, or one object of it): notices are kept apart per source. */
export interface WatchedSource {
  readonly type: string;
}

export interface WatchPrintContext {
  /** The event type with each object (`kdyn watch`, `--output-watch-events`). */
  events: boolean;
  withNamespace: boolean;
  withKind: boolean;
  keepManagedFields: boolean;
  /** Print nothing for the events (--for without -o). */
  quiet: boolean;
  /** -v=1: every failed attempt on stderr. */
  verbose: boolean;
}

/** `api-resources`: the rows. */
export interface RowPrinter extends Printer {
  page(rows: readonly ResourceRow[]): void;
}

/** `apply`: each object as applied, in input order. */
export interface ApplyPrinter extends Printer {
  page(results: readonly AppliedObject[]): void;
}

export interface AppliedObject {
  /** `kind.group/name` */
  ref: string;
  unchanged: boolean;
  /** The server's answer (a client dry run: the body that would be sent). */
  object: Unstructured;
  /** A client dry run: the request that would carry it. */
  request?: { method: string; path: string; query: Record<string, string> };
}

export interface ApplyPrintContext {
  /** --dry-run=server: ` (server dry run)` after each line. */
  serverDryRun: boolean;
  /** --dry-run=client: the objects as they would be sent (the text output: the requests). */
  clientDryRun: boolean;
}

/** Step 3: the printer, writing to io.stdout. */
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
