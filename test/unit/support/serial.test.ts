/**
 * The serial numbers of the test certificates (test/support/apiserver/tls.ts): positive and minimally
 * encoded in DER, as Go requires ("x509: malformed serial number") and OpenSSL ("illegal padding").
 * A serial whose first two bytes were zero came out non-minimal once in ~65,000 certificates (node-forge
 * strips one leading zero byte only): a real kube-apiserver refused its client CA once in CI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { serial } from '../../support/apiserver/tls.js';

/** Go's rule for an INTEGER's content octets (cryptobyte checkASN1Integer): not empty, no redundant leading byte. */
function minimal(der: Buffer): boolean {
  return der.length === 1 || !((der[0] === 0 && (der[1]! & 0x80) === 0) || (der[0] === 0xff && (der[1]! & 0x80) !== 0));
}

test('serial(): 16 bytes, the first 0x40-0x7f (positive, never a leading zero), so every DER encoding is minimal', () => {
  const firsts = new Set<number>();
  for (let i = 0; i < 2000; i++) {
    const b = Buffer.from(serial(), 'hex');
    assert.equal(b.length, 16);
    assert.ok(b[0]! >= 0x40 && b[0]! <= 0x7f, b.toString('hex'));
    firsts.add(b[0]!);
    const asn1 = forge.asn1;
    const der = Buffer.from(asn1.toDer(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, forge.util.hexToBytes(b.toString('hex')))).getBytes(), 'latin1');
    assert.ok(minimal(der.subarray(2)), der.toString('hex'));
  }
  assert.ok(firsts.size > 32, 'the first byte is still random');
  // The rule itself: what the old generator could produce (00 00 7f ...) fails it; Node parses a
  // certificate with a minimal serial as given.
  assert.equal(minimal(Buffer.from('00007f', 'hex')), false);
  assert.equal(minimal(Buffer.from('0080', 'hex')), true);
});

test('a certificate made with serial() carries it unchanged', async () => {
  const { rsaKeys, selfSignedCa, certificatePem } = await import('../../support/apiserver/tls.js');
  const { ca } = selfSignedCa(await rsaKeys(), 'serial-test', new Date());
  assert.equal(new X509Certificate(certificatePem(ca)).serialNumber, ca.serialNumber.toUpperCase());
});
