/**
 * The functions a kubectl go-template can call: Go 1.23 text/template's built-ins (and, or, not,
 * len, index, slice, print, printf, println, html, js, urlquery, eq, ne, lt, le, gt, ge, call) and
 * kubectl's `exists` and `base64decode`, with Go's argument types and error texts.
 */
import { elem, fromJSON, GoNum, Iface, indirectInterface, isMap, isTrue, sprint, sprintf, sprintln, typeName, type Concrete, type Value } from './values.js';
import { isGoPrint } from './parse.js';

/** The error a Go function returns (reported as `error calling NAME: MESSAGE`). */
export class FuncError extends Error {}

/**
 * A parameter's Go type: `value` is reflect.Value (gets the value as it is, even invalid), `any`
 * is interface{} (invalid becomes nil), `string` must be a string.
 */
export type Param = 'value' | 'any' | 'string';

export interface GoFunc {
  params: Param[];
  /** Element type of the final variadic parameter (counted in params.length as Go's NumIn). */
  variadic?: Param;
  call(args: Value[], name: string): Value;
}

const fixed = (params: Param[], call: GoFunc['call']): GoFunc => ({ params, call });
const variadic = (params: Param[], v: Param, call: GoFunc['call']): GoFunc => ({ params, variadic: v, call });

export const FUNCS: Record<string, GoFunc> = {
  and: variadic(['value'], 'value', () => undefined), // short-circuits in the executor
  or: variadic(['value'], 'value', () => undefined),
  not: fixed(['value'], ([a]) => !isTrue(indirectInterface(a))),
  len: fixed(['value'], ([a]) => new GoNum('int', length(a))),
  index: variadic(['value'], 'value', ([item, ...idx]) => index(item, idx)),
  slice: variadic(['value'], 'value', ([item, ...idx]) => slice(item, idx)),
  print: variadic([], 'any', (args) => sprint(args)),
  printf: variadic(['string'], 'any', ([f, ...args]) => sprintf(f as string, args)),
  println: variadic([], 'any', (args) => sprintln(args)),
  html: variadic([], 'any', (args) => htmlEscape(evalArgs(args))),
  js: variadic([], 'any', (args) => jsEscape(evalArgs(args))),
  urlquery: variadic([], 'any', (args) => queryEscape(evalArgs(args))),
  call: variadic(['value'], 'value', ([fn], name) => {
    if (indirectInterface(fn) === undefined) throw new FuncError('call of nil');
    throw new FuncError(`non-function ${name} of type ${typeName(indirectInterface(fn))}`);
  }),
  eq: variadic(['value'], 'value', ([a, ...b]) => eq(a, b)),
  ne: fixed(['value', 'value'], ([a, b]) => !eq(a, [b])),
  lt: fixed(['value', 'value'], ([a, b]) => lt(a, b)),
  le: fixed(['value', 'value'], ([a, b]) => lt(a, b) || eq(a, [b])),
  gt: fixed(['value', 'value'], ([a, b]) => {
    const less = lt(a, b);
    return !(less || eq(a, [b]));
  }),
  ge: fixed(['value', 'value'], ([a, b]) => !lt(a, b)),
  // kubectl's additions.
  exists: variadic(['any'], 'any', ([item, ...idx]) => exists(item, idx)),
  base64decode: fixed(['string'], ([s]) => base64decode(s as string)),
};

function length(v: Value): number {
  if (v instanceof Iface && v.inner === null) throw new FuncError('len of nil pointer');
  const e = elem(v);
  if (e === undefined) throw new FuncError('reflect: call of reflect.Value.Type on zero Value');
  if (typeof e === 'string') return Buffer.byteLength(e);
  if (Array.isArray(e)) return e.length;
  if (isMap(e)) return Object.keys(e).length;
  throw new FuncError(`len of type ${typeName(e)}`);
}

function indexArg(i: Value, cap: number): number {
  const x = indirectInterface(i);
  if (x === undefined) throw new FuncError('cannot index slice/array with nil');
  if (!(x instanceof GoNum) || x.type === 'float64') throw new FuncError(`cannot index slice/array with type ${typeName(x)}`);
  if (x.n < 0 || x.n > cap) throw new FuncError(`index out of range: ${x.n}`);
  return x.n;
}

