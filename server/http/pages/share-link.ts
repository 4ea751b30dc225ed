import type Koa from 'koa';
import type { Deps } from '../../deps.ts';
import type { Program } from '../../domain/programs.ts';
import { completedDocument } from '../../domain/program-config.ts';
import { esc, page } from './html.ts';
import { designText } from '../../../shared/merge-tags.ts';

// `/r/{programId}`: the default share link (participants' `shareUrl` and the window's
// `share.fallbackUrl` while installation.shareUrl is unset; issue #19). When the program knows its
// site the link is a redirect there that keeps the query (`grsf` first of all); otherwise it is a
// small hosted referral page whose sign-up form is our own widget, loaded from this server like the
// Universal Code. The handler records nothing: the attribution script on the page (or on the site)
// records the visit, exactly as on any other landing page.

const PATH = /^\/r\/([^/]+)\/?$/;
/** What a program id looks like; anything else is answered like an unknown program without a lookup. */
const PROGRAM_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The script, call and frame sources reCAPTCHA v3 needs while the program has it on (Google's published CSP list). */
const RECAPTCHA_SOURCES = 'https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/';

/**
 * Headers of every answer: nothing is cached (a redirect's Location carries the share key or a
 * sign-in token), the query never leaves as a referrer, and search engines index no share link.
 */
function privateHeaders(ctx: Koa.Context): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
  ctx.set('X-Robots-Tag', 'noindex');
}

/**
 * The hosted page's policy: our own scripts only (the attribution script and the widget chunks it
 * imports, no inline script), calls to our own participant API, inline styles (the widget's shadow
 * root and `page()` carry `<style>` elements), https images (the company logo), and reCAPTCHA's
 * hosts only while the program uses it.
 */
