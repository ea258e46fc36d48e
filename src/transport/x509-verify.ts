/**
 * Go's verdict on a server's certificates (crypto/tls verifyServerCertificate, crypto/x509 Verify,
 * go1.23), rule for rule: every certificate the server sent must parse (./x509-parse.ts); the leaf is
 * checked (unhandled critical extensions, dates, the host name by type, never the CN), then every
 * chain to a trust anchor is built as Go builds it (any candidate whose subject bytes equal the
 * issuer bytes; only CAs sign; Go's allowlist of signature algorithms and keys, signatures verified by
 * node:crypto; path lengths over all intermediates; name constraints of every CA above; no unhandled
 * critical extension), and one chain must allow serverAuth through every certificate. Then Go's TLS
 * key check on the leaf. kdyn connects only if this and OpenSSL both accept (./dial.ts).
 *
 * Errors carry the code ./errors.ts words as kubectl does (ERR_KDYN_X509 with Go's reason).
 */
import { constants, verify as cryptoVerify } from 'node:crypto';
import { EKU_ANY, EKU_SERVER_AUTH, KEY_USAGE_CERT_SIGN, parseCertificate, rawSubjectOf, type GoCertificate, type IpNet, type SignatureAlgorithm } from './x509-parse.js';
import { domainLabels, parseMailbox, type Mailbox } from './go-names.js';
import { formatIp, goQuote, ip16, parseIp } from './go-ip.js';
import { parseGoUrl } from './go-url.js';

export type TlsVerifyError = Error & { code: string; host?: string; reason?: string };

function fail(code: string, message: string, extra: Partial<TlsVerifyError> = {}): TlsVerifyError {
  return Object.assign(new Error(message), { code }, extra);
}

/** A crypto/x509 error (message with Go's `x509: ` prefix); ./errors.ts words it `tls: failed to verify certificate: x509: ...`. */
function x509(message: string): TlsVerifyError {
  const reason = message.replace(/^x509: /, '');
  return fail('ERR_KDYN_X509', reason, { reason });
}

const MAX_SIGNATURE_CHECKS = 100;

/** What Go's signatureAlgorithmDetails say of each algorithm: its hash, the key it needs, PSS salt, insecure. */
const HASHES: Record<SignatureAlgorithm, { hash?: string; key?: 'RSA' | 'ECDSA' | 'Ed25519' | 'DSA'; pss?: number; insecure?: boolean }> = {
  'MD2-RSA': { key: 'RSA' },
  'MD5-RSA': { key: 'RSA', insecure: true },
  'SHA1-RSA': { hash: 'sha1', key: 'RSA', insecure: true },
  'SHA256-RSA': { hash: 'sha256', key: 'RSA' },
  'SHA384-RSA': { hash: 'sha384', key: 'RSA' },
  'SHA512-RSA': { hash: 'sha512', key: 'RSA' },
  'SHA256-RSAPSS': { hash: 'sha256', key: 'RSA', pss: 32 },
  'SHA384-RSAPSS': { hash: 'sha384', key: 'RSA', pss: 48 },
  'SHA512-RSAPSS': { hash: 'sha512', key: 'RSA', pss: 64 },
  'DSA-SHA1': { hash: 'sha1', key: 'DSA', insecure: true },
  'DSA-SHA256': { hash: 'sha256', key: 'DSA' },
  'ECDSA-SHA1': { hash: 'sha1', key: 'ECDSA', insecure: true },
  'ECDSA-SHA256': { hash: 'sha256', key: 'ECDSA' },
  'ECDSA-SHA384': { hash: 'sha384', key: 'ECDSA' },
  'ECDSA-SHA512': { hash: 'sha512', key: 'ECDSA' },
  Ed25519: { key: 'Ed25519' },
  Unknown: {},
};

const GO_KEY_TYPES = { RSA: '*rsa.PublicKey', ECDSA: '*ecdsa.PublicKey', Ed25519: 'ed25519.PublicKey', DSA: '*dsa.PublicKey', Unknown: '<nil>' } as const;

/**
 * Each child-parent pair's answer, kept: a pure function of the two (parsed once per content,
 * ./x509-parse.ts), asked again by every connection to the same server.
 */
