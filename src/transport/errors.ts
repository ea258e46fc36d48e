/**
 * Node socket/TLS/HTTP-parser errors -> one-line ConnectionErrors worded as kubectl's
 * (kubectl/pkg/cmd/util/helpers.go StandardErrorMessage: `The connection to the server HOST was
 * refused - ...`, otherwise `Unable to connect to the server: <Go error>`).
 */
import { ConnectionError, KdynError } from '../core/errors.js';

const UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_CA',
]);

/** OpenSSL verification results (Node's codes) -> Go's crypto/x509 wording. */
const X509_REASONS: Record<string, string> = {
  PATH_LENGTH_EXCEEDED: 'too many intermediates for path length constraint',
  PERMITTED_VIOLATION: 'a root or intermediate certificate is not authorized to sign for this name',
  EXCLUDED_VIOLATION: 'a root or intermediate certificate is not authorized to sign for this name',
  UNHANDLED_CRITICAL_EXTENSION: 'unhandled critical extension',
  CA_MD_TOO_WEAK: 'cannot verify signature: insecure algorithm',
  CA_KEY_TOO_SMALL: 'cannot verify signature: the key is too small',
  EE_KEY_TOO_SMALL: 'cannot verify signature: the key is too small',
};

/** TLS alerts the server sent, by number (OpenSSL's `SSL alert number N`) -> Go's crypto/tls text (`remote error: tls: ...`). */
const GO_ALERTS: Record<number, string> = {
  0: 'close notify',
  10: 'unexpected message',
  20: 'bad record MAC',
  21: 'decryption failed',
  22: 'record overflow',
  30: 'decompression failure',
  40: 'handshake failure',
  42: 'bad certificate',
  43: 'unsupported certificate',
  44: 'revoked certificate',
  45: 'expired certificate',
  46: 'unknown certificate',
  47: 'illegal parameter',
  48: 'unknown certificate authority',
  49: 'access denied',
  50: 'error decoding message',
  51: 'error decrypting message',
  60: 'export restriction',
  70: 'protocol version not supported',
  71: 'insufficient security level',
  80: 'internal error',
  86: 'inappropriate fallback',
  90: 'user canceled',
  100: 'no renegotiation',
  109: 'missing extension',
  110: 'unsupported extension',
  111: 'certificate unobtainable',
  112: 'unrecognized name',
  113: 'bad certificate status response',
  114: 'bad certificate hash value',
  115: 'unknown PSK identity',
  116: 'certificate required',
  120: 'no application protocol',
};

/** Errors after which an idempotent request may be sent again. */
export function isRetriableNetworkError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const msg = (e as Error | undefined)?.message ?? '';
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED' || code === 'ERR_TRUNCATED_RESPONSE' || msg === 'socket hang up';
}

/** The error a request timer aborts with. */
export class RequestTimeoutError extends Error {
  readonly code = 'ETIMEDOUT_REQUEST';
  /**
   * @param setting  what sets the limit, in the caller's words (`--request-timeout`, `requestTimeoutMs`),
   *                 named by the message users see
   */
  constructor(
    readonly ms: number,
    readonly setting: string,
  ) {
    super(`request timed out after ${ms}ms`);
  }
}

/**
 * @param host  the server's `host:port` as written in its URL
 * @param what  e.g. `GET https://127.0.0.1:6443/version` (never contains credentials)
 */
export function toConnectionError(e: unknown, host: string, what: string): KdynError {
  const out = classify(e, host, what);
  if (out instanceof ConnectionError && wasNotSent(e)) out.notSent = true;
  return out;
}

/** Marks an error of a request that never left the client (./round-trip.ts: before its connection was had). */
export function markNotSent<E>(e: E): E {
  if (e && typeof e === 'object' && Object.isExtensible(e) && !wasNotSent(e)) Object.defineProperty(e, NOT_SENT, { value: true });
  return e;
}

const NOT_SENT = Symbol('kdyn.requestNotSent');

function wasNotSent(e: unknown): boolean {
  return !!e && typeof e === 'object' && (e as Record<symbol, unknown>)[NOT_SENT] === true;
}

