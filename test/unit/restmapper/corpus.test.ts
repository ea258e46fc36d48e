/**
 * The RESTMapper corpus (test/fixtures/restmapper-corpus, copied from the shared reference): 550 names
 * and what kubectl v1.32.4 resolved each to on a real v1.32 server with seven colliding CRDs. Every
 * input is resolved here against the snapshot parsed from that server's aggregated discovery documents
 * and must give the same collection(s), in the same order, with the same short-name warnings.
 *
 * Not compared, by design (they are not RESTMapper output):
 * - `Warning: v1 ComponentStatus is deprecated in v1.19+`: a response header from the server's list;
 * - `Error from server (...)`: the list request failing after resolution (bindings, tokenreviews...);
 *   those rows still count as resolutions, as the corpus README says;
 * - the wording after kubectl's unknown-name error: kdyn may append `Did you mean ...?`.
 * Known exceptions: none (550/550).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAggregatedDiscovery } from '../../../src/discovery/aggregated.js';
import { resolveGetArgs } from '../../../src/restmapper/args.js';
import { DeferredRESTMapper } from '../../../src/restmapper/deferred.js';
import { staticDiscovery } from '../../../src/discovery/static.js';
import { NoResourceMatchError } from '../../../src/restmapper/errors.js';
import { collectionPath, readCorpusCases, readCorpusJSON, shortNameWarnings, type CorpusCase } from './snapshot.js';

const IGNORED_MESSAGE = /^(Warning: v1 ComponentStatus is deprecated in v1\.19\+|Error from server \((NotFound|MethodNotAllowed)\): |error: the server doesn't have a resource type ")/;

const snapshot = parseAggregatedDiscovery(readCorpusJSON('aggregated-api.json'), readCorpusJSON('aggregated-apis.json'));
const cases = readCorpusCases();

/** Resolves one corpus input the way `kdyn get INPUT` does; returns a mismatch description or undefined. */
async function check(c: CorpusCase): Promise<string | undefined> {
  const warnings: string[] = [];
  const mapper = new DeferredRESTMapper(staticDiscovery(snapshot), { warn: (m) => warnings.push(m) });
  const expectedWarnings = shortNameWarnings(c.messages);
  try {
    const plan = await resolveGetArgs([c.input], mapper);
    const paths = plan.requests.map((r) => collectionPath(r.mapping.gvr));
    if (c.paths.length === 0) return `${c.input}: kubectl could not resolve it, kdyn gave ${paths.join(' ')}`;
    if (paths.join(' ') !== c.paths.join(' ')) return `${c.input}: expected ${c.paths.join(' ')}, got ${paths.join(' ')}`;
    if (JSON.stringify(warnings) !== JSON.stringify(expectedWarnings)) {
      return `${c.input}: expected warnings ${JSON.stringify(expectedWarnings)}, got ${JSON.stringify(warnings)}`;
    }
    return undefined;
  } catch (e) {
    if (c.paths.length > 0) return `${c.input}: expected ${c.paths.join(' ')}, got error ${String(e)}`;
    if (!(e instanceof NoResourceMatchError)) return `${c.input}: expected the unknown-name error, got ${String(e)}`;
    const kubectlError = c.messages.find((m) => m.startsWith('error: '))?.slice('error: '.length) ?? '';
    if (!e.message.startsWith(kubectlError)) return `${c.input}: kubectl said "${kubectlError}", kdyn "${e.message}"`;
    return undefined;
  }
}

describe('RESTMapper corpus (kubectl v1.32.4 on a real v1.32 server)', () => {
  test('the corpus is complete and its messages are the kinds this test understands', () => {
    assert.equal(cases.length, 550);
    assert.equal(new Set(cases.map((c) => c.input)).size, 550);
    for (const c of cases) {
      for (const m of c.messages) {
        assert.ok(m.startsWith('Warning: short name ') || IGNORED_MESSAGE.test(m), `${c.input}: unexpected kubectl message ${m}`);
      }
      // exit 1 with a path = resolved but listing failed; exit 1 without = unresolved.
      if (c.exit === 0) assert.ok(c.paths.length > 0, c.input);
    }
    assert.equal(snapshot.groups[0]?.name, '', 'core group first');
    assert.equal(snapshot.failures.length, 0);
  });

  test('every input resolves to kubectl\'s collections with kubectl\'s warnings', async (t) => {
    const mismatches: string[] = [];
    for (const c of cases) {
      const m = await check(c);
      if (m) mismatches.push(m);
    }
    const resolved = cases.filter((c) => c.paths.length > 0).length;
    t.diagnostic(`corpus: ${cases.length - mismatches.length}/${cases.length} match (${resolved} resolved, ${cases.length - resolved} unknown)`);
    assert.deepEqual(mismatches, []);
  });

  test('the cases that exercise collisions are in the corpus and pass (guards against a vacuous table)', async () => {
    const must = ['po', 'deploy', 'dp', 'ev', 'cm', 'svc,cm', 'all', 'gadgets', 'pods,deployments', 'storageclass.storage', 'nosuchthing', 'deployments.v9.apps'];
    for (const input of must) {
      const c = cases.find((x) => x.input === input);
      assert.ok(c, input);
      assert.equal(await check(c), undefined);
    }
    assert.equal(cases.filter((c) => shortNameWarnings(c.messages).length > 0).length, 6);
  });
});
