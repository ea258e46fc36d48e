/**
 * The output module's types, in one leaf module that every printer and the module's entry
 * (./index.ts) import, and that imports no printer: formats, the printing options a command hands
 * over, the printers and what they are given. Printers know formats, never commands or flags.
 */
import type { Table } from '../core/table.js';
import type { Unstructured } from '../core/unstructured.js';
import type { GroupKind } from '../core/object-name.js';
import type { JSONPathTemplate } from '../jsonpath/index.js';
import type { CustomColumn } from './custom-columns.js';

export type OutputFormat =
  | { type: 'table'; wide: boolean }
  | { type: 'name' }
  | { type: 'json' }
  | { type: 'yaml' }
  | { type: 'jsonl' }
  | { type: 'jsonpath'; template?: string; file?: string; asJSON?: boolean }
  | { type: 'go-template'; template?: string; file?: string }
  | { type: 'custom-columns'; spec?: string; file?: string };

export type TemplateFormat = Extract<OutputFormat, { type: 'jsonpath' | 'go-template' | 'custom-columns' }>;

/** A compiled template: a JSONPath or Go template applied to one value, or custom columns. */
export type CompiledTemplate =
  | { type: 'value'; run: (data: unknown) => string }
  | { type: 'columns'; columns: CustomColumn[]; templates: JSONPathTemplate[] };

export interface Sorter {
  readonly field: string;
  /** Sorts objects in place (stable). */
  sortObjects(objs: Unstructured[]): void;
  /** Sorts a Table's rows in place by each row's `object` (requested with includeObject=Object). */
  sortTable(table: Table): void;
}

export interface ResourceRow {
  name: string;
  shortNames: string[];
  /** `v1` or `group/version`. */
  apiVersion: string;
  group: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  categories: string[];
  singularName: string;
}

export type WatchFormat = 'table' | 'wide' | 'name' | 'json' | 'yaml' | 'jsonl' | 'template';

export interface PrintedEvent {
  type: string;
  /** The object, or a one-row Table for table formats. */
  object: Unstructured | Table;
  gk: GroupKind;
}

export interface RetryInfo {
  error: unknown;
  delayMs: number;
  failures: number;
  unreachable: boolean;
  retryForMs?: number;
}

export interface ResumeInfo {
  failingMs: number;
}

export interface TemplateOutput {
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
