import { afterEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import { freePort } from '../../scripts/free-port.ts';
import { startLoopbackProxy, type LoopbackProxy } from '../../scripts/loopback-proxy.ts';

// scripts/loopback-proxy.ts, the balancer of the multi-host test, `CHAOS_HOSTS=2` and
// `BENCH_ONLY=hosts` (issue #34): what those rely on, against two plain node:http upstreams.

/** An upstream that answers its port, the request's X-Forwarded-For and body; /healthz answers 200. */
async function upstream(port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => res.end(JSON.stringify({ port, xff: req.headers['x-forwarded-for'] ?? null, body, path: req.url })));
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return server;
}

async function stop(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
}

const get = async (base: string, p = '/x', init: RequestInit = {}) => {
  const res = await fetch(base + p, init);
  return { status: res.status, body: (await res.json()) as { port?: number; xff?: string | null; body?: string; path?: string; code?: string } };
};

describe('loopback proxy', () => {
  let proxy: LoopbackProxy | null = null;
  const servers: http.Server[] = [];

  afterEach(async () => {
    await proxy?.close();
    proxy = null;
    await Promise.all(servers.splice(0).filter((s) => s.listening).map(stop));
  });

  it('sends requests to the upstreams in turn, with the path, the body and X-Forwarded-For appended', async () => {
    const ports = [await freePort(), await freePort()];
    for (const p of ports) servers.push(await upstream(p));
    proxy = await startLoopbackProxy(ports);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(proxy.base, `/v2/thing?i=${i}`, { method: 'POST', body: `body-${i}`, headers: i === 3 ? { 'x-forwarded-for': '203.0.113.7' } : {} }));
    expect(answers.map((a) => a.body.port)).toEqual([ports[0], ports[1], ports[0], ports[1]]);
    expect(answers.map((a) => a.body.body)).toEqual(['body-0', 'body-1', 'body-2', 'body-3']);
    expect(answers[0]!.body.path).toBe('/v2/thing?i=0');
    expect(answers[0]!.body.xff).toBe('127.0.0.1');
    // A client's own X-Forwarded-For is kept, the address the proxy saw appended.
    expect(answers[3]!.body.xff).toBe('203.0.113.7, 127.0.0.1');
    expect([...proxy.forwarded.values()]).toEqual([2, 2]);
  });

  it('answers 502 for a request whose upstream is gone, sends the next ones to the live upstream, and takes the first back once its /healthz answers', async () => {
    const ports = [await freePort(), await freePort()];
    for (const p of ports) servers.push(await upstream(p));
    proxy = await startLoopbackProxy(ports, { probeMs: 50 });
    expect((await get(proxy.base)).body.port).toBe(ports[0]);
    await stop(servers[0]!);
    const next = await get(proxy.base);
    expect(next.body.port).toBe(ports[1]);
    const dead = await get(proxy.base);
    expect(dead.status).toBe(502);
    expect(dead.body.code).toBe('BAD_GATEWAY');
    for (let i = 0; i < 5; i++) expect((await get(proxy.base)).body.port).toBe(ports[1]);
    expect(proxy.badGateway()).toBe(1);
    servers[0] = await upstream(ports[0]!);
    const deadline = Date.now() + 5000;
    const seen = new Set<number>();
    while (seen.size < 2 && Date.now() < deadline) seen.add((await get(proxy.base)).body.port!);
    expect(seen).toEqual(new Set(ports));
  });
});
