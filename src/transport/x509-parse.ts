/**
 * Go's crypto/x509 ParseCertificate (go1.23 parser.go), rule for rule, on ./der.ts's strict reader:
 * what kubectl refuses to parse, kdyn refuses to parse, with Go's words. A certificate Go cannot parse
 * is never trusted: from the server it fails the handshake (`tls: failed to parse certificate from
 * server: ...`), in a CA bundle it is skipped as AppendCertsFromPEM skips it.
 *
 * Everything is read by type from the DER, never from Node's display strings (`subjectAltName`,
 * `subject`), where an email, URI or directory-name entry can carry text such as `DNS:localhost`.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { DerReader, TAG, bigIntOf, bitStringOf, boolOf, ctx, intOf, oidOf, single, type Element } from './der.js';
import { domainLabels, parseMailbox } from './go-names.js';
import { goQuote, parseIp } from './go-ip.js';
import { parseGoUrl } from './go-url.js';

export const OID = {
  keyUsage: '2.5.29.15',
  basicConstraints: '2.5.29.19',
  subjectAltName: '2.5.29.17',
  nameConstraints: '2.5.29.30',
  crlDistributionPoints: '2.5.29.31',
  authorityKeyId: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  subjectKeyId: '2.5.29.14',
  certificatePolicies: '2.5.29.32',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
} as const;

export const EKU_ANY = '2.5.29.37.0';
export const EKU_SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

/** Go's KeyUsageCertSign (bit 5 counted from the first bit of the BIT STRING). */
export const KEY_USAGE_CERT_SIGN = 1 << 5;

/** Go's SignatureAlgorithm values that kdyn tells apart (Unknown: Go cannot verify it). */
export type SignatureAlgorithm =
  | 'MD2-RSA' | 'MD5-RSA' | 'SHA1-RSA' | 'SHA256-RSA' | 'SHA384-RSA' | 'SHA512-RSA'
  | 'SHA256-RSAPSS' | 'SHA384-RSAPSS' | 'SHA512-RSAPSS'
  | 'DSA-SHA1' | 'DSA-SHA256' | 'ECDSA-SHA1' | 'ECDSA-SHA256' | 'ECDSA-SHA384' | 'ECDSA-SHA512' | 'Ed25519'
  | 'Unknown';

/** Go's PublicKeyAlgorithm; `Unknown` keys (RSA-PSS, Ed448, X25519, ...) have no PublicKey in Go. */
export type PublicKeyAlgorithm = 'RSA' | 'DSA' | 'ECDSA' | 'Ed25519' | 'Unknown';

export interface IpNet {
  ip: Buffer;
  mask: Buffer;
}

export interface NameConstraints {
  permittedDns: string[];
  excludedDns: string[];
  permittedIps: IpNet[];
  excludedIps: IpNet[];
  permittedEmails: string[];
  excludedEmails: string[];
  permittedUris: string[];
  excludedUris: string[];
}

/** A subjectAltName entry Go reads, in order. */
export interface SanEntry {
  type: 'DNS' | 'email' | 'URI' | 'IP';
  /** The text (DNS, email, URI) or the 4 or 16 address bytes (IP). */
  value: string | Buffer;
}

export interface GoCertificate {
  raw: Buffer;
  rawTbs: Buffer;
  rawIssuer: Buffer;
  rawSubject: Buffer;
  rawSpki: Buffer;
  /** 1, 2 or 3. */
  version: number;
  serial: bigint;
  signatureAlgorithm: SignatureAlgorithm;
  signature: Buffer;
  publicKeyAlgorithm: PublicKeyAlgorithm;
  /** Node's key for signature checks; undefined where Go has no PublicKey (an unknown algorithm). */
  publicKey?: KeyObject;
  /** The ECDSA curve (Go's names), for the TLS key check. */
  curve?: 'P-224' | 'P-256' | 'P-384' | 'P-521';
  notBefore: number;
  notAfter: number;
  commonName: string;
  organization: string;
  extensions: Array<{ oid: string; critical: boolean }>;
  unhandledCritical: string[];
  basicConstraintsValid: boolean;
  isCA: boolean;
  /** -1 when absent. */
  maxPathLen: number;
  keyUsage: number;
  /** Every extended key usage OID (known and unknown to Go). */
  extKeyUsage: string[];
  /** undefined: no subjectAltName extension. */
  san?: SanEntry[];
  /** The subjectAltName extension's value bytes (Go compares them in alreadyInChain). */
  sanRaw?: Buffer;
  nameConstraints?: NameConstraints;
  subjectKeyId?: Buffer;
  authorityKeyId?: Buffer;
}

function fail(message: string): never {
  throw new Error(message);
}

