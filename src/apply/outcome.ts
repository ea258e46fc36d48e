/**
 * Whether a failed write may still have been applied (issue 35): the request went out but its answer
 * never came back. The server may have committed it before the connection closed (EOF before the
 * response, a reset, a truncated answer) or while the client gave up waiting (its time limit), so the
 * client cannot say "failed"; applying again tells (server-side apply is idempotent). Everything
 * else is known: an answer from the server (a Status), or a connection that never carried the
 * request (refused, DNS, TLS, a reset or time limit before the connection was had: `notSent`). Pure.
 */
import { ConnectionError, KdynError } from '../core/errors.js';

/** Node's and kdyn's codes for a connection that ended after the request could have been read. */
const NO_ANSWER = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_TRUNCATED_RESPONSE', 'ETIMEDOUT_REQUEST']);

export function sentWithoutAnswer(e: unknown): boolean {
  if (e instanceof ConnectionError) return e.notSent !== true && e.code !== undefined && NO_ANSWER.has(e.code);
  // A body that could not be read (a malformed chunk): the server answered, with a status we did not get.
  if (e instanceof KdynError) return false;
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && NO_ANSWER.has(code);
}
