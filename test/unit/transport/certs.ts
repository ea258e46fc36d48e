/**
 * Certificates made for TLS tests: node-forge lays out the TBSCertificate (with any extension,
 * including name constraints and unknown ones, built here as DER), node:crypto signs it (native
 * RSA, ~1 ms a certificate, so hundreds of chains stay cheap). Keys are generated once per test
 * file (`loadKeys`) and reused round-robin.
 */
import { generateKeyPair, randomBytes, sign, createPrivateKey, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import forge from 'node-forge';

export const DAY = 24 * 60 * 60 * 1000;
const keyPair = promisify(generateKeyPair);

export interface Issued {
  pem: string;
  keyPem: string;
  key: KeyObject;
  subject: forge.pki.CertificateField[];
}

export interface CertSpec {
  cn: string;
  /** undefined: self-signed */
  issuer?: Issued;
  ca?: boolean;
  pathLen?: number;
  /** IPs and DNS names; undefined: no SAN extension at all */
  san?: string[];
  /** default: serverAuth for leaves, none for CAs */
  eku?: 'serverAuth' | 'clientAuth' | 'any' | 'none';
  /** default: `ca` for CAs, `server` for leaves */
  ku?: 'server' | 'digitalSignature' | 'ca' | 'none';
  notBefore?: number;
  notAfter?: number;
  /** notAfter is written as a UTCTime that does not parse (month 13) */
  badDate?: boolean;
  /** entries `DNS:name` or `IP:a.b.c.d/bits` */
  permitted?: string[];
  excluded?: string[];
  /** an extension of an unknown OID */
  unknownExt?: 'critical' | 'non-critical';
  /** key index (round-robin over the loaded keys by default) */
  keyIndex?: number;
  /**
   * subjectAltName entries by type, written as given (any bytes, NUL included): replaces `san`.
   * `dirName` is a directory name with that CommonName.
   */
  altNames?: Array<{ type: 'DNS' | 'IP' | 'email' | 'URI' | 'dirName'; value: string }>;
  /** a version 1 certificate: no extensions at all */
  v1?: boolean;
  /** leave out basicConstraints (a v3 certificate that is no CA by Go's rules) */
  noBasicConstraints?: boolean;
  /** signed with SHA-1 (sha1WithRSAEncryption) */
  sha1?: boolean;
}

interface KeyPair {
  privateKey: string;
  publicKey: string;
  object: KeyObject;
}

const keys: KeyPair[] = [];
let nextKey = 0;

/** Generates `n` RSA-2048 keys (once; later calls reuse them). */
export async function loadKeys(n: number): Promise<void> {
  if (keys.length >= n) return;
  const made = await Promise.all(
    Array.from({ length: n - keys.length }, () =>
      keyPair('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } }),
    ),
  );
  for (const k of made) keys.push({ ...k, object: createPrivateKey(k.privateKey) });
}

const asn1 = forge.asn1;

const GENERAL_NAME_TAG = { email: 1, DNS: 2, dirName: 4, URI: 6, IP: 7 } as const;

/** A subjectAltName extension's DER, entries typed as given (the text is not interpreted). */
function altNamesDer(entries: NonNullable<CertSpec['altNames']>): string {
  const names = entries.map(({ type, value }) => {
    const tag = GENERAL_NAME_TAG[type];
    if (type === 'dirName') {
      const cn = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
        asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, [
          asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
            asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer('2.5.4.3').getBytes()),
            asn1.create(asn1.Class.UNIVERSAL, asn1.Type.UTF8, false, forge.util.encodeUtf8(value)),
          ]),
        ]),
      ]);
      return asn1.create(asn1.Class.CONTEXT_SPECIFIC, tag, true, [cn]);
    }
    const bytes = type === 'IP' ? ipBytes(value) : Buffer.from(value, 'latin1').toString('binary');
    return asn1.create(asn1.Class.CONTEXT_SPECIFIC, tag, false, bytes);
  });
  return asn1.toDer(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, names)).getBytes();
}

/** An IP literal's bytes (4 or 16), as a binary string. */
function ipBytes(ip: string): string {
  if (isIP(ip) === 4) return String.fromCharCode(...ip.split('.').map(Number));
  const [head = '', tail = ''] = ip.split('::');
  const words = (s: string) => (s ? s.split(':').map((w) => parseInt(w, 16)) : []);
  const h = words(head);
  const t = words(tail);
  const all = [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
  return String.fromCharCode(...all.flatMap((w) => [w >> 8, w & 0xff]));
}

function generalName(entry: string): forge.asn1.Asn1 {
  const [kind, value = ''] = entry.split(/:(.*)/s);
  if (kind === 'DNS') return asn1.create(asn1.Class.CONTEXT_SPECIFIC, 2, false, value);
  const [ip = '', bitsStr = '32'] = value.split('/');
  const bytes = ip.split('.').map(Number);
  const bits = Number(bitsStr);
  const mask = [0, 1, 2, 3].map((i) => (bits >= (i + 1) * 8 ? 255 : bits <= i * 8 ? 0 : (0xff << (8 - (bits - i * 8))) & 0xff));
  return asn1.create(asn1.Class.CONTEXT_SPECIFIC, 7, false, String.fromCharCode(...bytes, ...mask));
}

function nameConstraints(permitted: string[] | undefined, excluded: string[] | undefined): forge.asn1.Asn1 {
  const subtrees = (tag: number, list: string[]) =>
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, tag, true, list.map((e) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [generalName(e)])));
  const parts: forge.asn1.Asn1[] = [];
  if (permitted?.length) parts.push(subtrees(0, permitted));
  if (excluded?.length) parts.push(subtrees(1, excluded));
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, parts);
}

