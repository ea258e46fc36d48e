import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../../src/core/errors.js';
import { ensureOk, statusError } from '../../../src/transport/status.js';
import { toConnectionError } from '../../../src/transport/errors.js';

const res = (status: number, body: string | object) => ({
  status,
  headers: {},
  url: 'https://k:6443/x',
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});

describe('statusError', () => {
  test('a Status body: Error from server (Reason): message', () => {
    const e = statusError(res(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'configmaps "x" not found', reason: 'NotFound', details: { name: 'x', kind: 'configmaps' }, code: 404 }));
    assert.ok(e instanceof StatusError);
    assert.equal(e.message, 'Error from server (NotFound): configmaps "x" not found');
    assert.equal(e.code, 404);
    assert.equal(e.status.details!.name, 'x');
  });

  test('a Status without a reason: `Error from server: message`, none made up from the HTTP code', () => {
    const message = 'failed to create typed patch object (default/x; /v1, Kind=ConfigMap): .data.bogus: field not declared in schema';
    const e = statusError(res(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code: 500 }));
    assert.equal(e.message, `Error from server: ${message}`);
    assert.equal(e.code, 500);
  });

  test('Unauthorized reads as kubectl\'s login message', () => {
    assert.equal(statusError(res(401, { kind: 'Status', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 })).message, 'error: You must be logged in to the server (Unauthorized)');
    assert.equal(statusError(res(401, '')).message, 'error: You must be logged in to the server (the server has asked for the client to provide credentials)');
  });

  const generic: Array<[number, string, string]> = [
    [404, '404 page not found', 'Error from server (NotFound): the server could not find the requested resource'],
    [403, 'nope', 'Error from server (Forbidden): nope'],
    [400, '', 'Error from server (BadRequest): the server rejected our request for an unknown reason'],
    [409, '', 'Error from server (Conflict): the server reported a conflict'],
    [503, '', 'Error from server (ServiceUnavailable): the server is currently unable to handle the request'],
    [500, '<html>\n<body>boom</body>\n</html>', 'Error from server (InternalError): an error on the server ("<html> <body>boom</body> </html>") has prevented the request from succeeding'],
    [502, '', 'Error from server (InternalError): an error on the server ("unknown") has prevented the request from succeeding'],
    [418, '', 'Error from server (Unknown): the server responded with the status code 418 but did not return more information'],
  ];
  for (const [code, body, want] of generic) {
    test(`HTTP ${code} without a Status`, () => {
      const e = statusError(res(code, body));
      assert.equal(e.message, want);
      assert.equal(e.code, code);
    });
  }

  test('binary junk is summarised, not printed', () => {
    const e = statusError({ status: 500, body: Buffer.from([0x00, 0x01, 0x02, 0x41]) });
    assert.match(e.message, /"4 bytes of non-text data"/);
  });

  test('ensureOk passes 2xx through and throws otherwise', () => {
    const ok = res(201, '{}');
    assert.equal(ensureOk(ok), ok);
    assert.throws(() => ensureOk(res(404, '')), StatusError);
  });
});

describe('toConnectionError', () => {
  const map = (code: string, extra: object = {}) => toConnectionError(Object.assign(new Error('x'), { code }, extra), 'k:6443', 'GET https://k:6443/x').message;
  test('node codes -> kubectl wording', () => {
    assert.equal(map('ECONNREFUSED'), 'The connection to the server k:6443 was refused - did you specify the right host or port?');
    assert.equal(map('SELF_SIGNED_CERT_IN_CHAIN'), 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority');
    assert.equal(map('CERT_HAS_EXPIRED'), 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate has expired or is not yet valid');
    assert.equal(map('ENOTFOUND', { hostname: 'k' }), 'Unable to connect to the server: dial tcp: lookup k: no such host');
    assert.equal(map('ERR_SSL_WRONG_VERSION_NUMBER'), 'Unable to connect to the server: http: server gave HTTP response to HTTPS client');
    assert.equal(map('ETIMEDOUT'), 'Unable to connect to the server: dial tcp k:6443: i/o timeout');
  });
});
