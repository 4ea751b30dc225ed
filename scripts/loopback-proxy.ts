import http from 'node:http';
import type net from 'node:net';
import { pathToFileURL } from 'node:url';
import { freePort } from './free-port.ts';

// A small loopback load balancer (issue #34): the stand-in for the balancer in front of several
// `refloop serve` hosts in the multi-host test, `npm run chaos` with CHAOS_HOSTS=2 and
// `BENCH_ONLY=hosts`. node:http only. Each request goes to the next upstream in turn (keep-alive on
// both sides), with the client's address appended to X-Forwarded-For so hosts run with
// TRUST_PROXY=true see it. A request whose upstream refuses or drops it is answered 502, and that
// upstream is skipped until its /healthz answers 200 again (probed every `probeMs`, as a balancer's
// health check would), so the next request goes to a live one; when every upstream is down, each is
// tried in turn.

/** A running proxy. */
export interface LoopbackProxy {
  port: number;
  base: string;
  /** Requests forwarded to each upstream port so far (answered or not). */
  forwarded: Map<number, number>;
  /** Requests answered 502 because their upstream failed. */
  badGateway(): number;
  close(): Promise<void>;
}

/** Hop-by-hop headers a proxy must not forward (RFC 9110 §7.6.1). */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);

/** Starts a proxy on 127.0.0.1 (a free port, or `port`) in front of the given upstream ports. */
export async function startLoopbackProxy(upstreams: number[], opts: { port?: number; probeMs?: number } = {}): Promise<LoopbackProxy> {
  if (!upstreams.length) throw new Error('startLoopbackProxy: no upstreams');
  const port = opts.port ?? (await freePort());
  const probeMs = opts.probeMs ?? 200;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });
  const down = new Set<number>();
  let closed = false;
  /** Marks an upstream down and probes its /healthz until it answers 200. */
  const markDown = (upstream: number) => {
    if (down.has(upstream)) return;
    down.add(upstream);
    const probe = () => {
      if (closed) return;
      const req = http.get({ host: '127.0.0.1', port: upstream, path: '/healthz', agent: false, timeout: 1000 }, (res) => {
        res.resume();
        if (res.statusCode === 200) down.delete(upstream);
        else setTimeout(probe, probeMs).unref();
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => setTimeout(probe, probeMs).unref());
    };
    setTimeout(probe, probeMs).unref();
  };
  const forwarded = new Map<number, number>(upstreams.map((p) => [p, 0]));
  let next = 0;
  let badGateway = 0;

  const pick = (): number => {
    for (let i = 0; i < upstreams.length; i++) {
      const p = upstreams[(next + i) % upstreams.length]!;
      if (!down.has(p)) {
        next = (next + i + 1) % upstreams.length;
        return p;
      }
    }
    // All marked down: plain round robin, so one coming back is found.
    const p = upstreams[next % upstreams.length]!;
    next = (next + 1) % upstreams.length;
    return p;
  };

  const server = http.createServer((req, res) => {
    const upstream = pick();
    forwarded.set(upstream, (forwarded.get(upstream) ?? 0) + 1);
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k) && v !== undefined) headers[k] = v;
    const client = req.socket.remoteAddress ?? '127.0.0.1';
    const prior = req.headers['x-forwarded-for'];
    headers['x-forwarded-for'] = prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${client}` : client;
    headers['x-forwarded-proto'] ??= 'http';
    let failed = false;
    const fail = () => {
      if (failed) return;
      failed = true;
      markDown(upstream);
      badGateway++;
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'BAD_GATEWAY', message: `upstream 127.0.0.1:${upstream} did not answer` }));
      } else res.destroy();
    };
    const up = http.request({ host: '127.0.0.1', port: upstream, method: req.method, path: req.url, headers, agent }, (upRes) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(upRes.headers)) if (!HOP.has(k) && v !== undefined) out[k] = v;
      res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, out);
      upRes.pipe(res);
      upRes.on('error', fail);
      upRes.on('aborted', fail);
    });
    up.on('error', fail);
    req.pipe(up);
    req.on('aborted', () => up.destroy());
  });
  server.keepAliveTimeout = 30_000;
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    forwarded,
    badGateway: () => badGateway,
    async close() {
      closed = true;
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      agent.destroy();
    },
  };
}

// `node --import tsx scripts/loopback-proxy.ts PORT UPSTREAM_PORT…`: the proxy as a process of its
// own (BENCH_ONLY=hosts runs it so, apart from the load generator's CPU); stops on SIGTERM.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [port, ...upstreams] = process.argv.slice(2).map(Number);
  if (!port || !upstreams.length || [port, ...upstreams].some((p) => !Number.isInteger(p) || p <= 0)) {
    console.error('usage: loopback-proxy.ts PORT UPSTREAM_PORT…');
    process.exit(2);
  }
  const proxy = await startLoopbackProxy(upstreams, { port });
  console.log(`loopback proxy on ${proxy.base} → ${upstreams.join(', ')}`);
  process.once('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
}
