/**
 * kubectl's JSONPath templates (`-o jsonpath=...`, `-o jsonpath-file=...`, `--sort-by`,
 * custom-columns cells, `watch --for=jsonpath=`), evaluated as k8s.io/client-go/util/jsonpath does
 * over unstructured JSON.
 *
 *   const t = compileJSONPath('{range .items[*]}{.metadata.name}{"\n"}{end}');
 *   process.stdout.write(t.execute(list));
 *
 * Output formatting follows kubectl: strings raw, numbers as Go prints them (`%v`), `null` for
 * JSON null, maps and arrays as compact Go-style JSON (sorted keys, `<>&` escaped), several
 * results of one action joined by spaces. Missing keys print nothing (kubectl's
 * `--allow-missing-template-keys=true` default).
 *
 * Numbers: Go decodes integral JSON numbers as int64 and the rest as float64, and refuses to
 * compare the two in filters. JSON.parse cannot tell `8.0` from `8`, so here every integral
 * number below 2^63 counts as an int.
 */
import { KdynError } from '../core/errors.js';
import { formatGoFloat, goJSON, sortGoKeys } from '../core/go-json.js';
import { parseTemplate, JSONPathSyntaxError, type JPList, type JPNode } from './parse.js';

export interface JSONPathOptions {
  /** Missing keys yield no value instead of an error (default true, as `kubectl -o jsonpath`). */
  allowMissingKeys?: boolean;
}

export interface JSONPathTemplate {
  readonly template: string;
  /** Runs the template over `data` (an object or kubectl's List wrapper) and returns the text. */
  execute(data: unknown): string;
  /** Results grouped per action, as client-go's FindResults (for callers that format values themselves). */
  findResults(data: unknown): unknown[][];
  /** `-o jsonpath-as-json`: each action's results as an indented JSON array and a newline. */
  executeAsJSON(data: unknown): string;
}

/**
 * A template that does not parse or fails on the data. `message` is what `kubectl -o jsonpath`
 * prints after `error: `; `reason` is client-go's bare message (what custom-columns prints).
 */
export class JSONPathError extends KdynError {
  constructor(message: string, readonly reason: string = message) {
    super(message);
  }
}

/** Parses a template; throws JSONPathError `error parsing jsonpath TEMPLATE, REASON` like kubectl. */
export function compileJSONPath(template: string, options: JSONPathOptions = {}): JSONPathTemplate {
  let root: JPList;
  try {
    root = parseTemplate(template);
  } catch (e) {
    if (e instanceof JSONPathSyntaxError) throw new JSONPathError(`error parsing jsonpath ${template}, ${e.message}`, e.message);
    throw e;
  }
  const allowMissingKeys = options.allowMissingKeys ?? true;
  const run = (data: unknown): unknown[][] => {
    try {
      return new Evaluator(root.nodes, allowMissingKeys).find(0, data);
    } catch (e) {
      if (e instanceof ExecError) {
        throw new JSONPathError(`error executing jsonpath ${goQuote(template)}: Error executing template: ${e.message}`, e.message);
      }
      throw e;
    }
  };
  return {
    template,
    findResults: run,
    execute(data: unknown): string {
      let out = '';
      for (const group of run(data)) out += printGroup(group);
      return out;
    },
    executeAsJSON(data: unknown): string {
      let out = '';
      for (const group of run(data)) out += goJSON(group.map(plainValue), { indent: '    ' }) + '\n';
      return out;
    },
  };
}

/**
 * kubectl's RelaxedJSONPathExpression, used by `--sort-by` and custom-columns: accepts
 * `a.b`, `.a.b`, `{a.b}` and `{.a.b}` and returns `{.a.b}`.
 */
export function relaxedJSONPathExpression(expr: string): string {
  if (expr === '') return expr;
  const m = /^\{\.?([^{}]+)\}$|^\.?([^{}]+)$/.exec(expr);
  if (!m) {
    throw new JSONPathError("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'");
  }
  return `{.${m[1] || m[2]}}`;
}

/**
 * Evaluates a relaxed path expression (see relaxedJSONPathExpression) against `data` and returns
 * every value found, flattened; missing keys yield []. For `--sort-by` and custom columns.
 */
export function evaluatePath(expr: string, data: unknown): unknown[] {
  return compileJSONPath(relaxedJSONPathExpression(expr)).findResults(data).flat();
}