const signatureChecks = new WeakMap<GoCertificate, Map<GoCertificate, string | undefined>>();

/** Go's checkSignature with a parent's key: the allowlist, the key type, then the signature itself. */
function checkSignature(child: GoCertificate, parent: GoCertificate): string | undefined {
  let byParent = signatureChecks.get(child);
  if (!byParent) signatureChecks.set(child, (byParent = new Map()));
  if (byParent.has(parent)) return byParent.get(parent);
  const answer = signatureAnswer(child, parent);
  byParent.set(parent, answer);
  return answer;
}

function signatureAnswer(child: GoCertificate, parent: GoCertificate): string | undefined {
  const algo = child.signatureAlgorithm;
  const d = HASHES[algo];
  if (d.insecure) return `x509: cannot verify signature: insecure algorithm ${algo}${algo === 'SHA1-RSA' || algo === 'ECDSA-SHA1' ? ' (temporarily override with GODEBUG=x509sha1=1)' : ''}`;
  if (!d.key || (!d.hash && d.key !== 'Ed25519')) return 'x509: cannot verify signature: algorithm unimplemented';
  const key = parent.publicKey;
  if (parent.publicKeyAlgorithm === 'DSA' || !key) return 'x509: cannot verify signature: algorithm unimplemented';
  if (parent.publicKeyAlgorithm !== d.key) {
    return `x509: signature algorithm specifies an ${d.key} public key, but have public key of type ${GO_KEY_TYPES[parent.publicKeyAlgorithm]}`;
  }
  let ok = false;
  try {
    if (d.key === 'Ed25519') ok = cryptoVerify(null, child.rawTbs, key, child.signature);
    else if (d.pss) ok = cryptoVerify(d.hash!, child.rawTbs, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: d.pss }, child.signature);
    else if (d.key === 'RSA') ok = cryptoVerify(d.hash!, child.rawTbs, { key, padding: constants.RSA_PKCS1_PADDING }, child.signature);
    else ok = cryptoVerify(d.hash!, child.rawTbs, key, child.signature);
  } catch {
    ok = false;
  }
  if (ok) return undefined;
  return d.key === 'RSA' ? 'crypto/rsa: verification error' : d.key === 'ECDSA' ? 'x509: ECDSA verification failure' : 'x509: Ed25519 verification failure';
}

/** Go's CheckSignatureFrom: only a CA signs (basicConstraints CA:TRUE on v3, keyCertSign when keyUsage is set). */
function checkSignatureFrom(child: GoCertificate, parent: GoCertificate): string | undefined {
  if ((parent.version === 3 && !parent.basicConstraintsValid) || (parent.basicConstraintsValid && !parent.isCA)) {
    return 'x509: invalid signature: parent certificate cannot sign this kind of certificate';
  }
  if (parent.keyUsage !== 0 && (parent.keyUsage & KEY_USAGE_CERT_SIGN) === 0) return 'x509: invalid signature: parent certificate cannot sign this kind of certificate';
  if (parent.publicKeyAlgorithm === 'Unknown') return 'x509: cannot verify signature: algorithm unimplemented';
  return checkSignature(child, parent);
}

type CertType = 'leaf' | 'intermediate' | 'root';

function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function hasNameConstraints(c: GoCertificate): boolean {
  const n = c.nameConstraints;
  return !!n && Object.values(n).some((list: unknown[]) => list.length > 0);
}

function matchDomain(domain: string, constraint: string): boolean | string {
  if (constraint.length === 0) return true;
  const labels = domainLabels(domain);
  if (!labels) return `x509: internal error: cannot parse domain ${goQuote(domain)}`;
  let mustHaveSubdomains = false;
  let c = constraint;
  if (c.startsWith('.')) {
    mustHaveSubdomains = true;
    c = c.slice(1);
  }
  const cLabels = domainLabels(c);
  if (!cLabels) return `x509: internal error: cannot parse domain ${goQuote(c)}`;
  if (labels.length < cLabels.length || (mustHaveSubdomains && labels.length === cLabels.length)) return false;
  return cLabels.every((l, i) => l.toLowerCase() === labels[i]!.toLowerCase());
}