/**
 * A certificate's subject bytes, read without parsing the rest (for indexing a large pool of roots
 * whose members are parsed only when a chain asks for them); undefined when the DER is malformed.
 */
export function rawSubjectOf(der: Buffer): Buffer | undefined {
  const outer = new DerReader(der).read(TAG.SEQUENCE);
  const tbs = outer && new DerReader(outer.body).read(TAG.SEQUENCE);
  if (!tbs) return undefined;
  const r = new DerReader(tbs.body);
  if (r.optional(ctx(0, true)) === false) return undefined;
  for (const tag of [TAG.INTEGER, TAG.SEQUENCE, TAG.SEQUENCE, TAG.SEQUENCE]) if (!r.read(tag)) return undefined;
  return r.read(TAG.SEQUENCE)?.whole;
}

const cache = new WeakMap<Buffer, GoCertificate | Error>();
/**
 * The same bytes parsed once per process (every connection of a dialer gets new Buffers of the
 * same chain from its socket: 8 connections parsed each certificate 8 times). The parse is a pure
 * function of the bytes; at most BY_CONTENT_MAX distinct certificates are kept.
 */
const byContent = new Map<string, GoCertificate | Error>();
const BY_CONTENT_MAX = 256;

/** Go's ParseCertificate; throws an Error with Go's message. Memoised per Buffer and per content. */
export function parseCertificate(der: Buffer): GoCertificate {
  let r = cache.get(der);
  if (!r) {
    const key = der.toString('latin1');
    r = byContent.get(key);
    if (!r) {
      try {
        r = parse(der);
      } catch (e) {
        r = e as Error;
      }
      if (byContent.size >= BY_CONTENT_MAX) byContent.clear();
      byContent.set(key, r);
    }
    cache.set(der, r);
  }
  if (r instanceof Error) throw r;
  return r;
}

function parse(der: Buffer): GoCertificate {
  const outerReader = new DerReader(der);
  const outer = outerReader.read(TAG.SEQUENCE) ?? fail('x509: malformed certificate');
  const input = new DerReader(outer.body);
  const tbsEl = input.read(TAG.SEQUENCE) ?? fail('x509: malformed tbs certificate');
  const tbs = new DerReader(tbsEl.body);

  let version = 0;
  const v = tbs.optional(ctx(0, true));
  if (v === false) fail('x509: malformed version');
  if (v) {
    const inner = single(v.body, TAG.INTEGER);
    const n = inner ? intOf(inner) : undefined;
    if (n === undefined) fail('x509: malformed version');
    version = n;
  }
  if (version < 0) fail('x509: malformed version');
  version++;
  if (version > 3) fail('x509: invalid version');

  const serialEl = tbs.read(TAG.INTEGER);
  const serial = serialEl ? bigIntOf(serialEl) : undefined;
  if (serial === undefined) fail('x509: malformed serial number');
  if (serial < 0n) fail('x509: negative serial number');

  const sigAI = tbs.read(TAG.SEQUENCE) ?? fail('x509: malformed signature algorithm identifier');
  const outerSigAI = input.read(TAG.SEQUENCE) ?? fail('x509: malformed algorithm identifier');
  if (!outerSigAI.body.equals(sigAI.body)) fail("x509: inner and outer signature algorithm identifiers don't match");
  const signatureAlgorithm = signatureAlgorithmOf(parseAI(sigAI.body));

  const issuer = tbs.read(TAG.SEQUENCE) ?? fail('x509: malformed issuer');
  parseName(issuer.body);
  const validity = tbs.read(TAG.SEQUENCE) ?? fail('x509: malformed validity');
  const [notBefore, notAfter] = parseValidity(validity.body);
  const subject = tbs.read(TAG.SEQUENCE) ?? fail('x509: malformed issuer');
  const subjectNames = parseName(subject.body);

  const spkiEl = tbs.read(TAG.SEQUENCE) ?? fail('x509: malformed spki');
  const spki = new DerReader(spkiEl.body);
  const pkAIEl = spki.read(TAG.SEQUENCE) ?? fail('x509: malformed public key algorithm identifier');
  const pkAI = parseAI(pkAIEl.body);
  const spkEl = spki.read(TAG.BIT_STRING);
  const spk = spkEl ? bitStringOf(spkEl) : undefined;
  if (!spk) fail('x509: malformed subjectPublicKey');
  const publicKeyAlgorithm = publicKeyAlgorithmOf(pkAI.oid);
  const cert: GoCertificate = {
    raw: outer.whole,
    rawTbs: tbsEl.whole,
    rawIssuer: issuer.whole,
    rawSubject: subject.whole,
    rawSpki: spkiEl.whole,
    version,
    serial,
    signatureAlgorithm,
    signature: Buffer.alloc(0),
    publicKeyAlgorithm,
    notBefore,
    notAfter,
    commonName: subjectNames.commonName,
    organization: subjectNames.organization,
    extensions: [],
    unhandledCritical: [],
    basicConstraintsValid: false,
    isCA: false,
    maxPathLen: -1,
    keyUsage: 0,
    extKeyUsage: [],
  };
  if (publicKeyAlgorithm !== 'Unknown') Object.assign(cert, parsePublicKey(publicKeyAlgorithm, pkAI, spk.bytes, spkiEl.whole));

  if (version > 1) {
    if (tbs.optional(ctx(1)) === false) fail('x509: malformed issuerUniqueID');
    if (tbs.optional(ctx(2)) === false) fail('x509: malformed subjectUniqueID');
    if (version === 3) {
      const exts = tbs.optional(ctx(3, true));
      if (exts === false) fail('x509: malformed extensions');
      if (exts) {
        const list = new DerReader(exts.body).read(TAG.SEQUENCE) ?? fail('x509: malformed extensions');
        const seen = new Set<string>();
        const extensions: RawExtension[] = [];
        const r = new DerReader(list.body);
        while (!r.empty()) {
          const e = r.read(TAG.SEQUENCE) ?? fail('x509: malformed extension');
          const ext = parseExtension(e.body);
          if (seen.has(ext.oid)) fail(`x509: certificate contains duplicate extension with OID ${goQuote(ext.oid)}`);
          seen.add(ext.oid);
          extensions.push(ext);
        }
        processExtensions(cert, extensions);
      }
    }
  }

  const sigEl = input.read(TAG.BIT_STRING);
  const sig = sigEl ? bitStringOf(sigEl) : undefined;
  if (!sig) fail('x509: malformed signature');
  cert.signature = Buffer.from(sig.bytes);
  if (outer.whole.length !== der.length) fail('x509: trailing data');
  return cert;
}

