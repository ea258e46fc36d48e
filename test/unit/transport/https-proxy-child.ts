/**
 * One process of test/unit/transport/https-proxy.test.ts (Node's default roots, with NODE_EXTRA_CA_CERTS,
 * are per process): `node https-proxy-child.js JSON` with {server, caPem?, proxy}; dials once and prints
 * {ok, error?} as one JSON line.
 */
import { createDialer } from '../../../src/transport/dial.js';

interface Ask {
  server: string;
  caPem?: string;
  proxy: string;
}

async function main(): Promise<void> {
  const ask = JSON.parse(process.argv[2]!) as Ask;
  const dialer = createDialer(ask.server, { insecure: false, ...(ask.caPem ? { caData: Buffer.from(ask.caPem) } : {}) }, { proxy: { url: new URL(ask.proxy), source: 'env' } });
  let ok = false;
  let error: string | undefined;
  try {
    const s = await dialer.dial();
    ok = true;
    s.destroy();
  } catch (e) {
    error = (e as Error).message;
  }
  process.stdout.write(`${JSON.stringify({ ok, error })}\n`);
}

void main();
