import crypto from 'node:crypto';
import type Koa from 'koa';
import type { Deps } from '../server/deps.ts';
import { rest, RestError, type DemoState } from './seed.ts';
import { storePage, partnersPage } from './pages.ts';

// The demo's own routes: two pages of a fictional store with the script tag pasted as a website
// owner would, and three small server-side endpoints standing in for the store's backend. The REST
// key never reaches the page: "buy" and "sign in as" run here, like a real store's server code.

const MAX_BODY = 4096;

/** Reads a small JSON body (the demo's endpoints take a few fields). */
async function jsonBody(ctx: Koa.Context): Promise<Record<string, unknown>> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) ctx.throw(413, 'Body too large');
    chunks.push(chunk);
  }
  try {
    const v = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

/** Koa middleware serving the demo store at `/` and `/partners`, with its backend under `/demo/api`. */
export function demoRoutes(deps: Deps, state: () => DemoState | null, base: () => string): Koa.Middleware {
  const key = () => deps.sealer.open(state()!.apiKey)!;
  return async (ctx, next) => {
    const s = state();
    if (!s) return next();
    if (ctx.method === 'GET' && (ctx.path === '/' || ctx.path === '/partners')) {
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = ctx.path === '/' ? storePage(deps.config.publicUrl, s) : partnersPage(deps.config.publicUrl, s);
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/demo/as-friend') {
      // Opens the store as the referrer's friend would: through her share link.
      const referrer = await rest(base(), key(), 'GET', `/campaign/${s.referralProgramId}/participant/${encodeURIComponent(s.people.referrer)}`);
      ctx.redirect(referrer.shareUrl);
      return;
    }
    if (ctx.method !== 'POST' || !ctx.path.startsWith('/demo/api/')) return next();
    const body = await jsonBody(ctx);
    const email = typeof body.email === 'string' ? body.email.trim().slice(0, 254) : '';
    try {
      if (ctx.path === '/demo/api/sign-in') {
        // Auto-authentication as the store's server would do it: HMAC-SHA256(auth secret, email), hex.
        const programId = body.program === 'affiliate' ? s.affiliateProgramId : s.referralProgramId;
        const who = email || (body.program === 'affiliate' ? s.people.affiliate : s.people.referrer);
        const secret = deps.sealer.open(s.authSecrets[programId]!)!;
        ctx.body = { email: who, hash: crypto.createHmac('sha256', secret).update(who).digest('hex') };
        return;
      }
      if (!email) {
        ctx.status = 400;
        ctx.body = { message: 'Send the customer’s email.' };
        return;
      }
      if (ctx.path === '/demo/api/purchase') {
        // The store's backend credits the referral once the order is paid (REST P8).
        ctx.body = await rest(base(), key(), 'POST', `/campaign/${s.referralProgramId}/participant/${encodeURIComponent(email)}/ref`, {});
        return;
      }
      if (ctx.path === '/demo/api/sale') {
        const amount = Number.isSafeInteger(body.amount) && (body.amount as number) > 0 ? (body.amount as number) : 2400;
        ctx.body = await rest(base(), key(), 'POST', `/campaign/${s.affiliateProgramId}/participant/${encodeURIComponent(email)}/transaction`, {
          currency: 'USD',
          grossAmount: amount,
          paidAt: Date.now(),
          externalId: `demo-${crypto.randomUUID()}`,
          description: 'Demo order',
        });
        return;
      }
    } catch (err) {
      // The REST error object, passed through so the page can show what the API said.
      if (!(err instanceof RestError)) throw err;
      ctx.status = err.status;
      ctx.body = err.body;
      return;
    }
    return next();
  };
}
