/** A write by another client (neither kdyn nor kubectl): the local server's admin token over HTTPS. Resolves to the status code. */
import { request as httpsRequest } from 'node:https';
import type { LocalApiServer } from '../support/apiserver/server.js';

export function rawRequest(server: LocalApiServer, method: string, path: string, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${server.url}${path}`, { method, ca: server.caPem, headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
