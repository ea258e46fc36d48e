import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGetArgs, resolveGetArgs, splitResourceArgument, ResourceArgumentError, type GetPlan } from '../../../src/restmapper/args.js';
import { DeferredRESTMapper } from '../../../src/restmapper/deferred.js';
import { staticDiscovery } from '../../../src/discovery/static.js';
import { NoResourceMatchError } from '../../../src/restmapper/errors.js';
import { COLLIDING, snapshot } from './snapshot.js';

function newMapper(): { mapper: DeferredRESTMapper; warnings: string[] } {
  const warnings: string[] = [];
  return { mapper: new DeferredRESTMapper(staticDiscovery(snapshot(COLLIDING)), { warn: (m) => warnings.push(m) }), warnings };
}

/** `group/version/resource[names]` per request. */
function summary(plan: GetPlan): string[] {
  return plan.requests.map((r) => `${r.mapping.gvr.group}/${r.mapping.gvr.version}/${r.mapping.gvr.resource}${r.names.length ? `[${r.names.join(',')}]` : ''}`);
}

describe('parseGetArgs (pure)', () => {
  test('forms', () => {
    assert.deepEqual(parseGetArgs(['pods']), { form: 'types', types: 'pods', names: [] });
    assert.deepEqual(parseGetArgs(['pods', 'a', 'b']), { form: 'types', types: 'pods', names: ['a', 'b'] });
    assert.deepEqual(parseGetArgs(['pods,svc']), { form: 'types', types: 'pods,svc', names: [] });
    // `a,b x y` becomes a/x a/y b/x b/y
    assert.deepEqual(parseGetArgs(['pods,svc', 'x', 'y']), {
      form: 'type-name',
      tuples: [
        { type: 'pods', name: 'x' },
        { type: 'pods', name: 'y' },
        { type: 'svc', name: 'x' },
        { type: 'svc', name: 'y' },
      ],
    });
    // a repeated type is one type, so this stays TYPE NAME
    assert.deepEqual(parseGetArgs(['pods,pods', 'x']), { form: 'types', types: 'pods,pods', names: ['x'] });
    assert.deepEqual(parseGetArgs(['pods/a', 'svc/b']), {
      form: 'type-name',
      tuples: [
        { type: 'pods', name: 'a' },
        { type: 'svc', name: 'b' },
      ],
    });
  });

  test('kubectl\'s argument errors', () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /^Required resource not specified\. Use "kdyn api-resources" for a complete list of supported resources\.$/],
      [['pods', 'svc/a'], /^there is no need to specify a resource type as a separate argument when passing arguments in resource\/name form \(e\.g\. 'kdyn get resource\/<resource_name>'/],
      [['pods/a/b'], /^arguments in resource\/name form may not have more than one slash$/],
      [['/a'], /^arguments in resource\/name form must have a single resource and name$/],
      [['pods/'], /^arguments in resource\/name form must have a single resource and name$/],
      [['pods,svc/a'], /^arguments in resource\/name form must have a single resource and name$/],
    ];
    for (const [args, message] of cases) {
      assert.throws(() => parseGetArgs(args), (e: unknown) => e instanceof ResourceArgumentError && message.test(e.message) && e.exitCode === 2, args.join(' '));
    }
  });

  test('splitResourceArgument drops repeats, keeping order and (as kubectl) one empty name', () => {
    assert.deepEqual(splitResourceArgument('b,a,,b,c,'), ['b', 'a', '', 'c']);
  });
});

describe('resolveGetArgs', () => {
  const cases: Array<[args: string[], expected: string[], single: boolean]> = [
    [['pods'], ['/v1/pods'], false],
    [['pods', 'a'], ['/v1/pods[a]'], true],
    [['pods', 'a', 'a'], ['/v1/pods[a,a]'], false], // kubectl does not de-duplicate names
    [['pods,deploy'], ['/v1/pods', 'apps/v1/deployments'], false],
    [['pods,po,pod,Pod,PODS'], ['/v1/pods'], false], // de-duplicated by GVK
    [['all'], ['/v1/pods', '/v1/services', 'apps/v1/deployments', 'autoscaling/v2/horizontalpodautoscalers', 'multi.example.com/v1/widgets'], false],
    [['pods,all'], ['/v1/pods', '/v1/services', 'apps/v1/deployments', 'autoscaling/v2/horizontalpodautoscalers', 'multi.example.com/v1/widgets'], false],
    [['svc,all'], ['/v1/services', '/v1/pods', 'apps/v1/deployments', 'autoscaling/v2/horizontalpodautoscalers', 'multi.example.com/v1/widgets'], false],
    [['gadgets'], ['multi.example.com/v1/widgets', 'multi.example.com/v1/gears'], false],
    [['gadgets,wd.v1beta1.multi.example.com'], ['multi.example.com/v1/widgets', 'multi.example.com/v1/gears', 'multi.example.com/v1beta1/widgets'], false],
    [['pods,deploy', 'x', 'y'], ['/v1/pods[x,y]', 'apps/v1/deployments[x,y]'], false],
    [['pods/a'], ['/v1/pods[a]'], true],
    [['pods/a', 'po/b', 'deploy/c', 'pods/d'], ['/v1/pods[a,b]', 'apps/v1/deployments[c]', '/v1/pods[d]'], false],
    [['pods/a', 'pods/a'], ['/v1/pods[a,a]'], false],
  ];
  for (const [args, expected, single] of cases) {
    test(args.join(' '), async () => {
      const { mapper } = newMapper();
      const plan = await resolveGetArgs(args, mapper);
      assert.deepEqual(summary(plan), expected);
      assert.equal(plan.singleItemImplied, single);
    });
  }

  test('requests keep the type as written, after category expansion', async () => {
    const { mapper } = newMapper();
    assert.deepEqual(
      (await resolveGetArgs(['po,gadgets'], mapper)).requests.map((r) => r.arg),
      ['po', 'widgets.multi.example.com', 'gears.multi.example.com'],
    );
  });

  test('shortcut warnings once per type, in argument order', async () => {
    const { mapper, warnings } = newMapper();
    await resolveGetArgs(['svc,cm,po'], mapper);
    assert.deepEqual(warnings, [
      'short name "cm" could also match lower priority resource gears.multi.example.com',
      'short name "po" could also match lower priority resource pods.shadow.example.com',
    ]);
  });

  test('errors: a category with names, an unknown type anywhere, categories in TYPE/NAME form', async () => {
    const { mapper } = newMapper();
    await assert.rejects(resolveGetArgs(['all', 'x'], mapper), { message: 'you must specify only one resource' });
    await assert.rejects(resolveGetArgs([','], mapper), { message: 'the server doesn\'t have a resource type ""' });
    await assert.rejects(resolveGetArgs(['pods,nosuch'], mapper), (e: unknown) => e instanceof NoResourceMatchError && e.resource === 'nosuch');
    await assert.rejects(resolveGetArgs(['all/x'], mapper), (e: unknown) => e instanceof NoResourceMatchError && e.resource === 'all');
  });

  test('the command name in messages is configurable', () => {
    assert.throws(() => parseGetArgs([], 'kubectl'), /Use "kubectl api-resources"/);
  });
});
