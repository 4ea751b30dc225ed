import crypto from 'node:crypto';
import type Koa from 'koa';
import type { Deps } from '../deps.ts';
import { NotAuthorizedError, NotFoundError } from '../../errors.ts';
import { esc } from './html.ts';

// The pages headless Chromium photographs for C6 (server/domain/participant-api/screenshots.ts), and the signed
// image links it answers with. Both live outside /v2: a preview page needs its signed token, an
// image its signed, expiring link; neither reveals anything without one.

/** JSON safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * A preview page: the program's own widget, in preview mode, showing one view of the referral flow
 * in `language` (the widget draws its own words in it whatever the browser prefers).
 */
function previewPage(view: 'referrer' | 'referredFriend', programId: string, companyName: string, language: string, responses: Record<string, unknown>): string {
  const preview = { view, language, responses };
  const body =
    view === 'referrer'
      ? `<main><h1>${esc(companyName)}</h1><p lang="en">Preview of the referrer's window.</p></main>`
      : `<main><h1>${esc(companyName)}</h1><div class="block" data-grsf-block-form></div></main>`;
  // The page opens the window (referrer) or waits for the embedded form (friend), then marks itself
  // ready for the screenshot; after 8 s it is marked ready whatever happened, so a capture never hangs.
  return `<!doctype html>
<html lang="${esc(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex">
<title>Preview</title>
<style>body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#f5f5f7;color:#1d1d1f}main{max-width:40rem;margin:0 auto;padding:2rem}.block{background:#fff;border-radius:.75rem;padding:1.25rem}</style>
<script>window.grsfPreview=${scriptJson(preview)};</script>
<script async src="/widget/attribution.js" data-program="${esc(programId)}"></script>
</head>
<body>
${body}
<script>
(function () {
  var done = function () { document.documentElement.setAttribute('data-ready', ''); };
  setTimeout(done, 8000);
  var view = ${scriptJson(view)};
  var drawn = function () {
    var hosts = document.querySelectorAll('*');
    for (var i = 0; i < hosts.length; i++) {
      var root = hosts[i].shadowRoot;
      if (root && root.querySelector(view === 'referrer' ? '[role="dialog"]' : 'form, button')) return true;
    }
    return false;
  };
  var poll = function () { if (drawn()) setTimeout(done, 300); else setTimeout(poll, 100); };
  // A same-origin parent (the owner console's design page) may post an unsaved design: the widget
  // shows it at once (the grsfpreviewchange event makes the window read its responses again).
  addEventListener('message', function (e) {
    var m = e.data;
    if (e.origin !== location.origin || e.source !== parent || !m || m.type !== 'refloop.preview.design' || !m.design || typeof m.design !== 'object') return;
    var win = window.grsfPreview.responses.window, channels = (m.design.share && m.design.share.channels) || {};
    win.design = m.design;
    win.share.channels = Object.keys(channels).filter(function (k) { return channels[k] && channels[k].isVisible; });
    document.dispatchEvent(new Event('grsfpreviewchange'));
  });
  if (parent !== window) parent.postMessage({ type: 'refloop.preview.ready' }, location.origin);
  // The async script may already have run (a cached copy runs before the parser reaches this script)
  // and fired grsfReady: then window.growsurf is there and the window is opened at once.
  var open = function () { if (view === 'referrer' && window.growsurf && window.growsurf.open) window.growsurf.open(); };
  if (window.growsurf) open();
  else document.addEventListener('grsfReady', open, { once: true });
  poll();
})();
</script>
</body>
</html>`;
}

// `/preview/email`: an empty page the console frames to show a rendered email (EP1). The console's
// own CSP forbids the inline styles every email is made of, so the email is drawn here instead,
// where styles and images may load but no script other than this page's one line of listener can
// run, and links do not navigate. It holds no data: the HTML arrives by postMessage from the parent.
const EMAIL_FRAME_SCRIPT = `addEventListener('message',function(e){var m=e.data;if(e.origin!==location.origin||e.source!==parent||!m||m.type!=='refloop.preview.email'||typeof m.html!=='string')return;var d=new DOMParser().parseFromString(m.html,'text/html');document.replaceChild(document.importNode(d.documentElement,true),document.documentElement);});addEventListener('click',function(e){if(e.target&&e.target.closest&&e.target.closest('a'))e.preventDefault();});if(parent!==window)parent.postMessage({type:'refloop.preview.ready'},location.origin);`;
const EMAIL_FRAME = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Email preview</title><script>${EMAIL_FRAME_SCRIPT}</script></head><body></body></html>`;
const EMAIL_FRAME_CSP = `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; script-src 'sha256-${crypto.createHash('sha256').update(EMAIL_FRAME_SCRIPT).digest('base64')}'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'`;

/** `/preview/:token/:view`, `/preview/email` and `/files/screenshots/:id.jpg`. */
export function previewPages(deps: Deps): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET') return next();
    const page = /^\/preview\/([^/]{1,200})\/(referrer|referredFriend)$/.exec(ctx.path);
    if (page) {
      const link = deps.screenshots.openPreviewToken(decodeURIComponent(page[1]!));
      if (!link) throw new NotAuthorizedError('This preview link is invalid or has expired.');
      const view = page[2] as 'referrer' | 'referredFriend';
      const { program, language, responses } = await deps.screenshots.previewPayload(link.programId, view, link.language);
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.set('X-Robots-Tag', 'noindex');
      ctx.set('Referrer-Policy', 'no-referrer');
      // Framed only by our own pages (the console's live preview), never by another site.
      ctx.set('Content-Security-Policy', "frame-ancestors 'self'");
      ctx.body = previewPage(view, program.id, program.companyName ?? program.name, language, responses);
      return;
    }
    if (ctx.path === '/preview/email') {
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('X-Robots-Tag', 'noindex');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('Content-Security-Policy', EMAIL_FRAME_CSP);
      ctx.body = EMAIL_FRAME;
      return;
    }
    const image = /^\/files\/screenshots\/([a-f0-9]{24})\.jpg$/.exec(ctx.path);
    if (image) {
      const exp = typeof ctx.query.exp === 'string' ? ctx.query.exp : '';
      const sig = typeof ctx.query.sig === 'string' ? ctx.query.sig : '';
      if (!deps.screenshots.verifyImage(image[1]!, exp, sig)) throw new NotAuthorizedError('This screenshot link is invalid or has expired.');
      const file = await deps.storage.read(`screenshots/${image[1]}.jpg`);
      if (!file) throw new NotFoundError('This screenshot is no longer available.');
      ctx.type = 'image/jpeg';
      ctx.length = file.bytes;
      ctx.set('Cache-Control', 'private, max-age=900');
      ctx.body = file.stream;
      return;
    }
    return next();
  };
}
