import crypto from 'node:crypto';
import Koa from 'koa';
import { portArgument, serveBare } from './bare-server.ts';

// The baseline for `npm run bench`: a bare Koa app answering one JSON route, nothing else.
// Usage: node --import tsx bench/bare-koa.ts PORT

const port = portArgument('bare-koa.ts');

const app = new Koa();
let remaining = 1e8;
app.use(async (ctx, next) => {
  if (ctx.method === 'GET' && ctx.path === '/ok') {
    ctx.body = { ok: true };
    return;
  }
  // Row (b-h): what the wire contract alone costs a REST answer like r0's (GET /v2/team): its 22
  // headers (request id, the rate-limit headers under both prefixes for three policies, the
  // standard RateLimit pair, nosniff and the referrer policy) and a body of its size, built per request.
  if (ctx.method === 'GET' && ctx.path === '/team-shaped') {
    const r = String(--remaining);
    ctx.set('X-Request-Id', crypto.randomUUID());
    ctx.set({ 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'strict-origin-when-cross-origin' });
    const headers: Record<string, string> = {};
    for (const word of ['Second', 'Minute', 'Hour']) {
      for (const prefix of ['Service', 'GrowSurf']) {
        headers[`${prefix}-RateLimit-${word}-Limit`] = '100000000';
        headers[`${prefix}-RateLimit-${word}-Remaining`] = r;
      }
    }
    headers['RateLimit-Policy'] = '"second";q=100000000;w=5, "minute";q=100000000;w=60, "hour";q=100000000;w=3600';
    headers.RateLimit = `"second";r=${r};t=5, "minute";r=${r};t=60, "hour";r=${r};t=3600`;
    ctx.set(headers);
    ctx.body = { id: 'bench0team0id000000x', name: 'Bench team', verificationStatus: 'UNVERIFIED', verificationRequestedAt: null, ownerEmailVerified: true };
    return;
  }
  return next();
});

serveBare(port, app.callback());
