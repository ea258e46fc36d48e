/**
 * A client certificate and its key are checked before any connection, as Go's tls.X509KeyPair does
 * for client-go (kubectl prints `error: tls: failed to parse private key` and makes no request), and
 * with Go's words instead of OpenSSL's codes. Neither the key nor the certificate appear in a message.
 */
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { KdynError } from '../core/errors.js';
import type { ClientCertificate } from '../kubeconfig/types.js';

const checked = new WeakSet<ClientCertificate>();

/** Throws a KdynError worded as Go's tls.X509KeyPair when the pair is unusable. */
export function checkKeyPair(pair: ClientCertificate): void {
  if (checked.has(pair)) return;
  const certText = pair.cert.toString('latin1');
  const keyText = pair.key.toString('latin1');
  const certPem = certText.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/);
  if (!certPem) throw new KdynError('tls: failed to find any PEM data in certificate input');
  if (!/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(keyText)) {
    throw new KdynError(/-----BEGIN CERTIFICATE-----/.test(keyText) ? 'tls: found a certificate rather than a key in the PEM for the private key' : 'tls: failed to find any PEM data in key input');
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem[0]);
  } catch {
    throw new KdynError('tls: failed to parse certificate: x509: malformed certificate');
  }
  let publicOfKey: ReturnType<typeof createPublicKey>;
  try {
    // Encrypted keys fail here (no passphrase), as Go cannot read them either.
    publicOfKey = createPublicKey(createPrivateKey(pair.key));
  } catch {
    throw new KdynError('tls: failed to parse private key');
  }
  if (publicOfKey.asymmetricKeyType !== cert.publicKey.asymmetricKeyType) throw new KdynError('tls: private key type does not match public key type');
  const spki = (k: typeof publicOfKey) => k.export({ type: 'spki', format: 'der' });
  if (!spki(publicOfKey).equals(spki(cert.publicKey))) throw new KdynError('tls: private key does not match public key');
  checked.add(pair);
}
