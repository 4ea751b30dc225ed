import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { newProgram, restOk } from '../../helpers/programs.ts';
import { readableOn } from '../../../server/http/pages/landing.ts';

// Issue #24: the hosted landing page /p/{programId} and participant portal /p/{programId}/portal,
// driven by design.landingPages, the sandboxed frame of its third-party tags, the share link of a
// program without a site serving the landing page, and participant emails linking to the portal
// when the design turns the hosted pages on. What a visitor does on the pages is in
// test/e2e/hosted-pages.test.ts.

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0' });
});
afterAll(async () => {
  await app.close();
});

/** A REST call that must succeed. */
const ok = (key: string, method: string, path: string, body?: unknown) => restOk(app, key, method, path, body);

/** A verified team with one program of `type`, the given documents patched. */
const program = (type: 'REFERRAL' | 'AFFILIATE', name: string, docs: Record<string, Record<string, unknown>> = {}) => newProgram(app, { type, body: { name, companyName: 'Acme Coffee' }, docs });

const get = (path: string, init: RequestInit = {}) => fetch(app.url + path, { redirect: 'manual', ...init });
const csp = (res: Response) => Object.fromEntries((res.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k!, v]));
const scripts = (html: string) => [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);

describe('GET /p/{programId}, the hosted landing page (issue #24)', () => {
  it('renders a live program’s company, content, offer, SEO tags and the portal script under a strict policy', async () => {
    const p = await program('REFERRAL', 'Bean Club', {
      design: {
        landingPages: {
          isEnabled: true,
          company: { name: 'Acme Coffee Roasters', websiteUrl: 'https://coffee.example.com', logoUrl: null },
          content: { headline: 'Share {{companyName}}, earn beans', subheadline: 'Every friend gets a free bag.', body: 'First paragraph.\n\nSecond paragraph.', buttonText: 'Get my link' },
          styles: { backgroundColor: '#fffbeb', textColor: '#1c1917', accentColor: '#92400e', backgroundImageUrl: null },
          seo: { title: 'Coffee referrals', description: 'Give a bag, get a bag.', imageUrl: 'https://cdn.example.com/og.png', isIndexed: true },
        },
      },
    });
    await ok(p.key, 'PATCH', `/campaign/${p.pid}`, { status: 'IN_PROGRESS' });
    await ok(p.key, 'POST', `/campaign/${p.pid}/reward-configs`, { type: 'DOUBLE_SIDED', title: 'Give a bag, get a bag', description: 'A free bag for each friend', referralDescription: '$5 off your first bag', isVisible: true });
    const res = await get(`/p/${p.pid}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-robots-tag')).toBe('all');
    const html = await res.text();
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<title>Coffee referrals · Acme Coffee Roasters</title>');
    expect(html).toContain('<meta name="description" content="Give a bag, get a bag.">');
    expect(html).toContain('<meta name="robots" content="index, follow">');
    expect(html).toContain(`<link rel="canonical" href="http://refloop.test/p/${p.pid}">`);
    expect(html).toContain('<meta property="og:image" content="https://cdn.example.com/og.png">');
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(html).toContain('<h1>Share Acme Coffee Roasters, earn beans</h1>');
    expect(html).toContain('<p class="sub">Every friend gets a free bag.</p>');
    expect(html).toContain('<p>First paragraph.</p>\n<p>Second paragraph.</p>');
    expect(html).toContain('<a class="cta" href="#join">Get my link</a>');
    expect(html).toContain('<h3>Give a bag, get a bag</h3><p>You get: A free bag for each friend</p><p>Your friend gets: $5 off your first bag</p>');
    expect(html).toContain('<a href="https://coffee.example.com/" rel="noopener"><span>Acme Coffee Roasters</span></a>');
    expect(html).toContain('body { margin: 0; background: #fffbeb; color: #1c1917;');
    expect(html).toContain(`background: #92400e; color: #ffffff;`);
    expect(html).toContain('<div data-grsf-portal="landing" data-grsf-accent="#92400e" data-grsf-accent-text="#ffffff"></div>');
    expect(html).toContain(`<a href="/p/${p.pid}/portal">Sign in to your portal</a>`);
    // One script: the hosted pages' bundle from this server, for this program.
    expect(scripts(html)).toEqual([`<script type="module" src="/widget/portal.js" grsf-campaign="${p.pid}">`]);
    const policy = csp(res);
    expect(policy['default-src']).toEqual(["'none'"]);
    expect(policy['script-src']).toEqual(["'self'"]);
    expect(policy['connect-src']).toEqual(["'self'"]);
    expect(policy['frame-src']).toBeUndefined();
    expect(policy['frame-ancestors']).toEqual(["'none'"]);
  });

  it('renders the portal page: sign-in through the window, never indexed', async () => {
    const p = await program('AFFILIATE', 'Partners');
    const res = await get(`/p/${p.pid}/portal`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-robots-tag')).toBe('noindex');
    const html = await res.text();
    expect(html).toContain('<title>Partner portal · Acme Coffee</title>');
    expect(html).toContain('<h1>Partner portal</h1>');
    expect(html).toContain('<div data-grsf-portal="portal" data-grsf-accent="#4f46e5" data-grsf-accent-text="#ffffff"></div>');
    expect(html).toContain(`<a href="/p/${p.pid}">Join the program</a>`);
    expect(scripts(html)).toEqual([`<script type="module" src="/widget/portal.js" grsf-campaign="${p.pid}">`]);
  });

  it('answers 404 for an unknown, malformed or deleted program and for one whose site has the widget without hosted pages', async () => {
    for (const path of ['/p/no-such-program', '/p/no-such-program/portal', '/p/bad%2Fid', '/p/x/tags']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain('<h1>This page does not exist</h1>');
    }
    const site = await program('REFERRAL', 'Shop', { installation: { shareUrl: 'https://shop.example.com/' } });
    expect((await get(`/p/${site.pid}`)).status).toBe(404);
    expect((await get(`/p/${site.pid}/portal`)).status).toBe(404);
    // The design switches them on for a program with a site too.
    await ok(site.key, 'PATCH', `/campaign/${site.pid}/design`, { landingPages: { isEnabled: true } });
    expect((await get(`/p/${site.pid}`)).status).toBe(200);
    const gone = await program('REFERRAL', 'Gone');
    await app.deps.db.knex('programs').where({ id: gone.pid }).update({ status: 'DELETED' });
    expect((await get(`/p/${gone.pid}`)).status).toBe(404);
  });

  it('answers 405 to other methods and HEAD like GET', async () => {
    const p = await program('REFERRAL', 'Methods');
    const post = await get(`/p/${p.pid}`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await get(`/p/${p.pid}/portal`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('escapes hostile landingPages content: markup stays text, no script, attribute or style can be injected', async () => {
    const hostile = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
    const p = await program('REFERRAL', `Club </title><script>alert(3)</script>`, {
      design: {
        landingPages: {
          company: { name: `Acme ${hostile}`, websiteUrl: null, logoUrl: null },
          content: { headline: `Hi ${hostile}`, subheadline: `Sub ${hostile}`, body: `Body ${hostile} & <b>bold</b> {{unknown|fallback}}`, buttonText: `Go ${hostile}` },
          seo: { title: `SEO ${hostile}`, description: `Desc ${hostile} "quoted" 'single'`, imageUrl: null, isIndexed: false },
        },
        referredExperience: { offerPopupDescription: `<style>body{display:none}</style>Offer ${hostile}` },
      },
    });
    const html = await (await get(`/p/${p.pid}`)).text();
    // Our one module script and nothing else: no element, handler or style the owner wrote survives.
    expect(scripts(html)).toEqual([`<script type="module" src="/widget/portal.js" grsf-campaign="${p.pid}">`]);
    expect(html).not.toMatch(/<img[^>]*onerror/i);
    expect(html.match(/[\s\S]{0,80}(<script>alert|onerror=)[\s\S]{0,40}/g)).toBeNull();
    expect(html).not.toContain('display:none');
    expect(html.match(/<\/title>/g)).toHaveLength(1);
    expect(html).toContain('<h1>Hi &quot;&gt;</h1>');
    expect(html).toContain('<p>Body &quot;&gt; &amp; bold fallback</p>');
    expect(html).toContain('<meta name="description" content="Desc &quot;&gt; &quot;quoted&quot; &#39;single&#39;">');
    expect(html).toContain('<p>Offer &quot;&gt;</p>');
    // The schema keeps CSS out of the colours, and the page checks them again.
    const bad = await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { landingPages: { styles: { backgroundColor: 'red;}</style><script>alert(1)</script>' } } } });
    expect(bad.status).toBe(400);
    const badUrl = await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { landingPages: { styles: { backgroundImageUrl: 'javascript:alert(1)' } } } });
    expect(badUrl.status).toBe(400);
  });

  it('puts a background image into CSS only as an https URL with the characters that could end it encoded', async () => {
    const p = await program('REFERRAL', 'Backdrop', { design: { landingPages: { styles: { backgroundImageUrl: 'https://cdn.example.com/a b")}body{x:url(.png' } } } });
    const html = await (await get(`/p/${p.pid}`)).text();
    const rule = /background: #ffffff url\("([^"]*)"\) center \/ cover fixed;/.exec(html);
    expect(rule, html.slice(0, 2000)).not.toBeNull();
    expect(rule![1]).not.toMatch(/["'()\\\s<>]/);
  });

  it('serves the design’s third-party tags only in a sandboxed frame of their own, with only their vendors allowed', async () => {
    const p = await program('REFERRAL', 'Tagged');
    expect((await get(`/p/${p.pid}/tags`)).status).toBe(404);
    // Only ids, in the vendors' formats; code is refused.
    const code = await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { landingPages: { scripts: { googleAnalyticsId: "G-1');alert(1)//" } } } });
    expect(code.status).toBe(400);
    await ok(p.key, 'PATCH', `/campaign/${p.pid}/design`, { landingPages: { scripts: { googleAnalyticsId: 'G-ABC123', metaPixelId: '1234567890' } } });
    const landing = await get(`/p/${p.pid}`);
    const html = await landing.text();
    expect(html).toContain(`<iframe src="/p/${p.pid}/tags" sandbox="allow-scripts" title="Site analytics" hidden tabindex="-1"></iframe>`);
    expect(csp(landing)['frame-src']).toEqual(["'self'"]);
    expect(csp(landing)['script-src']).toEqual(["'self'"]);
    // Never on the portal, where a participant's data is shown, nor on a share link.
    expect(await (await get(`/p/${p.pid}/portal`)).text()).not.toContain('<iframe');
    expect(await (await get(`/r/${p.pid}?grsf=abc`)).text()).not.toContain('<iframe');

    const frame = await get(`/p/${p.pid}/tags`);
    expect(frame.status).toBe(200);
    const policy = csp(frame);
    expect(policy.sandbox).toEqual(['allow-scripts']);
    expect(policy['frame-ancestors']).toEqual(["'self'"]);
    expect(policy['script-src']).toEqual([expect.stringMatching(/^'sha256-/), 'https://www.googletagmanager.com', 'https://connect.facebook.net']);
    expect(policy['connect-src']).not.toContain("'self'");
    const body = await frame.text();
    const inline = /<script>([\s\S]*?)<\/script>/.exec(body)![1]!;
    expect(policy['script-src']![0]).toBe(`'sha256-${crypto.createHash('sha256').update(inline).digest('base64')}'`);
    expect(inline).toContain(`gtag('config',"G-ABC123",{page_location:"http://refloop.test/p/${p.pid}"})`);
    expect(inline).toContain(`fbq('init',"1234567890")`);
    expect(body).toContain('<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123"></script>');
    expect(body).toContain('<script async src="https://connect.facebook.net/en_US/fbevents.js"></script>');
    expect(body).not.toContain('gtm.js');
  });

  it('shows no sign-up and loads no script while the program’s team is disabled', async () => {
    const p = await program('REFERRAL', 'Closed');
    await app.deps.teams.setDisabled(p.teamId, true);
    for (const path of [`/p/${p.pid}`, `/p/${p.pid}/portal`]) {
      const html = await (await get(path)).text();
      expect(html).toContain('This program is not taking sign-ups right now.');
      expect(html).not.toContain('<script');
    }
  });

  it('picks black or white text, whichever contrasts more with the accent colour (WCAG)', () => {
    expect(readableOn('#4f46e5')).toBe('#ffffff');
    expect(readableOn('#8b4513')).toBe('#ffffff');
    expect(readableOn('#fde68a')).toBe('#000000');
    expect(readableOn('#fff')).toBe('#000000');
    expect(readableOn('rgb(0,0,0)')).toBe('#ffffff');
  });
});

describe('GET /r/{programId} of a program without a site (issue #24)', () => {
  it('serves the landing page with the share link’s query left to the page’s script, never indexed', async () => {
    const p = await program('REFERRAL', 'Share Club');
    const sharer = await ok(p.key, 'POST', `/campaign/${p.pid}/participant`, { email: 'sharer@example.com', firstName: 'Sam' });
    expect(sharer.shareUrl).toMatch(new RegExp(`^http://refloop\\.test/r/${p.pid}\\?grsf=`));
    const res = await get(`/r/${p.pid}?grsf=${new URL(sharer.shareUrl).searchParams.get('grsf')}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-robots-tag')).toBe('noindex');
    const html = await res.text();
    expect(html).toContain('<h1>Refer friends, earn rewards</h1>');
    expect(html).toContain('<div data-grsf-portal="landing" data-grsf-accent="#4f46e5" data-grsf-accent-text="#ffffff"></div>');
    expect(html).toContain(`<link rel="canonical" href="http://refloop.test/p/${p.pid}">`);
    expect(html).toContain('<meta name="robots" content="noindex">');
    expect(scripts(html)).toEqual([`<script type="module" src="/widget/portal.js" grsf-campaign="${p.pid}">`]);
  });

  it('serves the landing page instead of the company website once the design turns the hosted pages on', async () => {
    const p = await program('REFERRAL', 'Site Club', { design: { landingPages: { company: { websiteUrl: 'https://coffee.example.com' } } } });
    expect((await get(`/r/${p.pid}?grsf=abc`)).status).toBe(302);
    await ok(p.key, 'PATCH', `/campaign/${p.pid}/design`, { landingPages: { isEnabled: true } });
    const res = await get(`/r/${p.pid}?grsf=abc`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<a href="https://coffee.example.com/" rel="noopener">Visit Acme Coffee</a>');
  });
});

describe('participant emails and the hosted portal (issue #24)', () => {
  it('link to the portal in their footer and fill {{portalUrl}} when the design turns the hosted pages on', async () => {
    const p = await program('REFERRAL', 'Mail Club', {
      emails: { welcomeNonReferred: { body: '<p>Your portal: <a href="{{portalUrl}}">{{portalUrl}}</a></p>' } },
    });
    const email = `mail-${crypto.randomBytes(3).toString('hex')}@example.com`;
    await ok(p.key, 'POST', `/campaign/${p.pid}/participant`, { email });
    const first = await eventuallyMail(email);
    // No site: the tag names the hosted portal; the design did not ask for the footer link.
    expect(first.html).toContain(`<a href="http://refloop.test/p/${p.pid}/portal">http://refloop.test/p/${p.pid}/portal</a>`);
    expect(first.html).not.toContain('>Your portal</a>');

    await ok(p.key, 'PATCH', `/campaign/${p.pid}/design`, { landingPages: { isEnabled: true } });
    const email2 = `mail-${crypto.randomBytes(3).toString('hex')}@example.com`;
    await ok(p.key, 'POST', `/campaign/${p.pid}/participant`, { email: email2 });
    const second = await eventuallyMail(email2);
    expect(second.html).toContain(`<a href="http://refloop.test/p/${p.pid}/portal" style="color:inherit">Your portal</a>`);
    expect(second.text).toContain(`Your portal: http://refloop.test/p/${p.pid}/portal`);
  });

  it('names the site with the widget in {{portalUrl}} while the program has a site and no hosted pages', async () => {
    const p = await program('REFERRAL', 'Site Mail', {
      installation: { shareUrl: 'https://shop.example.com/refer' },
      emails: { welcomeNonReferred: { body: '<p>Portal: {{portalUrl}}</p>' } },
    });
    const email = `mail-${crypto.randomBytes(3).toString('hex')}@example.com`;
    await ok(p.key, 'POST', `/campaign/${p.pid}/participant`, { email });
    const mail = await eventuallyMail(email);
    expect(mail.html).toContain('<p>Portal: https://shop.example.com/refer</p>');
  });
});

describe('sign-in links and the hosted portal (issue #24)', () => {
  it('return to the portal when the design turns the hosted pages on and the request names no page', async () => {
    const p = await program('REFERRAL', 'Login Club', { design: { landingPages: { isEnabled: true } } });
    const view = (await app.deps.mobilePrograms.get(p.pid))!;
    expect(new URL(app.deps.loginLinks.returnBase(view, undefined)).href).toBe(`http://refloop.test/p/${p.pid}/portal`);
  });

  it('may return to this server’s own pages even when the program names its sites, never to a stranger’s', async () => {
    const p = await program('REFERRAL', 'Listed Login', { installation: { shareUrl: 'https://shop.example.com/refer', allowedDomains: ['shop.example.com'] } });
    const view = (await app.deps.mobilePrograms.get(p.pid))!;
    expect(app.deps.loginLinks.returnBase(view, `http://refloop.test/p/${p.pid}/portal`)).toBe(`http://refloop.test/p/${p.pid}/portal`);
    expect(app.deps.loginLinks.returnBase(view, 'https://shop.example.com/account')).toBe('https://shop.example.com/account');
    expect(app.deps.loginLinks.returnBase(view, 'https://evil.example.net/steal')).toBe('https://shop.example.com/refer');
    const open = await program('REFERRAL', 'Open Login', { installation: { shareUrl: 'https://shop.example.com/refer' } });
    const openView = (await app.deps.mobilePrograms.get(open.pid))!;
    expect(app.deps.loginLinks.returnBase(openView, `http://refloop.test/p/${open.pid}/portal`)).toBe(`http://refloop.test/p/${open.pid}/portal`);
    expect(app.deps.loginLinks.returnBase(openView, 'https://evil.example.net/steal')).toBe('https://shop.example.com/refer');
  });
});

/** The newest email to `to` (participant emails are written in the creating transaction). */
async function eventuallyMail(to: string) {
  const [mail] = await app.deps.mailer.list({ to, limit: 1 });
  expect(mail, `an email to ${to}`).toBeDefined();
  return mail!;
}
