/**
 * Domain names and mailboxes as Go's crypto/x509 parses them (verify.go domainToReverseLabels and
 * parseRFC2821Mailbox), for URI SANs, name constraints and the names checked against them.
 */

/** Go's domainToReverseLabels: the labels, last first; undefined for an empty label, a trailing dot or a byte outside '!'..'~'. */
export function domainLabels(domain: string): string[] | undefined {
  if (domain === '') return [];
  const labels = domain.split('.').reverse();
  return labels.every((label) => label.length > 0 && [...label].every((c) => c >= '!' && c <= '~')) ? labels : undefined;
}

const ATEXT = /[0-9A-Za-z!#$%&'*+\-/=?^_`{|}~.]/;

export interface Mailbox {
  local: string;
  domain: string;
}

/** Go's parseRFC2821Mailbox: a local part (atoms or a quoted string), `@`, a domain; undefined where Go fails. */
export function parseMailbox(address: string): Mailbox | undefined {
  const no = undefined;
  let i = 0;
  let local = '';
  if (address.startsWith('"')) {
    i = 1;
    for (;;) {
      if (i >= address.length) return no;
      const c = address.charCodeAt(i++);
      if (c === 0x22) break;
      if (c === 0x5c) {
        const next = address.charCodeAt(i++);
        if (Number.isNaN(next) || !(next === 11 || next === 12 || (next >= 1 && next <= 9) || (next >= 14 && next <= 127))) return no;
        local += address[i - 1];
        continue;
      }
      const qtext = c === 11 || c === 12 || c === 32 || c === 33 || c === 127 || (c >= 1 && c <= 8) || (c >= 14 && c <= 31) || (c >= 35 && c <= 91) || (c >= 93 && c <= 126);
      if (!qtext) return no;
      local += address[i - 1];
    }
  } else {
    while (i < address.length) {
      let c = address[i]!;
      if (c === '\\') {
        i++;
        if (i >= address.length) return no;
        c = address[i]!;
      } else if (!ATEXT.test(c)) break;
      local += c;
      i++;
    }
    if (local === '' || local.startsWith('.') || local.endsWith('.') || local.includes('..')) return no;
  }
  if (address[i] !== '@') return no;
  const domain = address.slice(i + 1);
  // Go's domainToReverseLabels, which also refuses a trailing dot.
  return domainLabels(domain) ? { local, domain } : no;
}
