/**
 * What kdyn reads from a certificate, taken from its DER by type: never from Node's display strings
 * (`subjectAltName`, `subject`), where an email, URI or directory-name entry can carry text such as
 * `DNS:localhost` or `IP Address:127.0.0.1` and pass for a name of another type.
 *
 * Read as Go's crypto/x509 parses them (parser.go): the version, the subject's CommonName (the last
 * one), basicConstraints, keyUsage, the signature algorithm, every extension's OID and criticality,
 * and the DNS and IP subjectAltNames. A SAN entry Go refuses to parse (a non-ASCII DNS name, email or
 * URI, an IP of neither 4 nor 16 bytes) makes the whole certificate unparsable, as in Go.
 */
import type { X509Certificate } from 'node:crypto';

interface Tlv {
  tag: number;
  start: number; // first content byte
  end: number; // one past the last content byte
}

function tlv(der: Buffer, at: number, limit: number): Tlv {
  if (at + 2 > limit) throw new Error('truncated DER');
  const tag = der[at]!;
  let len = der[at + 1]!;
  let p = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > limit) throw new Error('bad DER length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[p++]!;
  }
  if (p + len > limit) throw new Error('truncated DER');
  return { tag, start: p, end: p + len };
}

function children(der: Buffer, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let p = parent.start; p < parent.end; ) {
    const t = tlv(der, p, parent.end);
    out.push(t);
    p = t.end;
  }
  return out;
}

/** Extension OIDs (hex of the DER content bytes). */
export const OID = {
  basicConstraints: '551d13',
  keyUsage: '551d0f',
  extKeyUsage: '551d25',
  subjectAltName: '551d11',
  nameConstraints: '551d1e',
} as const;

const OID_COMMON_NAME = '550403';
const OID_ORGANIZATION = '55040a';

/** Go's KeyUsageCertSign (bit 5 counted from the first bit of the BIT STRING). */
export const KEY_USAGE_CERT_SIGN = 1 << 5;

export interface CertFacts {
  /** 1, 2 or 3. */
  version: number;
  /** Every extension: OID (hex of its DER content) and whether it is critical. */
  extensions: Array<{ oid: string; critical: boolean }>;
  /** The outer signature algorithm OID (hex). */
  signatureOid: string;
  /** The subject's last CommonName, as Go's pkix.Name keeps it. */
  commonName: string;
  /** The subject's first Organization (Go names a CA by it when it has no CN). */
  organization: string;
  /** The serial number, decimal (Go's last resort for a CA's name). */
  serial: string;
  /** undefined: no basicConstraints extension (Go's BasicConstraintsValid false). */
  basicConstraints?: { ca: boolean };
  /** Go's KeyUsage bits; 0 when absent. */
  keyUsage: number;
  /** undefined: no subjectAltName extension. IPs as 4 or 16 bytes; `named`: the DNS and email entries in order. */
  san?: SubjectAltNames;
}

const factsCache = new WeakMap<Buffer, CertFacts>();

/** The facts of a certificate; throws (a Go-worded message) when Go would not parse it. */
export function factsOf(cert: X509Certificate | Buffer): CertFacts {
  const der = Buffer.isBuffer(cert) ? cert : cert.raw;
  let f = factsCache.get(der);
  if (!f) {
    f = certFacts(der);
    factsCache.set(der, f);
  }
  return f;
}

