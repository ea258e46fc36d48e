/**
 * Server-certificate checks, by the rules of Go's crypto/x509 (what kubectl uses).
 *
 * The fast path, `fastVerify`, decides in JS only the chains it can decide completely: the leaf is
 * a certificate of the kubeconfig's CA bundle or is signed directly by one (no intermediates), the
 * signing anchor has no name constraints, no certificate involved carries a critical extension
 * other than basicConstraints, keyUsage, extKeyUsage and subjectAltName (read with a small DER
 * walk: Node 20's X509Certificate does not list extensions), signatures use SHA-2 or Ed25519, and
 * every date parses. Why a JS path at all: passing `ca` to Node 20 makes it build its root store
 * first (~140 bundled certificates parsed, 20-28 ms on every run), although only the kubeconfig's
 * CAs are trusted. Anything else gets the verdict `openssl`: ./dial.ts then verifies with OpenSSL
 * (the kubeconfig's CA as `ca`, `rejectUnauthorized`), with the host name checked by `checkName`.
 *
 * Go's rules for names: subjectAltName only, never the CN; a wildcard stands for one whole
 * left-most label; an IP literal matches IP SANs only. Failures are Errors carrying the code
 * OpenSSL would use, so ./errors.ts words them as kubectl does.
 */
import { X509Certificate } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

export type TlsVerifyError = Error & { code: string; host?: string; reason?: string; cert?: { subjectaltname?: string } };

/** accept; reject with kubectl's reason; or hand the chain to OpenSSL. */
export type FastVerdict = { verdict: 'accept' } | { verdict: 'reject'; error: TlsVerifyError } | { verdict: 'openssl'; why: string };

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const ANY_EKU = '2.5.29.37.0';

/** Extension OIDs (DER content bytes, hex) the fast path understands. */
const OID_BASIC_CONSTRAINTS = '551d13';
const OID_KEY_USAGE = '551d0f';
const OID_EXT_KEY_USAGE = '551d25';
const OID_SUBJECT_ALT_NAME = '551d11';
const OID_NAME_CONSTRAINTS = '551d1e';
const HANDLED_CRITICAL = new Set([OID_BASIC_CONSTRAINTS, OID_KEY_USAGE, OID_EXT_KEY_USAGE, OID_SUBJECT_ALT_NAME]);
/** sha256/384/512 with RSA, ECDSA with SHA-256/384/512, Ed25519. */
const STRONG_SIGNATURES = new Set(['2a864886f70d01010b', '2a864886f70d01010c', '2a864886f70d01010d', '2a8648ce3d040302', '2a8648ce3d040303', '2a8648ce3d040304', '2b6570']);

const parsedBundles = new WeakMap<Buffer, X509Certificate[] | undefined>();

/** The certificates of a PEM bundle; undefined if there are none or one does not parse. Parsed once per Buffer. */
export function parseCaBundle(pem: Buffer | string): X509Certificate[] | undefined {
  if (typeof pem !== 'string' && parsedBundles.has(pem)) return parsedBundles.get(pem);
  const text = typeof pem === 'string' ? pem : pem.toString('latin1');
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);
  let certs: X509Certificate[] | undefined;
  try {
    certs = blocks?.map((b) => new X509Certificate(b));
  } catch {
    certs = undefined;
  }
  if (typeof pem !== 'string') parsedBundles.set(pem, certs);
  return certs;
}

/**
 * client-go's rootCertPool check (transport/transport.go): why a CA bundle holds no usable
 * certificate, in Go's words; undefined when at least one certificate parses.
 */
export function caBundleProblem(pem: Buffer): string | undefined {
  if (parseCaBundle(pem)) return undefined;
  const blocks = pem.toString('latin1').match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g);
  if (!blocks) return 'unable to parse bytes as PEM block';
  let reason = 'no valid certificate authority data seen';
  for (const b of blocks) {
    if (!b.startsWith('-----BEGIN CERTIFICATE-----')) continue;
    try {
      new X509Certificate(b);
      return undefined;
    } catch {
      reason = 'failed to parse certificate: x509: malformed certificate';
    }
  }
  return reason;
}

function fail(code: string, message: string, extra: Partial<TlsVerifyError> = {}): TlsVerifyError {
  return Object.assign(new Error(message), { code }, extra);
}

// ---- a minimal DER reader: just enough to list a certificate's extensions ----

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

