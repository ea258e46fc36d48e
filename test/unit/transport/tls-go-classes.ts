/**
 * The adversarial classes of issue 33, generated (seeded) from tables of mutations crossed with the
 * position they take in a chain (leaf, intermediate, trust anchor), the key types and signature
 * algorithms, the CA bundle's encodings and the server names: for each, kubectl (Go) is the oracle.
 *
 * 1. certificates Go refuses to parse (negative serial, duplicated extension, a BOOLEAN not in DER,
 *    keyUsage padding bits, unparsable URI SANs, unparsable name constraints);
 * 2. signature algorithms and keys (Go's allowlist: ECDSA-SHA224, RSA-PSS with another salt, Ed448,
 *    RSA-PSS keys, brainpool; and the ones Go takes);
 * 3. CA bundle contents (no parsable certificate, `X509 CERTIFICATE` and `TRUSTED CERTIFICATE`
 *    blocks, blocks with headers, a malformed block beside the bypass of issue 33);
 * 4. the server name (brackets, ASCII-only case folding, the Kelvin sign);
 * 5. where OpenSSL's rules are not Go's (SGC EKUs, self-issued intermediates and path length, issuer
 *    names matched by bytes, critical extensions Go does not handle);
 * 6. where kdyn is stricter than kubectl (`stricter` says why; docs/kubectl-differences.md).
 */
import { randomBytes } from 'node:crypto';
import type { DiffCase } from './tls-adversarial.js';
import { build, int, key, name, nameConstraintsOf, OIDS, pemOf, seq, tlv, bits, type GeneralName, type KeyKind, type RawIssued, type RawSpec, type SigKind } from './der-certs.js';

export interface GoCase extends Omit<DiffCase, 'opensslDiffers'> {
  cls: number;
  /** kdyn may refuse where kubectl accepts, for this documented reason. */
  stricter?: string;
  /** Only in the system-roots mode: kdyn may refuse where kubectl accepts, for this reason. */
  stricterSystem?: string;
}

type Random = () => number;

const DAY = 86_400_000;
const SAN: GeneralName[] = [
  { type: 'IP', value: Buffer.from([127, 0, 0, 1]) },
  { type: 'DNS', value: 'localhost' },
  { type: 'DNS', value: 'kube.example' },
];

interface Chain {
  root: RawIssued;
  inter?: RawIssued;
  leaf: RawIssued;
}

let counter = 0;
let caseCounter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

/** A root, an optional intermediate and a leaf, each spec changed by its hook. */
function chain(o: { inter: boolean; root?: Partial<RawSpec>; mid?: Partial<RawSpec>; leaf?: Partial<RawSpec>; leafKey?: KeyKind; rootKey?: KeyKind; midKey?: KeyKind }): Chain {
  const root = build({ cn: unique('root'), key: key(o.rootKey ?? 'rsa', 0), ca: true, ...o.root });
  const inter = o.inter ? build({ cn: unique('int'), key: key(o.midKey ?? 'rsa', 1), issuer: root, ca: true, ...o.mid }) : undefined;
  const leaf = build({ cn: unique('leaf'), key: key(o.leafKey ?? 'rsa', 2), issuer: inter ?? root, eku: [OIDS.serverAuth], san: SAN, ...o.leaf });
  return { root, inter, leaf };
}

function caseOf(cls: number, text: string, c: Chain, r: Random, extra: Partial<GoCase> = {}): GoCase {
  const host = r() < 0.5 ? '127.0.0.1' : 'localhost';
  return {
    id: `c${cls}-${++caseCounter}`,
    cls,
    text,
    chainPem: [c.leaf.pem, ...(c.inter ? [c.inter.pem] : [])].join(''),
    keyPem: c.leaf.key.pem,
    caPem: c.root.pem,
    host,
    ...extra,
  };
}

type Position = 'leaf' | 'intermediate' | 'root';
const POSITIONS: Position[] = ['leaf', 'intermediate', 'root'];

/** Puts a spec change at a position of a chain (an intermediate is added for that position). */
function at(position: Position, change: Partial<RawSpec>, o: { rootKey?: KeyKind } = {}): Chain {
  if (position === 'leaf') return chain({ inter: false, leaf: change, ...o });
  if (position === 'intermediate') return chain({ inter: true, mid: change, ...o });
  return chain({ inter: false, root: change, ...o });
}

const bad = (hex: string) => Buffer.from(hex, 'hex');

