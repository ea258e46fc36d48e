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
  kind: 'objects';
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
  kind: 'events';
  /** 'template' for a jsonpath or go-template -o. */
  format: WatchFormat;
  /** -o was given. */
  explicit: boolean;
  noHeaders: boolean;
  showManagedFields: boolean;
}

export interface ApiResourcesOutput {
  kind: 'resources';
  format: '' | 'wide' | 'name' | 'json' | 'yaml';
  noHeaders: boolean;
}

export interface ApplyOutput {
  kind: 'applied';
  /** 'text': one `kind.group/name serverside-applied` line per object. */
  format: 'text' | 'name' | 'json' | 'yaml' | 'jsonl';
  showManagedFields: boolean;
}

export type OutputSpec = GetOutput | WatchOutput | ApiResourcesOutput | ApplyOutput;

export interface PrintedResource {
  readonly mapping: { readonly gvk: GroupKind; readonly gvr: { readonly group: string; readonly resource: string }; readonly namespaced: boolean };
}

/** Every printer: end() writes what was held back (a List's tail, sorted objects, tables, a template's output). */
export interface Printer {
  end(): void;
}

/** What one context's arguments resolved to, as its printing needs it (given before its first page). */
export interface ContextStart {
  /** The user named exactly one object of one namespace: print it, not a List (kubectl's singleItemImplied). */
  singleItemImplied: boolean;
  /** The one namespace listed in (`No resources found in NS namespace.`); undefined with -A or several. */
  namespace: string | undefined;
  /** -A or several namespaces: each row says its namespace. */
  withNamespace: boolean;
  /** The resources whose pages follow, in order. */
  resources: readonly PrintedResource[];
}

/**
 * `get`: pages of objects, or (default and wide output) the server's Tables, each from one context
 * (one context is a fleet of one; ./context.ts). Per context: start, its pages, done; then, in the
 * contexts' order, settle; end once every context settled.
 */
export interface GetPrinter extends Printer {
  start(context: string, plan: ContextStart): Promise<void>;
  page(context: string, page: readonly Unstructured[] | Table, resource: PrintedResource): void;
  /** The context's pages are all in (any order, as soon as they are); `failed`: every request failed, print nothing of it. */
  done(context: string, failed: boolean): void;
  /** In the contexts' order: writes what keeps that order; returns what printing the context failed with (a custom-columns path). */
  settle(context: string, failed: boolean): unknown[];
}

export interface GetPrintContext {
  /** Say which context each object comes from (several contexts, or a fleet selector that matched one). */
  showContext: boolean;
  /** One context, several namespaces (`-n a,b`): printed as what -A prints for them. */
  severalNamespaces: boolean;
  ignoreNotFound: boolean;
  /** -A */
  allNamespaces: boolean;
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

/** API resources: the rows of one context's discovery per page (several contexts: in their order). */
export interface RowPrinter extends Printer {
  page(rows: readonly ResourceRow[], context: string): void;
}

export interface RowPrintContext {
  /** Say which context each row comes from (several contexts, or a fleet selector that matched one). */
  showContext: boolean;
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
