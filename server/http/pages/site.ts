import type Koa from 'koa';
import type { Deps } from '../deps.ts';
import { esc, markup, message, page } from './html.ts';
import { t, type OwnerKey } from './i18n/index.ts';

/** A catalogue message as escaped HTML. */
const h = (key: OwnerKey, vars?: Parameters<typeof message>[2]) => message(t, key, vars);

/** The site icon: a loop in the default brand colour (what `/favicon.svg` serves and every page links). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#4f46e5"/><circle cx="16" cy="16" r="8" fill="none" stroke="#fff" stroke-width="4"/><circle cx="24" cy="9" r="3.5" fill="#fff"/></svg>`;

/**
 * The same icon as a 16 × 16 `.ico` (one 32-bit BMP image) for `/favicon.ico`, which browsers and
 * feed readers ask for without reading a page's `<link rel="icon">`. Drawn here rather than shipped
 * as a binary file: a filled rounded square with a white ring.
 */
export const FAVICON_ICO: Buffer = (() => {
  const n = 16;
  const pixels = Buffer.alloc(n * n * 4);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      // BMP rows run bottom-up; the drawing is symmetric, so only the corner test needs care.
      const cx = x + 0.5 - n / 2;
      const cy = y + 0.5 - n / 2;
      const corner = Math.max(Math.abs(cx) - 4.5, 0) ** 2 + Math.max(Math.abs(cy) - 4.5, 0) ** 2 > 3.5 ** 2;
      const d = Math.hypot(cx, cy);
      const ring = d > 2.5 && d < 5.2;
      const o = (y * n + x) * 4;
      if (corner) continue; // transparent
      pixels.set(ring ? [0xff, 0xff, 0xff, 0xff] : [0xe5, 0x46, 0x4f, 0xff], o); // BGRA
    }
  }
  const header = Buffer.alloc(6 + 16 + 40);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(n, 6);
  header.writeUInt8(n, 7);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  const mask = Buffer.alloc(n * 4); // AND mask, 1 bit a pixel, rows padded to 4 bytes: all zero (alpha decides)
  header.writeUInt32LE(40 + pixels.length + mask.length, 14);
  header.writeUInt32LE(22, 18);
  header.writeUInt32LE(40, 22); // BITMAPINFOHEADER
  header.writeInt32LE(n, 26);
  header.writeInt32LE(n * 2, 30); // height counts the image and its mask
  header.writeUInt16LE(1, 34);
  header.writeUInt16LE(32, 36);
  return Buffer.concat([header, pixels, mask]);
})();

/** Messages per page of the HTML outbox (the JSON form keeps 100). */
const OUTBOX_PAGE = 20;

/** The landing page, the site icon and, outside production, the mail outbox viewer at /_dev/mail. */
export function sitePages(deps: Deps): Koa.Middleware {
  return async (ctx, next) => {
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && (ctx.path === '/favicon.svg' || ctx.path === '/favicon.ico')) {
      const svg = ctx.path === '/favicon.svg';
      ctx.type = svg ? 'image/svg+xml' : 'image/x-icon';
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = svg ? FAVICON_SVG : FAVICON_ICO;
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/') {
      ctx.type = 'html';
      const code = (v: string) => markup(`<code>${esc(v)}</code>`);
      const a = (href: string, key: OwnerKey) => markup(`<a href="${href}">${h(key)}</a>`);
      ctx.body = page(
        t('site.title'),
        `<h1>${h('site.heading')}</h1>
<p>${h('site.intro')}</p>
<ul>
<li>${h('site.rest', { url: code(`${deps.config.publicUrl}/v2`), link: a('/openapi/v2.json', 'site.openapi') })}</li>
<li>${h('site.participantApi', { url: code(`${deps.config.publicUrl}/mobile/v2`) })}</li>
<li>${h('site.owner', { signup: a('/signup', 'signup.title'), signin: a('/signin', 'site.signin') })}</li>
${deps.config.env !== 'production' ? `<li>${h('site.outbox', { link: a('/_dev/mail', 'mailOutbox.title') })}</li>` : ''}
</ul>`,
      );
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/_dev/mail' && deps.config.env !== 'production') {
      const to = typeof ctx.query.to === 'string' && ctx.query.to ? ctx.query.to : undefined;
      const json = ctx.accepts('html', 'json') === 'json';
      const size = json ? 100 : OUTBOX_PAGE;
      const total = await deps.mailer.count({ to });
      const pages = Math.max(1, Math.ceil(total / size));
      const asked = Number.parseInt(String(ctx.query.page ?? '1'), 10);
      const pageNo = Number.isFinite(asked) ? Math.min(Math.max(asked, 1), pages) : 1;
      const messages = await deps.mailer.list({ to, limit: size, offset: (pageNo - 1) * size });
      if (json) {
        ctx.body = { messages, total, page: pageNo, pages };
        return;
      }
      const href = (n: number) => `/_dev/mail?${new URLSearchParams({ ...(to ? { to } : {}), page: String(n) })}`;
      const first = (pageNo - 1) * size + 1;
      const summary = total === 0
        ? to ? h('mailOutbox.noneTo', { to }) : h('mailOutbox.none')
        : (to ? h('mailOutbox.countTo', { count: total, to }) : h('mailOutbox.count', { count: total })) +
          (pages > 1 ? ` ${h('mailOutbox.showing', { first, last: first + messages.length - 1, page: pageNo, pages })}` : '');
      const nav =
        pages > 1
          ? `<nav aria-label="${h('mailOutbox.pages')}"><p>${pageNo > 1 ? `<a href="${esc(href(pageNo - 1))}" rel="prev">${h('mailOutbox.previous')}</a>` : ''}${pageNo > 1 && pageNo < pages ? ' · ' : ''}${pageNo < pages ? `<a href="${esc(href(pageNo + 1))}" rel="next">${h('mailOutbox.next')}</a>` : ''}</p></nav>`
          : '';
      ctx.type = 'html';
      ctx.body = page(
        pages > 1 ? t('mailOutbox.pageTitle', { page: pageNo, pages }) : t('mailOutbox.title'),
        `<h1>${h('mailOutbox.title')}</h1><p role="status">${summary}</p>${nav}` +
          messages
            .map(
              (m) => `<article><h2>${esc(m.subject)}</h2><p>${h('mailOutbox.meta', { to: m.to, time: new Date(m.createdAt).toISOString(), status: m.status })}</p>
<pre style="white-space:pre-wrap">${esc(m.text)}</pre>
<ul>${m.links.map((l) => `<li><a href="${esc(l)}">${esc(l)}</a></li>`).join('')}</ul></article>`,
            )
            .join('<hr>') +
          nav,
      );
      return;
    }
    return next();
  };
}
