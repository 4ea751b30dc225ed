import net from 'node:net';

// Calls the crash check (scripts/chaos.ts) and the multi-process tests (test/helpers/serve.ts,
// test/server/multihost.test.ts) make of a server they run: one JSON call that never throws, and
// whether a Redis answers.

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** One HTTP call with a JSON body; a connection that died (a killed host) answers status 0. */
export async function call(
  base: string,
  method: string,
  p: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(base + p, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000) });
    const text = await res.text();
    let body: any = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    return { status: res.status, headers: res.headers, body };
  } catch {
    return { status: 0, headers: new Headers(), body: null };
  }
}

/** True when something at `url` (redis://host:port) answers PING within a second. */
export function redisAnswers(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect({ host: u.hostname, port: Number(u.port || 6379) });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('error', () => done(false));
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}