function classify(e: unknown, host: string, what: string): KdynError {
  if (e instanceof KdynError) return e;
  const err = e as NodeJS.ErrnoException & { reason?: string; host?: string; hostname?: string };
  const code = err?.code ?? '';
  const msg = String(err?.message ?? e).split('\n')[0]!;
  const unable = (detail: string) => new ConnectionError(`Unable to connect to the server: ${detail}`, code || undefined, { cause: e });

  if (e instanceof RequestTimeoutError) {
    return unable(`net/http: request canceled (Client.Timeout exceeded after ${formatMs(e.ms)} on ${what}; see ${e.setting})`);
  }
  if (code === 'ECONNREFUSED') {
    return new ConnectionError(`The connection to the server ${host} was refused - did you specify the right host or port?`, code, { cause: e });
  }
  if (UNKNOWN_AUTHORITY.has(code)) return unable('tls: failed to verify certificate: x509: certificate signed by unknown authority');
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    // Go's verdict carries Go's detail (`current time ... is after ...`); OpenSSL's does not.
    return unable(`tls: failed to verify certificate: x509: ${err.reason ?? 'certificate has expired or is not yet valid'}`);
  }
  if (code === 'ERR_KDYN_CERT_EKU' || code === 'INVALID_PURPOSE') return unable('tls: failed to verify certificate: x509: certificate specifies an incompatible key usage');
  // Node reports several OpenSSL results as UNSPECIFIED; their text says which.
  if (code === 'UNSPECIFIED' && /key usage does not include certificate signing/.test(msg)) {
    return unable('tls: failed to verify certificate: x509: certificate signed by unknown authority');
  }
  const x509 =
    X509_REASONS[code] ??
    (/name constraint|permitted subtree|excluded subtree|name syntax/i.test(msg)
      ? X509_REASONS.PERMITTED_VIOLATION
      : /unhandled critical extension/.test(msg)
        ? X509_REASONS.UNHANDLED_CRITICAL_EXTENSION
        : undefined);
  if (x509) return unable(`tls: failed to verify certificate: x509: ${x509}`);
  if (code === 'ERROR_IN_CERT_NOT_BEFORE_FIELD' || code === 'ERROR_IN_CERT_NOT_AFTER_FIELD') {
    return unable('tls: failed to parse certificate from server: x509: malformed validity');
  }
  // ./tls-verify.ts words `reason` as Go's crypto/x509 error; ./dial.ts and ./tls-verify.ts word the rest whole.
  if (code === 'ERR_KDYN_X509') return unable(`tls: failed to verify certificate: x509: ${err.reason ?? msg}`);
  if (code === 'ERR_KDYN_CERT_PARSE' || code === 'ERR_KDYN_NOT_TLS') return unable(msg);
  if (code === 'ERR_KDYN_TLS_HANDSHAKE_TIMEOUT') return unable('net/http: TLS handshake timeout');
  if (code === 'ERR_KDYN_TLS_EARLY_VERIFY') return unable(`tls: ${msg}`);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    // ./tls-verify.ts checkName words `reason` as Go's HostnameError.
    return unable(`tls: failed to verify certificate: x509: ${err.reason ?? msg}`);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NONAME') {
    const name = err.hostname ?? host;
    return unable(`dial tcp: lookup ${name}: ${code === 'EAI_AGAIN' ? 'temporary failure in name resolution' : 'no such host'}`);
  }
  if (code === 'ETIMEDOUT' || code === 'ENETUNREACH' || code === 'EHOSTUNREACH') {
    return unable(`dial tcp ${host}: ${code === 'ETIMEDOUT' ? 'i/o timeout' : 'connect: network is unreachable'}`);
  }
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number/i.test(msg)) {
    return unable('http: server gave HTTP response to HTTPS client');
  }
  // An alert the server sent (OpenSSL 3.0 names it SSLV3_/TLSV1_ALERT_..., 3.5 SSL/TLS_ALERT_...).
  const alert = /SSL alert number (\d+)/.exec(String(err?.message ?? ''));
  if (alert && /_ALERT_/.test(code)) return unable(`remote error: tls: ${GO_ALERTS[Number(alert[1])] ?? `alert(${alert[1]})`}`);
  if (code.startsWith('ERR_SSL_') || code === 'EPROTO') return unable(`tls: ${msg.replace(/^.*?:error:[0-9A-F]+:/i, '').replace(/^.*?routines:[^:]*:/i, '').replace(/:\.\.\/deps\/openssl\/.*$/, '')}`);
  // A verification result of OpenSSL's that Go's rules had accepted (kdyn requires both): worded as an x509 error.
  if ((err as { openSslVerify?: boolean }).openSslVerify) return unable(`tls: failed to verify certificate: x509: ${msg}`);
  if (code === 'ERR_TOO_MANY_1XX') return unable('net/http: HTTP/1.x transport connection broken: net/http: too many 1xx informational responses');
  // A malformed chunked body (Go: `invalid byte in chunk length`, `malformed chunked encoding`), worded
  // as client-go's request.go reports a body it could not read.
  if (code === 'HPE_INVALID_CHUNK_SIZE' || code === 'HPE_LF_EXPECTED' || code === 'HPE_STRICT') {
    const detail = code === 'HPE_INVALID_CHUNK_SIZE' ? 'invalid byte in chunk length' : 'malformed chunked encoding';
    return new KdynError(`unexpected error when reading response body. Please retry. Original error: ${detail}`, { cause: e });
  }
  if (code.startsWith('HPE_')) {
    return unable(`net/http: HTTP/1.x transport connection broken: malformed HTTP response from ${host} (${code})`);
  }
  if (code === 'ERR_TRUNCATED_RESPONSE') return unable(`unexpected EOF: the response to ${what} was truncated`);
  if (code === 'ECONNRESET' || msg === 'socket hang up') return unable(`the connection to ${host} was closed by the server before the response to ${what} was complete (EOF)`);
  if (code === 'EPROXY') return unable(msg);
  return unable(msg || String(e));
}

/** A response body larger than the request's `maxBodyBytes` (discovery documents). */
export class ResponseTooLargeError extends KdynError {
  constructor(what: string, limit: number) {
    super(`the server's response to ${what} is larger than ${formatBytes(limit)}, kdyn's limit for it; not reading further`);
  }
}

function formatBytes(n: number): string {
  return n % 2 ** 20 === 0 ? `${n / 2 ** 20} MiB` : `${n} bytes`;
}

/** Go's time.Duration.String() for whole milliseconds (`32s`, `1m0s`, `1.5s`, `500ms`): kubectl's `?timeout=`. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const sec = `${String(s)}s`;
  if (h > 0) return `${h}h${m}m${sec}`;
  if (m > 0) return `${m}m${sec}`;
  return sec;
}

export function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
