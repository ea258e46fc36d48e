/**
 * Issue 33: the adversarial classes of ./tls-go-classes.ts, kubectl v1.32 as the oracle, in every
 * verification mode (the kubeconfig's CA bundle; the system roots), over TLS 1.3 and 1.2, with and
 * without a client certificate. kdyn must never accept where kubectl refuses; a server kdyn refuses
 * must receive no request byte and no client certificate. Where kdyn refuses and kubectl accepts, the
 * case must carry its documented reason (docs/kubectl-differences.md, "TLS and connections").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findKubectl } from '../../../bench/tools.js';
import { runCommand, runKdyn } from '../../support/cli.js';
import { build, key, OIDS } from './der-certs.js';
import { goClasses, type GoCase } from './tls-go-classes.js';
import { SERVE_ANY_SIGNATURE } from './tls-server.js';
import { emptyCertDir, kdynVerdict, rng, writeKubeconfig, type Verdict } from './tls-diff-support.js';

const SEED = Number(process.env.KDYN_TLS_DIFF_SEED ?? 20261127);
const WORKERS = 3;


interface Variant {
  tls: 'TLSv1.3' | 'TLSv1.2';
  clientCert: boolean;
}

const VARIANTS: Variant[] = [
  { tls: 'TLSv1.3', clientCert: false },
  { tls: 'TLSv1.3', clientCert: true },
  { tls: 'TLSv1.2', clientCert: false },
  { tls: 'TLSv1.2', clientCert: true },
];

interface Worker {
  server: Server;
  port: number;
  bytes: number;
  clientCerts: number;
}

async function startWorker(): Promise<Worker> {
  const first = build({ cn: 'boot', key: key('rsa', 9), san: [{ type: 'IP', value: Buffer.from([127, 0, 0, 1]) }] });
  const w: Worker = { server: undefined as unknown as Server, port: 0, bytes: 0, clientCerts: 0 };
  w.server = createServer({ cert: first.pem, key: first.key.pem, ciphers: SERVE_ANY_SIGNATURE, requestCert: true, rejectUnauthorized: false }, (_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' }));
  });
  w.server.on('secureConnection', (s: TLSSocket) => {
    if (s.getPeerCertificate()?.raw) w.clientCerts++;
    s.on('data', (b: Buffer) => (w.bytes += b.length));
  });
  w.server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => w.server.listen(0, '127.0.0.1', r));
  w.port = (w.server.address() as AddressInfo).port;
  return w;
}

interface Client {
  certPem: string;
  keyPem: string;
}

function clientIdentity(): Client {
  const ca = build({ cn: 'client-ca', key: key('rsa', 7), ca: true });
  const c = build({ cn: 'system:admin', key: key('rsa', 8), issuer: ca, eku: [OIDS.clientAuth] });
  return { certPem: c.pem, keyPem: c.key.pem };
}

function kdynInProcess(c: GoCase, port: number, client: Client | undefined): Promise<Verdict> {
  return kdynVerdict(`https://${c.host}:${port}`, {
    caData: Buffer.from(c.caPem),
    insecure: false,
    ...(c.serverName ? { serverName: c.serverName } : {}),
    ...(client ? { certData: Buffer.from(client.certPem), keyData: Buffer.from(client.keyPem) } : {}),
  });
}

function kubeconfig(c: GoCase, port: number, dir: string, client: Client | undefined, systemRoots: boolean, tag: string): string {
  return writeKubeconfig(join(dir, `kubeconfig-${c.id}-${tag}`), c, port, { systemRoots, ...(client ? { client } : {}) });
}

const lastLine = (text: string) => text.trim().split('\n').pop()?.replace(/^error: /, '') ?? '';
const versionArgs = (file: string) => ['version', '-o', 'json', '--kubeconfig', file, '--request-timeout', '20s'];
const accepted = (r: { code: number; out: string }) => r.code === 0 && r.out.includes('serverVersion');

interface Tally {
  mismatches: string[];
  leaks: string[];
  stricter: string[];
  perMode: Record<string, { equal: number; kdynAcceptsKubectlRefuses: number; kdynRefusesKubectlAccepts: number }>;
  accepted: number;
  rejected: number;
}

test(`TLS (issue 33): kdyn never accepts where kubectl refuses, on the generated adversarial classes, in every mode, TLS 1.2 and 1.3, with and without a client certificate (seed ${SEED})`, async (t) => {
  const kubectl = findKubectl();
  if (!kubectl) {
    t.skip('kubectl not found on PATH: the differential TLS test needs kubectl v1.32');
    return;
  }
  const cases = goClasses(rng(SEED));
  const client = clientIdentity();
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-tls-go-'));
  const tally: Tally = { mismatches: [], leaks: [], stricter: [], perMode: {}, accepted: 0, rejected: 0 };
  const record = (c: GoCase, mode: string, mine: Verdict, theirs: Verdict, w: Worker, stricterReason: string | undefined) => {
    const m = (tally.perMode[mode] ??= { equal: 0, kdynAcceptsKubectlRefuses: 0, kdynRefusesKubectlAccepts: 0 });
    if (!mine.ok && (w.bytes > 0 || w.clientCerts > 0)) tally.leaks.push(`${c.id} (${mode}): refused (${mine.message}) but the server received ${w.bytes} bytes and ${w.clientCerts} client certificates\n    ${c.text}`);
    if (mine.ok === theirs.ok) m.equal++;
    else if (mine.ok) {
      m.kdynAcceptsKubectlRefuses++;
      tally.mismatches.push(`${c.id} (${mode}): kdyn ACCEPTS, kubectl refuses (${theirs.message})\n    ${c.text}`);
    } else {
      m.kdynRefusesKubectlAccepts++;
      if (stricterReason) tally.stricter.push(`${c.id} (${mode}): kdyn refuses (${mine.message}), kubectl accepts: ${stricterReason}`);
      else tally.mismatches.push(`${c.id} (${mode}): kdyn refuses (${mine.message}), kubectl accepts\n    ${c.text}`);
    }
  };
  const queue = cases.flatMap((c) => VARIANTS.map((v) => ({ c, v })));
  const workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorker()));
  try {
    await Promise.all(
      workers.map(async (w) => {
        for (let job = queue.shift(); job; job = queue.shift()) {
          const { c, v } = job;
          const mode = `bundle ${v.tls}${v.clientCert ? ' client-cert' : ''}`;
          w.server.setSecureContext({ cert: c.chainPem, key: c.keyPem, ciphers: SERVE_ANY_SIGNATURE, maxVersion: v.tls, minVersion: v.tls });
          const id = client && v.clientCert ? client : undefined;
          const file = kubeconfig(c, w.port, dir, id, false, mode.replace(/\W+/g, '-'));
          const env = { HOME: dir, PATH: process.env.PATH ?? '/usr/bin:/bin' };
          const theirs = await runCommand(kubectl.path, versionArgs(file), { env, timeoutMs: 60_000 });
          const kubectlVerdict = { ok: accepted(theirs), message: lastLine(theirs.err) };
          w.bytes = 0;
          w.clientCerts = 0;
          const mine = await kdynInProcess(c, w.port, id);
          record(c, mode, mine, kubectlVerdict, w, c.stricter);
          if (kubectlVerdict.ok) tally.accepted++;
          else tally.rejected++;
          {
            // The system-roots mode: kdyn's CLI with NODE_EXTRA_CA_CERTS, kubectl with SSL_CERT_FILE.
            const sysMode = `system roots ${v.tls}${v.clientCert ? ' client-cert' : ''}`;
            const sysFile = kubeconfig(c, w.port, dir, id, true, sysMode.replace(/\W+/g, '-'));
            // One file per case and variant: the variants of a case run on other workers at the same time.
            const caFile = join(dir, `ca-${c.id}-${sysMode.replace(/\W+/g, '-')}.pem`);
            writeFileSync(caFile, c.caPem);
            const theirsSys = await runCommand(kubectl.path, versionArgs(sysFile), { env: { ...env, SSL_CERT_FILE: caFile, SSL_CERT_DIR: emptyCertDir(dir) }, timeoutMs: 60_000 });
            w.bytes = 0;
            w.clientCerts = 0;
            const mineSys = await runKdyn(versionArgs(sysFile), { env: { ...env, NODE_EXTRA_CA_CERTS: caFile }, timeoutMs: 60_000 });
            record(c, sysMode, { ok: accepted(mineSys), message: lastLine(mineSys.err) }, { ok: accepted(theirsSys), message: lastLine(theirsSys.err) }, w, c.stricter ?? c.stricterSystem);
          }
        }
      }),
    );
  } finally {
    await Promise.all(workers.map((w) => new Promise<void>((r) => w.server.close(() => r()))));
    rmSync(dir, { recursive: true, force: true });
  }
  for (const [mode, m] of Object.entries(tally.perMode)) {
    t.diagnostic(`${mode}: ${m.equal} equal, ${m.kdynAcceptsKubectlRefuses} kdyn accepts where kubectl refuses, ${m.kdynRefusesKubectlAccepts} kdyn refuses where kubectl accepts`);
  }
  for (const line of tally.stricter) t.diagnostic(line);
  t.diagnostic(`${cases.length} cases; kubectl accepted ${tally.accepted} and refused ${tally.rejected} of the bundle-mode verdicts`);
  assert.deepEqual(tally.mismatches, [], `${tally.mismatches.length} verdicts differ from kubectl's without a documented reason (seed ${SEED})`);
  assert.deepEqual(tally.leaks, []);
  assert.ok(tally.accepted >= 40 && tally.rejected >= 100, `kubectl accepted ${tally.accepted}, refused ${tally.rejected}: both verdicts must be well represented`);
});
