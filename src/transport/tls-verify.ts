/**
 * Server-certificate checks, by the rules of Go's crypto/x509 (what kubectl uses).
 *
 * The fast path, `fastVerify`, decides in JS only the chains it can decide completely: the leaf is
 * a certificate of the kubeconfig's CA bundle or is signed directly by one (no intermediates), the
 * signing anchor has no name constraints, no certificate involved carries a critical extension
 * other than basicConstraints, keyUsage, extKeyUsage and subjectAltName (read with a small DER
 * walk: Node 20's X509Certificate does not list extensions), signatures use SHA-2 or Ed25519, and
 * every date parses. Why a JS path at all: passing `ca` to Node 20 makes it build its root store
 * first (~140 bundled certificates parsed: ~31 ms CPU on Node 20, ~5 ms on 22 and 24), although
 * only the kubeconfig's CAs are trusted. Anything else gets the verdict `openssl`: ./dial.ts then
 * has OpenSSL verify (the kubeconfig's CA as `ca`), reads its verdict from the socket and applies
 * Go's rules on top (names by type, who may sign, SHA-1) before anything is sent.
 *
 * On every path (fast, OpenSSL with the bundle, OpenSSL with the system roots) ./dial.ts also applies
 * the Go rules OpenSSL lacks: `checkName` (names read by type from the DER, ./cert-der.ts) and
 * `goChainProblem` (only a CA by Go's rules signs; no SHA-1 or MD5 signatures).
 *
 * Go's rules for names: subjectAltName only, never the CN; a wildcard stands for one whole
 * left-most label; an IP literal matches IP SANs only. Failures are Errors carrying the code
 * OpenSSL would use (or ERR_KDYN_X509 with Go's text), so ./errors.ts words them as kubectl does.
 */
import { X509Certificate } from 'node:crypto';
import { KEY_USAGE_CERT_SIGN, OID, factsOf, formatIp, goQuote, ip16, parseIp, type CertFacts } from './cert-der.js';
import { parsesAsDomain, parsesAsMailbox } from './go-names.js';

export type TlsVerifyError = Error & { code: string; host?: string; reason?: string; cert?: { subjectaltname?: string } };

/** accept; reject with kubectl's reason; or hand the chain to OpenSSL. */
export type FastVerdict = { verdict: 'accept' } | { verdict: 'reject'; error: TlsVerifyError } | { verdict: 'openssl'; why: string };

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const ANY_EKU = '2.5.29.37.0';

/** Critical extensions the fast path understands. */
const HANDLED_CRITICAL = new Set<string>([OID.basicConstraints, OID.keyUsage, OID.extKeyUsage, OID.subjectAltName]);
/** sha256/384/512 with RSA, ECDSA with SHA-256/384/512, Ed25519. */
const STRONG_SIGNATURES = new Set(['2a864886f70d01010b', '2a864886f70d01010c', '2a864886f70d01010d', '2a8648ce3d040302', '2a8648ce3d040303', '2a8648ce3d040304', '2b6570']);
/** Signature algorithms Go refuses to verify (InsecureAlgorithmError), by Go's names. */
const INSECURE_SIGNATURES: Record<string, string> = {
  '2a864886f70d010105': 'SHA1-RSA (temporarily override with GODEBUG=x509sha1=1)',
  '2a8648ce3d0401': 'ECDSA-SHA1 (temporarily override with GODEBUG=x509sha1=1)',
  '2a8648ce380403': 'DSA-SHA1 (temporarily override with GODEBUG=x509sha1=1)',
  '2a864886f70d010104': 'MD5-RSA',
  '2a864886f70d010102': 'MD2-RSA',
};

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