function matchIp(ip: Buffer, n: IpNet): boolean {
  if (ip.length !== n.ip.length) return false;
  return [...ip].every((b, i) => (b & n.mask[i]!) === (n.ip[i]! & n.mask[i]!));
}

function matchEmail(mailbox: Mailbox, constraint: string): boolean | string {
  if (constraint.includes('@')) {
    const c = parseMailbox(constraint);
    if (!c) return `x509: internal error: cannot parse constraint ${goQuote(constraint)}`;
    return mailbox.local === c.local && mailbox.domain.toLowerCase() === c.domain.toLowerCase();
  }
  return matchDomain(mailbox.domain, constraint);
}

function matchUri(uri: string, host: string, constraint: string): boolean | string {
  if (host.length === 0) return `URI with empty host (${goQuote(uri)}) cannot be matched against constraints`;
  let h = host;
  if (h.includes(':') && !h.endsWith(']')) {
    const at = h.lastIndexOf(':');
    h = h.slice(0, at);
    if (h.includes(':') && !(h.startsWith('[') && h.endsWith(']'))) return `address ${host}: too many colons in address`;
    h = h.replace(/^\[(.*)\]$/, '$1');
  }
  if ((h.startsWith('[') && h.endsWith(']')) || parseIp(h)) return `URI with IP (${goQuote(uri)}) cannot be matched against constraints`;
  return matchDomain(h, constraint);
}

/** Go's checkNameConstraints for one name: excluded first, then at least one permitted (when any). */
function checkConstraints<T, C>(type: string, name: string, parsed: T, match: (n: T, c: C) => boolean | string, permitted: C[], excluded: C[], show: (c: C) => string): string | undefined {
  const notAuthorized = 'x509: a root or intermediate certificate is not authorized to sign for this name: ';
  for (const c of excluded) {
    const m = match(parsed, c);
    if (typeof m === 'string') return notAuthorized + m;
    if (m) return `${notAuthorized}${type} ${goQuote(name)} is excluded by constraint ${goQuote(show(c))}`;
  }
  let ok = true;
  for (const c of permitted) {
    const m = match(parsed, c);
    if (typeof m === 'string') return notAuthorized + m;
    ok = m;
    if (ok) break;
  }
  return ok ? undefined : `${notAuthorized}${type} ${goQuote(name)} is not permitted by any constraint`;
}

function ipNetString(n: IpNet): string {
  const ones = [...n.mask].reduce((sum, b) => sum + (b.toString(2).match(/1/g)?.length ?? 0), 0);
  return `${formatIp(n.ip)}/${ones}`;
}

/** The name constraints of `ca` on every certificate of the chain below it that has a SAN extension. */
function nameConstraintProblem(ca: GoCertificate, chain: GoCertificate[]): string | undefined {
  const n = ca.nameConstraints!;
  for (const c of chain) {
    if (!c.extensions.some((e) => e.oid === '2.5.29.17')) continue;
    for (const san of c.san ?? []) {
      let problem: string | undefined;
      if (san.type === 'email') {
        const text = san.value as string;
        const mailbox = parseMailbox(text);
        if (!mailbox) return 'x509: cannot parse rfc822Name {"" ""}';
        problem = checkConstraints('email address', text, mailbox, matchEmail, n.permittedEmails, n.excludedEmails, (x) => x);
      } else if (san.type === 'DNS') {
        const text = san.value as string;
        if (!domainLabels(text)) return `x509: cannot parse dnsName ${goQuote(text)}`;
        problem = checkConstraints('DNS name', text, text, matchDomain, n.permittedDns, n.excludedDns, (x) => x);
      } else if (san.type === 'URI') {
        const text = san.value as string;
        const u = parseGoUrl(text);
        if ('error' in u) return `x509: internal error: URI SAN ${goQuote(text)} failed to parse`;
        problem = checkConstraints('URI', text, text, (t: string, con: string) => matchUri(t, u.host, con), n.permittedUris, n.excludedUris, (x) => x);
      } else {
        const ip = san.value as Buffer;
        problem = checkConstraints('IP address', formatIp(ip), ip, matchIp, n.permittedIps, n.excludedIps, ipNetString);
      }
      if (problem) return problem;
    }
  }
  return undefined;
}