/** Class 1: what Go's parser refuses, with a control (what it takes) in each table. */
function parseClass(r: Random): GoCase[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const mutations: Array<[string, () => Partial<RawSpec>]> = [
    ['a negative serial', () => ({ serial: -BigInt(1 + Math.floor(r() * 1e9)) })],
    ['a serial of 0 (Go takes it)', () => ({ serial: 0n })],
    ['a duplicated extension', () => ({ duplicate: pick(['2.5.29.19', '2.5.29.15', '2.5.29.14', OIDS.unknown, '2.5.29.37']) })],
    ['a critical BOOLEAN written 0x01 (not DER)', () => ({ nonDerCritical: true })],
    ['keyUsage with a padding bit set', () => ({ keyUsagePaddingSet: true })],
    ['a URI SAN Go cannot parse', () => ({ san: [...SAN, { type: 'URI', value: pick(['https://example.com./', '%zz', 'https://kube.example/a%zz', 'https://ex ample.com/', 'http://[::1/', 'https://kube.example:port/', 'https://kube.example/#%zz', ':foo']) }] })],
    ['a URI SAN Go takes', () => ({ san: [...SAN, { type: 'URI', value: pick(['https://kube.example/ok', 'spiffe://cluster.local/ns/x', 'urn:example:x', 'https://kube.example:6443/a%20b']) }] })],
    ['name constraints Go cannot parse', () => ({ nameConstraints: pick([nameConstraintsOf({ ips: [bad('0a000000ff00ff00')] }), nameConstraintsOf({ dns: ['example.com.'] }), nameConstraintsOf({ dns: ['.kube.example.'] }), nameConstraintsOf({ ips: [bad('0a00000000')] }), seq()]) })],
    ['name constraints Go takes', () => ({ nameConstraints: pick([nameConstraintsOf({ dns: ['kube.example', 'localhost'], ips: [bad('7f000000ff000000')] }), nameConstraintsOf({ dns: ['.example.org'] })]) })],
  ];
  const out: GoCase[] = [];
  for (const [what, make] of mutations) {
    for (const position of POSITIONS) {
      const change = make();
      // Name constraints on a CA constrain the leaf; the leaf's own are only parsed.
      const c = at(position, change);
      const text = `${what} on the ${position} (${JSON.stringify(change, (k, v) => (typeof v === 'bigint' ? v.toString() : Buffer.isBuffer(v) || (v && v.type === 'Buffer') ? '<der>' : k === 'san' ? undefined : v))})`;
      out.push(caseOf(1, text, c, r));
    }
  }
  return out;
}

/** Class 2: signature algorithms (Go's allowlist) on a leaf and on an intermediate, and leaf key types. */
function signatureClass(r: Random): GoCase[] {
  const signers: Array<[KeyKind, SigKind]> = [
    ['rsa', 'sha256-rsa'],
    ['rsa', 'pss-sha256'],
    ['rsa', 'pss-sha256-salt20'],
    ['rsa', 'sha1-rsa'],
    ['p256', 'ecdsa-sha256'],
    ['p256', 'ecdsa-sha224'],
    ['p384', 'ecdsa-sha384'],
    ['ed25519', 'ed25519'],
    ['ed448', 'ed448'],
    ['rsa-pss', 'pss-sha256'],
  ];
  const out: GoCase[] = [];
  for (const [rootKey, sig] of signers) {
    const leafSigned = chain({ inter: false, rootKey, leaf: { sig } });
    out.push(caseOf(2, `a leaf signed by a ${rootKey} root with ${sig}`, leafSigned, r));
    const root = build({ cn: unique('root'), key: key(rootKey, 0), ca: true });
    const inter = build({ cn: unique('int'), key: key('rsa', 1), issuer: root, ca: true, sig });
    const leaf = build({ cn: unique('leaf'), key: key('rsa', 2), issuer: inter, eku: [OIDS.serverAuth], san: SAN });
    out.push(caseOf(2, `an intermediate signed by a ${rootKey} root with ${sig}`, { root, inter, leaf }, r));
  }
  for (const leafKey of ['rsa-pss', 'ed448', 'p256', 'p384', 'ed25519', 'brainpool'] as const) {
    out.push(caseOf(2, `a ${leafKey} leaf key (signed with SHA256-RSA)`, chain({ inter: false, leafKey }), r));
  }
  return out;
}

/** A CERTIFICATE block whose base64 decodes to bytes that are no certificate. */
const MALFORMED_BLOCK = pemOf(Buffer.from('3003020101', 'hex'));

