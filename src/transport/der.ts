/**
 * A strict DER reader with the acceptance rules of Go's golang.org/x/crypto/cryptobyte (what
 * crypto/x509 parses certificates with): definite, minimal lengths of at most 4 bytes, tag numbers
 * in the low-tag form or minimal high-tag form, BOOLEAN only as 0x00 or 0xff, INTEGER minimal,
 * BIT STRING padding bits zero, OBJECT IDENTIFIER components minimal and within 31 bits. Every read
 * either consumes exactly what it returns or fails (returns undefined) without consuming.
 */

export interface Element {
  /** The identifier octet(s) as cryptobyte's Tag: class and constructed bits plus the number (low form only). */
  tag: number;
  /** The content bytes. */
  body: Buffer;
  /** The whole element: identifier, length and content. */
  whole: Buffer;
}

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8String: 0x0c,
  SEQUENCE: 0x30,
  SET: 0x31,
  PrintableString: 0x13,
  T61String: 0x14,
  IA5String: 0x16,
  UTCTime: 0x17,
  GeneralizedTime: 0x18,
  NumericString: 0x12,
  BMPString: 0x1e,
} as const;

/** Context-specific tag [n], constructed when `constructed`. */
export function ctx(n: number, constructed = false): number {
  return 0x80 | (constructed ? 0x20 : 0) | n;
}

export class DerReader {
  private at = 0;
  constructor(private readonly buf: Buffer) {}

  empty(): boolean {
    return this.at >= this.buf.length;
  }

  /** What is left, unread. */
  rest(): Buffer {
    return this.buf.subarray(this.at);
  }

  /** The next element of any tag (cryptobyte ReadAnyASN1Element). */
  any(): Element | undefined {
    const e = readElement(this.buf, this.at);
    if (!e) return undefined;
    this.at += e.whole.length;
    return e;
  }

  /** The next element if its tag is `tag` (else nothing is consumed). */
  read(tag: number): Element | undefined {
    if (this.empty() || this.buf[this.at] !== tag) return undefined;
    return this.any();
  }

  /** The tag of the next element, or undefined at the end. */
  peek(): number | undefined {
    if (this.empty()) return undefined;
    const e = readElement(this.buf, this.at);
    return e?.tag;
  }

  /** An optional element (cryptobyte's ReadOptionalASN1): present when the next identifier byte is `tag`; `false` when that element is malformed. */
  optional(tag: number): Element | undefined | false {
    if (this.empty() || this.buf[this.at] !== tag) return undefined;
    return this.any() ?? false;
  }
}

function readElement(buf: Buffer, at: number): Element | undefined {
  if (at + 2 > buf.length) return undefined;
  let p = at;
  const first = buf[p++]!;
  if ((first & 0x1f) === 0x1f) {
    // High-tag-number form: cryptobyte reads it (base-128, minimal, number >= 31) and reports a tag
    // that no parser here asks for, so such an element is only ever skipped.
    let n = 0;
    let count = 0;
    for (;;) {
      if (p >= buf.length) return undefined;
      const b = buf[p++]!;
      if (count === 0 && b === 0x80) return undefined;
      n = n * 128 + (b & 0x7f);
      if (++count > 4) return undefined;
      if (!(b & 0x80)) break;
    }
    if (n < 31) return undefined;
  }
  if (p >= buf.length) return undefined;
  const lenByte = buf[p++]!;
  let length: number;
  if (!(lenByte & 0x80)) length = lenByte;
  else {
    const n = lenByte & 0x7f;
    if (n === 0 || n > 4 || p + n > buf.length) return undefined; // indefinite or too long
    if (buf[p] === 0) return undefined; // leading zero: not minimal
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + buf[p++]!;
    if (length < 128) return undefined; // long form where the short form would do
  }
  if (p + length > buf.length) return undefined;
  const tag = (first & 0x1f) === 0x1f ? -1 : first;
  return { tag, body: buf.subarray(p, p + length), whole: buf.subarray(at, p + length) };
}

/** Reads exactly one element of `tag` filling the whole buffer; undefined otherwise (trailing data included). */
export function single(buf: Buffer, tag: number): Element | undefined {
  const r = new DerReader(buf);
  const e = r.read(tag);
  return e && r.empty() ? e : undefined;
}

/** cryptobyte's ReadASN1Boolean: exactly one byte, 0x00 or 0xff. */
export function boolOf(e: Element): boolean | undefined {
  if (e.tag !== TAG.BOOLEAN || e.body.length !== 1) return undefined;
  if (e.body[0] === 0x00) return false;
  if (e.body[0] === 0xff) return true;
  return undefined;
}

/** checkASN1Integer: non-empty and minimal. */
export function integerOk(body: Buffer): boolean {
  if (body.length === 0) return false;
  if (body.length === 1) return true;
  if (body[0] === 0x00 && !(body[1]! & 0x80)) return false;
  if (body[0] === 0xff && body[1]! & 0x80) return false;
  return true;
}

/** A minimal INTEGER as a bigint (two's complement); undefined when malformed. */
export function bigIntOf(e: Element): bigint | undefined {
  if (e.tag !== TAG.INTEGER || !integerOk(e.body)) return undefined;
  let n = BigInt(`0x${e.body.toString('hex')}`);
  if (e.body[0]! & 0x80) n -= 1n << BigInt(e.body.length * 8);
  return n;
}

/** A minimal INTEGER that fits Go's int (64 bits). */
export function intOf(e: Element): number | undefined {
  const n = bigIntOf(e);
  if (n === undefined || n > 0x7fffffffffffffffn || n < -0x8000000000000000n) return undefined;
  return Number(n);
}

/** cryptobyte's ReadASN1BitString: the padding count first (<= 7, 0 when empty), the padding bits zero. */
export function bitStringOf(e: Element): { bytes: Buffer; padding: number } | undefined {
  if (e.tag !== TAG.BIT_STRING || e.body.length === 0) return undefined;
  const padding = e.body[0]!;
  const bytes = e.body.subarray(1);
  if (padding > 7 || (bytes.length === 0 && padding !== 0)) return undefined;
  if (bytes.length > 0 && bytes[bytes.length - 1]! & ((1 << padding) - 1)) return undefined;
  return { bytes, padding };
}

/** An OBJECT IDENTIFIER in dotted form (cryptobyte's rules: components minimal, each within 31 bits). */
export function oidOf(e: Element): string | undefined {
  if (e.tag !== TAG.OID || e.body.length === 0) return undefined;
  const parts: number[] = [];
  let i = 0;
  const component = (): number | undefined => {
    let n = 0;
    for (let count = 0; ; count++) {
      if (count === 5 || i >= e.body.length) return undefined;
      const b = e.body[i++]!;
      if (count === 0 && b === 0x80) return undefined;
      n = n * 128 + (b & 0x7f);
      if (!(b & 0x80)) break;
    }
    return n > 0x7fffffff ? undefined : n;
  };
  const first = component();
  if (first === undefined) return undefined;
  if (first < 80) parts.push(Math.floor(first / 40), first % 40);
  else parts.push(2, first - 80);
  while (i < e.body.length) {
    const c = component();
    if (c === undefined) return undefined;
    parts.push(c);
  }
  return parts.join('.');
}
