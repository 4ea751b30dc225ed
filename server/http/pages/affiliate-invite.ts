import type Koa from 'koa';
import { PAGE_POLICY } from '../page-policy.ts';
import type { Deps } from '../deps.ts';
import { esc, markup, message, page } from './html.ts';
import { AppError } from '../../errors.ts';
import { PAGE_REFERRER_POLICY, formSource } from './form-source.ts';
import type { ParticipantKey } from './i18n/index.ts';
import { readerOf, type Reader } from './reader-language.ts';

/** A participant-page message in the reader's language as escaped HTML. */
export const ph = (r: Reader, key: ParticipantKey, vars?: Parameters<typeof message>[2]): string => message(r.t, key, vars);
/** A page that only says what went wrong: heading and an alert, both from the catalogue. */
export function refusal(r: Reader, status: number, title: ParticipantKey, heading: ParticipantKey, body: string): PageAnswer {
  return { status, title: r.t(title), body: `<h1>${ph(r, heading)}</h1><p class="error" role="alert">${body}</p>`, language: r.language };
}

const FORM_LIMIT = 16 * 1024;

/** What a link page's handler answers: a status, a title and escaped body HTML, in `language`. */
export interface PageAnswer {
  status?: number;
  title: string;
  body: string;
  language: string;
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
  handlers: { get(token: string, accept: string | undefined): Promise<PageAnswer>; post(token: string, form: URLSearchParams, accept: string | undefined): Promise<PageAnswer> },
): Koa.Middleware {
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  return async (ctx, next) => {
    if (ctx.path !== path) return next();
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', PAGE_REFERRER_POLICY);
    ctx.set('Content-Security-Policy', PAGE_POLICY.form);
    ctx.type = 'html';
    const answer = (a: PageAnswer) => {
      ctx.status = a.status ?? 200;
      ctx.body = page(a.title, a.body, a.language);
    };
    const accept = ctx.get('Accept-Language') || undefined;
    // Before the token is read, nobody is known: the browser's language among all of them.
    const visitor = readerOf(accept);
    if (ctx.method !== 'GET' && ctx.method !== 'POST') {
      ctx.set('Allow', 'GET, POST');
      return answer({ status: 405, title: visitor.t('page.methodNotAllowed'), body: `<h1>${ph(visitor, 'page.methodNotAllowed')}</h1>`, language: visitor.language });
    }
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    try {
      if (ctx.method === 'GET') return answer(await handlers.get(token, accept));
      if (formSource(ctx, publicOrigin) === 'foreign') return answer(refusal(visitor, 403, 'page.notAllowed', 'page.notAllowed', ph(visitor, 'page.foreignForm')));
      const form = await readForm(ctx);
      if (!form) return answer(refusal(visitor, 400, 'page.formNotAccepted', 'page.formNotAccepted', ph(visitor, 'page.formUnreadable')));
      return answer(await handlers.post(token, form, accept));
    } catch (err) {
      // A refusal from the domain (fraud block, plan limit …) is a page, not the REST error object.
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      answer(refusal(visitor, err.status, 'page.notAccepted', 'page.notAccepted', esc(err.message)));
    }
  };
}

/** The form action of a link page: the same path with its token. */
export function actionOf(path: string, token: string): string {
  return `${path}?token=${esc(encodeURIComponent(token))}`;
}

/** The answer for an invite link that does not work, in the reader's language. */
function invalid(r: Reader, reason: 'INVALID' | 'EXPIRED'): PageAnswer {
  return reason === 'INVALID'
    ? refusal(r, 400, 'affiliateInvite.invalid.title', 'affiliateInvite.invalid.heading', ph(r, 'affiliateInvite.invalid.body'))
    : refusal(r, 410, 'affiliateInvite.expired.title', 'affiliateInvite.expired.heading', ph(r, 'affiliateInvite.expired.body'));
}

/** `/affiliate-invite?token=…`: the accept link of an affiliate invite (AF5, AF7). The invitee is not a participant yet: the browser's language among the program's. */
export function affiliateInvitePage(deps: Deps): Koa.Middleware {
  return linkPage(deps, '/affiliate-invite', {
    async get(token, accept) {
      const invite = await deps.affiliateInvites.target(token);
      if (!invite.ok) return invalid(readerOf(accept), invite.reason);
      const r = readerOf(accept, invite.program);
      return {
        title: r.t('affiliateInvite.title'),
        body: `<h1>${ph(r, 'affiliateInvite.heading', { company: invite.company })}</h1>
<p>${ph(r, 'affiliateInvite.intro', { email: invite.email })}</p>
<form method="post" action="${actionOf('/affiliate-invite', token)}"><button type="submit">${ph(r, 'affiliateInvite.accept')}</button></form>`,
        language: r.language,
      };
    },
    async post(token, _form, accept) {
      const res = await deps.affiliateInvites.accept(token);
      if (!res.ok) return invalid(readerOf(accept), res.reason);
      // Accepted: now a participant, who reads their own language (the program's base for a new one).
      const r = readerOf(accept, res.program, { language: res.language });
      return {
        title: r.t('affiliateInvite.welcome.title'),
        body: `<h1>${ph(r, 'affiliateInvite.welcome.heading', { company: res.company })}</h1><p class="notice" role="status">${ph(r, 'affiliateInvite.welcome.body')}</p>${res.shareUrl ? `<p>${ph(r, 'affiliateInvite.link', { link: markup(`<a href="${esc(res.shareUrl)}">${esc(res.shareUrl)}</a>`) })}</p>` : ''}`,
        language: r.language,
      };
    },
  });
}
