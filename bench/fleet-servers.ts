/**
 * Several local API servers for the fleet benchmarks (bench/cases/fleet.ts), as their own process:
 * `fleet-servers.js DIR N` starts N servers (TLS, the demo seed, each on its own port with its own
 * CA and token) and writes DIR/kubeconfig with contexts c0..c(N-1), current-context c0. Prints
 * `ready` once they accept requests; SIGTERM stops them.
 */
import { startFleetEnv } from '../test/support/fleet-env.js';

async function main(): Promise<void> {
  const [dir, n] = process.argv.slice(2);
  const count = Number(n);
  if (!dir || !Number.isInteger(count) || count < 1) {
    process.stderr.write('usage: fleet-servers DIR N\n');
    process.exit(2);
  }
  const env = await startFleetEnv({ contexts: Array.from({ length: count }, (_, i) => `c${i}`), dir, server: { seed: 'demo' } });
  process.stdout.write('ready\n');
  const stop = () => void env.stop().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
