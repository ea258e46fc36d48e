// The one apply path over contexts (src/fleet/apply.ts, issue 36): one context is a fleet of one;
// each object's result comes as it is known, tagged with its context, before that context's
// report; each context fills in its own namespace; a context that cannot start is its own error.
// Local API servers on real sockets, one kubeconfig.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { compose } from '../../../src/connect.js';
import { applyContexts, planContexts } from '../../../src/fleet/apply.js';
import { decodeSources } from '../../../src/apply/sources.js';
import { startFleetEnv, type FleetEnv } from '../../support/fleet-env.js';

let env: FleetEnv;
before(async () => {
  env = await startFleetEnv({ contexts: ['east', 'west'], down: ['gone'], server: { seed: 'demo' }, namespaces: { east: 'demo', west: 'team-a' } });
});
after(() => env.stop());

const open = (context: string) => compose({ flags: { context }, env: { HOME: env.dir, KUBECONFIG: env.kubeconfig }, cwd: env.dir, cacheDir: `${env.dir}/cache-${context}` });
const manifests = () => decodeSources([{ name: 'cm.yaml', text: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one-path\ndata:\n  a: "1"\n' }]);
const APPLY = { fieldManager: 'kdyn', force: false, dryRun: false, fieldValidation: 'Strict' as const };

test('a fleet of one: each result as it comes, tagged with the context, then the report', async () => {
  const seen: string[] = [];
  const results = await applyContexts(['east'], open, manifests(), {
    apply: APPLY,
    onResult: (context, r) => seen.push(`result ${context} ${r.status} ${r.object?.metadata?.namespace}`),
    onContext: (r) => seen.push(`context ${r.context} ${r.ok ? r.value.report.succeeded : 'failed'}`),
  });
  assert.deepEqual(seen, ['result east created demo', 'context east 1']);
  assert.equal(results.length, 1);
});

test('several contexts: each its own namespace, results in order, a context down is its own error', async () => {
  const seen: string[] = [];
  await applyContexts(['gone', 'east', 'west'], open, manifests(), {
    apply: { ...APPLY, dryRun: true },
    onResult: (context, r) => seen.push(`result ${context} ${r.object?.metadata?.namespace}`),
    onContext: (r) => seen.push(r.ok ? `context ${r.context}` : `error ${r.context}`),
  });
  assert.deepEqual(seen.filter((l) => l.startsWith('context') || l.startsWith('error')), ['error gone', 'context east', 'context west']);
  assert.deepEqual(seen.filter((l) => l.startsWith('result')).sort(), ['result east demo', 'result west team-a']);
  // --dry-run=client: the requests, planned with each context's mapper and namespace.
  const plans = await planContexts(['east', 'west'], open, manifests(), { apply: APPLY, onContext: () => undefined });
  assert.deepEqual(plans.map((p) => (p.ok ? p.value.requests.map((r) => r.path).join() : 'failed')), ['/api/v1/namespaces/demo/configmaps/one-path', '/api/v1/namespaces/team-a/configmaps/one-path']);
});
