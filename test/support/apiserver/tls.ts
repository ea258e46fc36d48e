/**
 * A throwaway certificate authority and serving certificate, generated at server start.
 * Keys come from node:crypto (native, generated in parallel on the thread pool); node-forge only
 * builds and signs the X.509 certificates.
 */
import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';

export interface ServingCerts {
  /** PEM of the CA certificate (what a kubeconfig's certificate-authority-data holds). */
  caPem: string;
  /** PEM of the serving certificate followed by the CA (the chain node:https serves). */
  certPem: string;
  keyPem: string;
}

const generateKeyPairAsync = promisify(generateKeyPair);

/** A 2048-bit RSA key pair in PEM (PKCS#8 private, SPKI public). */
export async function rsaKeys(): Promise<{ privatePem: string; publicPem: string }> {
  const { privateKey, publicKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privatePem: privateKey, publicPem: publicKey };
}

/**
 * 16 random bytes, the first in 0x40-0x7f: positive, and never a leading zero. A serial starting
 * 00 00 is encoded non-minimally (node-forge strips one leading zero byte, not two), which Go refuses
 * ("x509: malformed serial number": a real kube-apiserver would not start, once in CI) and OpenSSL too
 * ("illegal padding").
 */
export function serial(): string {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x3f) | 0x40;
  return b.toString('hex');
}

export function validity(cert: forge.pki.Certificate, now: Date): void {
  cert.validity.notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  cert.validity.notAfter = new Date(now.getTime() + 365 * 24 * 60 * 60 * 1000);
}

/** A self-signed CA certificate for `keys` (what signs serving or client certificates). */
export function selfSignedCa(keys: { privatePem: string; publicPem: string }, commonName: string, now: Date) {
  const caPriv = forge.pki.privateKeyFromPem(keys.privatePem);
  const ca = forge.pki.createCertificate();
  ca.publicKey = forge.pki.publicKeyFromPem(keys.publicPem);
  ca.serialNumber = serial();
  validity(ca, now);
  const caSubject = [{ name: 'commonName', value: commonName }];
  ca.setSubject(caSubject);
  ca.setIssuer(caSubject);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(caPriv, forge.md.sha256.create());
  return { ca, caPriv, caSubject };
}

/** PEM with LF line ends (forge writes CRLF). */
export function certificatePem(cert: forge.pki.Certificate): string {
  return forge.pki.certificateToPem(cert).replace(/\r\n/g, '\n');
}

/** A new CA and a certificate for `hosts` (IP addresses and DNS names) signed by it. */
export async function generateServingCerts(hosts: string[] = ['127.0.0.1', 'localhost'], now = new Date()): Promise<ServingCerts> {
  const [caKeys, srvKeys] = await Promise.all([rsaKeys(), rsaKeys()]);
  const { ca, caPriv, caSubject } = selfSignedCa(caKeys, 'kdyn-local-apiserver-ca', now);

  const srv = forge.pki.createCertificate();
  srv.publicKey = forge.pki.publicKeyFromPem(srvKeys.publicPem);
  srv.serialNumber = serial();
  validity(srv, now);
  srv.setSubject([{ name: 'commonName', value: 'kube-apiserver' }]);
  srv.setIssuer(caSubject);
  const altNames = hosts.map((h) => (/^[\d.]+$|:/.test(h) ? { type: 7, ip: h } : { type: 2, value: h }));
  srv.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
  ]);
  srv.sign(caPriv, forge.md.sha256.create());

  const caPem = certificatePem(ca);
  return { caPem, certPem: certificatePem(srv) + caPem, keyPem: srvKeys.privatePem };
}
