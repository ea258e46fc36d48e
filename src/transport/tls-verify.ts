/**
 * Server-certificate verification in JS against the kubeconfig's own CA bundle, used instead of
 * OpenSSL's when the cluster brings a CA (see agent.ts `VerifyingAgent`). Why: passing `ca` to
 * Node 20 makes it build its root store first (~140 bundled certificates parsed, ~20-28 ms on
 * every run), although only the kubeconfig's CAs are trusted. The connection is made with
 * `ca: []` and `rejectUnauthorized: false`, and the peer chain is checked here before the socket
 * is handed to the HTTP request, so no request byte is written to an unverified server.
 *
 * Rules follow Go's crypto/x509 Verify (what kubectl does): leaf dates, then the server name
 * (DNS SANs or IP SANs only, no CN fallback, no partial wildcards), then a chain to one of the
 * bundle's certificates through the presented intermediates (each must be a CA, within its dates,
 * signature checked), then extended key usage (serverAuth or any, where an EKU is present).
 * Failures are Errors carrying the code Node's own verification would use, so errors.ts words
 * them as kubectl does.
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import type { DetailedPeerCertificate } from 'node:tls';

/** Longest chain accepted: leaf + intermediates + anchor (Go has no fixed limit; OpenSSL's default is 100). */
export const MAX_CHAIN_DEPTH = 10;

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const ANY_EKU = '2.5.29.37.0';

/** The certificates of a PEM bundle; undefined if there are none or one does not parse (then Node's path reports it). */
export function parseCaBundle(pem: Buffer | string): X509Certificate[] | undefined {
  const text = typeof pem === 'string' ? pem : pem.toString('latin1');
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);
  if (!blocks) return undefined;
  try {
    return blocks.map((b) => new X509Certificate(b));
  } catch {
    return undefined;
  }
}

export type TlsVerifyError = Error & { code: string; host?: string; reason?: string; cert?: { subjectaltname?: string } };

function fail(code: string, message: string, extra: Partial<TlsVerifyError> = {}): TlsVerifyError {
  return Object.assign(new Error(message), { code }, extra);
}

function datesError(c: X509Certificate, now: number): TlsVerifyError | undefined {
  if (now < Date.parse(c.validFrom)) return fail('CERT_NOT_YET_VALID', 'certificate is not yet valid');
  if (now > Date.parse(c.validTo)) return fail('CERT_HAS_EXPIRED', 'certificate has expired');
  return undefined;
}

/** Why an issuer that signed the certificate below it cannot be used (intermediates must be CAs). */
function issuerProblem(issuer: X509Certificate, now: number, intermediate: boolean): TlsVerifyError | undefined {
  if (intermediate && !issuer.ca) return fail('INVALID_CA', 'invalid CA certificate');
  const dates = datesError(issuer, now);
  if (dates) return dates;
  if (!ekuAllowsServer(issuer)) return fail('ERR_KDYN_CERT_EKU', 'certificate specifies an incompatible key usage');
  return undefined;
}

function ekuAllowsServer(c: X509Certificate): boolean {
  const eku = c.keyUsage; // Node names the extended key usage OIDs `keyUsage`; undefined when absent
  return !eku || eku.length === 0 || eku.includes(SERVER_AUTH) || eku.includes(ANY_EKU);
}

/** The certificates the server sent after its leaf (duplicates and cycles dropped). */
export function presentedIntermediates(peer: DetailedPeerCertificate): X509Certificate[] {
  const seen = new Set<string>([peer.fingerprint256]);
  const intermediates: X509Certificate[] = [];
  let c = peer.issuerCertificate;
  while (c && c.raw && !seen.has(c.fingerprint256) && intermediates.length < MAX_CHAIN_DEPTH) {
    seen.add(c.fingerprint256);
    intermediates.push(new X509Certificate(c.raw));
    c = c.issuerCertificate;
  }
  return intermediates;
}

/**
 * Verifies a server's chain. `serverName` is the tls-server-name, else the URL's host (an IP literal
 * is matched against IP SANs). Returns undefined when the server is trusted, else the error.
 */
export function verifyServerChain(
  leaf: X509Certificate,
  presented: readonly X509Certificate[] | (() => readonly X509Certificate[]),
  anchors: readonly X509Certificate[],
  serverName: string,
  now: number,
): TlsVerifyError | undefined {
  const dates = datesError(leaf, now);
  if (dates) return dates;

  const name = serverName.replace(/^\[|\]$/g, '');
  const matched = isIP(name) ? leaf.checkIP(name) !== undefined : leaf.checkHost(name, { subject: 'never', partialWildcards: false }) !== undefined;
  if (!matched) {
    const san = leaf.subjectAltName;
    const reason = san ? `Host: ${name}. is not in the cert's altnames: ${san}` : `x509: certificate is not valid for any names, but wanted to match ${name}`;
    return fail('ERR_TLS_CERT_ALTNAME_INVALID', `Hostname/IP does not match certificate's altnames: ${reason}`, {
      host: name,
      reason: san ? reason : `certificate is not valid for any names, but wanted to match ${name}`,
      cert: { subjectaltname: san },
    });
  }

  let best: TlsVerifyError | undefined;
  const note = (e: TlsVerifyError) => {
    // A path that failed on dates says more than "unknown authority".
    if (!best || best.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE') best = e;
  };
  // The presented chain is built only when no anchor signed the leaf itself (the usual cluster CA
  // signs the serving certificate directly; reading the chain costs ~1 ms).
  let intermediates: readonly X509Certificate[] | undefined;
  const chain = () => (intermediates ??= typeof presented === 'function' ? presented() : presented);
  const used = new Set<X509Certificate>();
  const chainTo = (cert: X509Certificate, depth: number): boolean => {
    for (const a of anchors) {
      if (a.raw.equals(cert.raw)) return true; // the certificate itself is trusted (e.g. a self-signed serving cert in the bundle)
    }
    if (depth >= MAX_CHAIN_DEPTH) return false;
    for (const a of anchors) {
      if (!cert.checkIssued(a) || !cert.verify(a.publicKey)) continue;
      const problem = issuerProblem(a, now, false);
      if (problem) {
        note(problem);
        continue;
      }
      return true;
    }
    for (const i of chain()) {
      if (used.has(i) || !cert.checkIssued(i) || !cert.verify(i.publicKey)) continue;
      const problem = issuerProblem(i, now, true);
      if (problem) {
        note(problem);
        continue;
      }
      used.add(i);
      const ok = chainTo(i, depth + 1);
      used.delete(i);
      if (ok) return true;
    }
    return false;
  };
  if (!chainTo(leaf, 1)) {
    if (best && best.code !== 'INVALID_CA') return best;
    return fail('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate');
  }
  if (!ekuAllowsServer(leaf)) return fail('ERR_KDYN_CERT_EKU', 'certificate specifies an incompatible key usage');
  return undefined;
}