interface AlgorithmIdentifier {
  oid: string;
  /** The parameters element whole (tag included); empty when absent. */
  params: Buffer;
  paramsTag?: number;
}

function parseAI(body: Buffer): AlgorithmIdentifier {
  const r = new DerReader(body);
  const o = r.read(TAG.OID);
  const oid = o ? oidOf(o) : undefined;
  if (!oid) fail('x509: malformed OID');
  if (r.empty()) return { oid, params: Buffer.alloc(0) };
  const p = r.any() ?? fail('x509: malformed parameters');
  return { oid, params: p.whole, paramsTag: p.tag };
}

const NULL_BYTES = Buffer.from([0x05, 0x00]);

const SIGNATURE_OIDS: Record<string, SignatureAlgorithm> = {
  '1.2.840.113549.1.1.2': 'MD2-RSA',
  '1.2.840.113549.1.1.4': 'MD5-RSA',
  '1.2.840.113549.1.1.5': 'SHA1-RSA',
  '1.3.14.3.2.29': 'SHA1-RSA',
  '1.2.840.113549.1.1.11': 'SHA256-RSA',
  '1.2.840.113549.1.1.12': 'SHA384-RSA',
  '1.2.840.113549.1.1.13': 'SHA512-RSA',
  '1.2.840.10040.4.3': 'DSA-SHA1',
  '2.16.840.1.101.3.4.3.2': 'DSA-SHA256',
  '1.2.840.10045.4.1': 'ECDSA-SHA1',
  '1.2.840.10045.4.3.2': 'ECDSA-SHA256',
  '1.2.840.10045.4.3.3': 'ECDSA-SHA384',
  '1.2.840.10045.4.3.4': 'ECDSA-SHA512',
  '1.3.101.112': 'Ed25519',
};
const OID_RSA_PSS = '1.2.840.113549.1.1.10';
const OID_MGF1 = '1.2.840.113549.1.1.8';
const PSS_HASHES: Record<string, [SignatureAlgorithm, number]> = {
  '2.16.840.1.101.3.4.2.1': ['SHA256-RSAPSS', 32],
  '2.16.840.1.101.3.4.2.2': ['SHA384-RSAPSS', 48],
  '2.16.840.1.101.3.4.2.3': ['SHA512-RSAPSS', 64],
};

