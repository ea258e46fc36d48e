/**
 * Go values as kubectl's go-template printer sees them, and Go's fmt printing of them.
 *
 * kubectl decodes the object with apimachinery's JSON decoder into map[string]interface{}:
 * objects are `map[string]interface {}`, arrays `[]interface {}`, integral numbers `int64`, other
 * numbers `float64`, null a nil interface. Here the raw JSON value stands for the map, array,
 * string and bool; numbers are GoNum (with their Go type); an element read out of a map or array
 * is an Iface (a reflect.Value of kind interface, which Go's error texts call `interface {}`);
 * `undefined` is the invalid reflect.Value (a missing key, printed `<no value>`).
 *
 * JSON.parse cannot tell `8.0` from `8`: every integral number below 2^63 counts as an int64.
 */
import { formatGoFloat, sortGoKeys } from '../core/go-json.js';
import { goQuote, isGoPrint } from './parse.js';

export type NumType = 'int' | 'int64' | 'float64' | 'uint8';

export class GoNum {
  constructor(readonly type: NumType, readonly n: number) {}
}

/** A value of kind interface: what map and slice elements are before Go unwraps them. */
export class Iface {
  constructor(readonly inner: Concrete | null) {}
}

export type JSONMap = { [k: string]: unknown };
export type Concrete = string | boolean | GoNum | JSONMap | unknown[];
export type Value = Concrete | Iface | undefined;

/** A raw JSON value (map/array element) as a Go value; null is the nil interface. */
export function fromJSON(raw: unknown): Concrete | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'number') return new GoNum(Number.isInteger(raw) && Math.abs(raw) < 2 ** 63 ? 'int64' : 'float64', raw);
  return raw as Concrete;
}

export const isMap = (v: unknown): v is JSONMap => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoNum) && !(v instanceof Iface);