export function issue(spec: CertSpec): Issued {
  if (keys.length === 0) throw new Error('loadKeys() first');
  const k = keys[(spec.keyIndex ?? nextKey++) % keys.length]!;
  const c = forge.pki.createCertificate();
  c.publicKey = forge.pki.publicKeyFromPem(k.publicKey);
  // First byte 0x40-0x7f: positive and minimally encoded (see serial() in test/support/apiserver/tls.ts;
  // a leading 00 00 made OpenSSL answer "illegal padding" here once in a long while).
  const serial = randomBytes(12);
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  c.serialNumber = serial.toString('hex');
  c.validity.notBefore = new Date(spec.notBefore ?? Date.now() - DAY);
  c.validity.notAfter = new Date(spec.notAfter ?? Date.now() + 30 * DAY);
  const subject = [{ name: 'commonName', value: spec.cn }];
  c.setSubject(subject);
  c.setIssuer(spec.issuer ? spec.issuer.subject : subject);
  const ext: object[] = spec.noBasicConstraints ? [] : [{ name: 'basicConstraints', cA: spec.ca === true, critical: true, ...(spec.pathLen !== undefined ? { pathLenConstraint: spec.pathLen } : {}) }];
  const ku = spec.ku ?? (spec.ca ? 'ca' : 'server');
  if (ku === 'ca') ext.push({ name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true });
  if (ku === 'server') ext.push({ name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true });
  if (ku === 'digitalSignature') ext.push({ name: 'keyUsage', digitalSignature: true, critical: true });
  const eku = spec.eku ?? (spec.ca ? 'none' : 'serverAuth');
  if (eku === 'serverAuth') ext.push({ name: 'extKeyUsage', serverAuth: true });
  if (eku === 'clientAuth') ext.push({ name: 'extKeyUsage', clientAuth: true });
  if (eku === 'any') ext.push({ name: 'extKeyUsage', '2.5.29.37.0': true });
  if (spec.san && !spec.altNames) ext.push({ name: 'subjectAltName', altNames: spec.san.map((h) => (isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })) });
  if (spec.altNames) ext.push({ id: '2.5.29.17', value: altNamesDer(spec.altNames) });
  if (spec.permitted?.length || spec.excluded?.length) ext.push({ id: '2.5.29.30', critical: true, value: asn1.toDer(nameConstraints(spec.permitted, spec.excluded)).getBytes() });
  if (spec.unknownExt) ext.push({ id: '1.3.6.1.4.1.55555.1.1', critical: spec.unknownExt === 'critical', value: asn1.toDer(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, '')).getBytes() });
  c.setExtensions(spec.v1 ? [] : ext);
  const sigOid = spec.sha1 ? forge.pki.oids.sha1WithRSAEncryption! : forge.pki.oids.sha256WithRSAEncryption!;
  c.siginfo.algorithmOid = sigOid;
  c.signatureOid = sigOid;
  const tbs = (forge.pki as unknown as { getTBSCertificate(c: forge.pki.Certificate): forge.asn1.Asn1 }).getTBSCertificate(c);
  // A v1 certificate has no version field (DER leaves out the default).
  if (spec.v1) (tbs.value as forge.asn1.Asn1[]).shift();
  if (spec.badDate) {
    const validity = (tbs.value as forge.asn1.Asn1[])[4]!;
    const notAfter = (validity.value as forge.asn1.Asn1[])[1]!;
    notAfter.type = asn1.Type.UTCTIME;
    notAfter.value = '301399000000Z';
  }
  const tbsDer = asn1.toDer(tbs).getBytes();
  const signingKey = spec.issuer ? spec.issuer.key : k.object;
  const sig = sign(spec.sha1 ? 'sha1' : 'sha256', Buffer.from(tbsDer, 'binary'), signingKey);
  const alg = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(sigOid).getBytes()),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, ''),
  ]);
  const certAsn1 = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    tbs,
    alg,
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, String.fromCharCode(0) + sig.toString('binary')),
  ]);
  const der = asn1.toDer(certAsn1).getBytes();
  const pem = forge.pem.encode({ type: 'CERTIFICATE', body: der }).replace(/\r\n/g, '\n');
  return { pem, keyPem: k.privateKey, key: k.object, subject: c.subject.attributes };
}