function index(item: Value, indexes: Value[]): Value {
  let cur: Value = indirectInterface(item);
  if (cur === undefined) throw new FuncError('index of untyped nil');
  for (const i of indexes) {
    if (cur instanceof Iface) {
      if (cur.inner === null) throw new FuncError('index of nil pointer');
      cur = cur.inner;
    }
    const c: Concrete = cur as Concrete;
    if (Array.isArray(c) || typeof c === 'string') {
      const len = typeof c === 'string' ? Buffer.byteLength(c) : c.length;
      const x = indexArg(i, len);
      if (x === len) throw new FuncError(`index out of range: ${x}`);
      cur = typeof c === 'string' ? new GoNum('uint8', Buffer.from(c)[x]!) : new Iface(fromJSON(c[x]));
    } else if (isMap(c)) {
      const k = indirectInterface(i);
      if (k === undefined) throw new FuncError('value is nil; should be of type string');
      if (typeof k !== 'string') throw new FuncError(`value has type ${typeName(k)}; should be string`);
      cur = new Iface(Object.prototype.hasOwnProperty.call(c, k) ? fromJSON(c[k]) : null);
    } else {
      throw new FuncError(`can't index item of type ${typeName(c)}`);
    }
  }
  return cur;
}

function slice(item: Value, indexes: Value[]): Value {
  const c = indirectInterface(item);
  if (c === undefined) throw new FuncError('slice of untyped nil');
  if (indexes.length > 3) throw new FuncError(`too many slice indexes: ${indexes.length}`);
  let cap: number;
  if (typeof c === 'string') {
    if (indexes.length === 3) throw new FuncError('cannot 3-index slice a string');
    cap = Buffer.byteLength(c);
  } else if (Array.isArray(c)) {
    cap = c.length;
  } else {
    throw new FuncError(`can't slice item of type ${typeName(c)}`);
  }
  const idx = [0, cap, cap];
  indexes.forEach((x, i) => (idx[i] = indexArg(x, cap)));
  if (idx[0]! > idx[1]!) throw new FuncError(`invalid slice index: ${idx[0]} > ${idx[1]}`);
  if (indexes.length === 3 && idx[1]! > idx[2]!) throw new FuncError(`invalid slice index: ${idx[1]} > ${idx[2]}`);
  return typeof c === 'string' ? Buffer.from(c).subarray(idx[0], idx[1]).toString() : c.slice(idx[0], idx[1]);
}

const enum Kind { Invalid, Bool, Complex, Int, Float, String, Uint }

function basicKind(v: Concrete | undefined): Kind {
  if (typeof v === 'boolean') return Kind.Bool;
  if (typeof v === 'string') return Kind.String;
  if (v instanceof GoNum) return v.type === 'float64' ? Kind.Float : v.type === 'uint8' ? Kind.Uint : Kind.Int;
  return Kind.Invalid;
}

function num(v: Concrete | undefined): number {
  return (v as GoNum).n;
}

function eq(a0: Value, rest: Value[]): boolean {
  const a = indirectInterface(a0);
  if (rest.length === 0) throw new FuncError('missing argument for comparison');
  const k1 = basicKind(a);
  for (const b0 of rest) {
    const b = indirectInterface(b0);
    const k2 = basicKind(b);
    let truth = false;
    if (k1 !== k2) {
      if ((k1 === Kind.Int && k2 === Kind.Uint) || (k1 === Kind.Uint && k2 === Kind.Int)) truth = num(a) === num(b);
      else if (a !== undefined && b !== undefined) throw new FuncError('incompatible types for comparison');
    } else if (k1 === Kind.Invalid) {
      if (a === undefined || b === undefined) truth = a === b;
      else if (typeName(a) !== typeName(b)) {
        throw new FuncError(`non-comparable types ${sprintf('%s', [a])}: ${typeName(a)}, ${typeName(b)}: ${sprintf('%v', [b])}`);
      } else throw new FuncError(`non-comparable type ${sprintf('%s', [b])}: ${typeName(b)}`);
    } else {
      truth = a instanceof GoNum ? a.n === num(b) : a === b;
    }
    if (truth) return true;
  }
  return false;
}