export interface CertFacts {
  /** Every extension: OID (hex of its DER content) and whether it is critical. */
  extensions: Array<{ oid: string; critical: boolean }>;
  /** The outer signature algorithm OID (hex). */
  signatureOid: string;
}

/** Reads the extensions and the signature algorithm from a certificate's DER. Throws on malformed input. */
export function certFacts(der: Buffer): CertFacts {
  const cert = tlv(der, 0, der.length);
  const [tbs, sigAlg] = children(der, cert);
  if (!tbs || !sigAlg || tbs.tag !== 0x30 || sigAlg.tag !== 0x30) throw new Error('not a certificate');
  const algOid = children(der, sigAlg)[0];
  if (!algOid || algOid.tag !== 0x06) throw new Error('bad signature algorithm');
  const extensions: CertFacts['extensions'] = [];
  const wrapper = children(der, tbs).find((t) => t.tag === 0xa3);
  if (wrapper) {
    const [list] = children(der, wrapper);
    if (!list || list.tag !== 0x30) throw new Error('bad extensions');
    for (const ext of children(der, list)) {
      const parts = children(der, ext);
      const oid = parts[0];
      if (!oid || oid.tag !== 0x06) throw new Error('bad extension');
      const crit = parts[1]?.tag === 0x01 ? der[parts[1].start] !== 0 : false;
      extensions.push({ oid: der.subarray(oid.start, oid.end).toString('hex'), critical: crit });
    }
  }
  return { extensions, signatureOid: der.subarray(algOid.start, algOid.end).toString('hex') };
}

/** Why the fast path cannot judge this certificate alone (undefined when it can). */
function undecidable(c: X509Certificate, role: string): string | undefined {
  let facts: CertFacts;
  try {
    facts = certFacts(c.raw);
  } catch {
    return `the ${role} certificate's DER could not be read`;
  }
  const critical = facts.extensions.find((e) => e.critical && !HANDLED_CRITICAL.has(e.oid));
  if (critical) return `the ${role} certificate has a critical extension (${critical.oid})`;
  if (role !== 'leaf' && facts.extensions.some((e) => e.oid === OID_NAME_CONSTRAINTS)) return `the ${role} certificate has name constraints`;
  if (!STRONG_SIGNATURES.has(facts.signatureOid)) return `the ${role} certificate's signature algorithm (${facts.signatureOid})`;
  if (Number.isNaN(Date.parse(c.validFrom)) || Number.isNaN(Date.parse(c.validTo))) return `the ${role} certificate's validity dates do not parse`;
  const bits = c.publicKey.asymmetricKeyDetails?.modulusLength;
  if (bits !== undefined && bits < 2048) return `the ${role} certificate's RSA key has ${bits} bits`;
  return undefined;
}

function datesError(c: X509Certificate, now: number): TlsVerifyError | undefined {
  if (now < Date.parse(c.validFrom)) return fail('CERT_NOT_YET_VALID', 'certificate is not yet valid');
  if (now > Date.parse(c.validTo)) return fail('CERT_HAS_EXPIRED', 'certificate has expired');
  return undefined;
}

function ekuAllowsServer(c: X509Certificate): boolean {
  const eku = c.keyUsage; // Node names the extended key usage OIDs `keyUsage`; undefined when absent
  return !eku || eku.length === 0 || eku.includes(SERVER_AUTH) || eku.includes(ANY_EKU);
}

/** The DNS and IP subjectAltNames of a certificate (IPv6 in Go's compressed form). */
export function sanNames(c: X509Certificate): { dns: string[]; ips: string[] } {
  const dns: string[] = [];
  const ips: string[] = [];
  // Node lists them as `DNS:a, IP Address:1.2.3.4`, quoting (JSON) any entry with a comma or quote.
  for (const m of (c.subjectAltName ?? '').matchAll(/(DNS|IP Address):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/g)) {
    const value = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
    if (m[1] === 'DNS') dns.push(value);
    else ips.push(isIP(value) === 6 ? new URL(`http://[${value}]`).hostname.slice(1, -1) : value);
  }
  return { dns, ips };
}

/** Go's validHostname: letters, digits, '_' and '-' (not first); in a pattern, '*' only as the whole first label. */
function validHostname(host: string, pattern: boolean): boolean {
  const h = pattern ? host : host.replace(/\.$/, '');
  if (h.length === 0 || h === '*') return false;
  return h.split('.').every((label, i) => (pattern && i === 0 && label === '*') || /^[a-zA-Z0-9_][a-zA-Z0-9_-]*$/.test(label));
}

