/**
 * The mapper for a server with 1,000 CRD groups resolves every name to the right group and reports
 * each short-name collision. How long building and resolving take is a benchmark, not a test:
 * `npm run bench -- --case 'restmapper-*'` (bench/cases/restmapper.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DiscoveryRESTMapper } from '../../../src/restmapper/mapper.js';
import { bigSnapshot } from './snapshot.js';

test('1,000 CRD groups: every lookup resolves, collisions are reported', () => {
  const mapper = new DiscoveryRESTMapper(bigSnapshot(1000));
  for (const name of ['pods', 'po', 'things999', 't500', 'Thing10.v1beta1.g10.bench.example.com', 'wd', 'deployments.apps']) mapper.resolve(name);

  assert.equal(mapper.resolve('t999').mapping.gvr.group, 'g999.bench.example.com');
  // `wd` is claimed by the corpus CRD and by 1,000 bench groups: one winner and 1,000 warnings.
  assert.equal(mapper.resolve('wd').warnings.length, 1000);
});
