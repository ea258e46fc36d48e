/**
 * Output-format dispatch for `get`: parses `-o` and builds the printer for object outputs (everything
 * but the server-side table). Printers return text; the caller writes it (one write per page).
 * Streaming formats (`name`, `jsonl`, `json`, `yaml`) emit each page as it comes and keep nothing;
 * `jsonpath` needs the whole List and `custom-columns` its cells, so they emit at the end.
 * Each format's module is imported only when used.
 */
import { UsageError } from '../core/errors.js';
import type { Unstructured } from '../core/unstructured.js';
import type { GroupKind } from './name.js';

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

/** Prints objects page by page. */
export interface ObjectPrinter {
  /** Text for one page of objects of one resource ('' when this printer holds output until the end). */
  page(items: readonly Unstructured[], gk: GroupKind): string;
  /** The remaining text, once every page was given. */
  end(): string;
}

export interface ObjectPrinterOptions {
  /** The user named exactly one object: print it, not a List, when it was found (kubectl's singleItemImplied). */
  singleItemImplied?: boolean;
  /** `--ignore-not-found`: print nothing at all when there are no objects (no empty List). */
  ignoreNotFound?: boolean;
  noHeaders?: boolean;
  /** The jsonpath/go template or custom-columns spec/file content (read by the caller). */
  template?: string;
  /** `--allow-missing-template-keys` (default true). */
  allowMissingKeys?: boolean;
}

/** The List wrapper kubectl prints around several objects. */
export function listWrapper(items: Unstructured[]): Unstructured {
  return { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } };
}

export async function createObjectPrinter(format: Exclude<OutputFormat, { type: 'table' }>, options: ObjectPrinterOptions = {}): Promise<ObjectPrinter> {
  switch (format.type) {
    case 'name': {
      const { formatNames } = await import('./name.js');
      return { page: (items, gk) => formatNames(items, gk), end: () => '' };
    }
    case 'jsonl': {
      const { formatJsonLines } = await import('./jsonl.js');
      return { page: (items) => formatJsonLines(items), end: () => '' };
    }
    case 'json': {
      const { toJSON } = await import('./json.js');
      return streamingList(options, (obj) => toJSON(obj), jsonListParts);
    }
    case 'yaml': {
      const { toYAML } = await import('./yaml.js');
      return streamingList(options, (obj) => toYAML(obj), yamlListParts);
    }
    case 'jsonpath': {
      const { compileJSONPath } = await import('./jsonpath/index.js');
      const t = compileJSONPath(options.template ?? format.template ?? '', { allowMissingKeys: options.allowMissingKeys });
      return collecting(options, format.asJSON ? (data) => t.executeAsJSON(data) : (data) => t.execute(data));
    }
    case 'go-template': {
      const { compileGoTemplate } = await import('./go-template/index.js');
      const t = compileGoTemplate(options.template ?? format.template ?? '', { allowMissingKeys: options.allowMissingKeys });
      return collecting(options, (data) => t.execute(data));
    }
    case 'custom-columns': {
      const cc = await import('./custom-columns.js');
      const text = options.template ?? format.spec ?? '';
      const columns = format.file !== undefined ? cc.parseCustomColumnsTemplate(text) : cc.parseCustomColumnsSpec(text);
      const p = new cc.CustomColumnsPrinter(columns, { noHeaders: options.noHeaders });
      // A row that fails (a bad path for this object) ends the output as kubectl's does: the
      // header and the rows before it are printed, then the error.
      let failure: unknown;
      return {
        page: (items) => {
          if (failure !== undefined) return '';
          try {
            p.addAll(items);
            return '';
          } catch (e) {
            failure = e;
            return p.render();
          }
        },
        end: () => {
          if (failure !== undefined) throw failure;
          return p.render();
        },
      };
    }
  }
}

interface ListParts {
  /** The document with no items. */
  empty: string;
  head: string;
  /** One formatted item (as printed on its own) placed inside the list; `first` is the first item. */
  item(formatted: string, first: boolean): string;
  tail: string;
}

const jsonListParts: ListParts = {
  empty: '{\n    "apiVersion": "v1",\n    "items": [],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n',
  head: '{\n    "apiVersion": "v1",\n    "items": [\n',
  // toJSON ends with a newline and has raw newlines only between tokens: indent every line by 8.
  item: (f, first) => (first ? '' : ',\n') + '        ' + f.slice(0, -1).replace(/\n/g, '\n        '),
  tail: '\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n',
};

const yamlListParts: ListParts = {
  empty: 'apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n',
  head: 'apiVersion: v1\nitems:\n',
  item: (f) => {
    let out = '';
    const lines = f.endsWith('\n') ? f.slice(0, -1).split('\n') : f.split('\n');
    for (let i = 0; i < lines.length; i++) out += (i === 0 ? '- ' : lines[i] === '' ? '' : '  ') + lines[i] + '\n';
    return out;
  },
  tail: 'kind: List\nmetadata:\n  resourceVersion: ""\n',
};

/**
 * kubectl's List wrapper written as a stream: the head once the first item arrives, each page's
 * items, then the tail; never one giant document in memory. With singleItemImplied, the one object.
 */
function streamingList(options: ObjectPrinterOptions, format: (obj: Unstructured) => string, parts: ListParts): ObjectPrinter {
  if (options.singleItemImplied) {
    const held: Unstructured[] = [];
    return {
      page: (items) => (held.push(...items), ''),
      end: () => {
        if (held.length === 1) return format(held[0]!);
        if (held.length === 0) return ''; // kubectl reports the NotFound and prints nothing
        return parts.head + held.map((o, i) => parts.item(format(o), i === 0)).join('') + parts.tail;
      },
    };
  }
  let count = 0;
  return {
    page(items) {
      let out = count === 0 && items.length > 0 ? parts.head : '';
      for (const item of items) out += parts.item(format(item), count++ === 0);
      return out;
    },
    end: () => (count > 0 ? parts.tail : options.ignoreNotFound ? '' : parts.empty),
  };
}

/** Formats that need the whole List (`jsonpath`): keeps the objects and runs once at the end. */
function collecting(options: ObjectPrinterOptions, run: (data: unknown) => string): ObjectPrinter {
  const all: Unstructured[] = [];
  return {
    page: (items) => (all.push(...items), ''),
    end: () => {
      if (options.singleItemImplied && all.length === 1) return run(all[0]);
      if (all.length === 0 && (options.ignoreNotFound || options.singleItemImplied)) return '';
      return run(listWrapper(all));
    },
  };
}
