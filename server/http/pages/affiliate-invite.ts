import type Koa from 'koa';
import type { Deps } from '../../deps.ts';
import { esc, page } from './html.ts';
import { AppError } from '../../errors.ts';
import { FOREIGN_FORM_MESSAGE, PAGE_REFERRER_POLICY, formSource } from './form-source.ts';

const FORM_LIMIT = 16 * 1024;

/** What a link page's handler answers: a status, a title and escaped body HTML. */
export interface PageAnswer {
  status?: number;
  title: string;
  body: string;
}

/** Reads an urlencoded form body (at most 16 KiB); null when it is too large or not a form. */
async function readForm(ctx: Koa.Context): Promise<URLSearchParams | null> {
  if (!ctx.is('application/x-www-form-urlencoded')) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > FORM_LIMIT) return null;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * A participant-facing page reached through an emailed or signed link (`?token=`): no-store,
 * a referrer only to our own origin (the token must not leak to other sites), no framing, forms of
 * our own pages only (the link's token decides where the browser does not say). GET
 * shows, POST acts (mail scanners open links). Bodies are never logged.
 */
export function linkPage(
  deps: Deps,
  path: string,
  handlers: { get(token: string): Promise<PageAnswer>; post(token: string, form: URLSearchParams): Promise<PageAnswer> },
): Koa.Middleware {
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  return async (ctx, next) => {
    if (ctx.path !== path) return next();
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', PAGE_REFERRER_POLICY);
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'");
    ctx.type = 'html';
    const answer = (a: PageAnswer) => {
      ctx.status = a.status ?? 200;
      ctx.body = page(a.title, a.body);
    };
    if (ctx.method !== 'GET' && ctx.method !== 'POST') {
      ctx.set('Allow', 'GET, POST');
      return answer({ status: 405, title: 'Method not allowed', body: '<h1>Method not allowed</h1>' });
    }
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    try {
      if (ctx.method === 'GET') return answer(await handlers.get(token));
      if (formSource(ctx, publicOrigin) === 'foreign') return answer({ status: 403, title: 'Not allowed', body: `<h1>Not allowed</h1><p class="error" role="alert">${FOREIGN_FORM_MESSAGE}</p>` });
      const form = await readForm(ctx);
      if (!form) return answer({ status: 400, title: 'Form not accepted', body: '<h1>Form not accepted</h1><p class="error" role="alert">The form could not be read. Go back and try again.</p>' });
      return answer(await handlers.post(token, form));
    } catch (err) {
      // A refusal from the domain (fraud block, plan limit …) is a page, not the REST error object.
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      answer({ status: err.status, title: 'Not accepted', body: `<h1>Not accepted</h1><p class="error" role="alert">${esc(err.message)}</p>` });
    }
  };
}

/** The form action of a link page: the same path with its token. */
export function actionOf(path: string, token: string): string {
  return `${path}?token=${esc(encodeURIComponent(token))}`;
}

const INVALID: Record<'INVALID' | 'EXPIRED', PageAnswer> = {
  INVALID: { status: 400, title: 'Invite link not valid', body: '<h1>This invite link is not valid</h1><p class="error" role="alert">It was already used, replaced by a newer invite or revoked.</p>' },
  EXPIRED: { status: 410, title: 'Invite expired', body: '<h1>This invite has expired</h1><p class="error" role="alert">Ask the program for a new invite.</p>' },
};

/** `/affiliate-invite?token=…`: the accept link of an affiliate invite (AF5, AF7). */
export function affiliateInvitePage(deps: Deps): Koa.Middleware {
  return linkPage(deps, '/affiliate-invite', {
    async get(token) {
      const t = await deps.affiliateInvites.target(token);
      if (!t.ok) return INVALID[t.reason];
      return {
        title: 'Affiliate invite',
        body: `<h1>Join the ${esc(t.company)} affiliate program</h1>
<p>${esc(t.email)} was invited to become an affiliate. Accept to get your affiliate link.</p>
<form method="post" action="${actionOf('/affiliate-invite', token)}"><button type="submit">Accept the invite</button></form>`,
      };
    },
    async post(token) {
      const r = await deps.affiliateInvites.accept(token);
      if (!r.ok) return INVALID[r.reason];
      return {
        title: 'Welcome',
        body: `<h1>Welcome to the ${esc(r.company)} affiliate program</h1><p class="notice" role="status">You are an approved affiliate.</p>${r.shareUrl ? `<p>Your affiliate link: <a href="${esc(r.shareUrl)}">${esc(r.shareUrl)}</a></p>` : ''}`,
      };
    },
  });
}
