import crypto from 'node:crypto';
import { PAGE_POLICY } from '../page-policy.ts';
import type Koa from 'koa';
import type { Deps } from '../deps.ts';
import type { Program } from '../../domain/programs/programs.ts';
import type { MobileProgram } from '../../domain/participant-api/mobile-programs.ts';
import { completedDocument } from '../../domain/programs/program-config.ts';
import { hostedPagesOn, landingPageUrl } from '../../domain/programs/hosted-pages.ts';
import { designText } from '../../../shared/merge-tags.ts';
import { esc } from './html.ts';
import { readerOf } from './reader-language.ts';
import { designIn } from '../../domain/programs/program-translations.ts';
import { fontStack, readableOn, sameColor } from '../../../shared/brand.ts';

// The hosted pages of a program whose site does not embed the widget (issue #24), driven by the
// design's `landingPages`: `/p/{programId}` is the referral landing page (company, content, the
// offer, SEO meta tags, the design's colours; sign-up and sign-in through the real window, drawn
// full-page by dist/widget/portal.js), `/p/{programId}/portal` the participant portal (sign-in by
// one-time email link, then the window's panels), and `/p/{programId}/tags` the sandboxed frame
// that runs the design's third-party tags. `/r/{programId}` (share-link.ts) serves the landing page
// itself when the program has no site. Every owner-written text is plain text (markup stripped,
// merge tags filled, escaped); colours and URLs are checked again before they reach CSS or HTML.

const PATH = /^\/p\/([^/]+)(\/portal|\/tags)?\/?$/;
/** What a program id looks like; anything else is answered like an unknown program without a lookup. */
const PROGRAM_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The script, call and frame sources reCAPTCHA v3 needs while the program has it on (Google's published CSP list). */
const RECAPTCHA_SOURCES = 'https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/';

/** The design's colour rules (shared/schemas/program-config-fields.ts), checked again before a value goes into CSS. */
const COLOR = /^(#[0-9a-fA-F]{3,4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\)|transparent)$/;
const colorOr = (value: unknown, fallback: string) => (typeof value === 'string' && COLOR.test(value) ? value : fallback);

/** Black or white, whichever has the higher WCAG contrast on a hex `background` (white for other notations). */
export { readableOn } from '../../../shared/brand.ts';

/** An https URL for an image or link, else null (the schema allows http too; these pages only embed https). */
function httpsUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const u = new URL(value);
    return u.protocol === 'https:' && !u.username && !u.password ? u.href : null;
  } catch {
    return null;
  }
}

/** An http(s) link target, else null. */
function linkUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const u = new URL(value);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password ? u.href : null;
  } catch {
    return null;
  }
}

