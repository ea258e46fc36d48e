/**
 * Certificates built byte by byte for the adversarial TLS classes of issue 33: any key type Node can
 * make (RSA, RSA-PSS, EC on any named curve, Ed25519, Ed448), any signature algorithm and parameters
 * (ECDSA-SHA224, RSA-PSS with any salt), names in any string type, and the encodings Go refuses to
 * parse (a negative serial, a duplicated extension, a BOOLEAN that is not DER, keyUsage padding bits,
 * unparsable URIs and name constraints), signed by node:crypto so that OpenSSL still takes them.
 */
import { createHash, generateKeyPairSync, sign, constants, type KeyObject } from 'node:crypto';

export type KeyKind = 'rsa' | 'rsa-pss' | 'p256' | 'p384' | 'brainpool' | 'ed25519' | 'ed448';
export type SigKind = 'sha256-rsa' | 'sha1-rsa' | 'pss-sha256' | 'pss-sha256-salt20' | 'ecdsa-sha256' | 'ecdsa-sha224' | 'ecdsa-sha384' | 'ed25519' | 'ed448';

export interface Key {
  kind: KeyKind;
  privateKey: KeyObject;
  spki: Buffer;
  pem: string;
}

const keyCache = new Map<string, Key>();

/** A key of `kind` (`slot` tells keys of the same kind apart); generated once per process. */
export function key(kind: KeyKind, slot = 0): Key {
  const id = `${kind}/${slot}`;
  let k = keyCache.get(id);
  if (k) return k;
  const pair =
    kind === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : kind === 'rsa-pss' ? generateKeyPairSync('rsa-pss', { modulusLength: 2048 })
    : kind === 'p256' ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
    : kind === 'p384' ? generateKeyPairSync('ec', { namedCurve: 'secp384r1' })
    : kind === 'brainpool' ? generateKeyPairSync('ec', { namedCurve: 'brainpoolP256r1' })
    : kind === 'ed25519' ? generateKeyPairSync('ed25519')
    : generateKeyPairSync('ed448');
  k = {
    kind,
    privateKey: pair.privateKey,
    spki: pair.publicKey.export({ type: 'spki', format: 'der' }),
    pem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  };
  keyCache.set(id, k);
  return k;
}

// --- DER ---------------------------------------------------------------------------------------

export function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const len = n < 128 ? Buffer.from([n]) : n < 256 ? Buffer.from([0x81, n]) : n < 65536 ? Buffer.from([0x82, n >> 8, n & 0xff]) : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, content]);
}
export const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
export const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
export const octet = (b: Buffer) => tlv(0x04, b);
export const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));
export const nul = () => Buffer.from([0x05, 0x00]);

export function int(n: bigint | number): Buffer {
  let v = BigInt(n);
  const bytes: number[] = [];
  if (v === 0n) bytes.push(0);
  const negative = v < 0n;
  while (v !== 0n && v !== -1n) {
    bytes.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  if (!negative && bytes[0]! & 0x80) bytes.unshift(0);
  if (negative && (bytes.length === 0 || !(bytes[0]! & 0x80))) bytes.unshift(0xff);
  return tlv(0x02, Buffer.from(bytes));
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const body: number[] = [];
  const push = (n: number) => {
    const out = [n & 0x7f];
    for (n = Math.floor(n / 128); n > 0; n = Math.floor(n / 128)) out.unshift((n & 0x7f) | 0x80);
    body.push(...out);
  };
  push(parts[0]! * 40 + parts[1]!);
  for (const p of parts.slice(2)) push(p);
  return tlv(0x06, Buffer.from(body));
}

export function bits(bytes: Buffer, padding = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([padding]), bytes]));
}

