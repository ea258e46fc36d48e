/**
 * The least a correct Node.js client does to list namespaces on N clusters at once, for
 * bench/fleet-floor.ts: per cluster, the kubeconfig's server, CA and token; one TLS connection
 * verified against that CA alone (issuer, signature, IP SAN, dates: what Node's own X509Certificate
 * offers, without Go's extra rules); one GET of /api/v1/namespaces as a Table; one line per row.
 * No discovery, no RESTMapper, no retries, no flags: what kdyn's per-cluster cost is compared with.
 *
 * Usage: node build/bench/fleet-floor-client.js KUBECONFIG|env N [--openssl-ca] (the first N contexts of a
 * kubeconfig written by bench/fleet-servers.ts, or a real cluster's token kubeconfig: TLS on 127.0.0.1,
 * CA data and a token per user; `env`: the file $KUBECONFIG names).
 * `--openssl-ca` also gives each cluster's CA to OpenSSL and requires its verdict (`authorized`), as
 * kdyn must (~0.5 ms more; more where NODE_EXTRA_CA_CERTS is set, since Node's root store then waits
 * for that file: bench/results/2026-11-27-ca-loading.md).
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, createSecureContext } from 'node:tls';

interface Cluster {
  port: number;
  ca: X509Certificate;
  caPem: string;
  token: string;
}

function clusters(kubeconfig: string, n: number): Cluster[] {
  // The fixed layout bench/fleet-servers.ts writes (clusters, then contexts, then users, in order).
  const text = readFileSync(kubeconfig, 'utf8');
  const ports = [...text.matchAll(/server: https:\/\/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]));
  const cas = [...text.matchAll(/certificate-authority-data: (\S+)/g)].map((m) => m[1]!);
  const tokens = [...text.matchAll(/token: (\S+)/g)].map((m) => m[1]!);
  if (ports.length < n || cas.length < n || tokens.length < n) throw new Error(`${kubeconfig}: fewer than ${n} clusters`);
  return ports.slice(0, n).map((port, i) => ({ port, ca: new X509Certificate(Buffer.from(cas[i]!, 'base64')), caPem: Buffer.from(cas[i]!, 'base64').toString('utf8'), token: tokens[i]! }));
}

function list(c: Cluster, context: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const tlsContext = opensslCa ? createSecureContext({ ca: c.caPem }) : secureContext;
    const s = connect({ host: '127.0.0.1', port: c.port, secureContext: tlsContext, rejectUnauthorized: false, checkServerIdentity: () => undefined }, () => {
      const leaf = s.getPeerX509Certificate();
      const now = Date.now();
      const ok = (!opensslCa || s.authorized) && leaf && leaf.checkIssued(c.ca) && leaf.verify(c.ca.publicKey) && leaf.checkIP('127.0.0.1') !== undefined && now >= Date.parse(leaf.validFrom) && now <= Date.parse(leaf.validTo);
      if (!ok) {
        s.destroy();
        reject(new Error(`${context}: the server's certificate does not verify`));
        return;
      }
      s.write(`GET /api/v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1:${c.port}\r\nAuthorization: Bearer ${c.token}\r\nAccept: application/json;as=Table;v=v1;g=meta.k8s.io\r\nConnection: close\r\n\r\n`);
    });
    const chunks: Buffer[] = [];
    s.on('data', (b: Buffer) => chunks.push(b));
    s.on('error', reject);
    s.on('end', () => {
      const response = Buffer.concat(chunks).toString('utf8');
      const head = response.indexOf('\r\n\r\n');
      let body = response.slice(head + 4);
      // Chunked: the local server's body fits in one chunk.
      if (/transfer-encoding: chunked/i.test(response.slice(0, head))) body = body.slice(body.indexOf('\r\n') + 2, body.lastIndexOf('\r\n0\r\n'));
      const rows = (JSON.parse(body) as { rows: Array<{ cells: unknown[] }> }).rows;
      resolve(rows.map((r) => `${context} ${String(r.cells[0])}\n`).join(''));
    });
  });
}

const secureContext = createSecureContext({ ca: [] });
const [kubeconfigArg, count, flag] = process.argv.slice(2);
// `env`: the file $KUBECONFIG names (bench/cases/real.ts runs it as a case's baseline, with the case's KUBECONFIG).
const kubeconfig = kubeconfigArg === 'env' ? process.env.KUBECONFIG : kubeconfigArg;
const opensslCa = flag === '--openssl-ca';
const n = Number(count);
if (!kubeconfig || !Number.isInteger(n) || n < 1) {
  process.stderr.write('usage: fleet-floor-client KUBECONFIG|env N [--openssl-ca]\n');
  process.exit(2);
}
Promise.all(clusters(kubeconfig, n).map((c, i) => list(c, `c${i}`))).then(
  (outputs) => process.stdout.write(outputs.join('')),
  (e: Error) => {
    process.stderr.write(`fleet-floor-client: ${e.message}\n`);
    process.exit(1);
  },
);
