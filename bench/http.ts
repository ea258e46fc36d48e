/**
 * A minimal HTTPS client for cases that time the local server itself (not kdyn): reads the
 * server's own kubeconfig (first cluster and user: server, CA data, token) and pages through lists.
 * Deliberately independent of src/transport, so a server figure never depends on kdyn's client.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { load } from 'js-yaml';

export interface ServerCredentials {
  server: string;
  ca?: Buffer;
  token?: string;
}

export function readKubeconfig(file: string): ServerCredentials {
  const doc = load(readFileSync(file, 'utf8')) as {
    clusters?: Array<{ cluster?: Record<string, string> }>;
    users?: Array<{ user?: Record<string, string> }>;
  };
  const cluster = doc.clusters?.[0]?.cluster ?? {};
  const user = doc.users?.[0]?.user ?? {};
  if (!cluster.server) throw new Error(`${file}: no cluster server`);
  return {
    server: cluster.server,
    ca: cluster['certificate-authority-data'] ? Buffer.from(cluster['certificate-authority-data'], 'base64') : undefined,
    token: user.token,
  };
}

export function getJson(cfg: ServerCredentials, agent: Agent, path: string): Promise<any> {
  const url = new URL(path, cfg.server);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        agent,
        headers: { Accept: 'application/json', ...(cfg.token ? { Authorization: `Bearer ${cfg.token}` } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) return reject(new Error(`GET ${url.pathname}${url.search}: ${res.statusCode} ${body.slice(0, 200)}`));
          try {
            resolve(JSON.parse(body));
          } catch (e) {
            reject(e);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Lists a collection in pages of `limit` over one keep-alive connection; counts items and pages. */
export async function listAll(cfg: ServerCredentials, path: string, limit: number): Promise<{ items: number; pages: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: cfg.ca });
  try {
    let items = 0;
    let pages = 0;
    let cont = '';
    do {
      const q = `?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`;
      const list = await getJson(cfg, agent, path + q);
      items += Array.isArray(list.items) ? list.items.length : 0;
      pages++;
      cont = list.metadata?.continue ?? '';
    } while (cont);
    return { items, pages };
  } finally {
    agent.destroy();
  }
}

/**
 * Opens a watch and reads newline-delimited events until `count` arrived; returns the ms from the
 * request to the last of them (the stream is then closed).
 */
export function watchEvents(cfg: ServerCredentials, path: string, count: number): Promise<number> {
  const url = new URL(path, cfg.server);
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(url, { ca: cfg.ca, headers: { Accept: 'application/json', ...(cfg.token ? { Authorization: `Bearer ${cfg.token}` } : {}) } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET ${url.pathname}${url.search}: ${res.statusCode}`));
      let seen = 0;
      let rest = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const text = rest + chunk;
        const lines = text.split('\n');
        rest = lines.pop()!;
        for (const line of lines) {
          if (!line) continue;
          const type = (JSON.parse(line) as { type?: string }).type;
          if (type === 'ERROR') return reject(new Error(`watch ERROR event: ${line.slice(0, 200)}`));
          if (++seen === count) {
            resolve(Number(process.hrtime.bigint() - started) / 1e6);
            req.destroy();
            return;
          }
        }
      });
      res.on('end', () => reject(new Error(`watch ended after ${seen} of ${count} events`)));
      res.on('error', () => {});
    });
    req.on('error', (e) => reject(e));
    req.end();
  });
}

/** Mean ms per GET of `path` (with `headers`) over one keep-alive connection, `n` requests. */
export async function meanRequestMs(cfg: ServerCredentials, path: string, headers: Record<string, string>, n: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: cfg.ca });
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(new URL(path, cfg.server), { agent, headers: { ...headers, ...(cfg.token ? { Authorization: `Bearer ${cfg.token}` } : {}) } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode! < 400 ? resolve() : reject(new Error(`GET ${path}: ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    await once(); // connect first: the connection is not part of the figure
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await once();
    return Number(process.hrtime.bigint() - started) / 1e6 / n;
  } finally {
    agent.destroy();
  }
}
