import type Koa from 'koa';
import type { Deps } from './deps.ts';
import { ValidationError } from '../errors.ts';
import { ERROR_CODES } from '../../shared/errors.ts';

/** Stripe's event payloads are small; past this the body is refused unread (413 → the 400 error object). */
export const MAX_STRIPE_EVENT_BYTES = 512 * 1024;

const PATH = /^\/integrations\/stripe\/([A-Za-z0-9]{1,32})\/webhook\/?$/;

const tooLarge = (what: string) => new ValidationError(`${what} is at most ${MAX_STRIPE_EVENT_BYTES} bytes.`, [{ field: 'body', code: 'TOO_LARGE', message: 'The body is too large.' }], ERROR_CODES.BODY_TOO_LARGE);

/** Reads the raw body (the signature is over its exact bytes), stopping at the cap (also Paddle's endpoint's). */
export async function rawBody(ctx: Koa.Context, what = 'A Stripe event'): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > MAX_STRIPE_EVENT_BYTES) throw tooLarge(what);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_STRIPE_EVENT_BYTES) {
      ctx.req.destroy();
      throw tooLarge(what);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * `POST /integrations/stripe/{connectionId}/webhook` (docs/integrations.md): public, the signature is
 * the credential. Behind the per-IP gate like every public endpoint; the body is never logged, and a
 * refused signature writes nothing. 200 once the event is in the log (whatever its outcome), so Stripe
 * stops retrying; 404 for an unknown or disconnected connection; 5xx only when applying failed
 * unexpectedly (Stripe retries, the event is applied then).
 */
export function stripeWebhookEndpoint(deps: Deps): Koa.Middleware {
  return async (ctx, next) => {
    const m = PATH.exec(ctx.path);
    if (!m || ctx.method !== 'POST') return next();
    await deps.limits.guardIp(ctx.ip, (headers) => ctx.set(headers), async () => {
      const raw = await rawBody(ctx);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await deps.stripeInbound.receive(m[1]!, raw, ctx.get('stripe-signature') || undefined, { ip: ctx.ip || null, userAgent: ctx.get('user-agent') || null });
    });
  };
}