/** Go's isValid for a certificate about to join `chain` (leaf first) as `type`. */
function isValid(c: GoCertificate, type: CertType, chain: GoCertificate[], now: number): TlsVerifyError | string | undefined {
  if (c.unhandledCritical.length > 0) return 'x509: unhandled critical extension';
  const child = chain[chain.length - 1];
  if (child && !child.rawIssuer.equals(c.rawSubject)) return 'x509: issuer name does not match subject from issuing certificate';
  if (now < c.notBefore || now > c.notAfter) {
    const detail = now < c.notBefore ? `current time ${rfc3339(now)} is before ${rfc3339(c.notBefore)}` : `current time ${rfc3339(now)} is after ${rfc3339(c.notAfter)}`;
    const message = `x509: certificate has expired or is not yet valid: ${detail}`;
    return fail(now < c.notBefore ? 'CERT_NOT_YET_VALID' : 'CERT_HAS_EXPIRED', message.slice(6), { reason: message.slice(6) });
  }
  if (type !== 'leaf' && hasNameConstraints(c)) {
    const problem = nameConstraintProblem(c, chain);
    if (problem) return problem;
  }
  if (type === 'intermediate' && (!c.basicConstraintsValid || !c.isCA)) return 'x509: certificate is not authorized to sign other certificates';
  if (c.basicConstraintsValid && c.maxPathLen >= 0 && chain.length - 1 > c.maxPathLen) return 'x509: too many intermediates for path length constraint';
  return undefined;
}

/** A pool of certificates as Go's CertPool finds parents: by the issuer's exact subject bytes, key IDs ordering them. */
export interface CertPool {
  find(child: GoCertificate): GoCertificate[];
  contains(c: GoCertificate): boolean;
}

export function certPool(certs: readonly GoCertificate[]): CertPool {
  const unique: GoCertificate[] = [];
  for (const c of certs) if (!unique.some((u) => u.raw.equals(c.raw))) unique.push(c);
  return {
    contains: (c) => unique.some((u) => u.raw.equals(c.raw)),
    find: (child) => {
      const byName = unique.filter((c) => c.rawSubject.equals(child.rawIssuer));
      const kid = (c: GoCertificate) => (c.subjectKeyId ?? Buffer.alloc(0)).equals(child.authorityKeyId ?? Buffer.alloc(0));
      const one = (c: GoCertificate) => (!c.subjectKeyId?.length) !== (!child.authorityKeyId?.length);
      return [...byName.filter(kid), ...byName.filter((c) => !kid(c) && one(c)), ...byName.filter((c) => !kid(c) && !one(c))];
    },
  };
}

/**
 * A CertPool over many certificates (Node's roots) that parses a member only when a chain asks for a
 * parent with its subject: indexing reads the subject bytes alone. Members Go cannot parse are left
 * out when they are met, as AppendCertsFromPEM leaves them out.
 */
export function lazyCertPool(ders: readonly Buffer[]): CertPool {
  const bySubject = new Map<string, Buffer[]>();
  for (const der of ders) {
    const subject = rawSubjectOf(der);
    if (!subject) continue;
    const key = subject.toString('latin1');
    bySubject.set(key, [...(bySubject.get(key) ?? []), der]);
  }
  const parsed = (list: readonly Buffer[]): GoCertificate[] =>
    list.flatMap((der) => {
      try {
        return [parseCertificate(der)];
      } catch {
        return [];
      }
    });
  return {
    find: (child) => certPool(parsed(bySubject.get(child.rawIssuer.toString('latin1')) ?? [])).find(child),
    contains: (c) => parsed(bySubject.get(c.rawSubject.toString('latin1')) ?? []).some((m) => m.raw.equals(c.raw)),
  };
}

/** Go's alreadyInChain: the same subject and key bytes, and the same SAN extension (or none on both). */
function alreadyInChain(candidate: GoCertificate, chain: GoCertificate[]): boolean {
  const sanOf = (c: GoCertificate) => c.sanRaw;
  for (const c of chain) {
    if (!candidate.rawSubject.equals(c.rawSubject) || !candidate.rawSpki.equals(c.rawSpki)) continue;
    const a = sanOf(candidate);
    const b = sanOf(c);
    if (a === undefined && b === undefined) return true;
    if (a === undefined || b === undefined) return false;
    if (a.equals(b)) return true;
  }
  return false;
}

