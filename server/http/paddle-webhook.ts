import type Koa from 'koa';
import type { Deps } from './deps.ts';
import { rawBody } from './billing-webhook.ts';
import { PaddleInbound } from '../domain/billing/paddle-inbound.ts';

const PATH = /^\/integrations\/paddle\/([A-Za-z0-9]{1,32})\/webhook\/?$/;

/**
 * `POST /integrations/paddle/{connectionId}/webhook` (docs/integrations.md): Paddle Billing's
 * notifications, public, the Paddle-Signature is the credential. Like Stripe's endpoint: behind the
 * per-IP gate, the body (at most 512 KiB) never logged, a refused signature writes nothing; 200 once
 * the notification is in the log, 404 for an unknown or disconnected connection, 5xx only when
 * applying failed unexpectedly (Paddle retries).
 */
export function paddleWebhookEndpoint(deps: Deps): Koa.Middleware {
  const inbound = new PaddleInbound(deps.db, deps.clock, deps.billing, deps.participants, deps.transactions, deps.referralTriggers, deps.audit, deps.config.paddleApiUrl);
  return async (ctx, next) => {
    const m = PATH.exec(ctx.path);
    if (!m || ctx.method !== 'POST') return next();
    await deps.limits.guardIp(ctx.ip, (headers) => ctx.set(headers), async () => {
      const raw = await rawBody(ctx, 'A Paddle notification');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await inbound.receive(m[1]!, raw, ctx.get('paddle-signature') || undefined, { ip: ctx.ip || null, userAgent: ctx.get('user-agent') || null });
    });
  };
}