/** Go's getSignatureAlgorithmFromAI: RSA-PSS only with MGF1 of the same hash, salt = hash length, trailer 1. */
function signatureAlgorithmOf(ai: AlgorithmIdentifier): SignatureAlgorithm {
  if (ai.oid === '1.3.101.112' && ai.params.length !== 0) return 'Unknown';
  if (ai.oid !== OID_RSA_PSS) return SIGNATURE_OIDS[ai.oid] ?? 'Unknown';
  const params = ai.params.length ? single(ai.params, TAG.SEQUENCE) : undefined;
  if (!params) return 'Unknown';
  const r = new DerReader(params.body);
  const explicit = (n: number): Element | undefined | false => {
    const e = r.optional(ctx(n, true));
    if (!e) return e;
    return single(e.body, new DerReader(e.body).peek() ?? -2) ?? false;
  };
  const hashEl = explicit(0);
  const mgfEl = explicit(1);
  const saltEl = explicit(2);
  const trailerEl = explicit(3);
  if (hashEl === false || mgfEl === false || saltEl === false || trailerEl === false || !r.empty()) return 'Unknown';
  if (!hashEl || hashEl.tag !== TAG.SEQUENCE || !mgfEl || mgfEl.tag !== TAG.SEQUENCE) return 'Unknown';
  let hash: AlgorithmIdentifier;
  let mgf: AlgorithmIdentifier;
  let mgfHash: AlgorithmIdentifier;
  try {
    hash = parseAI(hashEl.body);
    mgf = parseAI(mgfEl.body);
    const mgfHashEl = mgf.params.length ? single(mgf.params, TAG.SEQUENCE) : undefined;
    if (!mgfHashEl) return 'Unknown';
    mgfHash = parseAI(mgfHashEl.body);
  } catch {
    return 'Unknown';
  }
  const salt = saltEl ? (saltEl.tag === TAG.INTEGER ? intOf(saltEl) : undefined) : 20;
  const trailer = trailerEl ? (trailerEl.tag === TAG.INTEGER ? intOf(trailerEl) : undefined) : 1;
  const nullOrAbsent = (p: Buffer) => p.length === 0 || p.equals(NULL_BYTES);
  if (!nullOrAbsent(hash.params) || mgf.oid !== OID_MGF1 || mgfHash.oid !== hash.oid || !nullOrAbsent(mgfHash.params) || trailer !== 1) return 'Unknown';
  const known = PSS_HASHES[hash.oid];
  return known && known[1] === salt ? known[0] : 'Unknown';
}

function publicKeyAlgorithmOf(oid: string): PublicKeyAlgorithm {
  switch (oid) {
    case '1.2.840.113549.1.1.1':
      return 'RSA';
    case '1.2.840.10040.4.1':
      return 'DSA';
    case '1.2.840.10045.2.1':
      return 'ECDSA';
    case '1.3.101.112':
      return 'Ed25519';
    default:
      return 'Unknown';
  }
}

const CURVES: Record<string, [NonNullable<GoCertificate['curve']>, number]> = {
  '1.3.132.0.33': ['P-224', 28],
  '1.2.840.10045.3.1.7': ['P-256', 32],
  '1.3.132.0.34': ['P-384', 48],
  '1.3.132.0.35': ['P-521', 66],
};

/** Go's parsePublicKey for the algorithms it knows, with its errors; the key as Node's KeyObject. */
function parsePublicKey(algo: PublicKeyAlgorithm, ai: AlgorithmIdentifier, key: Buffer, spki: Buffer): Pick<GoCertificate, 'publicKey' | 'curve'> {
  const nodeKey = (): KeyObject => {
    try {
      return createPublicKey({ key: spki, format: 'der', type: 'spki' });
    } catch {
      return fail(`x509: invalid ${algo} public key`);
    }
  };
  switch (algo) {
    case 'RSA': {
      if (!ai.params.equals(NULL_BYTES)) fail('x509: RSA key missing NULL parameters');
      const seq = new DerReader(key).read(TAG.SEQUENCE) ?? fail('x509: invalid RSA public key');
      const r = new DerReader(seq.body);
      const nEl = r.read(TAG.INTEGER);
      const n = nEl ? bigIntOf(nEl) : undefined;
      if (n === undefined) fail('x509: invalid RSA modulus');
      const eEl = r.read(TAG.INTEGER);
      const e = eEl ? intOf(eEl) : undefined;
      if (e === undefined) fail('x509: invalid RSA public exponent');
      if (n <= 0n) fail('x509: RSA modulus is not a positive number');
      if (e <= 0) fail('x509: RSA public exponent is not a positive number');
      return { publicKey: nodeKey() };
    }
    case 'ECDSA': {
      const p = single(ai.params, TAG.OID);
      const curveOid = p ? oidOf(p) : undefined;
      if (!curveOid) fail('x509: invalid ECDSA parameters');
      const curve = CURVES[curveOid];
      if (!curve) fail('x509: unsupported elliptic curve');
      // elliptic.Unmarshal: the uncompressed form only, a point on the curve.
      if (key.length !== 1 + 2 * curve[1] || key[0] !== 4) fail('x509: failed to unmarshal elliptic curve point');
      let k: KeyObject;
      try {
        k = createPublicKey({ key: spki, format: 'der', type: 'spki' });
      } catch {
        return fail('x509: failed to unmarshal elliptic curve point');
      }
      return { publicKey: k, curve: curve[0] };
    }
    case 'Ed25519':
      if (ai.params.length !== 0) fail('x509: Ed25519 key encoded with illegal parameters');
      if (key.length !== 32) fail('x509: wrong Ed25519 public key size');
      return { publicKey: nodeKey() };
    case 'DSA': {
      const y = single(key, TAG.INTEGER);
      const params = single(ai.params, TAG.SEQUENCE);
      if (!y || bigIntOf(y) === undefined) fail('x509: invalid DSA public key');
      const pr = params ? new DerReader(params.body) : undefined;
      const pqg = pr ? [pr.read(TAG.INTEGER), pr.read(TAG.INTEGER), pr.read(TAG.INTEGER)].map((e) => (e ? bigIntOf(e) : undefined)) : [];
      if (pqg.length !== 3 || pqg.some((x) => x === undefined)) fail('x509: invalid DSA parameters');
      if ([bigIntOf(y)!, ...pqg].some((x) => x! <= 0n)) fail('x509: zero or negative DSA parameter');
      // Go parses DSA keys but verifies nothing with them: no KeyObject is needed.
      return {};
    }
    default:
      return {};
  }
}

