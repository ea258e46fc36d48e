/**
 * A local API server that feeds watches, for the watch benchmarks (bench/cases/watch.ts), as its own
 * process: `watch-feed.js KUBECONFIG EVENTS`. It serves `OBJECTS` ConfigMaps in namespace `feed`;
 * each time a watch opens (no other open), it modifies them EVENTS times in a row (MODIFIED events,
 * generated in batches so the stream flows while it runs), and closes every watch stream after EVENTS
 * events, so `kubectl get -w` (which stops when its stream ends) exits like `kdyn watch --max-events`.
 * Prints `ready <url>` once it accepts requests.
 */
import { startServer } from '../test/support/apiserver/server.js';

export const FEED_NAMESPACE = 'feed';
export const FEED_OBJECTS = 100;
const BATCH = 250;

async function main(): Promise<void> {
  const [kubeconfig, eventsArg] = process.argv.slice(2);
  const events = Number(eventsArg);
  if (!kubeconfig || !Number.isInteger(events) || events < 1) {
    process.stderr.write('usage: watch-feed KUBECONFIG EVENTS\n');
    process.exit(2);
  }
  const server = await startServer({ tls: true, seed: 'empty', configmaps: FEED_OBJECTS, namespace: FEED_NAMESPACE });
  server.writeKubeconfig(kubeconfig);
  server.faults.closeWatchesAfterEvents(events);
  const names = server.store.list('', 'configmaps', { namespace: FEED_NAMESPACE }).items.map((o) => o.metadata.name as string);

  let feeding = false;
  const feed = async () => {
    feeding = true;
    for (let i = 0; i < events; ) {
      for (const end = Math.min(events, i + BATCH); i < end; i++) {
        const name = names[i % names.length]!;
        const old = server.store.get('', 'configmaps', FEED_NAMESPACE, name)!;
        server.store.update('', 'configmaps', { ...old, metadata: { ...old.metadata }, data: { ...old.data, seq: String(i) } });
      }
      await new Promise((r) => setImmediate(r));
    }
    // Wait for the reader to finish before the next watch may start a new feed.
    while (server.watches.count > 0) await new Promise((r) => setTimeout(r, 5));
    feeding = false;
  };
  setInterval(() => {
    if (!feeding && server.watches.count > 0) void feed();
  }, 2);
  process.stdout.write(`ready ${server.url}\n`);
  const stop = () => void server.stop().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