function authorityName(c: GoCertificate): string {
  return c.commonName || c.organization || `serial:${c.serial.toString()}`;
}

interface Build {
  roots: CertPool;
  intermediates: CertPool;
  now: number;
  sigChecks: number;
}

type Problem = TlsVerifyError | string;

/**
 * Go's buildChains: every chain from `chain` (leaf first) up to a root. As in Go, a candidate whose
 * signature fails only gives the hint of the unknown-authority error, while a candidate that fails
 * isValid (or whose own chains fail) leaves its error as the result when no chain is found.
 */
function buildChains(chain: GoCertificate[], o: Build): { chains: GoCertificate[][]; error?: Problem } {
  const c = chain[chain.length - 1]!;
  const chains: GoCertificate[][] = [];
  let hint: { error: string; cert: GoCertificate } | undefined;
  let error: Problem | undefined;
  const consider = (type: CertType, candidate: GoCertificate) => {
    if (candidate.publicKeyAlgorithm === 'Unknown' || alreadyInChain(candidate, chain)) return;
    if (++o.sigChecks > MAX_SIGNATURE_CHECKS) {
      error = 'x509: signature check attempts limit reached while verifying certificate chain';
      return;
    }
    const sig = checkSignatureFrom(c, candidate);
    if (sig) {
      hint ??= { error: sig, cert: candidate };
      return;
    }
    const invalid = isValid(candidate, type, chain, o.now);
    error = invalid;
    if (invalid) {
      hint ??= { error: typeof invalid === 'string' ? invalid : `x509: ${invalid.message}`, cert: candidate };
      return;
    }
    if (type === 'root') chains.push([...chain, candidate]);
    else {
      const sub = buildChains([...chain, candidate], o);
      error = sub.error;
      chains.push(...sub.chains);
    }
  };
  for (const r of o.roots.find(c)) consider('root', r);
  for (const i of o.intermediates.find(c)) consider('intermediate', i);
  if (chains.length > 0) return { chains };
  if (error) return { chains, error };
  const reason = hint ? ` (possibly because of ${goQuote(hint.error)} while trying to verify candidate authority certificate ${goQuote(authorityName(hint.cert))})` : '';
  return { chains, error: `x509: certificate signed by unknown authority${reason}` };
}

/** Go's checkChainForKeyUsage for serverAuth: every certificate with EKUs must list serverAuth (or any). */
function allowsServerAuth(chain: GoCertificate[]): boolean {
  return chain.every((c) => c.extKeyUsage.length === 0 || c.extKeyUsage.includes(EKU_ANY) || c.extKeyUsage.includes(EKU_SERVER_AUTH));
}

function validHostname(host: string, pattern: boolean): boolean {
  const h = pattern ? host : host.replace(/\.$/, '');
  if (h.length === 0 || h === '*') return false;
  return h.split('.').every((label, i) => (pattern && i === 0 && label === '*') || /^[a-zA-Z0-9_][a-zA-Z0-9_-]*$/.test(label));
}

