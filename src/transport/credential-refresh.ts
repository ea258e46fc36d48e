/**
 * The 401 credential refresh, as client-go's exec and auth-provider round trippers: when the server
 * answers 401, the credentials are asked (once per request) to refresh, e.g. an exec plugin runs again
 * instead of answering from its cache; if they did, the request is sent again, continuing its count
 * of attempts.
 */
import type { CredentialProvider } from '../kubeconfig/types.js';
import { discard, type Sent } from './round-trip.js';

/** `attempt(from)` sends the request (with its retries), counting attempts from `from`. */
export async function withCredentialRefresh(
  credentials: CredentialProvider,
  attempt: (from: number) => Promise<{ sent: Sent; attempt: number }>,
): Promise<Sent> {
  const first = await attempt(0);
  if (first.sent.res.statusCode !== 401 || !(await credentials.refreshAfterUnauthorized())) return first.sent;
  discard(first.sent);
  return (await attempt(first.attempt)).sent;
}
