// The local API server is an independent oracle: it imports nothing from src/ (a mistake shared by
// client and server would pass every test), and its own version priority and status reasons follow
// the Kubernetes sources.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../support/cli.js';
import { byVersionPriority } from '../../support/apiserver/versions.js';
import { ApiError } from '../../support/apiserver/status.js';

test('test/support/apiserver imports nothing from src/', () => {
  const dir = join(repoRoot(), 'test', 'support', 'apiserver');
  const offenders: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) if (/(^|\/)src\//.test(m[1]!)) offenders.push(`${f}: ${m[1]}`);
  }
  assert.deepEqual(offenders, []);
});

test('version priority as the Kubernetes documentation orders its example', () => {
  // https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#version-priority
  const expected = ['v10', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v3beta1', 'v12alpha1', 'v11alpha2', 'foo1', 'foo10'];
  const shuffled = ['foo10', 'v3beta1', 'v1', 'v11alpha2', 'foo1', 'v10beta3', 'v12alpha1', 'v2', 'v11beta2', 'v10'];
  assert.deepEqual([...shuffled].sort(byVersionPriority), expected);
});

test('default Status reasons per code (metav1.StatusReason)', () => {
  const reasons = Object.fromEntries([400, 401, 403, 404, 405, 406, 409, 410, 413, 415, 422, 429, 500, 503, 504, 418].map((c) => [c, new ApiError(c, 'x').reason]));
  assert.deepEqual(reasons, {
    400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed', 406: 'NotAcceptable', 409: 'Conflict',
    410: 'Expired', 413: 'RequestEntityTooLarge', 415: 'UnsupportedMediaType', 422: 'Invalid', 429: 'TooManyRequests', 500: 'InternalError',
    503: 'ServiceUnavailable', 504: 'Timeout', 418: 'Unknown',
  });
});