/** Go's matchHostnames: same number of labels, a `*` first label matches any one label. */
function matchHostnames(pattern: string, host: string): boolean {
  const p = pattern.split('.');
  const h = host.replace(/\.$/, '').split('.');
  if (!pattern || !host || p.length !== h.length) return false;
  return p.every((part, i) => (i === 0 && part === '*') || part === h[i]);
}

function sameIp(a: string, b: string): boolean {
  const fa = isIP(a);
  if (!fa || fa !== isIP(b)) return false;
  // Two spellings of one address (IPv6 zero runs, IPv4-mapped forms) need BlockList, whose load
  // (node's internal blocklist and socketaddress modules) every `kdyn get` to 127.0.0.1 used to pay.
  if (a === b) return true;
  const list = new BlockList();
  list.addAddress(a, fa === 4 ? 'ipv4' : 'ipv6');
  return list.check(b, fa === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Go's host-name check (crypto/x509 VerifyHostname, HostnameError): an IP literal against the IP
 * SANs, a name against the DNS SANs (a `*` stands for one whole first label), never the CN.
 * Undefined when the name matches; the error's `reason` is Go's text.
 */
export function checkName(leaf: X509Certificate, serverName: string): TlsVerifyError | undefined {
  const name = serverName.replace(/^\[(.*)\]$/, '$1');
  const { dns, ips } = sanNames(leaf);
  let valid: string;
  if (isIP(name)) {
    if (ips.some((ip) => sameIp(ip, name))) return undefined;
    if (ips.length === 0) return altnameError(name, `cannot validate certificate for ${name} because it doesn't contain any IP SANs`);
    valid = ips.join(', ');
  } else {
    const host = name.toLowerCase();
    const validHost = validHostname(host, false);
    for (const pattern of dns) {
      const p = pattern.toLowerCase();
      if (validHost && validHostname(p, true) ? matchHostnames(p, host) : p === host && p !== '' && p !== '.') return undefined;
    }
    valid = dns.join(', ');
  }
  if (!valid) return altnameError(name, `certificate is not valid for any names, but wanted to match ${name}`);
  return altnameError(name, `certificate is valid for ${valid}, not ${name}`);
}

function altnameError(host: string, reason: string): TlsVerifyError {
  return fail('ERR_TLS_CERT_ALTNAME_INVALID', `Hostname/IP does not match certificate's altnames: ${reason}`, { host, reason });
}

/**
 * The fast path. `serverName` is the tls-server-name, else the URL's host. The certificates the
 * server sent after its leaf are never used here: a chain that needs them goes to OpenSSL.
 */
export function fastVerify(leaf: X509Certificate, anchors: readonly X509Certificate[], serverName: string, now: number): FastVerdict {
  const openssl = (why: string): FastVerdict => ({ verdict: 'openssl', why });
  const reject = (error: TlsVerifyError): FastVerdict => ({ verdict: 'reject', error });
  const leafWhy = undecidable(leaf, 'leaf');
  if (leafWhy) return openssl(leafWhy);
  const dates = datesError(leaf, now);
  if (dates) return reject(dates);
  const name = checkName(leaf, serverName);
  if (name) return reject(name);

  // The leaf itself is trusted (e.g. a self-signed serving certificate in the bundle).
  const trusted = anchors.some((a) => a.raw.equals(leaf.raw));
  if (trusted) {
    const asAnchor = undecidable(leaf, 'CA');
    if (asAnchor) return openssl(asAnchor);
  } else {
    const signer = anchors.find((a) => leaf.checkIssued(a) && leaf.verify(a.publicKey));
    if (!signer) return openssl('no certificate of the CA bundle signed the leaf directly');
    const anchorWhy = undecidable(signer, 'CA');
    if (anchorWhy) return openssl(anchorWhy);
    const anchorDates = datesError(signer, now);
    if (anchorDates) return reject(anchorDates);
    if (!ekuAllowsServer(signer)) return reject(fail('ERR_KDYN_CERT_EKU', 'certificate specifies an incompatible key usage'));
  }
  if (!ekuAllowsServer(leaf)) return reject(fail('ERR_KDYN_CERT_EKU', 'certificate specifies an incompatible key usage'));
  return { verdict: 'accept' };
}