/** A URL inside a CSS `url("…")`: the characters that could end the string or the declaration are percent-encoded. */
const cssUrl = (href: string) => href.replace(/["'()\\\s<>]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

/** The design's third-party tag ids, each checked against the schema's pattern again. */
interface Tags {
  ga: string | null;
  gtm: string | null;
  pixel: string | null;
}
function tagsOf(program: Program): Tags {
  const s = completedDocument('design', program, program.documents.design).landingPages.scripts;
  return {
    ga: s.googleAnalyticsId && /^(G-[A-Z0-9]{4,20}|UA-\d{4,12}-\d{1,4})$/.test(s.googleAnalyticsId) ? s.googleAnalyticsId : null,
    gtm: s.googleTagManagerId && /^GTM-[A-Z0-9]{4,12}$/.test(s.googleTagManagerId) ? s.googleTagManagerId : null,
    pixel: s.metaPixelId && /^\d{5,20}$/.test(s.metaPixelId) ? s.metaPixelId : null,
  };
}
const anyTag = (t: Tags) => Boolean(t.ga || t.gtm || t.pixel);

/**
 * The hosted pages' policy: our own scripts only (portal.js and the window chunks it imports, no
 * inline script), calls to our own participant API, inline styles (the widget's shadow root and
 * the page's design colours), https images (logo, background), our own tags frame when the design
 * names tags, and reCAPTCHA's hosts only while the program uses it.
 */
export function hostedPageCsp(recaptcha: boolean, tagsFrame: boolean): string {
  const extra = recaptcha ? ` ${RECAPTCHA_SOURCES}` : '';
  const frames = [...(tagsFrame ? ["'self'"] : []), ...(recaptcha ? [RECAPTCHA_SOURCES] : [])];
  return [
    "default-src 'none'",
    `script-src 'self'${extra}`,
    `connect-src 'self'${extra}`,
    ...(frames.length ? [`frame-src ${frames.join(' ')}`] : []),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Which hosted page: the landing page (also what `/r/{programId}` serves without a site) or the portal. */
export type HostedKind = 'landing' | 'portal';

/** A rendered hosted page and the headers that go with it. */
export interface HostedPage {
  html: string;
  csp: string;
  /** Whether search engines may index it (the design's `seo.isIndexed`, landing page at its own address only). */
  indexed: boolean;
}

/** Owner-written text as paragraphs of plain text (blank lines separate them). */
function paragraphs(text: string, cls = ''): string {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p${cls ? ` class="${cls}"` : ''}>${esc(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}

/**
 * Renders the landing page or the portal of a program (its view from the participant-API cache).
 * `viaShareLink`: served at `/r/{programId}` (never indexed; the canonical address is `/p/…`).
 * The visitor is not known here (the portal signs in afterwards, in the window): the page speaks the
 * best match of the browser's `acceptLanguage` among the program's languages, else its base language.
 */
export async function renderHostedPage(deps: Deps, view: MobileProgram, kind: HostedKind, viaShareLink = false, acceptLanguage?: string): Promise<HostedPage> {
  const program = view.program;
  const { language, t } = readerOf(acceptLanguage, program);
  // The design in the page's language (issue #27): the owner's own text for it, else the default in it where unedited, else the base text.
  const design = designIn(program, completedDocument('design', program, program.documents.design), language, view.translations.get(language));
  const options = completedDocument('options', program, program.documents.options);
  const lp = design.landingPages;
  const affiliate = program.type === 'AFFILIATE';
  const referred = design.referredExperience;
  const base = { campaignName: program.name, referrerName: referred.referrerNameFallback?.trim() || t('landing.aFriend'), referrerFirstName: referred.referrerNameFallback?.trim() || t('landing.aFriend') };
  const companyName = (lp.company.name ? designText(lp.company.name, { ...base, companyName: program.companyName || program.name }).trim() : '') || program.companyName || null;
  const brandName = companyName ?? program.name;
  const vars = { ...base, companyName: brandName };
  const plain = (v: string | null | undefined) => (v ? designText(v, vars).trim() : '');
  const recaptcha = options.fraud.recaptcha.isEnabled && Boolean(options.fraud.recaptcha.siteKey);
  const tags = tagsOf(program);
  // Tags run on the landing page at its own address only: never beside a signed-in participant's data, never on a share link.
  const tagsFrame = kind === 'landing' && !viaShareLink && anyTag(tags);
  const open = !view.team.disabled;
  const canonical = kind === 'portal' ? `${landingPageUrl(program.id, deps.config.publicUrl)}/portal` : landingPageUrl(program.id, deps.config.publicUrl);

  const bg = colorOr(lp.styles.backgroundColor, '#ffffff');
  const fg = colorOr(lp.styles.textColor, '#111827');
  // The design's colours with the brand's followers filled (issue #32, `brandDesign` in completedDocument).
  const accent = colorOr(lp.styles.accentColor, '#4f46e5');
  // Text on the accent: the design's button text colour where the accent is the brand's main colour, else black or white for contrast.
  const accentText = sameColor(accent, design.theme.primaryColor) ? colorOr(design.theme.buttonTextColor, readableOn(accent)) : readableOn(accent);
  const font = fontStack(design.theme.fontFamily);
  const bgImage = httpsUrl(lp.styles.backgroundImageUrl);
  const logo = httpsUrl(lp.company.logoUrl) ?? httpsUrl(program.companyLogoImageUrl);
  const website = linkUrl(lp.company.websiteUrl);

  // The window on these pages wears the landing page's accent, so its buttons match the page's.
  const accentAttrs = ` data-grsf-accent="${esc(accent)}" data-grsf-accent-text="${esc(accentText)}"`;
  const headline = plain(lp.content.headline) || program.name;
  const seoTitle = plain(lp.seo.title);
  const title = kind === 'portal' ? `${t(affiliate ? 'landing.portalTitleAffiliate' : 'landing.portalTitle')} · ${brandName}` : seoTitle ? `${seoTitle} · ${brandName}` : headline;
  const description = plain(lp.seo.description) || plain(lp.content.subheadline);
  const seoImage = httpsUrl(lp.seo.imageUrl);
  const indexed = kind === 'landing' && !viaShareLink && lp.seo.isIndexed;

  const brandInner = `${logo ? `<img src="${esc(logo)}" alt="${esc(brandName)}" height="40" referrerpolicy="no-referrer">` : `<span>${esc(brandName)}</span>`}`;
  const brand = `<header class="top"><div class="wrap"><p class="brand">${website ? `<a href="${esc(website)}" rel="noopener">${brandInner}</a>` : brandInner}</p></div></header>`;
  const script = open ? `<script type="module" src="/widget/portal.js" grsf-campaign="${esc(program.id)}"></script>` : '';
  const portalLink = `/p/${encodeURIComponent(program.id)}/portal`;
  const landingLink = `/p/${encodeURIComponent(program.id)}`;

  let main: string;
  if (kind === 'landing') {
    const rewards = (await deps.rewardConfigs.list(program.id)).filter((r) => r.isVisible !== false);
    const offers: string[] = [];
    for (const r of rewards) {
      const own = plain(r.description);
      const friend = r.type === 'DOUBLE_SIDED' ? plain(r.referralDescription) : '';
      if (!own && !friend) continue;
      const name = plain(r.title);
      offers.push(
        `<li>${name ? `<h3>${esc(name)}</h3>` : ''}${own ? `<p>${esc(t('landing.youGet', { text: own }))}</p>` : ''}${friend ? `<p>${esc(t('landing.friendGets', { text: friend }))}</p>` : ''}</li>`,
      );
    }
    // Without a reward to describe, the referred friend's popup copy is the offer.
    const popup = !offers.length && plain(referred.offerPopupDescription);
    if (popup) offers.push(`<li><p>${esc(popup)}</p></li>`);
    const offerTitle = (popup && plain(referred.offerPopupTitle)) || t('landing.offerTitle');
    const offer = offers.length ? `<section class="offer" aria-labelledby="offer-title"><h2 id="offer-title">${esc(offerTitle)}</h2><ul>${offers.join('')}</ul></section>` : '';
    const cta = plain(lp.content.buttonText);
    main = `<section class="hero"><h1>${esc(headline)}</h1>
${paragraphs(plain(lp.content.subheadline), 'sub')}
${open && cta ? `<p><a class="cta" href="#join">${esc(cta)}</a></p>` : ''}</section>
<div class="cols">
<div class="info">${offer}
${paragraphs(plain(lp.content.body))}</div>
<section id="join" class="join" aria-label="${esc(t('landing.join'))}">${
      open
        ? `<div data-grsf-portal="landing"${accentAttrs}></div><noscript><p class="error">${esc(t('landing.needsScript'))}</p></noscript>`
        : `<p class="error" role="status">${esc(t('landing.closed'))}</p>`
    }</section>
</div>`;
  } else {
    main = `<section class="hero"><h1>${esc(t(affiliate ? 'landing.portalTitleAffiliate' : 'landing.portalTitle'))}</h1>
<p class="sub">${esc(t(affiliate ? 'landing.portalIntroAffiliate' : 'landing.portalIntro'))}</p></section>
<section class="join wide" aria-label="${esc(t(affiliate ? 'landing.portalTitleAffiliate' : 'landing.portalTitle'))}">${
      open
        ? `<div data-grsf-portal="portal"${accentAttrs}></div><noscript><p class="error">${esc(t('landing.portalNeedsScript'))}</p></noscript>`
        : `<p class="error" role="status">${esc(t('landing.closed'))}</p>`
    }</section>`;
  }
  const footer =
    kind === 'landing'
      ? `<p>${esc(t('landing.haveAccount', { link: '\u0000' })).replace('\u0000', `<a href="${portalLink}">${esc(t('landing.signInLink'))}</a>`)}</p>`
      : `<p>${esc(t('landing.notMember', { link: '\u0000' })).replace('\u0000', `<a href="${landingLink}">${esc(t('landing.joinLink'))}</a>`)}</p>`;
  const websiteLink = website ? `<p><a href="${esc(website)}" rel="noopener">${esc(t('landing.website', { company: brandName }))}</a></p>` : '';
  const tagsEl = tagsFrame ? `<iframe src="/p/${encodeURIComponent(program.id)}/tags" sandbox="allow-scripts" title="${esc(t('landing.analytics'))}" hidden tabindex="-1"></iframe>` : '';
  const meta = [
    description ? `<meta name="description" content="${esc(description)}">` : '',
    `<meta name="robots" content="${indexed ? 'index, follow' : 'noindex'}">`,
    `<link rel="canonical" href="${esc(canonical)}">`,
    `<meta property="og:type" content="website">`,
    `<meta property="og:title" content="${esc(kind === 'portal' ? title : seoTitle || headline)}">`,
    description ? `<meta property="og:description" content="${esc(description)}">` : '',
    `<meta property="og:url" content="${esc(canonical)}">`,
    `<meta property="og:site_name" content="${esc(brandName)}">`,
    seoImage ? `<meta property="og:image" content="${esc(seoImage)}">` : '',
    `<meta name="twitter:card" content="${seoImage ? 'summary_large_image' : 'summary'}">`,
  ]
    .filter(Boolean)
    .join('\n');
  const html = `<!doctype html>
<html lang="${esc(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
${meta}
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>
  :root { color-scheme: light; }
  * { box-sizing: border-box; }
  body { margin: 0; background: ${bg}${bgImage ? ` url("${cssUrl(bgImage)}") center / cover fixed` : ''}; color: ${fg}; font: 16px/1.55 ${font}; }
  .wrap, main { max-width: 72rem; margin: 0 auto; padding: 0 1.25rem; }
  .top { padding: 1rem 0; }
  .brand { margin: 0; font-weight: 600; letter-spacing: .02em; }
  .brand a { color: inherit; text-decoration: none; }
  .brand img { display: block; max-height: 40px; width: auto; }
  .hero { padding: 1.5rem 0 1rem; }
  h1 { margin: 0 0 .5rem; font-size: clamp(1.75rem, 4vw, 2.75rem); line-height: 1.15; }
  /* German compounds (Empfehlungsportal) and other long words wrap instead of widening a 320 px page. */
  h1, h2, h3, p { overflow-wrap: break-word; hyphens: auto; }
  .sub { font-size: 1.15rem; margin: 0 0 1rem; }
  .cta { display: inline-block; padding: .75rem 1.25rem; border-radius: .5rem; background: ${accent}; color: ${accentText}; font-weight: 600; text-decoration: none; }
  a { color: inherit; }
  .cols { display: grid; gap: 2rem; grid-template-columns: minmax(0, 1fr); padding-bottom: 2rem; }
  @media (min-width: 60rem) { .cols { grid-template-columns: minmax(0, 1fr) minmax(22rem, 28rem); align-items: start; } }
  .offer { padding: 1rem 1.25rem; border-radius: .5rem; border-left: 4px solid ${accent}; background: rgba(127,127,127,.1); margin-bottom: 1.5rem; }
  .offer h2 { margin: 0 0 .5rem; font-size: 1.2rem; }
  .offer ul { list-style: none; margin: 0; padding: 0; }
  .offer li + li { margin-top: .75rem; }
  .offer h3 { margin: 0; font-size: 1rem; }
  .offer p { margin: .25rem 0 0; }
  .join { min-height: 14rem; scroll-margin-top: 1rem; }
  .wide { max-width: 60rem; padding-bottom: 2rem; }
  .error { padding: .75rem 1rem; border-left: 4px solid #c33; background: rgba(200,50,50,.1); }
  footer { padding: 1rem 0 2rem; }
  :focus-visible { outline: 3px solid ${accent}; outline-offset: 2px; }
</style>
</head>
<body>
${brand}
<main>
${main}
</main>
<footer><div class="wrap">${footer}${websiteLink}</div></footer>
${script}${tagsEl}
</body>
</html>`;
  return { html, csp: hostedPageCsp(recaptcha, tagsFrame), indexed };
}

/** The hosts each tag needs, for its frame's policy. */
const TAG_HOSTS = {
  ga: { script: ['https://www.googletagmanager.com'], connect: ['https://*.google-analytics.com', 'https://*.analytics.google.com', 'https://*.googletagmanager.com'], img: ['https://*.google-analytics.com', 'https://*.googletagmanager.com'] },
  gtm: { script: ['https://www.googletagmanager.com'], connect: ['https://*.google-analytics.com', 'https://*.analytics.google.com', 'https://*.googletagmanager.com'], img: ['https://*.google-analytics.com', 'https://*.googletagmanager.com'] },
  pixel: { script: ['https://connect.facebook.net'], connect: ['https://www.facebook.com', 'https://connect.facebook.net'], img: ['https://www.facebook.com'] },
} as const;

/** A JavaScript string literal that is safe inside an inline script (no `</script>`, no line separators). */
const jsString = (s: string) => JSON.stringify(s).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/**
 * The tags frame: the vendors' standard bootstraps for the design's ids (only ids, as the schema
 * allows; never owner-written code), in a document that runs sandboxed with an opaque origin (the
 * iframe's `sandbox` and the CSP `sandbox` directive), so a tag can never read this server's
 * storage (participant tokens) or act with a visitor's cookies. Its policy allows the one inline
 * bootstrap by hash and only the configured vendors' hosts. Page views are counted against the
 * landing page's address; without cookies, returning visitors are not recognised.
 */
export function tagsFrame(tags: Tags, pageUrl: string): { html: string; csp: string } {
  const boot: string[] = [];
  const srcs: string[] = [];
  if (tags.ga || tags.gtm) boot.push('window.dataLayer=window.dataLayer||[];');
  if (tags.ga) {
    boot.push(`function gtag(){dataLayer.push(arguments)}gtag('js',new Date());gtag('config',${jsString(tags.ga)},{page_location:${jsString(pageUrl)}});`);
    srcs.push(`https://www.googletagmanager.com/gtag/js?id=${encodeURIComponent(tags.ga)}`);
  }
  if (tags.gtm) {
    boot.push(`dataLayer.push({'gtm.start':Date.now(),event:'gtm.js',page_location:${jsString(pageUrl)}});`);
    srcs.push(`https://www.googletagmanager.com/gtm.js?id=${encodeURIComponent(tags.gtm)}`);
  }
  if (tags.pixel) {
    boot.push(
      `!function(f){if(f.fbq)return;var n=f.fbq=function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};if(!f._fbq)f._fbq=n;n.push=n;n.loaded=!0;n.version='2.0';n.queue=[]}(window);fbq('init',${jsString(tags.pixel)});fbq('track','PageView');`,
    );
    srcs.push('https://connect.facebook.net/en_US/fbevents.js');
  }
  const inline = boot.join('');
  const hash = crypto.createHash('sha256').update(inline).digest('base64');
  const hosts = (k: 'script' | 'connect' | 'img') => [...new Set((['ga', 'gtm', 'pixel'] as const).filter((id) => tags[id]).flatMap((id) => TAG_HOSTS[id][k]))].join(' ');
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${hash}' ${hosts('script')}`,
    `connect-src ${hosts('connect')}`,
    `img-src ${hosts('img')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
    'sandbox allow-scripts',
  ].join('; ');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tags</title><script>${inline}</script>${srcs.map((s) => `<script async src="${esc(s)}"></script>`).join('')}</head><body></body></html>`;
  return { html, csp };
}

/** The answer for an unknown program, a program without hosted pages, or a malformed address. */
function notFound(ctx: Koa.Context): void {
  const { language, t } = readerOf(ctx.get('Accept-Language') || undefined);
  ctx.set('Content-Security-Policy', PAGE_POLICY.message);
  ctx.status = 404;
  ctx.body = `<!doctype html>
<html lang="${esc(language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(t('landing.notFound.title'))}</title><meta name="robots" content="noindex">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}.error{padding:.75rem 1rem;border-left:4px solid #c33;background:rgba(200,50,50,.1)}</style></head>
<body><main><h1>${esc(t('landing.notFound.heading'))}</h1><p class="error" role="alert">${esc(t('landing.notFound.body'))}</p></main></body></html>`;
}

/** `GET`/`HEAD /p/{programId}`, `/p/{programId}/portal` and `/p/{programId}/tags`: the hosted pages. */
export function hostedPages(deps: Deps): Koa.Middleware {
  return async (ctx, next) => {
    const m = PATH.exec(ctx.path);
    if (!m) return next();
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
    ctx.set('Vary', 'Accept-Language');
    ctx.type = 'html';
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.set('Content-Security-Policy', PAGE_POLICY.bare);
      const { language, t } = readerOf(ctx.get('Accept-Language') || undefined);
      ctx.body = `<!doctype html><html lang="${esc(language)}"><title>${esc(t('page.methodNotAllowed'))}</title><h1>${esc(t('page.methodNotAllowed'))}</h1>`;
      return;
    }
    const view = PROGRAM_ID.test(m[1]!) ? await deps.mobilePrograms.get(m[1]!) : null;
    if (!view || !hostedPagesOn(view.program, deps.config.publicUrl)) {
      ctx.set('X-Robots-Tag', 'noindex');
      return notFound(ctx);
    }
    if (m[2] === '/tags') {
      const tags = tagsOf(view.program);
      ctx.set('X-Robots-Tag', 'noindex');
      if (!anyTag(tags)) return notFound(ctx);
      const frame = tagsFrame(tags, landingPageUrl(view.program.id, deps.config.publicUrl));
      ctx.set('Content-Security-Policy', frame.csp);
      ctx.body = frame.html;
      return;
    }
    const page = await renderHostedPage(deps, view, m[2] === '/portal' ? 'portal' : 'landing', false, ctx.get('Accept-Language') || undefined);
    ctx.set('X-Robots-Tag', page.indexed ? 'all' : 'noindex');
    ctx.set('Content-Security-Policy', page.csp);
    ctx.body = page.html;
  };
}
