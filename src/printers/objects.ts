/**
 * The object formats of `-o` (everything but the server-side table), as text: printers return text;
 * the caller writes it (one write per page). Streaming formats (`name`, `jsonl`, `json`, `yaml`)
 * emit each page as it comes and keep nothing; `jsonpath` and `go-template` need the whole List and
 * `custom-columns` its cells, so they emit at the end. Each format's module is imported only when used.
 */
import type { Unstructured } from '../core/unstructured.js';
import type { GroupKind } from './name.js';
import type { OutputFormat } from './types.js';
import { compileTemplate, type CompiledTemplate } from './template.js';

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
  /** The jsonpath/go template or custom-columns spec/file content (read by the caller), when `compiled` is not given. */
  template?: string;
  /** The template compiled once (./template.ts); compiled here from `template` or the format when absent. */
  compiled?: CompiledTemplate;
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
    case 'jsonpath':
    case 'go-template':
    case 'custom-columns':
      break;
  }
  const text = options.template ?? (format.type === 'custom-columns' ? format.spec : format.template) ?? '';
  const template = options.compiled ?? (await compileTemplate(format, text, options.allowMissingKeys ?? true));
  if (template.type === 'value') return collecting(options, template.run);
  const { CustomColumnsPrinter } = await import('./custom-columns.js');
  const p = new CustomColumnsPrinter(template.columns, { noHeaders: options.noHeaders, templates: template.templates });
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