function time(ms: number): Buffer {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const p = (n: number) => String(n).padStart(2, '0');
  const body = `${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return y >= 1950 && y < 2050 ? tlv(0x17, Buffer.from(`${p(y % 100)}${body}`)) : tlv(0x18, Buffer.from(`${y}${body}`));
}

/** A Name of one CN (and optionally an O), the CN in `stringTag` (0x0c UTF8String, 0x13 PrintableString). */
export function name(cn: string, stringTag = 0x0c, org?: string): Buffer {
  const atv = (type: string, value: string, tag: number) => set(seq(oid(type), tlv(tag, Buffer.from(value, 'utf8'))));
  return seq(...(org ? [atv('2.5.4.10', org, 0x0c)] : []), atv('2.5.4.3', cn, stringTag));
}

// --- certificates ------------------------------------------------------------------------------

export const OIDS = {
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  anyEku: '2.5.29.37.0',
  netscapeSgc: '2.16.840.1.113730.4.1',
  microsoftSgc: '1.3.6.1.4.1.311.10.3.3',
  policyConstraints: '2.5.29.36',
  inhibitAnyPolicy: '2.5.29.54',
  nsCertType: '2.16.840.1.113730.1.1',
  unknown: '1.3.6.1.4.1.55555.1.1',
} as const;

export interface Extension {
  oid: string;
  critical?: boolean;
  /** The critical BOOLEAN written as this byte (e.g. 0x01: not DER). */
  criticalByte?: number;
  value: Buffer;
}

export type GeneralName = { type: 'DNS' | 'email' | 'URI'; value: string } | { type: 'IP'; value: Buffer };

export interface RawSpec {
  cn: string;
  key: Key;
  /** undefined: self-signed (signed by `key`). */
  issuer?: RawIssued;
  /** The issuer Name written into this certificate (default: the issuer's subject bytes). */
  issuerName?: Buffer;
  subjectName?: Buffer;
  sig?: SigKind;
  serial?: bigint;
  ca?: boolean;
  pathLen?: number;
  noBasicConstraints?: boolean;
  /** Go's KeyUsage bits (bit 0 digitalSignature ... bit 5 keyCertSign, bit 6 cRLSign); undefined: none. */
  keyUsage?: number;
  /** keyUsage written with this many padding bits that are not zero. */
  keyUsagePaddingSet?: boolean;
  eku?: string[];
  san?: GeneralName[];
  /** Raw NameConstraints value (the SEQUENCE). */
  nameConstraints?: Buffer;
  ski?: Buffer;
  aki?: Buffer;
  notBefore?: number;
  notAfter?: number;
  extra?: Extension[];
  /** Write the extension with this OID twice. */
  duplicate?: string;
  /** Write the basicConstraints critical flag as a non-DER BOOLEAN (0x01). */
  nonDerCritical?: boolean;
}

export interface RawIssued {
  der: Buffer;
  pem: string;
  key: Key;
  subject: Buffer;
  ski: Buffer;
}

const DAY = 86_400_000;

function signatureAlgorithm(kind: SigKind): Buffer {
  const pss = (salt: number) =>
    seq(oid('1.2.840.113549.1.1.10'), seq(tlv(0xa0, seq(oid('2.16.840.1.101.3.4.2.1'), nul())), tlv(0xa1, seq(oid('1.2.840.113549.1.1.8'), seq(oid('2.16.840.1.101.3.4.2.1'), nul()))), tlv(0xa2, int(salt))));
  switch (kind) {
    case 'sha256-rsa':
      return seq(oid('1.2.840.113549.1.1.11'), nul());
    case 'sha1-rsa':
      return seq(oid('1.2.840.113549.1.1.5'), nul());
    case 'pss-sha256':
      return pss(32);
    case 'pss-sha256-salt20':
      return pss(20);
    case 'ecdsa-sha256':
      return seq(oid('1.2.840.10045.4.3.2'));
    case 'ecdsa-sha224':
      return seq(oid('1.2.840.10045.4.3.1'));
    case 'ecdsa-sha384':
      return seq(oid('1.2.840.10045.4.3.3'));
    case 'ed25519':
      return seq(oid('1.3.101.112'));
    case 'ed448':
      return seq(oid('1.3.101.113'));
  }
}

function signWith(kind: SigKind, k: KeyObject, data: Buffer): Buffer {
  switch (kind) {
    case 'sha256-rsa':
      return sign('sha256', data, k);
    case 'sha1-rsa':
      return sign('sha1', data, k);
    case 'pss-sha256':
      return sign('sha256', data, { key: k, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
    case 'pss-sha256-salt20':
      return sign('sha256', data, { key: k, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 20 });
    case 'ecdsa-sha256':
      return sign('sha256', data, k);
    case 'ecdsa-sha224':
      return sign('sha224', data, k);
    case 'ecdsa-sha384':
      return sign('sha384', data, k);
    case 'ed25519':
    case 'ed448':
      return sign(null, data, k);
  }
}

/** The signature algorithm a key signs with by default. */
export function defaultSig(k: Key): SigKind {
  return k.kind === 'rsa' ? 'sha256-rsa' : k.kind === 'rsa-pss' ? 'pss-sha256' : k.kind === 'ed25519' ? 'ed25519' : k.kind === 'ed448' ? 'ed448' : k.kind === 'p384' ? 'ecdsa-sha384' : 'ecdsa-sha256';
}

function generalNames(names: GeneralName[]): Buffer {
  const tags = { email: 0x81, DNS: 0x82, URI: 0x86, IP: 0x87 } as const;
  return seq(...names.map((n) => tlv(tags[n.type], typeof n.value === 'string' ? Buffer.from(n.value, 'latin1') : n.value)));
}

let serialCounter = 1000n;

export function build(spec: RawSpec): RawIssued {
  const signer = spec.issuer?.key ?? spec.key;
  const sig = spec.sig ?? defaultSig(signer);
  const subject = spec.subjectName ?? name(spec.cn);
  const issuerName = spec.issuerName ?? spec.issuer?.subject ?? subject;
  const ski = spec.ski ?? createHash('sha1').update(spec.key.spki).digest();
  const exts: Extension[] = [];
  if (!spec.noBasicConstraints) {
    const body = seq(...(spec.ca ? [bool(true)] : []), ...(spec.pathLen !== undefined ? [int(spec.pathLen)] : []));
    exts.push({ oid: '2.5.29.19', critical: true, ...(spec.nonDerCritical ? { criticalByte: 0x01 } : {}), value: body });
  }
  const ku = spec.keyUsage ?? (spec.ca ? 0b1100001 : 0b101);
  if (ku !== 0) {
    // Go's bit i is the BIT STRING's bit i: byte 0 holds bits 0-7 from the top, byte 1 bit 8.
    const b0 = [...Array(8).keys()].reduce((acc, i) => acc | (ku & (1 << i) ? 0x80 >> i : 0), 0);
    const bytes = ku & 0x100 ? Buffer.from([b0, 0x80]) : Buffer.from([b0]);
    let padding = 0;
    if (spec.keyUsagePaddingSet) {
      padding = 1;
      bytes[bytes.length - 1] = bytes[bytes.length - 1]! | 0x01;
    } else {
      const last = bytes[bytes.length - 1]!;
      while (padding < 7 && !(last & (1 << padding))) padding++;
    }
    exts.push({ oid: '2.5.29.15', critical: true, value: bits(bytes, padding) });
  }
  if (spec.eku) exts.push({ oid: '2.5.29.37', value: seq(...spec.eku.map(oid)) });
  if (spec.san) exts.push({ oid: '2.5.29.17', value: generalNames(spec.san) });
  if (spec.nameConstraints) exts.push({ oid: '2.5.29.30', critical: true, value: spec.nameConstraints });
  exts.push({ oid: '2.5.29.14', value: octet(ski) });
  const aki = spec.aki ?? spec.issuer?.ski;
  if (aki) exts.push({ oid: '2.5.29.35', value: seq(tlv(0x80, aki)) });
  exts.push(...(spec.extra ?? []));
  if (spec.duplicate) {
    const twin = exts.find((e) => e.oid === spec.duplicate);
    if (twin) exts.push(twin);
    else exts.push({ oid: spec.duplicate, value: nul() }, { oid: spec.duplicate, value: nul() });
  }
  const extDer = exts.map((e) => {
    const crit = e.criticalByte !== undefined ? tlv(0x01, Buffer.from([e.criticalByte])) : e.critical ? bool(true) : Buffer.alloc(0);
    return seq(oid(e.oid), crit, octet(e.value));
  });
  const serial = spec.serial ?? serialCounter++;
  const tbs = seq(
    tlv(0xa0, int(2)),
    int(serial),
    signatureAlgorithm(sig),
    issuerName,
    seq(time(spec.notBefore ?? Date.now() - DAY), time(spec.notAfter ?? Date.now() + 30 * DAY)),
    subject,
    spec.key.spki,
    tlv(0xa3, seq(...extDer)),
  );
  const der = seq(tbs, signatureAlgorithm(sig), bits(signWith(sig, signer.privateKey, tbs)));
  return { der, pem: pemOf(der), key: spec.key, subject, ski };
}

export function pemOf(der: Buffer, type = 'CERTIFICATE'): string {
  return `-----BEGIN ${type}-----\n${(der.toString('base64').match(/.{1,64}/g) ?? []).join('\n')}\n-----END ${type}-----\n`;
}

/** NameConstraints with permitted DNS names (raw strings) and IP ranges (ip bytes + mask bytes). */
export function nameConstraintsOf(o: { dns?: string[]; ips?: Buffer[] }): Buffer {
  const subtrees = [...(o.dns ?? []).map((d) => seq(tlv(0x82, Buffer.from(d, 'latin1')))), ...(o.ips ?? []).map((ip) => seq(tlv(0x87, ip)))];
  return seq(tlv(0xa0, Buffer.concat(subtrees)));
}