const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';

/** Go's parseName with parseASN1String: every attribute value a string of a type Go knows, valid for it. */
function parseName(body: Buffer): { commonName: string; organization: string } {
  const out = { commonName: '', organization: '' };
  const r = new DerReader(body);
  while (!r.empty()) {
    const set = r.read(TAG.SET) ?? fail('x509: invalid RDNSequence');
    const s = new DerReader(set.body);
    while (!s.empty()) {
      const atv = s.read(TAG.SEQUENCE) ?? fail('x509: invalid RDNSequence: invalid attribute');
      const a = new DerReader(atv.body);
      const t = a.read(TAG.OID);
      const type = t ? oidOf(t) : undefined;
      if (!type) fail('x509: invalid RDNSequence: invalid attribute type');
      const value = a.any() ?? fail('x509: invalid RDNSequence: invalid attribute value');
      let text: string;
      try {
        text = asn1String(value);
      } catch (e) {
        return fail(`x509: invalid RDNSequence: invalid attribute value: ${(e as Error).message}`);
      }
      if (type === OID_CN) out.commonName = text;
      if (type === OID_O && !out.organization) out.organization = text;
    }
  }
  return out;
}

const PRINTABLE = /^[a-zA-Z0-9 '()+,\-./:=?*&]*$/;

/** Go's parseASN1String. */
function asn1String(e: Element): string {
  const b = e.body;
  switch (e.tag) {
    case TAG.T61String:
      return b.toString('latin1');
    case TAG.PrintableString:
      if (!PRINTABLE.test(b.toString('latin1'))) throw new Error('invalid PrintableString');
      return b.toString('latin1');
    case TAG.UTF8String: {
      const text = b.toString('utf8');
      if (!Buffer.from(text, 'utf8').equals(b)) throw new Error('invalid UTF-8 string');
      return text;
    }
    case TAG.BMPString: {
      if (b.length % 2 !== 0) throw new Error('invalid BMPString');
      const trimmed = b.length >= 2 && b[b.length - 1] === 0 && b[b.length - 2] === 0 ? b.subarray(0, -2) : b;
      return Buffer.from(trimmed).swap16().toString('utf16le');
    }
    case TAG.IA5String:
      if (b.some((c) => c > 0x7f)) throw new Error('invalid IA5String');
      return b.toString('latin1');
    case TAG.NumericString:
      if (!/^[0-9 ]*$/.test(b.toString('latin1'))) throw new Error('invalid NumericString');
      return b.toString('latin1');
    default:
      throw new Error(`unsupported string type: ${e.tag}`);
  }
}

function parseValidity(body: Buffer): [number, number] {
  const r = new DerReader(body);
  return [parseTime(r), parseTime(r)];
}

/** Go's parseTime: UTCTime (with or without seconds) or GeneralizedTime, Z or ±hhmm, round-tripping exactly. */
function parseTime(r: DerReader): number {
  const tag = r.peek();
  if (tag === TAG.UTCTime) {
    const e = r.any()!;
    const t = utcTime(e.body.toString('latin1'));
    if (t === undefined) fail('x509: malformed UTCTime');
    return t;
  }
  if (tag === TAG.GeneralizedTime) {
    const e = r.any()!;
    const t = generalizedTime(e.body.toString('latin1'));
    if (t === undefined) fail('x509: malformed GeneralizedTime');
    return t;
  }
  return fail('x509: unsupported time format');
}

function zoned(fields: number[], zone: string): number | undefined {
  const [year, month, day, hour, minute, second] = fields as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const daysIn = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysIn) return undefined;
  let offset = 0;
  if (zone !== 'Z') {
    const hh = Number(zone.slice(1, 3));
    const mm = Number(zone.slice(3, 5));
    // Go's time.Parse takes hh 0-24, mm 0-59; the round trip prints a zero offset as `Z`, not `+0000`.
    if (hh > 24 || mm > 59 || (hh === 0 && mm === 0)) return undefined;
    offset = (zone[0] === '-' ? -1 : 1) * (hh * 60 + mm) * 60_000;
  }
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime() - offset;
}

