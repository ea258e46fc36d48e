import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DiscoveryRESTMapper } from '../../../src/restmapper/mapper.js';
import { AmbiguousResourceError, NoKindMatchError, NoResourceMatchError } from '../../../src/restmapper/errors.js';
import { KdynError } from '../../../src/core/errors.js';
import { Catalog, pickByPriority } from '../../../src/restmapper/catalog.js';
import { COLLIDING as GROUPS, snapshot } from './snapshot.js';

const mapper = new DiscoveryRESTMapper(snapshot(GROUPS));
const gvr = (input: string): string => {
  const m = mapper.resolve(input).mapping.gvr;
  return `${m.group}/${m.version}/${m.resource}`;
};

describe('DiscoveryRESTMapper.resolve', () => {
  const cases: Array<[input: string, expected: string, why: string]> = [
    ['pods', '/v1/pods', 'plural: core wins over the CRD reusing it'],
    ['pod', '/v1/pods', 'singular'],
    ['Pod', '/v1/pods', 'Kind'],
    ['PODS', '/v1/pods', 'case-insensitive plural'],
    ['pOdS', '/v1/pods', 'mixed case'],
    ['po', '/v1/pods', 'short name, first in discovery order'],
    ['PO', '/v1/pods', 'short names are case-insensitive too (kubectl: no match)'],
    ['shp', 'shadow.example.com/v1/pods', 'short name only the CRD has'],
    ['deploy', 'apps/v1/deployments', 'built-in short name beats the CRD'],
    ['deploy.apps', 'apps/v1/deployments', 'short name within a group'],
    ['deploy.shadow.example.com', 'shadow.example.com/v1/deployments', 'short name restricted to a group'],
    ['po.shadow', 'shadow.example.com/v1/pods', 'short name with a group prefix'],
    ['deployments.shadow.example.com', 'shadow.example.com/v1/deployments', 'resource.group with a dotted group'],
    ['deployments.v1.apps', 'apps/v1/deployments', 'resource.version.group'],
    ['pods.v1.', '/v1/pods', 'core resource.version.group'],
    ['deployments.v1.', 'apps/v1/deployments', 'version only: any group, by priority'],
    ['Deployment.v1.shadow.example.com', 'shadow.example.com/v1/deployments', 'Kind.version.group'],
    ['Deployment.shadow.example.com', 'shadow.example.com/v1/deployments', 'Kind.group'],
    ['dups', 'alpha.example.com/v1/dups', 'same plural in two CRD groups: server order'],
    ['dup.beta.example.com', 'beta.example.com/v1/dups', 'singular.group'],
    ['dp', 'alpha.example.com/v1/dups', 'shared short name: first group'],
    ['hpa', 'autoscaling/v2/horizontalpodautoscalers', 'preferred version first'],
    ['horizontalpodautoscalers.v1.autoscaling', 'autoscaling/v1/horizontalpodautoscalers', 'explicit non-preferred version'],
    ['HorizontalPodAutoscaler.v1.autoscaling', 'autoscaling/v1/horizontalpodautoscalers', 'Kind with explicit version'],
    ['widgets', 'multi.example.com/v1/widgets', 'multi-version CRD: preferred'],
    ['widget.v2alpha1.multi.example.com', 'multi.example.com/v2alpha1/widgets', 'singular with explicit version'],
    ['wd.v1beta1.multi.example.com', 'multi.example.com/v1beta1/widgets', 'short name keeps an explicit version (client-go drops it)'],
    ['storageclass.storage', 'storage.k8s.io/v1/storageclasses', 'group prefix match'],
    ['sc', 'storage.k8s.io/v1/storageclasses', 'short name'],
    ['cj.bat', 'batch/v1/cronjobs', 'short name with a group prefix'],
    ['ev', '/v1/events', 'core events over events.k8s.io'],
    ['events.events.k8s.io', 'events.k8s.io/v1/events', 'qualified'],
    ['events.events', 'events.k8s.io/v1/events', 'group prefix'],
    ['cm', '/v1/configmaps', 'CRD reusing a built-in short name'],
    ['cm.multi.example.com', 'multi.example.com/v1/gears', 'that short name in the CRD group'],
    ['endpoints', '/v1/endpoints', 'plural equal to singular'],
    ['Bar.odd.example.com', 'odd.example.com/v1/foos', 'Kind that differs from the singular, with group'],
    ['BAR.odd.example.com', 'odd.example.com/v1/foos', 'such a Kind in any case'],
    ['foo', 'odd.example.com/v1/foos', 'its singular'],
    ['gizmos.things.io', 'things.io/v1/gizmos', 'an exact group beats an earlier group it is a prefix of'],
    ['gizmos.things', 'things.io.extra/v1/gizmos', 'prefix only: first in server order'],
  ];
  for (const [input, expected, why] of cases) {
    test(`${input} -> ${expected} (${why})`, () => assert.equal(gvr(input), expected));
  }

  test('shortcut warnings: exact kubectl text, one per other resource, in discovery order', () => {
    assert.deepEqual(mapper.resolve('po').warnings, ['short name "po" could also match lower priority resource pods.shadow.example.com']);
    assert.deepEqual(mapper.resolve('dp').warnings, ['short name "dp" could also match lower priority resource dups.beta.example.com']);
    assert.deepEqual(mapper.resolve('ev').warnings, ['short name "ev" could also match lower priority resource events.events.k8s.io']);
    assert.deepEqual(mapper.resolve('cm').warnings, ['short name "cm" could also match lower priority resource gears.multi.example.com']);
  });

  test('no warning for exact names, group-qualified short names, or one resource in several versions', () => {
    for (const input of ['pods', 'Pod', 'deploy.apps', 'wd', 'hpa', 'dups', 'shp', 'cm.multi.example.com']) {
      assert.deepEqual(mapper.resolve(input).warnings, [], input);
    }
  });

  test('warnings of an attempt that failed are dropped', () => {
    // `s.v9.x.io` first reads as resource.version.group: `s` is two resources' short name in x.io
    // (a warning) but there is no v9; then as resource.group, where group v9.x.io has a resource `s`.
    const m = new DiscoveryRESTMapper(
      snapshot([
        { name: 'x.io', versions: [['v1', [{ name: 'as', kind: 'A', short: ['s'] }, { name: 'bs', kind: 'B', short: ['s'] }]]] },
        { name: 'v9.x.io', versions: [['v1', [{ name: 's', kind: 'S' }]]] },
      ]),
    );
    assert.deepEqual(m.resolve('s.x.io').warnings, ['short name "s" could also match lower priority resource bs.x.io']);
    const r = m.resolve('s.v9.x.io');
    assert.deepEqual(r.mapping.gvr, { group: 'v9.x.io', version: 'v1', resource: 's' });
    assert.deepEqual(r.warnings, []);
  });

  test('a mapping carries what get needs', () => {
    const pods = mapper.resolve('po').mapping;
    assert.deepEqual(pods.gvk, { group: '', version: 'v1', kind: 'Pod' });
    assert.equal(pods.namespaced, true);
    assert.deepEqual(pods.verbs, ['get', 'list', 'watch', 'delete']);
    assert.deepEqual(pods.subresources, ['log', 'status']);
    assert.deepEqual(pods.shortNames, ['po']);
    const hpa = mapper.resolve('horizontalpodautoscalers.v1.autoscaling').mapping;
    assert.equal(hpa.preferredVersion, 'v2');
    assert.deepEqual(hpa.groupVersions, ['v2', 'v1']);
    const nodes = mapper.resolve('no').mapping;
    assert.equal(nodes.namespaced, false);
    assert.equal(mapper.resolve('deploy.shadow.example.com').mapping.namespaced, false);
    assert.deepEqual(mapper.resolve('deploy').mapping.subresources, ['scale']);
  });
});