/** Reads a certificate's DER. Throws on malformed input. */
export function certFacts(der: Buffer): CertFacts {
  const cert = tlv(der, 0, der.length);
  const [tbs, sigAlg] = children(der, cert);
  if (!tbs || !sigAlg || tbs.tag !== 0x30 || sigAlg.tag !== 0x30) throw new Error('x509: malformed certificate');
  const algOid = children(der, sigAlg)[0];
  if (!algOid || algOid.tag !== 0x06) throw new Error('x509: malformed signature algorithm identifier');
  const fields = children(der, tbs);
  let version = 1;
  if (fields[0]?.tag === 0xa0) {
    const v = children(der, fields.shift()!)[0];
    if (!v || v.tag !== 0x02) throw new Error('x509: malformed version');
    version = unsigned(der.subarray(v.start, v.end)) + 1;
  }
  const [serial, , , , subject] = fields;
  if (!serial || serial.tag !== 0x02 || !subject || subject.tag !== 0x30) throw new Error('x509: malformed tbs certificate');
  const facts: CertFacts = {
    version,
    extensions: [],
    signatureOid: hex(der, algOid),
    commonName: '',
    organization: '',
    serial: BigInt(`0x${der.subarray(serial.start, serial.end).toString('hex') || '0'}`).toString(),
    keyUsage: 0,
  };
  for (const rdn of children(der, subject)) {
    for (const atv of children(der, rdn)) {
      const [oid, value] = children(der, atv);
      if (!oid || !value) continue;
      const type = hex(der, oid);
      if (type === OID_COMMON_NAME) facts.commonName = text(der, value);
      if (type === OID_ORGANIZATION && !facts.organization) facts.organization = text(der, value);
    }
  }
  const wrapper = fields.find((t) => t.tag === 0xa3);
  if (!wrapper) return facts;
  const [list] = children(der, wrapper);
  if (!list || list.tag !== 0x30) throw new Error('x509: malformed extensions');
  for (const ext of children(der, list)) {
    const parts = children(der, ext);
    const oid = parts[0];
    const value = parts[parts.length - 1];
    if (!oid || oid.tag !== 0x06 || !value || value.tag !== 0x04) throw new Error('x509: malformed extension');
    const critical = parts.length === 3 && parts[1]!.tag === 0x01 && der[parts[1]!.start] !== 0;
    const id = hex(der, oid);
    facts.extensions.push({ oid: id, critical });
    const inner = tlv(der, value.start, value.end);
    if (id === OID.basicConstraints) facts.basicConstraints = { ca: basicConstraintsCa(der, inner) };
    else if (id === OID.keyUsage) facts.keyUsage = keyUsageBits(der, inner);
    else if (id === OID.subjectAltName) facts.san = subjectAltNames(der, inner);
  }
  return facts;
}

function hex(der: Buffer, t: Tlv): string {
  return der.subarray(t.start, t.end).toString('hex');
}

function unsigned(b: Buffer): number {
  let n = 0;
  for (const byte of b) n = n * 256 + byte;
  return n;
}

/** A DirectoryString's text (BMPString as UTF-16BE, the rest as UTF-8/Latin-1 bytes). */
function text(der: Buffer, t: Tlv): string {
  const b = der.subarray(t.start, t.end);
  if (t.tag === 0x1e) return b.length % 2 === 0 ? Buffer.from(b).swap16().toString('utf16le') : '';
  return b.toString(t.tag === 0x0c ? 'utf8' : 'latin1');
}

function basicConstraintsCa(der: Buffer, seq: Tlv): boolean {
  if (seq.tag !== 0x30) throw new Error('x509: invalid basic constraints');
  const first = children(der, seq)[0];
  return first?.tag === 0x01 && der[first.start] !== 0;
}

function keyUsageBits(der: Buffer, bits: Tlv): number {
  if (bits.tag !== 0x03 || bits.end === bits.start) throw new Error('x509: invalid key usage');
  let usage = 0;
  for (let i = 0; i < 9; i++) {
    const byte = der[bits.start + 1 + (i >> 3)];
    if (byte !== undefined && bits.start + 1 + (i >> 3) < bits.end && byte & (0x80 >> (i & 7))) usage |= 1 << i;
  }
  return usage;
}

export interface SubjectAltNames {
  dns: string[];
  ips: Buffer[];
  named: Array<{ type: 'DNS' | 'email'; value: string }>;
}