/** Go's toLowerCaseASCII: only A-Z change (the Kelvin sign stays itself). */
function lowerAscii(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function matchHostnames(pattern: string, host: string): boolean {
  const h = host.replace(/\.$/, '');
  if (!pattern || !h) return false;
  const p = pattern.split('.');
  const hp = h.split('.');
  return p.length === hp.length && p.every((part, i) => (i === 0 && part === '*') || part === hp[i]);
}

function altnameError(host: string, reason: string): TlsVerifyError {
  return fail('ERR_TLS_CERT_ALTNAME_INVALID', `Hostname/IP does not match certificate's altnames: ${reason}`, { host, reason });
}

/**
 * Go's VerifyHostname: brackets are stripped only where what they hold is an IP literal; an IP
 * against the IP SANs; a name, lower-cased in ASCII only, against the DNS SANs (a `*` one whole
 * first label); never the CN.
 */
export function checkName(leaf: GoCertificate, serverName: string): TlsVerifyError | undefined {
  const inner = serverName.length >= 3 && serverName.startsWith('[') && serverName.endsWith(']') ? serverName.slice(1, -1) : serverName;
  const ip = parseIp(inner);
  const dns = (leaf.san ?? []).filter((s) => s.type === 'DNS').map((s) => s.value as string);
  const ips = (leaf.san ?? []).filter((s) => s.type === 'IP').map((s) => s.value as Buffer);
  if (ip) {
    if (ips.some((san) => ip16(san).equals(ip))) return undefined;
  } else {
    const host = lowerAscii(serverName);
    const validHost = validHostname(host, false);
    for (const pattern of dns) {
      const p = lowerAscii(pattern);
      if (validHost && validHostname(p, true) ? matchHostnames(p, host) : p === host && p !== '' && p !== '.') return undefined;
    }
  }
  const name = ip ? inner : serverName;
  if (leaf.san === undefined && !leaf.extensions.some((e) => e.oid === '2.5.29.17') && matchHostnames(lowerAscii(leaf.commonName), lowerAscii(name))) {
    return altnameError(name, 'certificate relies on legacy Common Name field, use SANs instead');
  }
  if (ip && ips.length === 0) return altnameError(name, `cannot validate certificate for ${name} because it doesn't contain any IP SANs`);
  const valid = ip ? ips.map(formatIp).join(', ') : dns.join(', ');
  if (!valid) return altnameError(name, `certificate is not valid for any names, but wanted to match ${name}`);
  return altnameError(name, `certificate is valid for ${valid}, not ${name}`);
}

export interface ServerCheck {
  /** The certificates as the server sent them, leaf first (DER). */
  presented: readonly Buffer[];
  /** The trust anchors Go would have in its pool. */
  roots: CertPool;
  /** tls-server-name, else the URL's host (IPv6 in brackets, as Go's tlsHost). */
  serverName: string;
  now: number;
}

/** crypto/tls verifyServerCertificate with crypto/x509 Verify: undefined when Go would connect. */
export function verifyServer(s: ServerCheck): TlsVerifyError | undefined {
  if (s.presented.length === 0) return fail('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'the server presented no certificate');
  const certs: GoCertificate[] = [];
  for (const der of s.presented) {
    try {
      certs.push(parseCertificate(der));
    } catch (e) {
      return fail('ERR_KDYN_CERT_PARSE', `tls: failed to parse certificate from server: ${(e as Error).message}`);
    }
    const c = certs[certs.length - 1]!;
    const bits = c.publicKeyAlgorithm === 'RSA' ? c.publicKey?.asymmetricKeyDetails?.modulusLength : undefined;
    if (bits !== undefined && bits > 8192) return fail('ERR_KDYN_CERT_PARSE', 'tls: server sent certificate containing RSA key larger than 8192 bits');
  }
  const leaf = certs[0]!;
  const leafProblem = isValid(leaf, 'leaf', [], s.now);
  if (leafProblem) return typeof leafProblem === 'string' ? x509(leafProblem) : leafProblem;
  const name = checkName(leaf, s.serverName);
  if (name) return name;
  let chains: GoCertificate[][];
  if (s.roots.contains(leaf)) chains = [[leaf]];
  else {
    const built = buildChains([leaf], { roots: s.roots, intermediates: certPool(certs.slice(1)), now: s.now, sigChecks: 0 });
    if (built.chains.length === 0) {
      const e = built.error ?? 'x509: certificate signed by unknown authority';
      return typeof e === 'string' ? x509(e) : e;
    }
    chains = built.chains;
  }
  if (!chains.some(allowsServerAuth)) return fail('ERR_KDYN_CERT_EKU', 'certificate specifies an incompatible key usage');
  if (leaf.publicKeyAlgorithm !== 'RSA' && leaf.publicKeyAlgorithm !== 'ECDSA' && leaf.publicKeyAlgorithm !== 'Ed25519') {
    return fail('ERR_KDYN_CERT_PARSE', `tls: server's certificate contains an unsupported type of public key: ${GO_KEY_TYPES[leaf.publicKeyAlgorithm]}`);
  }
  return undefined;
}