/** Formats a value as Go's `fmt.Sprint` does for unstructured JSON (`map[a:1]`, `[x y]`, `<nil>`, `1e+06`). */
export function formatGoValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatGoNumber(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map(formatGoValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${sortedKeys(o).map((k) => `${k}:${formatGoValue(o[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** A number as Go's `%v` prints the int64 or float64 kubectl decoded it to. */
export function formatGoNumber(n: number): string {
  return isGoInt(n) ? BigInt(n).toString() : formatGoFloat(n);
}

function isGoInt(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63;
}

function sortedKeys(o: Record<string, unknown>): string[] {
  return sortGoKeys(Object.keys(o));
}

/** client-go's PrintResults: maps and arrays as compact JSON, scalars as text, space separated. */
function printGroup(group: unknown[]): string {
  let out = '';
  for (let i = 0; i < group.length; i++) {
    const v = group[i];
    out += v !== null && typeof v === 'object' && !(v instanceof GoByte) && !(v instanceof GoFloat) ? goJSON(v) : formatText(v);
    if (i !== group.length - 1) out += ' ';
  }
  return out;
}

function formatText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof GoByte) return String(v.b);
  if (v instanceof GoFloat) return formatGoFloat(v.f);
  return formatGoValue(v);
}

/** A float literal of the template (`1.0`): Go keeps it a float64, which never equals an int64. */
class GoFloat {
  constructor(readonly f: number) {}
}

/** A byte of a string walked by `*` or `..` (Go indexes strings by byte and prints uint8 as a number). */
class GoByte {
  constructor(readonly b: number) {}
}

/** A result as the JSON value it stands for. */
function plainValue(v: unknown): unknown {
  return v instanceof GoByte ? v.b : v instanceof GoFloat ? v.f : v;
}

class ExecError extends Error {}

/** Go's type names in client-go's messages (`string is not array or slice`). */
function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}';
  if (v instanceof GoByte) return 'uint8';
  if (v instanceof GoFloat) return 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return isGoInt(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof GoByte) && !(v instanceof GoFloat);
}

/** Children as Go's reflection walks them: map values, array elements, string bytes. */
function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') return [...Buffer.from(v, 'utf8')].map((b) => new GoByte(b));
  if (isMap(v)) return sortedKeys(v).map((k) => v[k]);
  return [];
}

class Evaluator {
  private beginRange = 0;
  private inRange = 0;
  private endRange = 0;
  private lastEnd = -1;

  constructor(private readonly nodes: JPNode[], private readonly allowMissingKeys: boolean) {}

  /** client-go's FindResults over nodes[from..] with `data` as the current value (range/end included). */
  find(from: number, data: unknown): unknown[][] {
    const cur = [data];
    const full: unknown[][] = [];
    for (let i = from; i < this.nodes.length; i++) {
      const results = this.walk(cur, this.nodes[i]!);
      if (this.endRange > 0 && this.endRange <= this.inRange) {
        this.endRange--;
        this.lastEnd = i;
        break;
      }
      if (this.beginRange > 0) {
        this.beginRange--;
        this.inRange++;
        if (results.length > 0) {
          for (const v of results) full.push(...this.find(i + 1, v));
        } else {
          this.find(i + 1, null);
        }
        this.inRange--;
        for (let k = i + 1; k < this.nodes.length; k++) {
          if (k === this.lastEnd) {
            i = k;
            break;
          }
        }
        continue;
      }
      full.push(results);
    }
    return full;
  }

  private walk(input: unknown[], node: JPNode): unknown[] {
    switch (node.t) {
      case 'list': return this.evalList(input, node);
      case 'text': return [node.text];
      case 'field': return this.evalField(input, node.name);
      case 'array': return this.evalArray(input, node.params);
      case 'filter': return this.evalFilter(input, node);
      case 'int': case 'bool': return input.map(() => node.value);
      case 'float': return input.map(() => new GoFloat(node.value));
      case 'wildcard': return input.flatMap((v) => (v === null ? [] : children(v)));
      case 'recursive': return this.evalRecursive(input);
      case 'union': return node.nodes.flatMap((l) => this.evalList(input, l));
      case 'ident': return this.evalIdent(input, node.name);
    }
  }

  private evalList(input: unknown[], list: JPList): unknown[] {
    let cur = input;
    for (const n of list.nodes) cur = this.walk(cur, n);
    return cur;
  }

  private evalIdent(input: unknown[], name: string): unknown[] {
    if (name === 'range') {
      this.beginRange++;
      return input;
    }
    if (name === 'end') {
      if (this.inRange > 0) {
        this.endRange++;
        return [];
      }
      throw new ExecError('not in range, nothing to end');
    }
    throw new ExecError(`unrecognized identifier ${name}`);
  }

  private evalField(input: unknown[], name: string): unknown[] {
    const results: unknown[] = [];
    if (input.length === 0) return results;
    for (const v of input) {
      if (isMap(v) && Object.prototype.hasOwnProperty.call(v, name)) results.push(v[name]);
    }
    if (results.length === 0 && !this.allowMissingKeys) throw new ExecError(`${name} is not found`);
    return results;
  }

  private evalArray(input: unknown[], params: readonly [{ known: boolean; value: number; derived: boolean }, { known: boolean; value: number; derived: boolean }, { known: boolean; value: number; derived: boolean }]): unknown[] {
    const result: unknown[] = [];
    for (const v of input) {
      if (v === null || v === undefined) continue;
      if (!Array.isArray(v)) throw new ExecError(`${goTypeName(v)} is not array or slice`);
      const len = v.length;
      let start = params[0].known ? params[0].value : 0;
      if (start < 0) start += len;
      let end = params[1].known ? params[1].value : len;
      if (end < 0 || (end === 0 && params[1].derived)) end += len;
      if (end === start) return result;
      if (start >= len || start < 0) throw new ExecError(`array index out of bounds: index ${start}, length ${len}`);
      if (end > len || end < 0) throw new ExecError(`array index out of bounds: index ${end - 1}, length ${len}`);
      if (start > end) throw new ExecError(`starting index ${start} is greater than ending index ${end}`);
      let step = 1;
      if (params[2].known) {
        if (params[2].value <= 0) throw new ExecError('step must be > 0');
        step = params[2].value;
      }
      for (let i = start; i < end; i += step) result.push(v[i]);
    }
    return result;
  }

  private evalRecursive(input: unknown[]): unknown[] {
    const result: unknown[] = [];
    for (const v of input) {
      if (v === null || v === undefined) continue;
      const kids = children(v);
      if (kids.length !== 0) {
        result.push(v);
        result.push(...this.evalRecursive(kids));
      }
    }
    return result;
  }

  private evalFilter(input: unknown[], node: Extract<JPNode, { t: 'filter' }>): unknown[] {
    const results: unknown[] = [];
    for (const v of input) {
      if (!Array.isArray(v)) throw new ExecError(`${formatGoValue(v)} is not array or slice and cannot be filtered`);
      for (const item of v) {
        const temp = [item];
        if (node.op === 'exists') {
          let lefts: unknown[] = [];
          try {
            lefts = this.evalList(temp, node.left);
          } catch (e) {
            if (!(e instanceof ExecError)) throw e;
          }
          if (lefts.length > 0) results.push(item);
          continue;
        }
        const lefts = this.evalList(temp, node.left);
        if (lefts.length === 0) continue;
        if (lefts.length > 1) throw new ExecError('can only compare one element at a time');
        const rights = this.evalList(temp, node.right);
        if (rights.length === 0) continue;
        if (rights.length > 1) throw new ExecError('can only compare one element at a time');
        if (compare(lefts[0], rights[0], node.op)) results.push(item);
      }
    }
    return results;
  }
}

type BasicKind = 'bool' | 'int' | 'uint' | 'float' | 'string';

/** text/template's basicKind as client-go's fork uses it: no int/float mixing, no null or collections. */
function basicKind(v: unknown): BasicKind {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return isGoInt(v) ? 'int' : 'float';
  if (v instanceof GoByte) return 'uint';
  if (v instanceof GoFloat) return 'float';
  throw new ExecError('invalid type for comparison');
}

function unwrap(v: unknown): string | number | boolean {
  if (v instanceof GoByte) return v.b;
  if (v instanceof GoFloat) return v.f;
  return v as string | number | boolean;
}

function compare(a: unknown, b: unknown, op: string): boolean {
  const ka = basicKind(a);
  const kb = basicKind(b);
  const av = unwrap(a);
  const bv = unwrap(b);
  const eq = (): boolean => {
    if (ka !== kb) throw new ExecError('incompatible types for comparison');
    return av === bv;
  };
  const less = (): boolean => {
    if (ka !== kb) throw new ExecError('incompatible types for comparison');
    if (ka === 'bool') throw new ExecError('invalid type for comparison');
    return av < bv;
  };
  switch (op) {
    case '==': return eq();
    case '!=': return !eq();
    case '<': return less();
    case '<=': return less() || eq();
    case '>': return !(less() || eq());
    case '>=': return !less();
    default: throw new ExecError(`unrecognized filter operator ${op}`);
  }
}

/** Go's `%q` for the (printable) template text kubectl quotes in execution errors. */
function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\u00([0-9a-f]{2})/g, '\\x$1').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
