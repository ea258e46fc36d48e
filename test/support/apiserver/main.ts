/**
 * `npm run local-apiserver -- [--port N] [--tls] [--kubeconfig FILE] [--seed empty|demo]
 *   [--extra-groups N] [--configmaps N] [--namespace NS] [--discovery aggregated|legacy]
 *   [--crd-establish-delay MS] [--watch-bookmark-interval MS] [--watch-close-after-events N]
 *   [--watch-close-after MS] [--fault SPEC]...`
 * `--fault` takes the specs faults.ts's applyFaultSpec documents, e.g. `status=503,path=/api/v1,times=3,retry-after=2`.
 * Prints one line `ready <url>` when accepting requests; runs until SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { startServer } from './server.js';
import { applyFaultSpec } from './faults.js';

function int(name: string, v: string | undefined, def: number): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`local-apiserver: --${name} must be a non-negative integer, got "${v}"\n`);
    process.exit(2);
  }
  return n;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        tls: { type: 'boolean', default: false },
        kubeconfig: { type: 'string' },
        seed: { type: 'string', default: 'empty' },
        'extra-groups': { type: 'string' },
        configmaps: { type: 'string' },
        namespace: { type: 'string', default: 'bench' },
        discovery: { type: 'string', default: 'aggregated' },
        'crd-establish-delay': { type: 'string' },
        'watch-bookmark-interval': { type: 'string' },
        'watch-close-after-events': { type: 'string' },
        'watch-close-after': { type: 'string' },
        fault: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`local-apiserver: ${(e as Error).message}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(
      'usage: local-apiserver [--port N] [--tls] [--kubeconfig FILE] [--seed empty|demo] [--extra-groups N] [--configmaps N] [--namespace NS] [--discovery aggregated|legacy]\n' +
        '  [--crd-establish-delay MS] [--watch-bookmark-interval MS] [--watch-close-after-events N] [--watch-close-after MS]\n' +
        '  [--fault SPEC]...   e.g. status=503,path=/api/v1,times=3,retry-after=2 | reset,path=/version | reset-after-bytes=100,path=/apis\n' +
        '                      | delay=500,path=/apis | drip=16:50,path=/apis | redirect=http://host:port,path=/version\n' +
        '                      | gv-unavailable=apps/v1 | gv-stale=apps/v1 | hostile-discovery=slash|dotdot|nul|long|huge|invalid-json\n',
    );
    return;
  }
  if (values.seed !== 'empty' && values.seed !== 'demo') {
    process.stderr.write(`local-apiserver: --seed must be empty or demo, got "${values.seed}"\n`);
    process.exit(2);
  }
  if (values.discovery !== 'aggregated' && values.discovery !== 'legacy') {
    process.stderr.write(`local-apiserver: --discovery must be aggregated or legacy, got "${values.discovery}"\n`);
    process.exit(2);
  }
  const faultSpecs = values.fault ?? [];
  const server = await startServer({
    port: int('port', values.port, 0),
    tls: values.tls,
    seed: values.seed,
    extraGroups: int('extra-groups', values['extra-groups'], 0),
    configmaps: int('configmaps', values.configmaps, 0),
    namespace: values.namespace,
    discovery: values.discovery,
    crdEstablishDelayMs: int('crd-establish-delay', values['crd-establish-delay'], 0),
    watchBookmarkIntervalMs: int('watch-bookmark-interval', values['watch-bookmark-interval'], 60_000),
  });
  for (const spec of faultSpecs) {
    try {
      applyFaultSpec(server.faults, spec);
    } catch (e) {
      process.stderr.write(`local-apiserver: ${(e as Error).message}\n`);
      await server.stop();
      process.exit(2);
    }
  }
  if (values['watch-close-after-events'] !== undefined) server.faults.closeWatchesAfterEvents(int('watch-close-after-events', values['watch-close-after-events'], 0));
  if (values['watch-close-after'] !== undefined) server.faults.closeWatchesAfterMs(int('watch-close-after', values['watch-close-after'], 0));
  if (values.kubeconfig) server.writeKubeconfig(values.kubeconfig);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.stdout.write(`ready ${server.url}\n`);
}

main().catch((e) => {
  process.stderr.write(`local-apiserver: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
