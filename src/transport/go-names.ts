/**
 * The syntax Go's crypto/x509 demands of a leaf's DNS and email names when a CA of the chain has
 * name constraints (verify.go: every such name must parse, or the chain is refused before any
 * constraint is compared). OpenSSL compares the constraints but has no such rule.
 */

/** Go's domainToReverseLabels succeeds: non-empty labels of printable ASCII, no trailing dot. */
export function parsesAsDomain(domain: string): boolean {
  if (domain === '') return true;
  return domain.split('.').every((label) => label.length > 0 && [...label].every((c) => c >= '!' && c <= '~'));
}

const ATEXT = /[0-9A-Za-z!#$%&'*+\-/=?^_`{|}~.]/;

/** Go's parseRFC2821Mailbox succeeds: a local part (atoms or a quoted string), `@`, a domain. */
export function parsesAsMailbox(address: string): boolean {
  let i = 0;
  let local = '';
  if (address.startsWith('"')) {
    i = 1;
    for (;;) {
      if (i >= address.length) return false;
      const c = address.charCodeAt(i++);
      if (c === 0x22) break;
      if (c === 0x5c) {
        const next = address.charCodeAt(i++);
        if (Number.isNaN(next) || !(next === 11 || next === 12 || (next >= 1 && next <= 9) || (next >= 14 && next <= 127))) return false;
        local += address[i - 1];
        continue;
      }
      const qtext = c === 11 || c === 12 || c === 32 || c === 33 || c === 127 || (c >= 1 && c <= 8) || (c >= 14 && c <= 31) || (c >= 35 && c <= 91) || (c >= 93 && c <= 126);
      if (!qtext) return false;
      local += address[i - 1];
    }
  } else {
    while (i < address.length) {
      let c = address[i]!;
      if (c === '\\') {
        i++;
        if (i >= address.length) return false;
        c = address[i]!;
      } else if (!ATEXT.test(c)) break;
      local += c;
      i++;
    }
    if (local === '' || local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  }
  if (address[i] !== '@') return false;
  const domain = address.slice(i + 1);
  // Go's domainToReverseLabels, which also refuses a trailing dot.
  return parsesAsDomain(domain);
}