function lt(a0: Value, b0: Value): boolean {
  const a = indirectInterface(a0);
  const b = indirectInterface(b0);
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 === Kind.Invalid || k2 === Kind.Invalid) throw new FuncError('invalid type for comparison');
  if (k1 !== k2) {
    if ((k1 === Kind.Int && k2 === Kind.Uint) || (k1 === Kind.Uint && k2 === Kind.Int)) return num(a) < num(b);
    throw new FuncError('incompatible types for comparison');
  }
  if (k1 === Kind.Bool || k1 === Kind.Complex) throw new FuncError('invalid type for comparison');
  if (k1 === Kind.String) return Buffer.compare(Buffer.from(a as string), Buffer.from(b as string)) < 0;
  return num(a) < num(b);
}

function exists(item: Value, indices: Value[]): boolean {
  let v: Concrete | null | undefined = elem(item);
  for (const i0 of indices) {
    const i = elem(i0);
    if (v === null || v === undefined) return false;
    if (v instanceof Iface) v = (v as Iface).inner;
    if (v === null) return false;
    if (Array.isArray(v) || typeof v === 'string') {
      if (!(i instanceof GoNum) || i.type === 'float64') return false;
      const len = typeof v === 'string' ? Buffer.byteLength(v) : v.length;
      if (i.n < 0 || i.n >= len) return false;
      v = typeof v === 'string' ? new GoNum('uint8', Buffer.from(v)[i.n]!) : fromJSON(v[i.n]);
    } else if (isMap(v)) {
      if (i !== null && i !== undefined && typeof i !== 'string') return false;
      const key = i ?? '';
      v = Object.prototype.hasOwnProperty.call(v, key) ? fromJSON(v[key]) : null;
    } else {
      return false;
    }
  }
  return v !== null && v !== undefined;
}

/** encoding/base64 StdEncoding.DecodeString, with Go's CorruptInputError offsets. */
function base64decode(s: string): string {
  const src = Buffer.from(s, 'utf8');
  const out: number[] = [];
  const ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const fail = (at: number): never => {
    throw new FuncError(`base64 decode failed: illegal base64 data at input byte ${at}`);
  };
  const isNL = (b: number | undefined) => b === 0x0a || b === 0x0d;
  let si = 0;
  while (si < src.length) {
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let trailing = -1;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Buffer.from(out).toString();
        fail(si - j);
      }
      const b = src[si]!;
      si++;
      const d = ALPHA.indexOf(String.fromCharCode(b));
      if (d >= 0 && b < 0x80) {
        dbuf[j] = d;
        continue;
      }
      if (isNL(b)) {
        j--;
        continue;
      }
      if (b !== 0x3d) fail(si - 1);
      if (j === 0 || j === 1) fail(si - 1);
      if (j === 2) {
        while (si < src.length && isNL(src[si])) si++;
        if (si === src.length) fail(src.length);
        if (src[si] !== 0x3d) fail(si - 1);
        si++;
      }
      while (si < src.length && isNL(src[si])) si++;
      if (si < src.length) trailing = si;
      dlen = j;
      break;
    }
    const val = (dbuf[0]! << 18) | (dbuf[1]! << 12) | (dbuf[2]! << 6) | dbuf[3]!;
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    out.push(...bytes.slice(0, dlen - 1));
    if (trailing >= 0) fail(trailing);
    if (dlen < 4) break;
  }
  return Buffer.from(out).toString();
}

/** html/js/urlquery's evalArgs: one string as it is, anything else through fmt.Sprint. */
function evalArgs(args: Value[]): string {
  if (args.length === 1) {
    const e = elem(args[0]);
    if (typeof e === 'string') return e;
  }
  return sprint(args);
}

function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => ({ '\0': '\uFFFD', '"': '&#34;', "'": '&#39;', '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
}

function jsEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '\\': out += '\\\\'; continue;
      case "'": out += "\\'"; continue;
      case '"': out += '\\"'; continue;
      case '<': out += '\\u003C'; continue;
      case '>': out += '\\u003E'; continue;
      case '&': out += '\\u0026'; continue;
      case '=': out += '\\u003D'; continue;
    }
    if (c < 0x20) out += '\\u00' + c.toString(16).toUpperCase().padStart(2, '0');
    else if (c < 0x80 || isGoPrint(ch)) out += ch;
    else out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

/** url.QueryEscape. */
function queryEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}
