/**
 * Turning non-2xx answers into StatusErrors worded as kubectl prints them:
 * a `Status` body gives `Error from server (Reason): message`; any other body falls back to
 * client-go's generic texts (apimachinery errors.NewGenericServerResponse), and a 401 reads
 * `error: You must be logged in to the server (...)` (kubectl cmd/util StandardErrorMessage).
 */
import { KdynError, StatusError, oneLine, reasonForCode, type Status } from '../core/errors.js';
import type { Response } from './types.js';

/** Returns `res` when it is 2xx, else throws its StatusError. */
export function ensureOk<R extends Response>(res: R): R {
  if (res.status >= 200 && res.status < 300) return res;
  throw statusError(res);
}

/** The StatusError for a (non-2xx) response. */
export function statusError(res: Pick<Response, 'status' | 'body'> & { method?: string }): StatusError {
  const status = parseStatus(res.body);
  if (status) {
    const s: Status = { ...status, code: status.code ?? res.status };
    if (!s.message) s.message = genericMessage(res.status, '');
    if (s.reason === 'Unauthorized' || (!s.reason && res.status === 401)) {
      return new StatusError({ ...s, reason: 'Unauthorized' }, res.status, `error: You must be logged in to the server (${oneLine(s.message)})`);
    }
    return new StatusError(s, res.status);
  }
  const text = serverText(res.body);
  const reason = reasonForCode(res.status) || (res.status === 409 ? 'Conflict' : 'Unknown');
  const message = genericMessage(res.status, text);
  const synthetic: Status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code: res.status };
  if (res.status === 401) return new StatusError(synthetic, res.status, `error: You must be logged in to the server (${message})`);
  return new StatusError(synthetic, res.status);
}

/** A Kubernetes Status object in `body`, or undefined. */
export function parseStatus(body: Buffer | string): Status | undefined {
  const s = typeof body === 'string' ? body : body.toString('utf8');
  if (!s.trimStart().startsWith('{')) return undefined;
  try {
    const obj = JSON.parse(s) as Record<string, unknown>;
    if (obj && obj.kind === 'Status' && typeof obj === 'object') return obj as Status;
  } catch {
    /* not JSON */
  }
  return undefined;
}

/** client-go's texts for error answers that carry no Status. */
export function genericMessage(code: number, serverMessage: string): string {
  switch (code) {
    case 409:
      return 'the server reported a conflict';
    case 404:
      return 'the server could not find the requested resource';
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
      return serverMessage || 'forbidden';
    case 406:
      return serverMessage && serverMessage !== 'unknown' ? serverMessage : 'the server was unable to respond with a content type that the client supports';
    case 415:
      return serverMessage || 'the server does not support the media type of the request';
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    default:
      if (code >= 500) return `an error on the server (${JSON.stringify(serverMessage || 'unknown')}) has prevented the request from succeeding`;
      return `the server responded with the status code ${code} but did not return more information`;
  }
}

/** A non-Status body as a short single line (HTML pages and binary junk are summarised). */
function serverText(body: Buffer | string): string {
  const s = (typeof body === 'string' ? body : body.toString('utf8')).trim();
  if (!s) return '';
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x08\x0e-\x1f]/.test(s)) return `${Buffer.byteLength(s)} bytes of non-text data`;
  const line = oneLine(s);
  return line.length > 200 ? `${line.slice(0, 200)}...` : line;
}

/** Parses a JSON body; a hostile or broken server gives a one-line error naming the request. */
export function jsonBody<T = unknown>(res: Pick<Response, 'body' | 'url' | 'status'>): T {
  try {
    return JSON.parse(res.body.toString('utf8')) as T;
  } catch (e) {
    const detail = e instanceof Error ? e.message.split('\n')[0]!.replace(/, ".*" is not valid JSON$/, ' (not valid JSON)') : 'not valid JSON';
    throw new KdynError(`the server's response to ${res.url} (HTTP ${res.status}) could not be decoded as JSON: ${truncate(detail, 160)}`);
  }
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}...` : s;
}
