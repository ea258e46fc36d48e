/**
 * kubectl-style request logging (round_trippers.go): `-v=6` one line per request with its status and
 * duration, `-v=7` the request headers, `-v=8` the response headers too. Credentials are masked as
 * kubectl masks them (`Bearer <masked>`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { statusText } from './status-text.js';

/** Request headers as the transport builds them. */
export type Headers = Record<string, string | number | string[] | undefined>;

export interface RequestLog {
  /** `-v=7`: the headers about to be sent. */
  request(headers: Headers): void;
  /** `-v=6`: a response head arrived (`-v=8`: with its headers). */
  response(method: string, url: string, status: number, headers: IncomingHttpHeaders, started: number): void;
  /** `-v=6`: the request failed before a response head. */
  failed(method: string, url: string, started: number): void;
}

export function createRequestLog(logger: Logger, clock: Clock): RequestLog {
  return {
    request(headers) {
      if (logger.enabled(7)) logHeaders(logger, 'Request Headers:', headers);
    },
    response(method, url, status, headers, started) {
      if (!logger.enabled(6)) return;
      logger.info(6, `${method} ${url} ${status} ${statusText(status)} in ${clock.now() - started} milliseconds`, 'round_trippers.go:560');
      if (logger.enabled(8)) logHeaders(logger, 'Response Headers:', headers);
    },
    failed(method, url, started) {
      if (logger.enabled(6)) logger.info(6, `${method} ${url}  in ${clock.now() - started} milliseconds`, 'round_trippers.go:560');
    },
  };
}

const SENSITIVE = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** kubectl's -v=7/8 header dump; credentials masked as kubectl does (`Bearer <masked>`). */
function logHeaders(logger: Logger, title: string, headers: Headers | IncomingHttpHeaders): void {
  logger.info(7, title, 'round_trippers.go:1');
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    const values = Array.isArray(v) ? v : [String(v)];
    for (const value of values) logger.info(7, `    ${k}: ${redact(k, String(value))}`, 'round_trippers.go:1');
  }
}

export function redact(name: string, value: string): string {
  if (!SENSITIVE.has(name.toLowerCase())) return value;
  const scheme = /^(\w+)\s/.exec(value)?.[1];
  return scheme ? `${scheme} <masked>` : '<masked>';
}
