/**
 * IP addresses and quoting as Go prints and parses them (net.IP.String, net.ParseIP, strconv.Quote),
 * for the certificate checks and their messages.
 */

/** Go's %q of an ASCII string (strconv.Quote). */
export function goQuote(text: string): string {
  const escapes: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 34: '\\"', 92: '\\\\' };
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out += escapes[c] ?? (c < 0x20 || c === 0x7f ? `\\x${c.toString(16).padStart(2, '0')}` : text[i]);
  }
  return `${out}"`;
}

/** An IP as Go's net.IP.String(): dotted for IPv4 (and IPv4-mapped IPv6), else RFC 5952. */
export function formatIp(ip: Buffer): string {
  const v4 = ip.length === 4 ? ip : isV4Mapped(ip) ? ip.subarray(12) : undefined;
  if (v4) return [...v4].join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ip.readUInt16BE(i * 2));
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hexes = groups.map((g) => g.toString(16));
  if (best < 0) return hexes.join(':');
  return `${hexes.slice(0, best).join(':')}::${hexes.slice(best + bestLen).join(':')}`;
}

function isV4Mapped(ip: Buffer): boolean {
  return ip.length === 16 && ip.subarray(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff;
}

/** An IP literal as 16 bytes (IPv4 mapped into IPv6, as Go's net.ParseIP); undefined if not an IP. */
export function parseIp(text: string): Buffer | undefined {
  const v4 = (s: string): number[] | undefined => {
    const parts = s.split('.');
    if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) < 256)) return undefined;
    return parts.map(Number);
  };
  const four = v4(text);
  if (four) return Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...four]);
  if (!text.includes(':')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const words = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    const parts = s.split(':');
    for (const [i, p] of parts.entries()) {
      if (i === parts.length - 1 && p.includes('.')) {
        const tail = v4(p);
        if (!tail) return undefined;
        out.push((tail[0]! << 8) | tail[1]!, (tail[2]! << 8) | tail[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) out.push(parseInt(p, 16));
      else return undefined;
    }
    return out;
  };
  const head = words(halves[0]!);
  const tail = halves.length === 2 ? words(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...Array<number>(missing).fill(0), ...tail];
  const out = Buffer.alloc(16);
  all.forEach((w, i) => out.writeUInt16BE(w, i * 2));
  return out;
}

/** A SAN IP (4 or 16 bytes) as 16 bytes, for comparing as Go's net.IP.Equal. */
export function ip16(ip: Buffer): Buffer {
  return ip.length === 4 ? Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...ip]) : ip;
}