function utcTime(s: string): number | undefined {
  const m = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(Z|[+-]\d{4})$/.exec(s);
  if (!m) return undefined;
  let year = Number(m[1]) + 2000;
  if (year >= 2050) year -= 100;
  return zoned([year, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), m[6] === undefined ? 0 : Number(m[6])], m[7]!);
}

function generalizedTime(s: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(Z|[+-]\d{4})$/.exec(s);
  if (!m) return undefined;
  return zoned([Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])], m[7]!);
}

interface RawExtension {
  oid: string;
  critical: boolean;
  value: Buffer;
}

function parseExtension(body: Buffer): RawExtension {
  const r = new DerReader(body);
  const o = r.read(TAG.OID);
  const oid = o ? oidOf(o) : undefined;
  if (!oid) fail('x509: malformed extension OID field');
  let critical = false;
  if (!r.empty() && r.rest()[0] === TAG.BOOLEAN) {
    const b = r.any();
    const v = b ? boolOf(b) : undefined;
    if (v === undefined) fail('x509: malformed extension critical field');
    critical = v;
  }
  const value = r.read(TAG.OCTET_STRING) ?? fail('x509: malformed extension value field');
  return { oid, critical, value: value.body };
}

/** Go's processExtensions: each extension Go knows parsed strictly; the unknown critical ones recorded. */
function processExtensions(cert: GoCertificate, extensions: RawExtension[]): void {
  for (const e of extensions) {
    cert.extensions.push({ oid: e.oid, critical: e.critical });
    let unhandled = false;
    switch (e.oid) {
      case OID.keyUsage:
        cert.keyUsage = keyUsage(e.value);
        break;
      case OID.basicConstraints: {
        const [isCA, maxPathLen] = basicConstraints(e.value);
        Object.assign(cert, { isCA, maxPathLen, basicConstraintsValid: true });
        break;
      }
      case OID.subjectAltName:
        cert.sanRaw = e.value;
        cert.san = subjectAltNames(e.value);
        if (cert.san.length === 0) unhandled = true;
        break;
      case OID.nameConstraints:
        unhandled = nameConstraints(cert, e.value);
        break;
      case OID.crlDistributionPoints:
        crlDistributionPoints(e.value);
        break;
      case OID.authorityKeyId: {
        if (e.critical) fail('x509: authority key identifier incorrectly marked critical');
        const akid = new DerReader(e.value).read(TAG.SEQUENCE) ?? fail('x509: invalid authority key identifier');
        const r = new DerReader(akid.body);
        if (!r.empty() && r.rest()[0] === ctx(0)) cert.authorityKeyId = (r.any() ?? fail('x509: invalid authority key identifier')).body;
        break;
      }
      case OID.extKeyUsage:
        cert.extKeyUsage = extKeyUsage(e.value);
        break;
      case OID.subjectKeyId:
        if (e.critical) fail('x509: subject key identifier incorrectly marked critical');
        cert.subjectKeyId = (new DerReader(e.value).read(TAG.OCTET_STRING) ?? fail('x509: invalid subject key identifier')).body;
        break;
      case OID.certificatePolicies:
        certificatePolicies(e.value);
        break;
      case OID.authorityInfoAccess:
        if (e.critical) fail('x509: authority info access incorrectly marked critical');
        authorityInfoAccess(e.value);
        break;
      default:
        unhandled = true;
    }
    if (e.critical && unhandled) cert.unhandledCritical.push(e.oid);
  }
}

function keyUsage(value: Buffer): number {
  const e = new DerReader(value).read(TAG.BIT_STRING);
  const bits = e ? bitStringOf(e) : undefined;
  if (!bits) fail('x509: invalid key usage');
  let usage = 0;
  for (let i = 0; i < 9; i++) {
    const byte = bits.bytes[i >> 3];
    if (byte !== undefined && byte & (0x80 >> (i & 7))) usage |= 1 << i;
  }
  return usage;
}