describe('DiscoveryRESTMapper misses', () => {
  const miss = (input: string): NoResourceMatchError => {
    try {
      mapper.resolve(input);
    } catch (e) {
      assert.ok(e instanceof NoResourceMatchError, `${input}: ${String(e)}`);
      assert.ok(e instanceof KdynError);
      assert.equal(e.exitCode, 1);
      return e;
    }
    assert.fail(`${input} resolved`);
  };

  test('unknown names give kubectl\'s message, naming the part before the first dot', () => {
    assert.equal(miss('nosuchthing').message, 'the server doesn\'t have a resource type "nosuchthing"');
    assert.equal(miss('deployments.v9.apps').resource, 'deployments');
    assert.equal(miss('pods.nosuch.example.com').resource, 'pods');
    assert.equal(miss('widgets.v1alpha1.multi.example.com').resource, 'widgets');
    assert.equal(miss('Nope.apps').resource, 'Nope');
  });

  test('Kind forms need a group: a CRD Kind that is not its singular is not found bare (kubectl too)', () => {
    miss('Bar');
  });

  test('pods/status-like subresources are not types', () => {
    miss('status');
  });

  test('did-you-mean hints: closest names, or the qualified forms that exist', () => {
    assert.equal(miss('podz').message, 'the server doesn\'t have a resource type "podz". Did you mean "pods"?');
    assert.deepEqual(miss('deployments.v9.apps').suggestions, ['deployments.v1.apps']);
    assert.deepEqual(miss('pods.nosuch.example.com').suggestions, ['pods', 'pods.shadow.example.com']);
    assert.deepEqual(miss('widgets.v9.multi.example.com').suggestions, [
      'widgets.v1.multi.example.com',
      'widgets.v1beta1.multi.example.com',
      'widgets.v2alpha1.multi.example.com',
    ]);
    assert.deepEqual(miss('deploymnts').suggestions, ['deployments']);
    assert.deepEqual(miss('gadget').suggestions, ['gadgets']);
    assert.deepEqual(miss('nosuchthing').suggestions, []);
  });

  test('a miss names the group-versions discovery could not read', () => {
    const partial = new DiscoveryRESTMapper(
      snapshot(GROUPS.slice(0, 1), [{ groupVersion: 'metrics.k8s.io/v1beta1', reason: 'failed', message: '503' }]),
    );
    assert.throws(() => partial.resolve('podmetrics'), {
      message: 'the server doesn\'t have a resource type "podmetrics" (discovery incomplete: metrics.k8s.io/v1beta1)',
    });
  });

  test('a tie at the same priority is an ambiguity, not a miss', () => {
    // kubectl's rules never tie over real discovery (each group-version has its own rank and one entry
    // per name), so the tie is built by hand at the priority step.
    const catalog = new Catalog(snapshot([{ name: 'twice.io', versions: [['v1', [{ name: 'things', kind: 'Thing' }]]] }]));
    const { gv, res } = catalog.byName('things')[0]!;
    const tie = pickByPriority([{ gv, res }, { gv, res: { ...res, namespaced: false } }]);
    assert.ok(Array.isArray(tie) && tie.length === 2);
    const same = pickByPriority([{ gv, res }, { gv, res }]);
    assert.ok(same && !Array.isArray(same) && same.res === res, 'the same entry twice is not a tie');
    const e = new AmbiguousResourceError('things', [
      { group: 'twice.io', version: 'v1', resource: 'things' },
      { group: 'twice.io', version: 'v1', resource: 'thingies' },
    ]);
    assert.ok(!(e instanceof NoResourceMatchError));
    assert.equal(e.message, 'things matches multiple resources [twice.io/v1, Resource=things twice.io/v1, Resource=thingies]');
  });
});

