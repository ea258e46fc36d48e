/**
 * A CA bundle read as Go reads it (encoding/pem Decode, then crypto/x509 AppendCertsFromPEM): only
 * `CERTIFICATE` blocks without headers, each parsed by ./x509-parse.ts; a block that does not decode
 * or parse is skipped, exactly as Go skips it, and never changes how the others are checked. What
 * remains is the whole trust of a kubeconfig's CA: OpenSSL is given these certificates and no others.
 */
import { parseCertificate, type GoCertificate } from './x509-parse.js';

export interface PemBlock {
  type: string;
  headers: number;
  bytes: Buffer;
}

const BEGIN = '\n-----BEGIN ';
const END = '\n-----END ';
const EOL = '-----';

/** Go's getLine: up to '\n' (a '\r' before it dropped), trailing spaces and tabs trimmed. */
function getLine(data: string): [string, string] {
  let i = data.indexOf('\n');
  let j: number;
  if (i < 0) {
    i = data.length;
    j = i;
  } else {
    j = i + 1;
    if (i > 0 && data[i - 1] === '\r') i--;
  }
  return [data.slice(0, i).replace(/[ \t]+$/, ''), data.slice(j)];
}

/** base64.StdEncoding.Decode: '\r' and '\n' ignored, padding required. */
function base64Std(text: string): Buffer | undefined {
  const s = text.replace(/[\r\n]/g, '');
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(={0,2})$/.test(s)) return undefined;
  return Buffer.from(s, 'base64');
}

/** Go's pem.Decode: the next block and what follows it; undefined when there is none. */
export function decodePem(data: string): [PemBlock, string] | undefined {
  let rest = data;
  for (;;) {
    if (rest.startsWith(BEGIN.slice(1))) rest = rest.slice(BEGIN.length - 1);
    else {
      const at = rest.indexOf(BEGIN);
      if (at < 0) return undefined;
      rest = rest.slice(at + BEGIN.length);
    }
    let typeLine: string;
    [typeLine, rest] = getLine(rest);
    if (!typeLine.endsWith(EOL)) continue;
    typeLine = typeLine.slice(0, -EOL.length);
    let headers = 0;
    for (;;) {
      if (rest.length === 0) return undefined;
      const [line, next] = getLine(rest);
      if (!line.includes(':')) break;
      headers++;
      rest = next;
    }
    let endIndex: number;
    let endTrailerIndex: number;
    if (headers === 0 && rest.startsWith(END.slice(1))) {
      endIndex = 0;
      endTrailerIndex = END.length - 1;
    } else {
      endIndex = rest.indexOf(END);
      endTrailerIndex = endIndex + END.length;
    }
    if (endIndex < 0) continue;
    let endTrailer = rest.slice(endTrailerIndex);
    const trailerLength = typeLine.length + EOL.length;
    if (endTrailer.length < trailerLength) continue;
    const restOfEndLine = endTrailer.slice(trailerLength);
    endTrailer = endTrailer.slice(0, trailerLength);
    if (!endTrailer.startsWith(typeLine) || !endTrailer.endsWith(EOL)) continue;
    if (getLine(restOfEndLine)[0].length !== 0) continue;
    const bytes = base64Std(rest.slice(0, endIndex).replace(/[ \t]/g, ''));
    if (!bytes) continue;
    return [{ type: typeLine, headers, bytes }, getLine(rest.slice(endIndex + END.length - 1))[1]];
  }
}

export interface CaBundle {
  /** The certificates Go would put in the pool, in order, without duplicates. */
  certs: GoCertificate[];
  /** The same as PEM `CERTIFICATE` blocks, for OpenSSL. */
  pem: string;
}

const bundles = new WeakMap<Buffer, CaBundle>();

/** The DER of every block AppendCertsFromPEM would try to parse: `CERTIFICATE`, no headers. */
export function certificateBlocks(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let rest = data.toString('latin1');
  for (let next = decodePem(rest); next; next = decodePem(rest)) {
    const [block, after] = next;
    rest = after;
    if (block.type === 'CERTIFICATE' && block.headers === 0) out.push(block.bytes);
  }
  return out;
}

/** Go's AppendCertsFromPEM on a bundle (memoised per Buffer). */
export function readCaBundle(data: Buffer): CaBundle {
  let b = bundles.get(data);
  if (b) return b;
  const certs: GoCertificate[] = [];
  for (const der of certificateBlocks(data)) {
    let cert: GoCertificate;
    try {
      cert = parseCertificate(der);
    } catch {
      continue;
    }
    if (!certs.some((c) => c.raw.equals(cert.raw))) certs.push(cert);
  }
  b = { certs, pem: certs.map((c) => toPem(c.raw)).join('') };
  bundles.set(data, b);
  return b;
}

export function toPem(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/**
 * client-go's rootCertPool check (transport/transport.go createErrorParsingCAData): why a CA bundle
 * holds no certificate Go accepts, in Go's words; undefined when at least one does.
 */
export function caBundleProblem(data: Buffer): string | undefined {
  if (readCaBundle(data).certs.length > 0) return undefined;
  let rest = data.toString('latin1');
  while (rest.length > 0) {
    const next = decodePem(rest);
    if (!next) return 'unable to parse bytes as PEM block';
    const [block, after] = next;
    rest = after;
    if (block.type !== 'CERTIFICATE' || block.headers !== 0) continue;
    try {
      parseCertificate(block.bytes);
    } catch (e) {
      return `failed to parse certificate: ${(e as Error).message}`;
    }
  }
  return 'no valid certificate authority data seen';
}