function pageCsp(recaptcha: boolean): string {
  const extra = recaptcha ? ` ${RECAPTCHA_SOURCES}` : '';
  return [
    "default-src 'none'",
    `script-src 'self'${extra}`,
    `connect-src 'self'${extra}`,
    ...(recaptcha ? [`frame-src ${RECAPTCHA_SOURCES}`] : []),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The program's own site, where its share links should land: installation.shareUrl, else the design's company website. */
export function programSite(program: Program): string | null {
  const installation = completedDocument('installation', program, program.documents.installation);
  if (installation.shareUrl) return installation.shareUrl;
  const design = completedDocument('design', program, program.documents.design);
  return design.landingPages.company.websiteUrl ?? null;
}

/**
 * `site` with the request's raw query added: parameters of the site's own query that the request
 * names again are replaced, everything else (both sides' encodings, the fragment) is kept as written.
 */
export function withQuery(site: string, querystring: string): string {
  if (!querystring) return site;
  const hash = site.indexOf('#');
  const head = hash >= 0 ? site.slice(0, hash) : site;
  const frag = hash >= 0 ? site.slice(hash) : '';
  const q = head.indexOf('?');
  const base = q >= 0 ? head.slice(0, q) : head;
  const named = new Set(new URLSearchParams(querystring).keys());
  const kept = q >= 0 ? head.slice(q + 1).split('&').filter((pair) => pair && !named.has(new URLSearchParams(pair).keys().next().value ?? '')) : [];
  return `${base}?${[...kept, querystring].join('&')}${frag}`;
}

/**
 * A design text as plain text, the way the widget shows it (shared/merge-tags.ts): markup stripped,
 * entities read, `{{tag|fallback}}` filled from what a page for every visitor knows (no
 * participant, the referrer only as the design's fallback name).
 */
function plainText(value: string | null | undefined, vars: Record<string, string>): string {
  return value ? designText(value, vars) : '';
}

/** What the hosted page shows: names, the referred friend's offer and whether sign-ups can work. */
interface PageContent {
  programId: string;
  programName: string;
  companyName: string | null;
  logoUrl: string | null;
  offerTitle: string;
  offers: string[];
  open: boolean;
  /** The design theme's colours, already checked to be plain colour values. */
  colors: { background: string; text: string; primary: string };
}

/** The design's colour rules (shared/schemas/program-config.ts), checked again before a value goes into CSS. */
const COLOR = /^(#[0-9a-fA-F]{3,4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\)|transparent)$/;
const colorOr = (value: unknown, fallback: string) => (typeof value === 'string' && COLOR.test(value) ? value : fallback);

/** The hosted referral page: the program, the friend's offer and the widget's embeddable sign-up form. */
function hostedPage(c: PageContent): string {
  const company = c.companyName && c.companyName !== c.programName ? c.companyName : null;
  const brand =
    c.logoUrl || company
      ? `<p class="brand">${c.logoUrl ? `<img src="${esc(c.logoUrl)}" alt="${esc(company ?? c.programName)}" height="40" referrerpolicy="no-referrer">` : ''}${company && !c.logoUrl ? esc(company) : ''}</p>`
      : '';
  const offer = c.offers.length
    ? `<section class="offer" aria-labelledby="offer-title"><h2 id="offer-title">${esc(c.offerTitle)}</h2>${c.offers.map((o) => `<p>${esc(o)}</p>`).join('')}</section>`
    : '';
  const signup = c.open
    ? `<section class="signup" aria-label="Sign up"><div data-grsf-block-form></div>
<noscript><p class="error">The sign-up form needs JavaScript. Turn it on and reload this page.</p></noscript></section>
<script async src="/growsurf.js" grsf-campaign="${esc(c.programId)}"></script>`
    : '<p class="error" role="status">This program is not taking sign-ups right now.</p>';
  return page(
    c.programName,
    `<style>
  :root { color-scheme: light; }
  body { background: ${c.colors.background}; color: ${c.colors.text}; }
  .brand { margin: 0 0 .25rem; font-weight: 600; letter-spacing: .02em; }
  .brand img { display: block; max-height: 40px; width: auto; }
  h1 { margin: 0 0 1rem; line-height: 1.2; }
  .offer { padding: 1rem 1.25rem; border-radius: .5rem; border-left: 4px solid ${c.colors.primary}; background: rgba(127,127,127,.1); background: color-mix(in srgb, ${c.colors.primary} 8%, transparent); margin-bottom: 1.5rem; }
  .offer h2 { margin: 0 0 .25rem; font-size: 1.1rem; }
  .offer p { margin: .25rem 0 0; }
  .signup { min-height: 12rem; }
</style>
${brand}<h1>${esc(c.programName)}</h1>
${offer}
${signup}`,
  );
}

/** `GET`/`HEAD /r/{programId}`: a redirect to the program's site with the query kept, or the hosted referral page. */
export function shareLinkPage(deps: Deps): Koa.Middleware {
  const self = new URL(deps.config.publicUrl);
  return async (ctx, next) => {
    const m = PATH.exec(ctx.path);
    if (!m) return next();
    privateHeaders(ctx);
    ctx.type = 'html';
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = page('Method not allowed', '<h1>Method not allowed</h1>');
      return;
    }
    const view = PROGRAM_ID.test(m[1]!) ? await deps.mobilePrograms.get(m[1]!) : null;
    if (!view) {
      ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'");
      ctx.status = 404;
      ctx.body = page('Link not found', '<h1>This link does not work</h1><p class="error" role="alert">The referral program it belongs to does not exist or was deleted. Ask the person who shared it for a new link.</p>');
      return;
    }
    const program = view.program;
    const site = programSite(program);
    // A share URL that names this very route would redirect to itself forever: serve the page instead.
    const loop = site !== null && (() => {
      try {
        const u = new URL(site);
        return u.origin === self.origin && PATH.exec(u.pathname)?.[1] === program.id;
      } catch {
        return true;
      }
    })();
    if (site && !loop) {
      ctx.set('Content-Security-Policy', "default-src 'none'; base-uri 'none'; frame-ancestors 'none'");
      ctx.redirect(withQuery(site, ctx.querystring));
      return;
    }
    const design = completedDocument('design', program, program.documents.design);
    const options = completedDocument('options', program, program.documents.options);
    const recaptcha = options.fraud.recaptcha.isEnabled && Boolean(options.fraud.recaptcha.siteKey);
    const companyName = program.companyName || null;
    const referred = design.referredExperience;
    const vars = {
      companyName: companyName ?? program.name,
      campaignName: program.name,
      referrerName: referred.referrerNameFallback?.trim() || 'A friend',
      referrerFirstName: referred.referrerNameFallback?.trim() || 'A friend',
    };
    const rewards = (await deps.rewardConfigs.list(program.id)).filter((r) => r.isVisible !== false && r.type === 'DOUBLE_SIDED');
    let offers = rewards.map((r) => plainText(r.referralDescription, vars)).filter(Boolean);
    if (!offers.length) offers = [plainText(referred.offerPopupDescription, vars)].filter(Boolean);
    ctx.set('Content-Security-Policy', pageCsp(recaptcha));
    ctx.body = hostedPage({
      programId: program.id,
      programName: program.name,
      companyName,
      logoUrl: program.companyLogoImageUrl?.startsWith('https://') ? program.companyLogoImageUrl : null,
      offerTitle: plainText(referred.offerPopupTitle, vars) || 'Your offer',
      offers,
      open: !view.team.disabled,
      // The page wears the program's theme, so the widget's form sits on the colours it was designed for.
      colors: { background: colorOr(design.theme.backgroundColor, '#ffffff'), text: colorOr(design.theme.textColor, '#111827'), primary: colorOr(design.theme.primaryColor, '#4f46e5') },
    });
  };
}