/** reflect.Value.Type().String() of a value (an Iface is `interface {}`). */
export function typeName(v: Value | null): string {
  if (v === undefined || v === null) return '<nil>';
  if (v instanceof Iface) return 'interface {}';
  if (v instanceof GoNum) return v.type;
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** The concrete value inside an interface (null for a nil interface); other values as they are. */
export function elem(v: Value): Concrete | null | undefined {
  return v instanceof Iface ? v.inner : v;
}

/** Go's indirectInterface: the concrete value inside, or the invalid value for a nil interface. */
export function indirectInterface(v: Value): Concrete | undefined {
  if (v instanceof Iface) return v.inner ?? undefined;
  return v;
}

/** Go's isTrue (truth of if/with/and/or/not). */
export function isTrue(v: Value): boolean {
  if (v === undefined) return false;
  if (v instanceof Iface) return v.inner !== null;
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0;
  if (typeof v === 'boolean') return v;
  if (v instanceof GoNum) return v.n !== 0;
  return Object.keys(v).length > 0;
}

/** Go's `%v` (fmt.Sprint of one operand). `undefined`/null is nil. */
export function formatV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (v instanceof Iface) return formatV(v.inner);
  if (v instanceof GoNum) return formatNum(v);
  if (typeof v === 'number') return formatNum(fromJSON(v) as GoNum);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map(formatV).join(' ')}]`;
  const o = v as JSONMap;
  return `map[${sortGoKeys(Object.keys(o)).map((k) => `${k}:${formatV(o[k])}`).join(' ')}]`;
}

function formatNum(v: GoNum): string {
  return v.type === 'float64' ? formatGoFloat(v.n) : BigInt(v.n).toString();
}

/** fmt.Sprint: operands separated by a space when neither side is a string. */
export function sprint(args: unknown[]): string {
  let out = '';
  for (let i = 0; i < args.length; i++) {
    const isString = typeof elemOf(args[i]) === 'string';
    if (i > 0 && !isString && typeof elemOf(args[i - 1]) !== 'string') out += ' ';
    out += formatV(args[i]);
  }
  return out;
}

/** fmt.Sprintln: operands always separated by a space, then a newline. */
export function sprintln(args: unknown[]): string {
  return args.map(formatV).join(' ') + '\n';
}

const elemOf = (v: unknown): unknown => (v instanceof Iface ? v.inner : v);

/** Go's dynamic type of an `any` argument (`%T`). */
function dynType(v: unknown): string {
  const e = elemOf(v);
  if (e === null || e === undefined) return '<nil>';
  if (typeof e === 'number') return typeName(fromJSON(e));
  return typeName(e as Concrete);
}

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width?: number;
  prec?: number;
}

/** fmt.Sprintf with the verbs and flags templates use (%v %+v %#v %T %s %q %d %x %X %o %b %c %U %e %f %g %t %%). */
export function sprintf(format: string, args: unknown[]): string {
  let out = '';
  let argNum = 0;
  let i = 0;
  while (i < format.length) {
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    const spec: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false };
    for (; i < format.length; i++) {
      const c = format[i];
      if (c === '-') spec.minus = true;
      else if (c === '+') spec.plus = true;
      else if (c === '#') spec.sharp = true;
      else if (c === ' ') spec.space = true;
      else if (c === '0') spec.zero = true;
      else break;
    }
    const num = (): number | undefined => {
      if (format[i] === '*') {
        i++;
        const a = elemOf(args[argNum++]);
        return a instanceof GoNum && a.type !== 'float64' ? a.n : undefined;
      }
      const m = /^\d+/.exec(format.slice(i));
      if (!m) return undefined;
      i += m[0].length;
      return Number(m[0]);
    };
    spec.width = num();
    if (spec.width !== undefined && spec.width < 0) {
      spec.minus = true;
      spec.width = -spec.width;
    }
    if (format[i] === '.') {
      i++;
      spec.prec = num() ?? 0;
    }
    if (i >= format.length) {
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += formatArg(args[argNum++], verb, spec);
  }
  if (argNum < args.length) {
    out += '%!(EXTRA ' + args.slice(argNum).map((a) => `${dynType(a)}=${formatV(a)}`).join(', ') + ')';
  }
  return out;
}

function pad(s: string, spec: Spec, zeroOK = false): string {
  const w = spec.width ?? 0;
  const len = [...s].length;
  if (len >= w) return s;
  if (spec.minus) return s + ' '.repeat(w - len);
  if (spec.zero && zeroOK) {
    const sign = /^[+\- ]/.test(s) ? s[0]! : '';
    return sign + '0'.repeat(w - len) + s.slice(sign.length);
  }
  return ' '.repeat(w - len) + s;
}

function badVerb(v: unknown, verb: string): string {
  const e = elemOf(v);
  if (e === null || e === undefined) return `%!${verb}(<nil>)`;
  return `%!${verb}(${dynType(v)}=${formatV(v)})`;
}

function formatArg(arg: unknown, verb: string, spec: Spec): string {
  let v = elemOf(arg);
  if (typeof v === 'number') v = fromJSON(v);
  if (verb === 'T') return pad(dynType(arg), spec);
  if (v === null || v === undefined) {
    if (verb === 'v') return pad('<nil>', spec);
    return badVerb(v, verb);
  }
  if (Array.isArray(v) || isMap(v)) {
    if (verb === 'v' && spec.sharp) return goSyntax(v);
    if (Array.isArray(v)) return '[' + v.map((x) => formatArg(x, verb, spec)).join(' ') + ']';
    return 'map[' + sortGoKeys(Object.keys(v)).map((k) => `${formatArg(k, verb, spec)}:${formatArg((v as JSONMap)[k], verb, spec)}`).join(' ') + ']';
  }
  if (typeof v === 'boolean') {
    if (verb === 'v' || verb === 't') return pad(v ? 'true' : 'false', spec);
    return badVerb(v, verb);
  }
  if (typeof v === 'string') return formatString(v, verb, spec);
  if (v instanceof GoNum) return v.type === 'float64' ? formatFloat(v.n, verb, spec) : formatInt(v, verb, spec);
  return badVerb(v, verb);
}

function formatString(s: string, verb: string, spec: Spec): string {
  switch (verb) {
    case 'v':
      if (spec.sharp) return goQuote(s);
      return pad(spec.prec !== undefined ? [...s].slice(0, spec.prec).join('') : s, spec);
    case 's':
      return pad(spec.prec !== undefined ? [...s].slice(0, spec.prec).join('') : s, spec);
    case 'q':
      return pad(spec.sharp && !s.includes('`') ? '`' + s + '`' : goQuote(spec.prec !== undefined ? [...s].slice(0, spec.prec).join('') : s), spec);
    case 'x':
    case 'X': {
      let h = Buffer.from(s, 'utf8').toString('hex');
      if (verb === 'X') h = h.toUpperCase();
      return pad(h, spec);
    }
  }
  return badVerb(s, verb);
}

