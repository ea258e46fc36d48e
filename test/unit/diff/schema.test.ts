/**
 * A custom resource checked against its CRD's structural schema (src/diff/schema.ts): types,
 * required, enum, bounds, nullable, int-or-string, defaults, unknown fields pruned and listed,
 * preserved unknown fields kept, metadata left to the API server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAgainstSchema, crdVersionSchema, type StructuralSchema } from '../../../src/diff/schema.js';

const schema: StructuralSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
        port: { 'x-kubernetes-int-or-string': true },
        note: { type: 'string', nullable: true, maxLength: 5 },
        name: { type: 'string', pattern: '^[a-z]+$' },
        tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  },
};
const obj = (spec: unknown) => ({ apiVersion: 'x.dev/v1', kind: 'W', metadata: { name: 'w', anything: 1 }, spec });

test('a valid object: defaults filled in, preserved and additional properties kept, metadata untouched', () => {
  const r = checkAgainstSchema(obj({ size: 2, port: 'http', note: null, extra: { a: { b: 1 } }, labels: { a: 'b' } }), schema);
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.unknown, []);
  assert.deepEqual(r.object, obj({ size: 2, port: 'http', note: null, extra: { a: { b: 1 } }, labels: { a: 'b' }, color: 'red' }));
});

test('every problem, worded as the API server words it', () => {
  const r = checkAgainstSchema(obj({ color: 'green', port: 1.5, note: 'toolong', name: 'A1', tags: ['a', 'b', 3], labels: { a: 1 } }), schema);
  assert.deepEqual(r.problems, [
    'spec.color: Unsupported value: "green": supported values: "red", "blue"',
    'spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"',
    'spec.note: Too long: may not be more than 5 bytes',
    "spec.name: Invalid value: \"A1\": spec.name in body should match '^[a-z]+$'",
    'spec.tags: Too many: 3: must have at most 2 items',
    'spec.tags[2]: Invalid value: "integer": spec.tags[2] in body must be of type string: "integer"',
    'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
    'spec.size: Required value',
  ]);
  assert.deepEqual(checkAgainstSchema(obj({ size: 0 }), schema).problems, ['spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1']);
  assert.deepEqual(checkAgainstSchema(obj({ size: 'x' }), schema).problems, ['spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"']);
  assert.deepEqual(checkAgainstSchema(obj('nope'), schema).problems, ['spec: Invalid value: "string": spec in body must be of type object: "string"']);
});

test('unknown fields are pruned and listed (the server\'s warnings)', () => {
  const r = checkAgainstSchema({ ...obj({ size: 1, bogus: true }), status: { x: 1 } }, schema);
  assert.deepEqual(r.unknown, ['spec.bogus', 'status']);
  assert.deepEqual(r.object.spec, { size: 1, color: 'red' });
  assert.equal(r.object.status, undefined);
});

test('crdVersionSchema: the named version\'s schema, or none', () => {
  const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'ws.x.dev' }, spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: schema } }, { name: 'v2' }] } };
  assert.equal(crdVersionSchema(crd, 'v1'), schema);
  assert.equal(crdVersionSchema(crd, 'v2'), undefined);
  assert.equal(crdVersionSchema(crd, 'v3'), undefined);
});