function basicConstraints(value: Buffer): [boolean, number] {
  const seq = new DerReader(value).read(TAG.SEQUENCE) ?? fail('x509: invalid basic constraints');
  const r = new DerReader(seq.body);
  let isCA = false;
  if (!r.empty() && r.rest()[0] === TAG.BOOLEAN) {
    const b = r.any();
    const v = b ? boolOf(b) : undefined;
    if (v === undefined) fail('x509: invalid basic constraints');
    isCA = v;
  }
  let maxPathLen = -1;
  if (!r.empty() && r.rest()[0] === TAG.INTEGER) {
    const i = r.any();
    const n = i ? intOf(i) : undefined;
    if (n === undefined) fail('x509: invalid basic constraints');
    maxPathLen = n;
  }
  return [isCA, maxPathLen];
}

/** Go's forEachSAN: every entry of the SEQUENCE, with its tag number (tag ^ 0x80). */
export function forEachSan(value: Buffer, each: (tag: number, data: Buffer) => void): void {
  const seq = new DerReader(value).read(TAG.SEQUENCE) ?? fail('x509: invalid subject alternative names');
  const r = new DerReader(seq.body);
  while (!r.empty()) {
    const e = r.any() ?? fail('x509: invalid subject alternative name');
    each(e.tag ^ 0x80, e.body);
  }
}

const ascii = (b: Buffer) => !b.some((c) => c > 0x7f);

function subjectAltNames(value: Buffer): SanEntry[] {
  const out: SanEntry[] = [];
  forEachSan(value, (tag, data) => {
    switch (tag) {
      case 1:
        if (!ascii(data)) fail('x509: SAN rfc822Name is malformed');
        out.push({ type: 'email', value: data.toString('latin1') });
        break;
      case 2:
        if (!ascii(data)) fail('x509: SAN dNSName is malformed');
        out.push({ type: 'DNS', value: data.toString('latin1') });
        break;
      case 6: {
        if (!ascii(data)) fail('x509: SAN uniformResourceIdentifier is malformed');
        const text = data.toString('latin1');
        const parsed = parseGoUrl(text);
        if ('error' in parsed) fail(`x509: cannot parse URI ${goQuote(text)}: ${parsed.error}`);
        if (parsed.host.length > 0 && !domainLabels(parsed.host)) fail(`x509: cannot parse URI ${goQuote(text)}: invalid domain`);
        out.push({ type: 'URI', value: text });
        break;
      }
      case 7:
        if (data.length !== 4 && data.length !== 16) fail(`x509: cannot parse IP address of length ${data.length}`);
        out.push({ type: 'IP', value: Buffer.from(data) });
        break;
    }
  });
  return out;
}

/** Go's isValidIPMask: ones, then zeros. */
function validMask(mask: Buffer): boolean {
  let seenZero = false;
  for (const b of mask) {
    if (seenZero) {
      if (b !== 0) return false;
      continue;
    }
    if ([0x00, 0x80, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe].includes(b)) seenZero = true;
    else if (b !== 0xff) return false;
  }
  return true;
}

