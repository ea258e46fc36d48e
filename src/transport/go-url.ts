/**
 * Go's net/url Parse (go1.23 url.go), as far as crypto/x509 depends on it for a URI subjectAltName:
 * whether it fails, with Go's words, and the unescaped host it finds. The scheme, authority, port,
 * userinfo, %-escapes of the path, host, zone and fragment are checked as Go checks them.
 */

export type GoUrl = { host: string } | { error: string };

const HEX = /^[0-9a-fA-F]$/;

/** Go's strconv.Quote of an ASCII string (control bytes as \x..). */
function quote(s: string): string {
  return JSON.stringify(s).replace(/\\u00([0-9a-f]{2})/g, '\\x$1').replace(/\\u007f/g, '\\x7f');
}

type Mode = 'path' | 'host' | 'zone' | 'user' | 'fragment';

/** Go's shouldEscape for the host and zone modes (the only ones unescape consults it for). */
function hostNeedsEscape(c: string): boolean {
  if (/[a-zA-Z0-9]/.test(c)) return false;
  return !"!$&'()*+,;=:[]<>\"-_.~".includes(c);
}

/** Go's unescape: well-formed %-escapes (host: only for non-ASCII bytes, or %25), host bytes Go allows. */
function unescape(s: string, mode: Mode): { value: string } | { error: string } {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '%') {
      if (i + 2 >= s.length || !HEX.test(s[i + 1]!) || !HEX.test(s[i + 2]!)) return { error: `invalid URL escape ${quote(s.slice(i, i + 3))}` };
      const v = parseInt(s.slice(i + 1, i + 3), 16);
      if (mode === 'host' && v >> 4 < 8 && s.slice(i, i + 3) !== '%25') return { error: `invalid URL escape ${quote(s.slice(i, i + 3))}` };
      if (mode === 'zone' && s.slice(i, i + 3) !== '%25' && v !== 0x20 && (v >= 0x80 || hostNeedsEscape(String.fromCharCode(v)))) return { error: `invalid URL escape ${quote(s.slice(i, i + 3))}` };
      bytes.push(v);
      i += 3;
      continue;
    }
    if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && hostNeedsEscape(c)) return { error: `invalid character ${quote(c)} in host name` };
    bytes.push(c.charCodeAt(0));
    i++;
  }
  return { value: Buffer.from(bytes).toString('latin1') };
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

function parseHost(host: string): { value: string } | { error: string } {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) return { error: "missing ']' in host" };
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) return { error: `invalid port ${quote(colonPort)} after host` };
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      const parts = [unescape(host.slice(0, zone), 'host'), unescape(host.slice(zone, i), 'zone'), unescape(host.slice(i), 'host')];
      const bad = parts.find((p) => 'error' in p);
      if (bad) return bad;
      return { value: parts.map((p) => (p as { value: string }).value).join('') };
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1 && !validOptionalPort(host.slice(i))) return { error: `invalid port ${quote(host.slice(i))} after host` };
  }
  return unescape(host, 'host');
}

function parseAuthority(authority: string): { value: string } | { error: string } {
  const at = authority.lastIndexOf('@');
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if ('error' in host || at < 0) return host;
  const userinfo = authority.slice(0, at);
  if (!/^[a-zA-Z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) return { error: 'net/url: invalid userinfo' };
  for (const part of userinfo.includes(':') ? [userinfo.slice(0, userinfo.indexOf(':')), userinfo.slice(userinfo.indexOf(':') + 1)] : [userinfo]) {
    const u = unescape(part, 'user');
    if ('error' in u) return u;
  }
  return host;
}

function getScheme(raw: string): { scheme: string; rest: string } | { error: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return { scheme: '', rest: raw };
      continue;
    }
    if (c === ':') {
      if (i === 0) return { error: 'missing protocol scheme' };
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: '', rest: raw };
  }
  return { scheme: '', rest: raw };
}

function parseNoFragment(raw: string): { host: string } | { error: string } {
  if ([...raw].some((c) => c < ' ' || c === '\x7f')) return { error: 'net/url: invalid control character in URL' };
  if (raw === '*') return { host: '' };
  const s = getScheme(raw);
  if ('error' in s) return s;
  let rest = s.rest;
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else if (rest.includes('?')) rest = rest.slice(0, rest.indexOf('?'));
  if (!rest.startsWith('/')) {
    if (s.scheme !== '') return { host: '' }; // opaque
    const segment = rest.split('/')[0]!;
    if (segment.includes(':')) return { error: 'first path segment in URL cannot contain colon' };
  }
  let host = '';
  if ((s.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) [authority, rest] = [authority.slice(0, slash), authority.slice(slash)];
    const a = parseAuthority(authority);
    if ('error' in a) return a;
    host = a.value;
  }
  const path = unescape(rest, 'path');
  if ('error' in path) return path;
  return { host };
}

/** Go's url.Parse: the host, or the error as url.Error prints it (`parse "URL": reason`). */
export function parseGoUrl(raw: string): GoUrl {
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  const r = parseNoFragment(u);
  if ('error' in r) return { error: `parse ${quote(u)}: ${r.error}` };
  if (hash >= 0 && raw.length > hash + 1) {
    const f = unescape(raw.slice(hash + 1), 'fragment');
    if ('error' in f) return { error: `parse ${quote(raw)}: ${f.error}` };
  }
  return r;
}
