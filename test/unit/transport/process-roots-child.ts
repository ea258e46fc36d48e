/**
 * One process of test/unit/transport/process-roots.test.ts (Node's default roots are per process):
 * `node process-roots-child.js JSON` with {own, server, caPem?, proxy?}; dials once and prints
 * {ok, error?, released, defaults} as one JSON line.
 */
import * as tls from 'node:tls';
import { createDialer } from '../../../src/transport/dial.js';
import { ownProcessRoots, releaseProcessRoots } from '../../../src/transport/process-roots.js';

interface Ask {
  own: boolean;
  server: string;
  caPem?: string;
  proxy?: string;
}

async function main(): Promise<void> {
  const ask = JSON.parse(process.argv[2]!) as Ask;
  if (ask.own) ownProcessRoots();
  const dialer = createDialer(ask.server, { insecure: false, ...(ask.caPem ? { caData: Buffer.from(ask.caPem) } : {}) }, ask.proxy ? { proxy: { url: new URL(ask.proxy), source: 'env' } } : {});
  let ok = false;
  let error: string | undefined;
  try {
    const s = await dialer.dial();
    ok = true;
    s.destroy();
  } catch (e) {
    error = (e as Error).message;
  }
  process.stdout.write(`${JSON.stringify({ ok, error, released: releaseProcessRoots(tls), defaults: tls.getCACertificates('default').length })}\n`);
}

void main();