/** Why the fast path cannot judge this certificate alone (undefined when it can). */
function undecidable(c: X509Certificate, role: string): string | undefined {
  let facts: CertFacts;
  try {
    facts = factsOf(c);
  } catch {
    return `the ${role} certificate's DER could not be read`;
  }
  const critical = facts.extensions.find((e) => e.critical && !HANDLED_CRITICAL.has(e.oid));
  if (critical) return `the ${role} certificate has a critical extension (${critical.oid})`;
  if (role !== 'leaf' && facts.extensions.some((e) => e.oid === OID.nameConstraints)) return `the ${role} certificate has name constraints`;
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

/** Go's validHostname: letters, digits, '_' and '-' (not first); in a pattern, '*' only as the whole first label. */
function validHostname(host: string, pattern: boolean): boolean {
  const h = pattern ? host : host.replace(/\.$/, '');
  if (h.length === 0 || h === '*') return false;
  return h.split('.').every((label, i) => (pattern && i === 0 && label === '*') || /^[a-zA-Z0-9_][a-zA-Z0-9_-]*$/.test(label));
}

/** Go's matchHostnames: same number of labels, a `*` first label matches any one label. */
function matchHostnames(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase().split('.');
  const h = host.toLowerCase().replace(/\.$/, '');
  if (!pattern || !h) return false;
  const hp = h.split('.');
  return p.length === hp.length && p.every((part, i) => (i === 0 && part === '*') || part === hp[i]);
}

/**
 * Go's host-name check (crypto/x509 VerifyHostname, HostnameError) on the names read by type from
 * the leaf's DER: an IP literal against the IP SANs, a name against the DNS SANs (a `*` stands for
 * one whole first label), never the CN. Undefined when the name matches; the error's `reason` is
 * Go's text.
 */
export function checkName(leaf: X509Certificate, serverName: string): TlsVerifyError | undefined {
  const name = serverName.replace(/^\[(.*)\]$/, '$1');
  let facts: CertFacts;
  try {
    facts = factsOf(leaf);
  } catch (e) {
    return unparsable(e);
  }
  const dns = facts.san?.dns ?? [];
  const ips = facts.san?.ips ?? [];
  const ip = parseIp(name);
  if (ip) {
    if (ips.some((san) => ip16(san).equals(ip))) return undefined;
  } else {
    const host = name.toLowerCase();
    const validHost = validHostname(host, false);
    for (const pattern of dns) {
      const p = pattern.toLowerCase();
      if (validHost && validHostname(p, true) ? matchHostnames(p, host) : p === host && p !== '' && p !== '.') return undefined;
    }
  }
  if (!facts.san && matchHostnames(facts.commonName, name)) return altnameError(name, 'certificate relies on legacy Common Name field, use SANs instead');
  if (ip && ips.length === 0) return altnameError(name, `cannot validate certificate for ${name} because it doesn't contain any IP SANs`);
  const valid = ip ? ips.map(formatIp).join(', ') : dns.join(', ');
  if (!valid) return altnameError(name, `certificate is not valid for any names, but wanted to match ${name}`);
  return altnameError(name, `certificate is valid for ${valid}, not ${name}`);
}

/**
 * Go's CheckSignatureFrom rule for a parent: it may sign only if it is a CA (a v3 certificate needs
 * basicConstraints with CA:TRUE; any certificate with basicConstraints needs CA:TRUE) and its
 * keyUsage, when it has one, includes keyCertSign. Version 1 and 2 certificates without
 * basicConstraints may sign, as in Go.
 */
export function canSign(parent: CertFacts): boolean {
  if (parent.version === 3 && !parent.basicConstraints) return false;
  if (parent.basicConstraints && !parent.basicConstraints.ca) return false;
  return parent.keyUsage === 0 || (parent.keyUsage & KEY_USAGE_CERT_SIGN) !== 0;
}

/** How Go names a candidate authority in UnknownAuthorityError: CN, else the first O, else the serial. */
function authorityName(f: CertFacts): string {
  return f.commonName || f.organization || `serial:${f.serial}`;
}

/** Go's UnknownAuthorityError with its hint: why `parent` could not be the authority. */
function unknownAuthority(parent: CertFacts, hint: string): TlsVerifyError {
  return x509Error(`certificate signed by unknown authority (possibly because of ${JSON.stringify(hint)} while trying to verify candidate authority certificate ${JSON.stringify(authorityName(parent))})`);
}

/** Why Go would refuse `parent` as the signer of `child` (CheckSignatureFrom), as Go's error; else undefined. */
function signerProblem(child: CertFacts, parent: CertFacts): TlsVerifyError | undefined {
  if (!canSign(parent)) return unknownAuthority(parent, 'x509: invalid signature: parent certificate cannot sign this kind of certificate');
  const insecure = INSECURE_SIGNATURES[child.signatureOid];
  if (insecure) return unknownAuthority(parent, `x509: cannot verify signature: insecure algorithm ${insecure}`);
  return undefined;
}

/**
 * The Go rules OpenSSL lacks, on a chain it verified (leaf first, each certificate's issuer next,
 * the trust anchor last): every parent must be a CA by Go's rules (OpenSSL takes a trust anchor with
 * keyCertSign and no basicConstraints, and a certificate of the bundle as anchor in some setups), an
 * intermediate needs basicConstraints CA:TRUE, no certificate may be signed with SHA-1 or MD5, and
 * under a name-constrained CA every DNS and email name of the leaf must parse (./go-names.ts).
 */
export function goChainProblem(chain: readonly X509Certificate[], anchors: readonly X509Certificate[] = []): TlsVerifyError | undefined {
  let facts: CertFacts[];
  try {
    facts = chain.map((c) => factsOf(c));
  } catch (e) {
    return unparsable(e);
  }
  // OpenSSL may have verified through another issuer than the chain Node reports (it looks in the
  // trust store first): a certificate signed only by bundle certificates that may not sign is refused.
  for (const [i, c] of chain.entries()) {
    const signers = anchors.filter((a) => !a.raw.equals(c.raw) && a.subject === c.issuer && c.verify(a.publicKey));
    if (signers.length > 0 && !signers.some((a) => canSign(factsOf(a)))) return signerProblem(facts[i]!, factsOf(signers[0]!));
  }
  for (let i = 0; i + 1 < facts.length; i++) {
    const problem = signerProblem(facts[i]!, facts[i + 1]!) ?? (hasNameConstraints(facts[i + 1]!) ? unparsableName(facts[0]!) : undefined);
    if (problem) return problem;
    const intermediate = i + 2 < facts.length;
    if (intermediate && !facts[i + 1]!.basicConstraints?.ca) return x509Error('certificate is not authorized to sign other certificates');
  }
  return undefined;
}

/** Go's crypto/tls error for a certificate it cannot parse. */
function unparsable(e: unknown): TlsVerifyError {
  return fail('ERR_KDYN_CERT_PARSE', `tls: failed to parse certificate from server: ${(e as Error).message}`);
}

function hasNameConstraints(f: CertFacts): boolean {
  return f.extensions.some((e) => e.oid === OID.nameConstraints);
}

/** The first DNS or email name of the leaf that Go cannot parse for a name-constraint check, as Go's error. */
function unparsableName(leaf: CertFacts): TlsVerifyError | undefined {
  for (const { type, value } of leaf.san?.named ?? []) {
    // Go prints the zero mailbox it failed to fill (`%q` of an empty struct).
    if (type === 'email' && !parsesAsMailbox(value)) return x509Error('cannot parse rfc822Name {"" ""}');
    if (type === 'DNS' && !parsesAsDomain(value)) return x509Error(`cannot parse dnsName ${goQuote(value)}`);
  }
  return undefined;
}

/** A Go crypto/x509 verification error; ./errors.ts words it `tls: failed to verify certificate: x509: ...`. */
function x509Error(reason: string): TlsVerifyError {
  return fail('ERR_KDYN_X509', reason, { reason });
}

function altnameError(host: string, reason: string): TlsVerifyError {
  return fail('ERR_TLS_CERT_ALTNAME_INVALID', `Hostname/IP does not match certificate's altnames: ${reason}`, { host, reason });
}

/** Whether this process has had OpenSSL check an issuer and a signature yet (prepareAnchors). */
let openSslWarm = false;

/**
 * The part of fastVerify that needs only the CA bundle, done while the server answers the ClientHello:
 * each certificate's DER facts, public key, dates and key usages (cached on the certificate objects),
 * and, once per process, OpenSSL's first issuer check and signature verification (their first use
 * costs ~0.5 ms on Node 20's OpenSSL 3.0; later ones ~0.1 ms, which a fleet's next clusters would
 * spend on the CA's own signature for nothing). The verdict after the handshake then has only the
 * leaf to read. A certificate that fails here is left for fastVerify to meet and decide on.
 */
export function prepareAnchors(anchors: readonly X509Certificate[]): void {
  for (const a of anchors) {
    try {
      factsOf(a);
      void [a.publicKey, a.keyUsage, a.validFrom, a.validTo];
      if (!openSslWarm) {
        a.checkIssued(a);
        a.verify(a.publicKey);
        openSslWarm = true;
      }
    } catch {
      // fastVerify reads it again and says why
    }
  }
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
    const signers = anchors.filter((a) => leaf.checkIssued(a) && leaf.verify(a.publicKey));
    if (signers.length === 0) return openssl('no certificate of the CA bundle signed the leaf directly');
    // As Go, any one anchor that may sign will do; if none may, the first one's reason is the hint.
    const signer = signers.find((a) => canSign(factsOf(a)));
    if (!signer) return reject(signerProblem(factsOf(leaf), factsOf(signers[0]!))!);
    const anchorWhy = undecidable(signer, 'CA');
    if (anchorWhy) return openssl(anchorWhy);
    const anchorDates = datesError(signer, now);
    if (anchorDates) return reject(anchorDates);
    if (!ekuAllowsServer(signer)) return reject(fail('ERR_KDYN_CERT_EKU', 'certificate specifies an incompatible key usage'));
  }
  if (!ekuAllowsServer(leaf)) return reject(fail('ERR_KDYN_CERT_EKU', 'certificate specifies an incompatible key usage'));
  return { verdict: 'accept' };
}
