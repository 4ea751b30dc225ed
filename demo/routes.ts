import crypto from 'node:crypto';
import Stripe from 'stripe';
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
    if (ctx.method === 'GET' && ctx.path === '/demo/as-customer') {
      // Opens the partners page as the affiliate's customer would: through her affiliate link.
      const affiliate = await rest(base(), key(), 'GET', `/campaign/${s.affiliateProgramId}/participant/${encodeURIComponent(s.people.affiliate)}`);
      ctx.redirect(affiliate.shareUrl);
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
      if (ctx.path === '/demo/api/stripe-test') {
        ctx.body = await stripeTestPayment(deps, s, base(), key(), email, typeof body.referral === 'string' ? body.referral.slice(0, 200) : null);
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

/**
 * "Pay with Stripe (test)": what Stripe would send after a $24.00 Checkout payment, without a Stripe
 * account. The demo builds a `checkout.session.completed` event shaped as Stripe sends it (API version
 * 2024-06-20) with the visitor's referral as `client_reference_id`, signs it with the affiliate
 * program's connection secret through the official package's test-header helper, and posts it to
 * refloop's real inbound endpoint. Then it reads, over REST, what refloop made of it: the event
 * log's row (BI5) and the commission the sale earned.
 */
async function stripeTestPayment(deps: Deps, s: DemoState, base: string, key: string, email: string, referral: string | null) {
  if (!s.stripe) throw new RestError(409, { message: 'The demo has no Stripe connection; restart the demo server.' }, 'stripe-test');
  const secret = deps.sealer.open(s.stripe.secret)!;
  const now = Math.floor(Date.now() / 1000);
  const id = (prefix: string) => `${prefix}_test_${crypto.randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
  const event = {
    id: id('evt'),
    object: 'event',
    api_version: '2024-06-20',
    created: now,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: 'checkout.session.completed',
    data: {
      object: {
        id: id('cs'),
        object: 'checkout.session',
        amount_subtotal: 2400,
        amount_total: 2400,
        client_reference_id: referral,
        created: now,
        currency: 'usd',
        customer: null,
        customer_creation: 'if_required',
        customer_details: { address: null, email, name: null, phone: null, tax_exempt: 'none', tax_ids: [] },
        customer_email: email,
        expires_at: now + 86_400,
        invoice: null,
        livemode: false,
        metadata: {},
        mode: 'payment',
        payment_intent: id('pi'),
        payment_link: null,
        payment_status: 'paid',
        status: 'complete',
        subscription: null,
        total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
        url: null,
      },
    },
  };
  const payload = JSON.stringify(event, null, 2);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret });
  const res = await fetch(base + new URL(s.stripe.webhookUrl).pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks) refloop-demo' },
    body: payload,
  });
  if (!res.ok) throw new RestError(res.status, await res.json().catch(() => ({})), 'the Stripe endpoint');
  const log = await rest(base, key, 'GET', `/campaign/${s.affiliateProgramId}/integrations/stripe/events?limit=20`);
  const row = (log.events as Array<Record<string, any>>).find((e) => e.eventId === event.id) ?? null;
  let commission: Record<string, unknown> | null = null;
  if (row?.participantId) {
    const customer = await rest(base, key, 'GET', `/campaign/${s.affiliateProgramId}/participant/${encodeURIComponent(row.participantId)}`);
    const referrerId = customer.referrer?.id ?? customer.referredBy;
    if (referrerId) {
      const list = await rest(base, key, 'GET', `/campaign/${s.affiliateProgramId}/participant/${encodeURIComponent(referrerId)}/commissions?limit=20`);
      commission = (list.commissions as Array<Record<string, any>>).find((c) => c.referredId === row.participantId) ?? null;
      if (commission) commission = { ...commission, referrerEmail: (await rest(base, key, 'GET', `/campaign/${s.affiliateProgramId}/participant/${encodeURIComponent(referrerId)}`)).email };
    }
  }
  return { eventId: event.id, clientReferenceId: referral, outcome: row?.outcome ?? null, reason: row?.reason ?? null, commission };
}