function formatInt(v: GoNum, verb: string, spec: Spec): string {
  const n = BigInt(v.n);
  const neg = n < 0n;
  const abs = neg ? -n : n;
  let digits: string;
  let prefix = '';
  switch (verb) {
    case 'v': case 'd': digits = abs.toString(); break;
    case 'b': digits = abs.toString(2); break;
    case 'o': digits = abs.toString(8); if (spec.sharp) prefix = '0'; break;
    case 'O': digits = abs.toString(8); prefix = '0o'; break;
    case 'x': digits = abs.toString(16); if (spec.sharp) prefix = '0x'; break;
    case 'X': digits = abs.toString(16).toUpperCase(); if (spec.sharp) prefix = '0X'; break;
    case 'c': return pad(String.fromCodePoint(Number(abs)), spec);
    case 'q': return pad(quoteRune(Number(n)), spec);
    case 'U': return pad('U+' + abs.toString(16).toUpperCase().padStart(4, '0'), spec);
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
      return badVerb(v, verb);
    default:
      return badVerb(v, verb);
  }
  if (spec.prec !== undefined) {
    if (spec.prec === 0 && abs === 0n) digits = '';
    digits = digits.padStart(spec.prec, '0');
  }
  const sign = neg ? '-' : spec.plus ? '+' : spec.space ? ' ' : '';
  return pad(sign + prefix + digits, spec, spec.prec === undefined);
}

function quoteRune(r: number): string {
  const ch = String.fromCodePoint(r);
  if (ch === "'") return "'\\''";
  if (ch === '"') return `'"'`;
  const q = goQuote(ch);
  return `'${q.slice(1, -1)}'`;
}

function formatFloat(n: number, verb: string, spec: Spec): string {
  let s: string;
  const prec = spec.prec;
  switch (verb) {
    case 'v':
    case 'g':
    case 'G':
      s = prec === undefined ? formatGoFloat(Math.abs(n)) : gFormat(Math.abs(n), prec === 0 ? 1 : prec);
      if (verb === 'G') s = s.toUpperCase();
      break;
    case 'f':
    case 'F':
      s = Math.abs(n).toFixed(prec ?? 6);
      break;
    case 'e':
    case 'E':
      s = expFormat(Math.abs(n), prec ?? 6);
      if (verb === 'E') s = s.toUpperCase();
      break;
    case 'x':
    case 'X':
      s = hexFloat(Math.abs(n));
      if (verb === 'X') s = s.toUpperCase();
      break;
    default:
      return badVerb(new GoNum('float64', n), verb);
  }
  if (!Number.isFinite(n)) s = Number.isNaN(n) ? 'NaN' : 'Inf';
  const neg = n < 0 || Object.is(n, -0);
  const sign = neg ? '-' : spec.plus ? '+' : spec.space ? ' ' : '';
  return pad(sign + s, spec, true);
}

/** strconv.FormatFloat(n, 'x', -1, 64) for n >= 0: `0x1.cp+01`. */
function hexFloat(n: number): string {
  if (n === 0) return '0x0p+00';
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, n);
  const bits = view.getBigUint64(0);
  let exp = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  if (exp === 0) {
    // subnormal: normalise so the leading 1 is implicit
    exp = 1;
    while ((mant & (1n << 52n)) === 0n) {
      mant <<= 1n;
      exp--;
    }
    mant &= (1n << 52n) - 1n;
  }
  const e = exp - 1023;
  const frac = mant.toString(16).padStart(13, '0').replace(/0+$/, '');
  return `0x1${frac ? '.' + frac : ''}p${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

function expFormat(n: number, prec: number): string {
  const [mant, exp] = n.toExponential(prec).split('e') as [string, string];
  const e = Number(exp);
  return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

function gFormat(n: number, prec: number): string {
  if (n === 0) return '0';
  const [, exp] = n.toExponential(prec - 1).split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= prec) {
    const [m, x] = expFormat(n, prec - 1).split('e') as [string, string];
    return `${m.includes('.') ? m.replace(/0+$/, '').replace(/\.$/, '') : m}e${x}`;
  }
  const f = n.toFixed(Math.max(0, prec - 1 - e));
  return f.includes('.') ? f.replace(/0+$/, '').replace(/\.$/, '') : f;
}

/** `%#v`: Go syntax. */
function goSyntax(v: unknown): string {
  const e = elemOf(v);
  if (e === null || e === undefined) return 'interface {}(nil)';
  if (typeof e === 'number') return goSyntax(fromJSON(e));
  if (typeof e === 'string') return goQuote(e);
  if (typeof e === 'boolean') return String(e);
  if (e instanceof GoNum) return formatNum(e);
  if (Array.isArray(e)) return '[]interface {}{' + e.map(goSyntax).join(', ') + '}';
  const o = e as JSONMap;
  return 'map[string]interface {}{' + sortGoKeys(Object.keys(o)).map((k) => `${goQuote(k)}:${goSyntax(o[k])}`).join(', ') + '}';
}

export { isGoPrint };
