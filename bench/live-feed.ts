/**
 * A local API server with OBJECTS ConfigMaps in namespace `feed` that, once a watch opens, changes
 * them at RATE events a second for SECONDS seconds, for the live view's benchmark
 * (bench/cases/watch-live.ts), as its own process so that its work is not counted as kdyn's:
 * `live-feed.js KUBECONFIG OBJECTS RATE SECONDS`. Of every 20 events, one deletes an object, the
 * next creates one in its place (the count stays the same), the others modify objects in turn. Prints `ready <url>` once it accepts
 * requests, `feeding` when the first watch opened, and `done <events>` at the end.
 */
import { startServer } from '../test/support/apiserver/server.js';

const NS = 'feed';

async function main(): Promise<void> {
  const [kubeconfig, ...nums] = process.argv.slice(2);
  const [objects, rate, seconds] = nums.map(Number);
  if (!kubeconfig || ![objects, rate, seconds].every((n) => Number.isInteger(n) && n! > 0)) {
    process.stderr.write('usage: live-feed KUBECONFIG OBJECTS RATE SECONDS\n');
    process.exit(2);
  }
  const server = await startServer({ tls: true, seed: 'empty', configmaps: objects, namespace: NS });
  server.writeKubeconfig(kubeconfig);
  const names = server.store.list('', 'configmaps', { namespace: NS }).items.map((o) => o.metadata.name as string);
  let sent = 0;
  let fresh = 0;
  let pending: string | undefined;
  const step = (): void => {
    const i = sent++;
    if (i % 20 === 19) {
      // Delete one object, and create another in its place (by index) at the next event.
      const at = (i * 7919) % names.length;
      server.store.delete('', 'configmaps', NS, names[at]!);
      names[at] = `new-${fresh++}`;
      pending = names[at];
      return;
    }
    if (pending !== undefined) {
      server.store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: pending, namespace: NS }, data: { seq: String(i) } });
      pending = undefined;
      return;
    }
    const name = names[i % names.length]!;
    const old = server.store.get('', 'configmaps', NS, name);
    if (old) server.store.update('', 'configmaps', { ...old, metadata: { ...old.metadata }, data: { ...old.data, seq: String(i) } });
  };
  process.stdout.write(`ready ${server.url}\n`);
  const wait = setInterval(() => {
    if (server.watches.count === 0) return;
    clearInterval(wait);
    process.stdout.write('feeding\n');
    const start = Date.now();
    const total = rate! * seconds!;
    // Paced by the clock: every 10 ms, as many events as are due by then.
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((Date.now() - start) * rate!) / 1000));
      while (sent < due) step();
      if (sent >= total) {
        clearInterval(tick);
        process.stdout.write(`done ${sent}\n`);
      }
    }, 10);
  }, 5);
  const stop = () => void server.stop().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