describe('DiscoveryRESTMapper.mappingForKind', () => {
  const cases: Array<[group: string, version: string, kind: string, expected: string]> = [
    ['', 'v1', 'Pod', '/v1/pods'],
    ['apps', 'v1', 'Deployment', 'apps/v1/deployments'],
    ['apps', 'v1', 'deployment', 'apps/v1/deployments'],
    ['shadow.example.com', 'v1', 'Deployment', 'shadow.example.com/v1/deployments'],
    ['multi.example.com', 'v1beta1', 'Widget', 'multi.example.com/v1beta1/widgets'],
    ['multi.example.com', '', 'Widget', 'multi.example.com/v1/widgets'],
    ['odd.example.com', 'v1', 'Bar', 'odd.example.com/v1/foos'],
  ];
  for (const [group, version, kind, expected] of cases) {
    test(`${group}/${version} ${kind} -> ${expected}`, () => {
      const m = mapper.mappingForKind(group, version, kind).gvr;
      assert.equal(`${m.group}/${m.version}/${m.resource}`, expected);
    });
  }

  test('misses give kubectl\'s no-matches message', () => {
    assert.throws(() => mapper.mappingForKind('apps', 'v9', 'Deployment'), { message: 'no matches for kind "Deployment" in version "apps/v9"' });
    assert.throws(() => mapper.mappingForKind('', 'v1', 'Nope'), { message: 'no matches for kind "Nope" in version "v1"' });
    assert.throws(() => mapper.mappingForKind('nope.io', '', 'Nope'), { message: 'no matches for kind "Nope" in group "nope.io"' });
    // Manifests are case-sensitive (only the Kind and its all-lowercase form are registered).
    assert.throws(() => mapper.mappingForKind('apps', 'v1', 'DEPLOYMENT'), (e: unknown) => e instanceof NoKindMatchError);
  });
});

describe('DiscoveryRESTMapper.expandCategory', () => {
  test('members in discovery order, de-duplicated across versions, as resource[.group]', () => {
    assert.deepEqual(mapper.expandCategory('all'), [
      'pods',
      'services',
      'deployments.apps',
      'horizontalpodautoscalers.autoscaling',
      'widgets.multi.example.com',
    ]);
    assert.deepEqual(mapper.expandCategory('gadgets'), ['widgets.multi.example.com', 'gears.multi.example.com']);
    assert.deepEqual(mapper.expandCategory('ALL'), mapper.expandCategory('all'));
    assert.equal(mapper.expandCategory('pods'), undefined);
  });
});
