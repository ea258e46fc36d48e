/**
 * What the server-first verification costs a kubeconfig with a client certificate (kind and kubeadm
 * write such kubeconfigs: client certificate plus CA): `get namespaces` with a client certificate
 * and key given as flags, so kdyn's connection runs through the gate that holds the client's
 * handshake flight until the server is verified (src/transport/gate.ts). Compare with
 * `get-small-warm`, the same command without a client certificate.
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';
import type { BenchCase, CaseEnv } from '../types.js';

export const order = 32;

const certArgs = (env: CaseEnv) => ['--client-certificate', join(env.tmp, 'client.crt'), '--client-key', join(env.tmp, 'client.key')];

/** A self-signed client certificate (the local server authenticates by token; it only has to parse). */
function writeClientCert(dir: string): void {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  const c = forge.pki.createCertificate();
  c.publicKey = forge.pki.publicKeyFromPem(publicKey);
  c.serialNumber = '01';
  c.validity.notBefore = new Date(Date.now() - 86_400_000);
  c.validity.notAfter = new Date(Date.now() + 86_400_000);
  const subject = [{ name: 'organizationName', value: 'system:masters' }, { name: 'commonName', value: 'kdyn-bench' }];
  c.setSubject(subject);
  c.setIssuer(subject);
  c.sign(forge.pki.privateKeyFromPem(privateKey), forge.md.sha256.create());
  writeFileSync(join(dir, 'client.crt'), forge.pki.certificateToPem(c));
  writeFileSync(join(dir, 'client.key'), privateKey, { mode: 0o600 });
}

export const cases: BenchCase[] = [
  {
    name: 'get-small-warm-client-cert',
    description: 'get namespaces with a client certificate (kind/kubeadm-style), warm cache',
    issue: 'issue 9',
    server: { seed: 'demo' },
    target: { kind: 'ratio', max: 1.0 },
    prepare: (env) => {
      writeClientCert(env.tmp);
      return undefined;
    },
    kdyn: (env) => ['get', 'namespaces', ...certArgs(env)],
    baseline: { kind: 'kubectl', args: (env) => ['get', 'namespaces', ...certArgs(env)] },
  },
];