/** Go's parseNameConstraintsExtension; returns whether it holds a subtree type Go does not handle. */
function nameConstraints(cert: GoCertificate, value: Buffer): boolean {
  const invalid = 'x509: invalid NameConstraints extension';
  const top = single(value, TAG.SEQUENCE) ?? fail(invalid);
  const r = new DerReader(top.body);
  const permitted = r.optional(ctx(0, true));
  const excluded = r.optional(ctx(1, true));
  if (permitted === false || excluded === false || !r.empty()) fail(invalid);
  if ((!permitted && !excluded) || ((permitted?.body.length ?? 0) === 0 && (excluded?.body.length ?? 0) === 0)) fail('x509: empty name constraints extension');
  let unhandled = false;
  const values = (subtrees: Buffer | undefined) => {
    const out = { dns: [] as string[], ips: [] as IpNet[], emails: [] as string[], uris: [] as string[] };
    const s = new DerReader(subtrees ?? Buffer.alloc(0));
    while (!s.empty()) {
      const seq = s.read(TAG.SEQUENCE) ?? fail(invalid);
      const v = new DerReader(seq.body).any() ?? fail(invalid);
      const text = v.body.toString('latin1');
      const notIa5 = () => fail(`x509: invalid constraint value: x509: ${goQuote(text)} cannot be encoded as an IA5String`);
      switch (v.tag) {
        case ctx(2): {
          if (!ascii(v.body)) notIa5();
          if (!domainLabels(text.startsWith('.') ? text.slice(1) : text)) fail(`x509: failed to parse dnsName constraint ${goQuote(text)}`);
          out.dns.push(text);
          break;
        }
        case ctx(7): {
          if (v.body.length !== 8 && v.body.length !== 32) fail(`x509: IP constraint contained value of length ${v.body.length}`);
          const half = v.body.length / 2;
          const mask = v.body.subarray(half);
          if (!validMask(mask)) fail(`x509: IP constraint contained invalid mask ${mask.toString('hex')}`);
          out.ips.push({ ip: Buffer.from(v.body.subarray(0, half)), mask: Buffer.from(mask) });
          break;
        }
        case ctx(1): {
          if (!ascii(v.body)) notIa5();
          if (text.includes('@') ? !parseMailbox(text) : !domainLabels(text.startsWith('.') ? text.slice(1) : text)) fail(`x509: failed to parse rfc822Name constraint ${goQuote(text)}`);
          out.emails.push(text);
          break;
        }
        case ctx(6): {
          if (!ascii(v.body)) notIa5();
          if (parseIp(text)) fail(`x509: failed to parse URI constraint ${goQuote(text)}: cannot be IP address`);
          if (!domainLabels(text.startsWith('.') ? text.slice(1) : text)) fail(`x509: failed to parse URI constraint ${goQuote(text)}`);
          out.uris.push(text);
          break;
        }
        default:
          unhandled = true;
      }
    }
    return out;
  };
  const p = values(permitted?.body);
  const x = values(excluded?.body);
  cert.nameConstraints = {
    permittedDns: p.dns,
    excludedDns: x.dns,
    permittedIps: p.ips,
    excludedIps: x.ips,
    permittedEmails: p.emails,
    excludedEmails: x.emails,
    permittedUris: p.uris,
    excludedUris: x.uris,
  };
  return unhandled;
}

function crlDistributionPoints(value: Buffer): void {
  const seq = new DerReader(value).read(TAG.SEQUENCE) ?? fail('x509: invalid CRL distribution points');
  const r = new DerReader(seq.body);
  while (!r.empty()) {
    const dp = r.read(TAG.SEQUENCE) ?? fail('x509: invalid CRL distribution point');
    const d = new DerReader(dp.body);
    const name = d.optional(ctx(0, true));
    if (name === false) fail('x509: invalid CRL distribution point');
    if (!name) continue;
    const full = new DerReader(name.body).read(ctx(0, true)) ?? fail('x509: invalid CRL distribution point');
    const f = new DerReader(full.body);
    while (!f.empty()) {
      if (f.rest()[0] !== ctx(6)) break;
      if (!f.any()) fail('x509: invalid CRL distribution point');
    }
  }
}

function extKeyUsage(value: Buffer): string[] {
  const seq = new DerReader(value).read(TAG.SEQUENCE) ?? fail('x509: invalid extended key usages');
  const r = new DerReader(seq.body);
  const out: string[] = [];
  while (!r.empty()) {
    const o = r.read(TAG.OID);
    const oid = o ? oidOf(o) : undefined;
    if (!oid) fail('x509: invalid extended key usages');
    out.push(oid);
  }
  return out;
}

function certificatePolicies(value: Buffer): void {
  const seq = new DerReader(value).read(TAG.SEQUENCE) ?? fail('x509: invalid certificate policies');
  const r = new DerReader(seq.body);
  while (!r.empty()) {
    const cp = r.read(TAG.SEQUENCE);
    const o = cp ? new DerReader(cp.body).read(TAG.OID) : undefined;
    // newOIDFromDER: non-empty, minimal base-128 components (any size).
    if (!o || o.body.length === 0 || o.body[o.body.length - 1]! & 0x80 || !minimalBase128(o.body)) fail('x509: invalid certificate policies');
  }
}

function minimalBase128(b: Buffer): boolean {
  let start = true;
  for (const byte of b) {
    if (start && byte === 0x80) return false;
    start = !(byte & 0x80);
  }
  return true;
}

function authorityInfoAccess(value: Buffer): void {
  const seq = new DerReader(value).read(TAG.SEQUENCE) ?? fail('x509: invalid authority info access');
  const r = new DerReader(seq.body);
  while (!r.empty()) {
    const aia = r.read(TAG.SEQUENCE) ?? fail('x509: invalid authority info access');
    const a = new DerReader(aia.body);
    const m = a.read(TAG.OID);
    if (!m || !oidOf(m)) fail('x509: invalid authority info access');
    if (a.empty() || a.rest()[0] !== ctx(6)) continue;
    if (!a.any()) fail('x509: invalid authority info access');
  }
}