/** Class 3: CA bundle contents, and the bypass of issue 33 (a no-CA anchor beside a malformed block). */
function bundleClass(r: Random): GoCase[] {
  const out: GoCase[] = [];
  const good = chain({ inter: false });
  const variants: Array<[string, string]> = [
    ['an `X509 CERTIFICATE` block', good.root.pem.replace(/CERTIFICATE/g, 'X509 CERTIFICATE')],
    ['a `TRUSTED CERTIFICATE` block', good.root.pem.replace(/CERTIFICATE/g, 'TRUSTED CERTIFICATE')],
    ['a block with a header', good.root.pem.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n\n')],
    ['a malformed block before the root', MALFORMED_BLOCK + good.root.pem],
    ['the root with CRLF line ends', good.root.pem.replace(/\n/g, '\r\n')],
    ['the root with bad base64 padding', good.root.pem.replace(/=*\n-----END/, '\n-----END')],
  ];
  for (const [what, caPem] of variants) {
    // Node reads NODE_EXTRA_CA_CERTS itself and stops at the first block it cannot read.
    const stricterSystem = what.startsWith('a malformed block') ? 'Node stops reading NODE_EXTRA_CA_CERTS at a block it cannot read; Go skips it' : undefined;
    out.push({ ...caseOf(3, `CA bundle: ${what}`, good, r), caPem, ...(stricterSystem ? { stricterSystem } : {}) });
  }
  for (const [what, change, rootKey] of [
    ['a brainpool root', {}, 'brainpool'],
    ['a negative-serial root', { serial: -7n }, 'rsa'],
  ] as const) {
    const c = chain({ inter: false, root: change, rootKey });
    out.push(caseOf(3, `CA bundle: only ${what}`, c, r));
    out.push({ ...caseOf(3, `CA bundle: ${what} beside an unrelated CA`, c, r), caPem: c.root.pem + build({ cn: unique('other'), key: key('rsa', 3), ca: true }).pem });
  }
  // The bypass: an anchor that may not sign (v3, keyCertSign, no basicConstraints), a CA:TRUE twin
  // with its subject and key presented by the server, with and without a malformed block after it.
  for (const malformed of [true, false]) {
    for (const twinPresented of [true, false]) {
      const anchorKey = key('rsa', 4);
      const cn = unique('no-ca');
      const anchor = build({ cn, key: anchorKey, noBasicConstraints: true, keyUsage: 0b1100000 });
      const twin = build({ cn, key: anchorKey, ca: true });
      const leaf = build({ cn: unique('leaf'), key: key('rsa', 2), issuer: twin, eku: [OIDS.serverAuth], san: SAN });
      const c: Chain = { root: anchor, leaf, ...(twinPresented ? { inter: twin } : {}) };
      out.push({ ...caseOf(3, `the bypass: a no-CA anchor${malformed ? ' and a malformed block' : ''}; ${twinPresented ? 'a CA:TRUE twin presented' : 'no twin'}`, c, r), caPem: anchor.pem + (malformed ? MALFORMED_BLOCK : '') });
    }
  }
  return out;
}

/** Class 4: the server name. */
function nameClass(r: Random): GoCase[] {
  const out: GoCase[] = [];
  for (const serverName of ['[kube.example]', '[127.0.0.1]', 'KUBE.example', 'kube.example.', '\u212Aube.example', 'kube.\u212Axample', '[localhost]', 'Kube.Example']) {
    const c = chain({ inter: r() < 0.5 });
    out.push({ ...caseOf(4, `tls-server-name ${JSON.stringify(serverName)}`, c, r), serverName });
  }
  const kelvinSan = chain({ inter: false, leaf: { san: [{ type: 'DNS', value: 'kube.example' }] } });
  out.push({ ...caseOf(4, 'tls-server-name with the Kelvin sign against an ASCII SAN', kelvinSan, r), serverName: '\u212Aube.example' });
  return out;
}

/** Class 5: where OpenSSL's rules are not Go's. */
function opensslClass(r: Random): GoCase[] {
  const out: GoCase[] = [];
  for (const sgc of [OIDS.netscapeSgc, OIDS.microsoftSgc]) {
    out.push(caseOf(5, `a leaf whose only EKU is SGC ${sgc}, via an intermediate`, chain({ inter: true, leaf: { eku: [sgc] } }), r));
    out.push(caseOf(5, `an intermediate whose only EKU is SGC ${sgc}`, chain({ inter: true, mid: { eku: [sgc] } }), r));
    out.push(caseOf(5, `an intermediate with EKUs SGC ${sgc} and serverAuth`, chain({ inter: true, mid: { eku: [sgc, OIDS.serverAuth] } }), r));
  }
  // A self-issued intermediate (its subject is the root's) under a root of pathLen 0.
  for (const pathLen of [0, 1]) {
    const root = build({ cn: unique('root'), key: key('rsa', 0), ca: true, pathLen });
    const inter = build({ cn: 'x', subjectName: root.subject, key: key('rsa', 1), issuer: root, ca: true });
    const leaf = build({ cn: unique('leaf'), key: key('rsa', 2), issuer: inter, eku: [OIDS.serverAuth], san: SAN });
    out.push(caseOf(5, `a self-issued intermediate under a root of pathLen ${pathLen}`, { root, inter, leaf }, r));
  }
  // Issuer names that match only in OpenSSL's canonical form.
  for (const [what, issuerName] of [
    ['PrintableString where the root has UTF8String', (cn: string) => name(cn, 0x13)],
    ['in upper case', (cn: string) => name(cn.toUpperCase())],
    ['byte-equal (control)', (cn: string) => name(cn)],
  ] as const) {
    const root = build({ cn: unique('root'), key: key('rsa', 0), ca: true });
    const rootCn = rootName(root);
    const leaf = build({ cn: unique('leaf'), key: key('rsa', 2), issuer: root, issuerName: issuerName(rootCn), eku: [OIDS.serverAuth], san: SAN });
    out.push(caseOf(5, `the leaf's issuer name ${what}`, { root, leaf }, r));
  }
  const criticals: Array<[string, Buffer]> = [
    ['policyConstraints', seq(tlv(0x80, Buffer.from([0])))],
    ['nsCertType', bits(Buffer.from([0x40]), 6)],
    ['inhibitAnyPolicy', int(0)],
  ];
  for (const [ext, value] of criticals) {
    const oid = ext === 'policyConstraints' ? OIDS.policyConstraints : ext === 'nsCertType' ? OIDS.nsCertType : OIDS.inhibitAnyPolicy;
    for (const position of POSITIONS) {
      out.push(caseOf(5, `a critical ${ext} on the ${position}`, at(position, { extra: [{ oid, critical: true, value }] }), r));
    }
    out.push(caseOf(5, `a non-critical ${ext} on the leaf (control)`, at('leaf', { extra: [{ oid, value }] }), r));
  }
  return out;
}

function rootName(root: RawIssued): string {
  // The CN written by name(): the last AttributeValue's text.
  const text = root.subject.toString('latin1');
  return /(root-\d+)/.exec(text)![1]!;
}

/** Class 6: renewed certificates, key identifiers and pinned leaves, where kdyn may be stricter. */
function stricterClass(r: Random): GoCase[] {
  const out: GoCase[] = [];
  // A CA renewed with the same key and subject, the expired copy first in the bundle.
  {
    const rootKey = key('rsa', 5);
    const cn = unique('root');
    const expired = build({ cn, key: rootKey, ca: true, notBefore: Date.now() - 40 * DAY, notAfter: Date.now() - DAY });
    const renewed = build({ cn, key: rootKey, ca: true });
    const leaf = build({ cn: unique('leaf'), key: key('rsa', 2), issuer: renewed, eku: [OIDS.serverAuth], san: SAN });
    out.push({ ...caseOf(6, 'a CA renewed with the same key, the expired copy first in the bundle', { root: renewed, leaf }, r), caPem: expired.pem + renewed.pem });
  }
  // An intermediate renewed with the same key, the expired copy in the bundle, the new one presented.
  {
    const root = build({ cn: unique('root'), key: key('rsa', 0), ca: true });
    const cn = unique('int');
    const expired = build({ cn, key: key('rsa', 1), issuer: root, ca: true, notBefore: Date.now() - 40 * DAY, notAfter: Date.now() - DAY });
    const renewed = build({ cn, key: key('rsa', 1), issuer: root, ca: true });
    const leaf = build({ cn: unique('leaf'), key: key('rsa', 2), issuer: renewed, eku: [OIDS.serverAuth], san: SAN });
    out.push({ ...caseOf(6, 'an intermediate renewed with the same key, the expired copy in the bundle', { root, inter: renewed, leaf }, r), caPem: root.pem + expired.pem, stricter: 'OpenSSL takes the expired intermediate of the bundle as the trust anchor and stops there; Go tries every candidate' });
  }
  // A leaf whose authorityKeyIdentifier does not match the root's subjectKeyIdentifier.
  out.push({ ...caseOf(6, "a leaf whose AKI is not the root's SKI", chain({ inter: false, leaf: { aki: randomBytes(20) } }), r), stricter: 'OpenSSL requires the AKI to match the issuer\'s SKI; Go does not' });
  out.push({ ...caseOf(6, "an intermediate whose AKI is not the root's SKI", chain({ inter: true, mid: { aki: randomBytes(20) } }), r), stricter: 'OpenSSL requires the AKI to match the issuer\'s SKI; Go does not' });
  // A pinned serving certificate that is not self-signed (signed by an unknown CA), alone in the bundle.
  {
    const c = chain({ inter: false });
    out.push({ ...caseOf(6, 'a pinned leaf that is not self-signed, alone in the bundle', c, r), caPem: c.leaf.pem, stricterSystem: 'Node\'s store (OpenSSL without partial chains) takes only self-signed roots as anchors; Go takes any certificate of its pool' });
  }
  return out;
}

export function goClasses(r: Random): GoCase[] {
  return [...parseClass(r), ...signatureClass(r), ...bundleClass(r), ...nameClass(r), ...opensslClass(r), ...stricterClass(r)];
}