/** Go's parseSANExtension: DNS names and IPs by their tags; other types ignored, but checked as Go checks them. */
function subjectAltNames(der: Buffer, seq: Tlv): SubjectAltNames {
  if (seq.tag !== 0x30) throw new Error('x509: invalid subject alternative names');
  const dns: string[] = [];
  const ips: Buffer[] = [];
  const named: SubjectAltNames['named'] = [];
  for (const name of children(der, seq)) {
    const value = der.subarray(name.start, name.end);
    const ascii = !value.some((b) => b > 0x7f);
    if (name.tag === 0x82) {
      if (!ascii) throw new Error('x509: SAN dNSName is malformed');
      dns.push(value.toString('latin1'));
      named.push({ type: 'DNS', value: value.toString('latin1') });
    } else if (name.tag === 0x87) {
      if (value.length !== 4 && value.length !== 16) throw new Error(`x509: cannot parse IP address of length ${value.length}`);
      ips.push(Buffer.from(value));
    } else if (name.tag === 0x81) {
      if (!ascii) throw new Error('x509: SAN rfc822Name is malformed');
      named.push({ type: 'email', value: value.toString('latin1') });
    } else if (name.tag === 0x86) {
      if (!ascii) throw new Error('x509: SAN uniformResourceIdentifier is malformed');
      const uri = goQuote(value.toString('latin1'));
      if (value.some((b) => b < 0x20 || b === 0x7f)) throw new Error(`x509: cannot parse URI ${uri}: parse ${uri}: net/url: invalid control character in URL`);
    }
  }
  return { dns, ips, named };
}

/** Go's %q of an ASCII string (strconv.Quote). */
export function goQuote(text: string): string {
  const escapes: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' };
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out += escapes[c] ?? (c < 0x20 || c === 0x7f ? `\\x${c.toString(16).padStart(2, '0')}` : text[i]);
  }
  return `${out}"`;
}

/** An IP as Go's net.IP.String(): dotted for IPv4 (and IPv4-mapped IPv6), else RFC 5952. */
export function formatIp(ip: Buffer): string {
  const v4 = ip.length === 4 ? ip : isV4Mapped(ip) ? ip.subarray(12) : undefined;
  if (v4) return [...v4].join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ip.readUInt16BE(i * 2));
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hexes = groups.map((g) => g.toString(16));
  if (best < 0) return hexes.join(':');
  return `${hexes.slice(0, best).join(':')}::${hexes.slice(best + bestLen).join(':')}`;
}

function isV4Mapped(ip: Buffer): boolean {
  return ip.length === 16 && ip.subarray(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff;
}

/** An IP literal as 16 bytes (IPv4 mapped into IPv6, as Go's net.ParseIP); undefined if not an IP. */
export function parseIp(text: string): Buffer | undefined {
  const v4 = (s: string): number[] | undefined => {
    const parts = s.split('.');
    if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) < 256)) return undefined;
    return parts.map(Number);
  };
  const four = v4(text);
  if (four) return Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...four]);
  if (!text.includes(':')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const words = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    const parts = s.split(':');
    for (const [i, p] of parts.entries()) {
      if (i === parts.length - 1 && p.includes('.')) {
        const tail = v4(p);
        if (!tail) return undefined;
        out.push((tail[0]! << 8) | tail[1]!, (tail[2]! << 8) | tail[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) out.push(parseInt(p, 16));
      else return undefined;
    }
    return out;
  };
  const head = words(halves[0]!);
  const tail = halves.length === 2 ? words(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...Array<number>(missing).fill(0), ...tail];
  const out = Buffer.alloc(16);
  all.forEach((w, i) => out.writeUInt16BE(w, i * 2));
  return out;
}

/** A SAN IP (4 or 16 bytes) as 16 bytes, for comparing as Go's net.IP.Equal. */
export function ip16(ip: Buffer): Buffer {
  return ip.length === 4 ? Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...ip]) : ip;
}
