/**
 * `api-resources` against kubectl's own output: the goldens in test/fixtures/discovery/kubectl-api-resources/
 * were printed by kubectl v1.32.4 from the same recorded discovery documents (see README there).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../../src/cli/commands/api-resources.js';
import { parseArgv } from '../../../src/cli/parse.js';
import { memoryIO } from '../../support/io.js';
import { FakeClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import { parseAggregatedDiscovery, staleFailure } from '../../../src/discovery/aggregated.js';
import type { CachedDiscovery, DiscoverySnapshot, SnapshotOptions } from '../../../src/discovery/types.js';
import type { Context } from '../../../src/cli/context.js';
import { fixturePath, readJSON } from './fixtures.js';

function fakeContext(args: ReturnType<typeof parseArgv>, snapshot: DiscoverySnapshot, calls: Array<SnapshotOptions | 'invalidate'> = []): Context {
  const d: CachedDiscovery = {
    snapshot: async (o) => {
      calls.push(o ?? {});
      return snapshot;
    },
    invalidate() {
      calls.push('invalidate');
    },
    fresh: () => false,
  };
  const unused = () => Promise.reject(new Error('not used by api-resources'));
  return {
    flags: args.flags, explicit: args.explicit, io: memoryIO(), clock: new FakeClock(), logger: silentLogger,
    restConfig: unused, namespace: unused, transport: unused, mapper: unused, dynamic: unused,
    discovery: async () => d, preconnect: async () => {}, close() {},
  } as unknown as Context;
}

async function runWith(argv: string[], snapshot: DiscoverySnapshot) {
  const args = parseArgv(['api-resources', ...argv]);
  const io = memoryIO();
  const calls: Array<SnapshotOptions | 'invalidate'> = [];
  let code: number | undefined;
  let error: unknown;
  try {
    code = await run(args, fakeContext(args, snapshot, calls), io);
  } catch (e) {
    error = e;
  }
  return { code, error, out: io.out(), err: io.err(), calls };
}

const snapshot = () => parseAggregatedDiscovery(readJSON('06-aggregated-api.http'), readJSON('13-aggregated-apis-with-crd.http'));

describe('api-resources output is byte-identical to kubectl v1.32', () => {
  const dir = fixturePath('kubectl-api-resources');
  const cases = readdirSync(dir).filter((f) => f.endsWith('.args')).sort((a, b) => parseInt(a) - parseInt(b));
  assert.ok(cases.length >= 15);
  for (const c of cases) {
    const argv = readFileSync(join(dir, c), 'utf8').trim().split(/\s+/).filter(Boolean);
    test(`kubectl api-resources ${argv.join(' ') || '(no flags)'}`, async () => {
      const r = await runWith(argv, snapshot());
      assert.equal(r.error, undefined);
      assert.equal(r.code, 0);
      assert.equal(r.out, readFileSync(join(dir, c.replace('.args', '.txt')), 'utf8'));
      assert.equal(r.err, '');
    });
  }
});

describe('api-resources beyond kubectl', () => {
  test('revalidates as kubectl does (invalidate, then a snapshot); --cached asks for cache-only data', async () => {
    const r = await runWith(['--cached'], snapshot());
    assert.deepEqual(r.calls, [{ cachedOnly: true }]);
    const r2 = await runWith([], snapshot());
    assert.deepEqual(r2.calls, ['invalidate', { cachedOnly: false }]);
  });

  test('-o json and -o yaml print the rows as data', async () => {
    const j = await runWith(['-o', 'json', '--api-group=apps'], snapshot());
    const rows = JSON.parse(j.out) as Array<{ name: string; apiVersion: string; namespaced: boolean; verbs: string[] }>;
    assert.deepEqual(rows.map((r) => r.name), ['controllerrevisions', 'daemonsets', 'deployments', 'replicasets', 'statefulsets']);
    assert.ok(rows.every((r) => r.apiVersion === 'apps/v1' && r.namespaced));
    const { load } = await import('js-yaml');
    const y = await runWith(['-o', 'yaml', '--api-group=apps'], snapshot());
    assert.deepEqual(load(y.out), rows);
  });

  test('an unknown -o is a usage error', async () => {
    const r = await runWith(['-o', 'custom-columns=X'], snapshot());
    assert.equal((r.error as { exitCode?: number }).exitCode, 2);
    assert.match((r.error as Error).message, /--output custom-columns=X is not available/);
  });

  test('failed and stale group-versions: rows printed, one warning each, exit 0; --strict exits 1', async () => {
    const s = snapshot();
    s.resources.delete('stable.example.com/v1beta1');
    s.failures.push({ groupVersion: 'metrics.k8s.io/v1beta1', reason: 'failed', message: "couldn't get resource list for metrics.k8s.io/v1beta1: the server is currently unable to handle the request" });
    s.failures.push(staleFailure('stable.example.com/v1beta1'));
    const r = await runWith([], s);
    assert.equal(r.code, 0);
    assert.match(r.out, /^crontabs +ct +stable.example.com\/v1 /m);
    assert.deepEqual(r.err.trim().split('\n'), [
      "Warning: couldn't get resource list for metrics.k8s.io/v1beta1: the server is currently unable to handle the request",
      'Warning: stale GroupVersion discovery: stable.example.com/v1beta1',
    ]);
    const strict = await runWith(['--strict'], s);
    assert.equal(strict.out, r.out);
    assert.equal((strict.error as { exitCode?: number }).exitCode, 1);
  });
});
