import type Koa from 'koa';

// Every HTML response's Content-Security-Policy (issue #35): the fixed policies, by kind of page, in
// this one module; pages whose policy depends on the program (the hosted landing page's script and
// frame hosts, the OAuth consent's redirect target, the email preview's frame) build theirs from
// these parts where they render. `htmlPolicy` gives any HTML response that set none (the API
// reference at /docs, the development outbox at /_dev/mail, an error page) the strictest one that
// still draws it, so no HTML leaves without a policy. nosniff, the referrer policy and HSTS (when
// PUBLIC_URL is https) come from `baseHeaders` (response-base.ts) on every response.

/** The fixed policies. */
export const PAGE_POLICY = {
  /** A server-rendered page with inline styles, images of our own and forms posting back here (the default). */
  page: "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  /** A short message page (an unknown share link, a program without pages): inline styles only. */
  message: "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  /** A page with nothing to load at all (a redirect's body). */
  bare: "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  /** The participants' link pages with a form (unsubscribe, affiliate invite). */
  form: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  /** Owner pages (sign-in, keys): scripts only from our origin (the shown-once key's Copy button). */
  owner: "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  /** The console's shell: its own scripts, styles, frames (the widget preview) and API calls. */
  console: "default-src 'self'; img-src 'self' data: https:; style-src 'self'; script-src 'self'; frame-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  /** A stored file served for download: never run, never framed. */
  download: "default-src 'none'; sandbox",
} as const;

/** Gives an HTML response that set no Content-Security-Policy the default page policy. */
export function htmlPolicy(): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      if (!ctx.response.get('Content-Security-Policy') && /^text\/html\b/i.test(ctx.response.get('Content-Type'))) ctx.set('Content-Security-Policy', PAGE_POLICY.page);
    }
  };
}
