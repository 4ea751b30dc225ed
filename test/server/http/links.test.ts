import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, createAccount, verifiedAccount, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { newProgram, restOk } from '../../helpers/programs.ts';
import { EMAIL_TEMPLATE_KEYS } from '../../../shared/schemas/program-config-fields.ts';
import { NOTIFICATION_EVENTS } from '../../../shared/schemas/program-config-options.ts';
import type { OutboxMessage } from '../../../server/domain/platform/mail.ts';

// Issue #19: every link we put in an email or in the window payload resolves. Participants of a
// program without installation.shareUrl share `PUBLIC_URL/r/{programId}?grsf=…`, which answered 404;
// it now redirects to the program's site or serves a hosted referral page (server/http/pages/share-link.ts).

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0' });
});
afterAll(async () => {
  await app.close();
});

const PUBLIC = new URL('http://refloop.test');
const MINUTE = 60_000;
const DAY = 86_400_000;
const PASSWORD = 'correct horse battery';

/** A REST call that must succeed. */
const ok = (key: string, method: string, path: string, body?: unknown) => restOk(app, key, method, path, body);

/** A verified team with one program of `type`, the given documents patched. */
const program = (type: 'REFERRAL' | 'AFFILIATE', name: string, docs: Record<string, Record<string, unknown>> = {}) => newProgram(app, { type, body: { name, companyName: 'Acme Coffee' }, docs });

/** Every link in a JSON value (the same pattern the outbox uses for emails). */
function linksIn(value: unknown): string[] {
  return [...new Set(JSON.stringify(value).match(/https?:\/\/[^\s<>"')\\]+/g) ?? [])];
}

interface Outcome {
  link: string;
  external: boolean;
  status?: number;
  /** Where a redirect to another site points. */
  location?: string;
}

/** A link's outcome: internal links are opened on this server (following our own redirects); other hosts are only listed. */
async function resolve(link: string): Promise<Outcome> {
  if (new URL(link).host !== PUBLIC.host) return { link, external: true };
  let url = app.local(link);
  for (let hop = 0; hop < 5; hop++) {
    const res = await fetch(url, { redirect: 'manual' });
    await res.arrayBuffer();
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return { link, external: false, status: res.status };
    const next = new URL(location, url);
    if (next.host !== PUBLIC.host && next.origin !== new URL(app.url).origin) return { link, external: false, status: res.status, location: next.href };
    url = app.local(next.href);
  }
  return { link, external: false, status: 310 };
}

/** A minimal browser for the owner pages: keeps the session cookie, never follows redirects. */
async function ownerSession(passwordLink: string, email: string) {
  let cookie = '';
  const call = async (path: string, method: string, fields?: Record<string, string>) => {
    const res = await fetch(path.startsWith('http') ? path : app.url + path, {
      method,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(fields ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: fields ? new URLSearchParams(fields).toString() : undefined,
    });
    for (const c of res.headers.getSetCookie()) {
      const m = /^refloop_session=([^;]*)/.exec(c);
      if (m) cookie = m[1] ? `refloop_session=${m[1]}` : '';
    }
    return { status: res.status, text: await res.text() };
  };
  expect((await call(app.local(passwordLink), 'POST', { password: PASSWORD, confirm: PASSWORD })).status).toBe(303);
  expect((await call('/signin', 'POST', { email, password: PASSWORD })).status).toBe(303);
  return call;
}

/** What a message is, for the coverage list: its kind, and for program and team mail the program type. */
function templateOf(m: OutboxMessage): string {
  if (m.kind.startsWith('program.')) return `${m.to.endsWith('@aff.example') ? 'AFFILIATE' : 'REFERRAL'} ${m.kind}`;
  if (m.kind.startsWith('team.') && m.subject.startsWith('[')) return `${m.subject.startsWith('[Links Affiliate]') ? 'AFFILIATE' : 'REFERRAL'} ${m.kind}`;
  return m.kind;
}

/**
 * Templates no code path sends today: the tax review outcome and the "tax information missing"
 * reminder have copy (rest-v2 §2.19) but no event that sends them, and P11 refuses transactional
 * templates. When one gets a sender, this list shrinks and the coverage assertion below names it.
 */
const NEVER_SENT = ['taxInfoMissing', 'taxInfoApproved', 'taxInfoRejected'];

describe('links in emails and in the window payload (issue #19)', () => {
  it('no link in any email template or window payload answers 404', async () => {
    // ── Two programs without a share URL: a referral program (hosted page) and an affiliate program whose design names its site (redirect).
    const ref = await program('REFERRAL', 'Links Referral', {
      installation: { referralTrigger: 'CUSTOM', mobile: { isEnabled: true } },
      options: { notificationEmails: { events: REFERRAL_EVENTS }, followUpReminder: { isEnabled: true, delayDays: 2 }, payoutSettings: { enabledProviders: ['PAYPAL'], requireTaxInfo: false } },
    });
    const aff = await program('AFFILIATE', 'Links Affiliate', {
      installation: { mobile: { isEnabled: true } },
      design: { landingPages: { company: { websiteUrl: 'https://partners.example.com/join' } } },
      options: { notificationEmails: { events: AFFILIATE_EVENTS }, payoutSettings: { enabledProviders: ['PAYPAL', 'WISECOM'], requireTaxInfo: false } },
    });
    await ok(ref.key, 'POST', `/campaign/${ref.pid}/reward-configs`, { type: 'DOUBLE_SIDED', title: 'Give $10, get $10', description: '$10 credit for every friend', referralDescription: '$10 off your first order', isVisible: true });
    await ok(aff.key, 'PATCH', `/campaign/${aff.pid}/reward-configs/${aff.rewards[0]!.id}`, { commissionStructure: { type: 'PERCENT', percent: 10, event: 'SALE', duration: 'FOREVER', holdDuration: 0 } });
    await app.deps.teamNotifications.sweep(); // first sight: the digests count from here
    // Links are opened while their tokens are fresh (before the clock jumps), and once each.
    const outcomes = new Map<string, Outcome>();
    const open = async (links: string[]) => {
      const fresh = [...new Set(links)].filter((l) => !outcomes.has(l));
      for (const o of await Promise.all(fresh.map(resolve))) outcomes.set(o.link, o);
    };
    // The outbox's links of each message, plus the List-Unsubscribe header's.
    const mailedLinks = async () => (await app.deps.mailer.list({ limit: 10_000 })).flatMap((m) => [...m.links, ...linksIn(m.headers)]);

    // ── Referral program: sign-ups, a credited referral with a double-sided reward, an invitation, P11, sign-in and payout links.
    const ann = await ok(ref.key, 'POST', `/campaign/${ref.pid}/participant`, { email: 'ann@ref.example', firstName: 'Ann' });
    const bob = await ok(ref.key, 'POST', `/campaign/${ref.pid}/participant`, { email: 'bob@ref.example', firstName: 'Bob', referredBy: ann.id });
    await ok(ref.key, 'POST', `/campaign/${ref.pid}/participant/${bob.id}/ref`);
    await ok(ref.key, 'POST', `/campaign/${ref.pid}/participant/${ann.id}/invites`, { emailAddresses: ['carol@ref.example'], messageText: 'You will like it.' });
    // referralLinkUsed goes out for a credit that earns no reward (issue #21); here the credit earned one, so P11 sends it.
    for (const emailType of ['referralLinkViewedFirstTime', 'referralLinkUsed', 'campaignEndedWinners', 'campaignEndedNonWinners', 'progressUpdateMonthly']) {
      await ok(ref.key, 'POST', `/campaign/${ref.pid}/participant/${ann.id}/email`, { emailType });
    }
    await ok(ref.key, 'POST', `/campaign/${ref.pid}/participant/${ann.id}/email`, { subject: 'News', body: '<p>Hi {{firstName}}, share {{shareUrl}} again.</p>' });
    await ok(ref.key, 'POST', `/campaign/${ref.pid}/participant/${ann.id}/payout-destination/request-confirmation`, { provider: 'PAYPAL' });
    await ok(ref.key, 'POST', `/campaign/${ref.pid}/participant/${ann.id}`, { vanityKeys: ['ann-coffee'] });
    const refSession = await session(ref.pid);
    expect((await mobileCall(refSession, 'POST', '/participant/login-link', { email: 'ann@ref.example' })).status).toBe(200);

    // ── Affiliate program: an affiliate and her customer, commissions (a sale and a refund), payouts, an invite, tax and payout links.
    const ada = await ok(aff.key, 'POST', `/campaign/${aff.pid}/participant`, { email: 'ada@aff.example', firstName: 'Ada' });
    const cust = await ok(aff.key, 'POST', `/campaign/${aff.pid}/participant`, { email: 'cust@aff.example', firstName: 'Cy', referredBy: ada.id });
    await ok(aff.key, 'POST', `/campaign/${aff.pid}/participant/${cust.id}/transaction`, { currency: 'USD', grossAmount: 20_000, orderId: 'o-1' });
    await ok(aff.key, 'POST', `/campaign/${aff.pid}/participant/${cust.id}/transaction/refund`, { orderId: 'o-1', amountRefunded: 5_000 });
    const run = await ok(aff.key, 'POST', `/campaign/${aff.pid}/payouts/run`, {});
    const payoutId = run.payouts[0].id as string;
    await ok(aff.key, 'POST', `/campaign/${aff.pid}/payouts/${payoutId}/status`, { status: 'QUEUED' });
    await ok(aff.key, 'POST', `/campaign/${aff.pid}/payouts/${payoutId}/status`, { status: 'ISSUED' });
    app.clock.advance(1000);
    await ok(aff.key, 'POST', `/campaign/${aff.pid}/participant/${cust.id}/transaction`, { currency: 'USD', grossAmount: 10_000, orderId: 'o-2' });
    await ok(aff.key, 'POST', `/campaign/${aff.pid}/affiliate-invites`, { email: 'erlich@aff.example', firstName: 'Erlich' });
    for (const emailType of ['referralLinkViewedFirstTime', 'progressUpdateMonthly']) {
      await ok(aff.key, 'POST', `/campaign/${aff.pid}/participant/${ada.id}/email`, { emailType });
    }
    await ok(aff.key, 'POST', `/campaign/${aff.pid}/participant/${ada.id}/payout-destination/request-confirmation`, { provider: 'PAYPAL' });
    await ok(aff.key, 'POST', `/campaign/${aff.pid}/participant/${ada.id}/payout-destination/request-confirmation`, { provider: 'WISECOM' });
    const adaToken = (await ok(aff.key, 'POST', `/campaign/${aff.pid}/mobile-participant-token`, { email: 'ada@aff.example' })).participantToken as string;
    const affSession = await session(aff.pid);
    const tax = await mobileCall(affSession, 'POST', '/participant/tax-info/session', { residencyCountryCode: 'US' }, adaToken);
    expect(tax.status, tax.text).toBe(200);
    await open([tax.body.hostedUrl]); // the hosted tax page's link, from the participant API
    const taxForm = { formType: 'W9', legalName: 'Ada Example', residencyCountryCode: 'US', vatNumber: '', taxId: '12-3456789', certify: 'yes' };
    const taxed = await fetch(app.local(tax.body.hostedUrl), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(taxForm).toString() });
    expect(taxed.status).toBe(200);
    expect((await mobileCall(affSession, 'POST', '/participant/login-link', { email: 'ada@aff.example' })).status).toBe(200);
    await app.deps.jobs.runDue(); // the login links are decided and sent by a queued job

    // ── Owner and team mail: a verification resend, a key rotation and a teammate invitation.
    const unverified = await createAccount(app);
    expect((await app.request('POST', '/v2/team/owner/verification-email', { key: unverified.key })).status).toBe(200);
    const rotating = await verifiedAccount(app);
    expect((await app.request('POST', '/v2/api-key/rotate', { key: rotating.key, body: {} })).status).toBe(200);
    // Signing in replaces the account-creation key, so the inviter is an owner of their own.
    const inviter = await verifiedAccount(app);
    const owner = await ownerSession(inviter.passwordLink, inviter.email);
    const members = await owner('/team/members', 'GET');
    const csrf = /name="csrf" value="([^"]+)"/.exec(members.text)?.[1];
    expect(csrf, 'the members page carries a csrf value').toBeTruthy();
    expect((await owner('/team/members/invite', 'POST', { csrf: csrf!, email: `mate-${crypto.randomBytes(3).toString('hex')}@acme-widgets.com`, role: 'MEMBER' })).status).toBe(303);

    await open(await mailedLinks());

    // ── Team notifications: the digests of what happened, the program's end, then the weekly and monthly reports and the payout reminder.
    app.clock.advance(2 * MINUTE);
    await app.deps.teamNotifications.sweep();
    await ok(ref.key, 'PATCH', `/campaign/${ref.pid}`, { status: 'COMPLETE' });
    app.clock.advance(2 * MINUTE);
    await app.deps.teamNotifications.sweep();
    app.clock.advance(40 * DAY);
    await app.deps.jobs.runDue(); // the invitation follow-up reminder
    await app.deps.teamNotifications.sweep();

    // ── The window payloads: a signed-in participant's and a visitor's, in both programs, and the vanity links.
    const annToken = (await ok(ref.key, 'POST', `/campaign/${ref.pid}/mobile-participant-token`, { email: 'ann@ref.example' })).participantToken as string;
    const adaWindowToken = (await ok(aff.key, 'POST', `/campaign/${aff.pid}/mobile-participant-token`, { email: 'ada@aff.example' })).participantToken as string;
    const [refWindow, affWindow] = [await session(ref.pid), await session(aff.pid)]; // the earlier sessions expired with the clock
    const windows = [
      await mobileCall(refWindow, 'GET', '/window', undefined, annToken),
      await mobileCall(refWindow, 'GET', '/window'),
      await mobileCall(refWindow, 'GET', '/participant/vanity-links', undefined, annToken),
      await mobileCall(affWindow, 'GET', '/window', undefined, adaWindowToken),
    ];
    for (const w of windows) expect(w.status, w.text).toBe(200);
    expect(windows[0]!.body.share.fallbackUrl).toBe(`${PUBLIC.origin}/r/${ref.pid}`);

    // ── Coverage: every template of both program types (but the ones nothing sends), the owner and team mail.
    const mails = await app.deps.mailer.list({ limit: 10_000 });
    const covered = [...new Set(mails.map(templateOf))].sort();
    const expected = [
      'account.key_rotated',
      'account.verify',
      'account.welcome',
      'affiliate.invite',
      'team.invite',
      ...REFERRAL_MAIL.map((k) => `REFERRAL program.${k}`),
      ...AFFILIATE_MAIL.map((k) => `AFFILIATE program.${k}`),
      ...REFERRAL_EVENTS_SENT.map((e) => `REFERRAL team.${e.toLowerCase()}`),
      ...AFFILIATE_EVENTS_SENT.map((e) => `AFFILIATE team.${e.toLowerCase()}`),
    ].sort();
    expect(covered).toEqual(expected);
    // Every template of the emails document is among them, unless nothing sends it yet.
    const sentTemplates = new Set(covered.filter((c) => c.includes(' program.')).map((c) => c.split(' program.')[1]));
    expect(EMAIL_TEMPLATE_KEYS.filter((k) => !sentTemplates.has(k))).toEqual(NEVER_SENT);

    // Every href and src of the HTML parts is absolute, so the outbox's link list is all of them (an empty merge tag would show here).
    const relative = mails.flatMap((m) => [...(m.html ?? '').matchAll(/\b(?:href|src)="([^"]*)"/g)].map((x) => x[1]!).filter((h) => !/^(https?:\/\/|mailto:)/.test(h)).map((h) => `${m.kind}: ${h}`));
    expect(relative).toEqual([]);

    // ── Every link, opened on this server: none answers 404 or fails.
    await open([...(await mailedLinks()), ...windows.flatMap((w) => linksIn(w.body))]);
    const all = [...outcomes.values()];
    const dead = all.filter((o) => !o.external && (o.status === 404 || o.status! >= 500));
    expect(dead, 'links that do not resolve').toEqual([]);
    // Share links of the program without a site land on the hosted page; those of the program with one, on its site.
    const byPath = (part: string) => all.filter((o) => o.link.includes(part));
    expect(byPath(`/r/${ref.pid}`).length).toBeGreaterThan(0);
    for (const o of byPath(`/r/${ref.pid}`)) expect(o.status, o.link).toBe(200);
    expect(byPath(`/r/${aff.pid}`).length).toBeGreaterThan(0);
    for (const o of byPath(`/r/${aff.pid}`)) {
      expect(o.status, o.link).toBe(302);
      expect(new URL(o.location!).origin + new URL(o.location!).pathname).toBe('https://partners.example.com/join');
      expect(new URL(o.location!).search).toBe(new URL(o.link).search);
    }
    // Nothing points at another site but the affiliate program's own one (its design's company website, in its window payload).
    expect(all.filter((o) => o.external).map((o) => o.link)).toEqual(['https://partners.example.com/join']);
    // Every kind of link was met at least once.
    const paths = [...new Set(all.filter((o) => !o.external).map((o) => new URL(o.link).pathname.replace(/\/r\/[^/]+$/, '/r/{programId}')))].sort();
    expect(paths).toEqual(['/', '/affiliate-invite', '/invite/accept', '/payout-confirm', '/r/{programId}', '/set-password', '/tax', '/unsubscribe', '/verify']);
  }, 120_000);
});

describe('GET /r/{programId}, the default share link (issue #19)', () => {
  /** A referral program without a site, with a visible double-sided reward and one participant. */
  async function withoutSite(name = 'Coffee Club', docs: Record<string, Record<string, unknown>> = {}) {
    const p = await program('REFERRAL', name, docs);
    await ok(p.key, 'POST', `/campaign/${p.pid}/reward-configs`, { type: 'DOUBLE_SIDED', title: 'Give $10, get $10', description: '$10 credit', referralDescription: '$10 off your first order', isVisible: true });
    const sharer = await ok(p.key, 'POST', `/campaign/${p.pid}/participant`, { email: `sharer-${crypto.randomBytes(3).toString('hex')}@example.com`, firstName: 'Sam' });
    return { ...p, sharer: sharer as { id: string; shareUrl: string } };
  }
  const get = (path: string, init: RequestInit = {}) => fetch(app.url + path, { redirect: 'manual', ...init });
  const local = (shareUrl: string) => new URL(shareUrl).pathname + new URL(shareUrl).search;
  const csp = (res: Response) => Object.fromEntries((res.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k!, v]));

  it('is every participant’s share link while the installation has no share URL', async () => {
    const p = await withoutSite();
    expect(p.sharer.shareUrl).toMatch(new RegExp(`^http://refloop\\.test/r/${p.pid}\\?grsf=[a-z0-9]{10}$`));
  });

  it('serves the program’s hosted landing page for a program without a site: its content, the friend’s offer and the portal’s sign-up (issue #24)', async () => {
    const p = await withoutSite();
    const res = await get(local(p.sharer.shareUrl));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('<title>Referral program · Acme Coffee</title>');
    expect(html).toContain('<h1>Refer friends, earn rewards</h1>');
    expect(html).toContain('<p>Your friend gets: $10 off your first order</p>');
    // The starter reward is hidden: its copy is not an offer.
    expect(html).not.toContain('Get a reward when you sign up through a friend.');
    expect(html).toContain('<div data-grsf-portal="landing" data-grsf-accent="#4f46e5" data-grsf-accent-text="#ffffff"></div>');
    // The hosted pages' script from this server, for this program; no inline script at all.
    expect([...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([`<script type="module" src="/widget/portal.js" grsf-campaign="${p.pid}">`]);
    // The page wears the design's landing-page colours (the defaults here), whatever the visitor's colour scheme.
    expect(html).toContain('body { margin: 0; background: #ffffff; color: #111827;');
    // Nothing of the visitor is in the page: it does not repeat the share key.
    expect(html).not.toContain(new URL(p.sharer.shareUrl).searchParams.get('grsf')!);
  });

  it('caches nothing, runs only our own scripts and keeps the query on this site', async () => {
    const p = await withoutSite();
    const res = await get(local(p.sharer.shareUrl));
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(res.headers.get('x-robots-tag')).toBe('noindex');
    const policy = csp(res);
    expect(policy['default-src']).toEqual(["'none'"]);
    expect(policy['script-src']).toEqual(["'self'"]);
    expect(policy['connect-src']).toEqual(["'self'"]);
    expect(policy['frame-ancestors']).toEqual(["'none'"]);
    expect(policy['base-uri']).toEqual(["'none'"]);
    expect(policy['frame-src']).toBeUndefined();
  });

  it('lets reCAPTCHA’s scripts and frame in only while the program uses it', async () => {
    const p = await withoutSite('Captcha Club', { options: { fraud: { recaptcha: { isEnabled: true, siteKey: 'the-site-key', secretKey: 'the-secret' } } } });
    const policy = csp(await get(`/r/${p.pid}`));
    expect(policy['script-src']).toEqual(["'self'", 'https://www.google.com/recaptcha/', 'https://www.gstatic.com/recaptcha/']);
    expect(policy['frame-src']).toEqual(['https://www.google.com/recaptcha/', 'https://www.gstatic.com/recaptcha/']);
  });

  it('records nothing itself: no visit, impression or activity', async () => {
    const p = await withoutSite();
    const counts = async () => ({
      visits: Number((await app.deps.db.knex('visits').where({ program_id: p.pid }).count({ n: '*' }).first())!.n),
      activity: Number((await app.deps.db.knex('activity_logs').where({ program_id: p.pid }).count({ n: '*' }).first())!.n),
      impressions: (await ok(p.key, 'GET', `/campaign/${p.pid}/participant/${p.sharer.id}`)).impressionCount,
    });
    const before = await counts();
    expect((await get(local(p.sharer.shareUrl))).status).toBe(200);
    await app.deps.visits.flush();
    expect(await counts()).toEqual(before);
  });

  it('lets its own page call the participant API when the program names the sites that may', async () => {
    const p = await withoutSite('Listed Club', { installation: { allowedDomains: ['shop.example.com'] } });
    expect((await get(local(p.sharer.shareUrl))).status).toBe(200);
    const from = (origin: string) => app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': p.pid, origin }, body: { instanceId: crypto.randomUUID() } });
    const own = await from(PUBLIC.origin);
    expect(own.status, own.text).toBe(200);
    expect((await from('https://shop.example.com')).status).toBe(200);
    expect((await from('https://elsewhere.example.com')).status).toBe(403);
  });

  it('answers HEAD like GET, without a body', async () => {
    const p = await withoutSite();
    const head = await get(local(p.sharer.shareUrl), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(head.headers.get('cache-control')).toBe('no-store');
    expect(await head.text()).toBe('');
    const p2 = await program('REFERRAL', 'Shop', { installation: { shareUrl: 'https://shop.example.com/' } });
    const redirect = await get(`/r/${p2.pid}?grsf=abc`, { method: 'HEAD' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('https://shop.example.com/?grsf=abc');
  });

  it('redirects to the installation’s share URL, keeping grsf and every other parameter', async () => {
    const p = await withoutSite();
    const key = new URL(p.sharer.shareUrl).searchParams.get('grsf')!;
    await ok(p.key, 'PATCH', `/campaign/${p.pid}/installation`, { shareUrl: 'https://shop.example.com/landing?lang=en&ref=site#join' });
    // Links mailed before the share URL was set still carry /r/{programId}; a parameter the link repeats is the link's.
    const res = await get(`/r/${p.pid}?grsf=${key}&utm_source=email&utm_campaign=spring%20sale&ref=mail`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`https://shop.example.com/landing?lang=en&grsf=${key}&utm_source=email&utm_campaign=spring%20sale&ref=mail#join`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    // New links go straight to the site.
    expect((await ok(p.key, 'GET', `/campaign/${p.pid}/participant/${p.sharer.id}`)).shareUrl).toBe(`https://shop.example.com/landing?lang=en&ref=site&grsf=${key}#join`);
  });

  it('redirects to the design’s company website when the installation has no share URL', async () => {
    const p = await withoutSite('Site Club', { design: { landingPages: { company: { websiteUrl: 'https://coffee.example.com' } } } });
    const res = await get(local(p.sharer.shareUrl));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`https://coffee.example.com/?grsf=${new URL(p.sharer.shareUrl).searchParams.get('grsf')}`);
  });

  it('serves the page instead of redirecting to itself when the share URL is this very link', async () => {
    const p = await withoutSite();
    await ok(p.key, 'PATCH', `/campaign/${p.pid}/installation`, { shareUrl: `http://refloop.test/r/${p.pid}` });
    const res = await get(`/r/${p.pid}?grsf=abc`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<h1>Refer friends, earn rewards</h1>');
  });

  it('resolves for a DRAFT program (the owner tests links before launch) and for an ended one', async () => {
    const p = await withoutSite();
    expect((await ok(p.key, 'GET', `/campaign/${p.pid}`)).status).toBe('DRAFT');
    expect((await get(local(p.sharer.shareUrl))).status).toBe(200);
    await ok(p.key, 'PATCH', `/campaign/${p.pid}`, { status: 'IN_PROGRESS' });
    expect((await get(local(p.sharer.shareUrl))).status).toBe(200);
    await ok(p.key, 'PATCH', `/campaign/${p.pid}`, { status: 'COMPLETE' });
    expect((await get(local(p.sharer.shareUrl))).status).toBe(200);
  });

  it('answers 404 with an HTML page for an unknown or deleted program, and only then', async () => {
    const unknown = await get('/r/no-such-program?grsf=abc');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(unknown.headers.get('cache-control')).toBe('no-store');
    const html = await unknown.text();
    expect(html).toContain('<h1>This link does not work</h1>');
    expect(html).not.toMatch(/Error|stack|\bat \//);
    const p = await withoutSite();
    await app.deps.db.knex('programs').where({ id: p.pid }).update({ status: 'DELETED' });
    expect((await get(local(p.sharer.shareUrl))).status).toBe(404);
    const malformed = await get('/r/bad%2Fid');
    expect(malformed.status).toBe(404);
    expect(await malformed.text()).toContain('<h1>This link does not work</h1>');
  });

  it('answers 405 to other methods', async () => {
    const p = await withoutSite();
    const res = await get(`/r/${p.pid}`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  it('falls back to the design’s offer text (merge tags filled, markup dropped) and escapes what it shows', async () => {
    const p = await program('REFERRAL', 'Coffee <&> Co', {
      design: { referredExperience: { offerPopupTitle: '{{referrerName}} has a gift for you', offerPopupDescription: '<b>15% off</b> at {{companyName}}, {{unknownTag|for everyone}}' } },
    });
    const html = await (await get(`/r/${p.pid}`)).text();
    expect(html).toContain('<meta property="og:site_name" content="Acme Coffee">');
    expect(html).toContain('<h2 id="offer-title">A friend has a gift for you</h2><ul><li><p>15% off at Acme Coffee, for everyone</p></li></ul>');
    expect(html).toContain('<p class="brand"><span>Acme Coffee</span></p>');
  });

  it('shows no sign-up form while the program’s team is disabled', async () => {
    const p = await withoutSite();
    await app.deps.teams.setDisabled(p.teamId, true);
    const res = await get(local(p.sharer.shareUrl));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('This program is not taking sign-ups right now.');
    expect(html).not.toContain('<script');
  });
});

describe('GET /favicon.ico', () => {
  it('answers with an icon, so pages of this server log no failed request (issues #19, #21)', async () => {
    for (const method of ['GET', 'HEAD']) {
      const res = await fetch(`${app.url}/favicon.ico`, { method });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/x-icon');
      expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    }
  });
});

// ── Helpers of the participant API (sessions from a page on this server's own origin) ────────────

async function session(pid: string): Promise<{ token: string }> {
  const res = await app.request('POST', '/mobile/v2/sessions', { headers: { 'x-program-id': pid, origin: PUBLIC.origin }, body: { instanceId: crypto.randomUUID() } });
  expect(res.status, res.text).toBe(200);
  return { token: res.body.sessionToken };
}

function mobileCall(s: { token: string }, method: string, path: string, body?: unknown, participantToken?: string) {
  const headers: Record<string, string> = { 'x-session-token': s.token, origin: PUBLIC.origin };
  if (participantToken) headers.authorization = `Bearer ${participantToken}`;
  return app.request(method, `/mobile/v2${path}`, { headers, body });
}

/** Every team notification event, on. */
const REFERRAL_EVENTS = Object.fromEntries(NOTIFICATION_EVENTS.REFERRAL.map((e) => [e, true]));
const AFFILIATE_EVENTS = Object.fromEntries(NOTIFICATION_EVENTS.AFFILIATE.map((e) => [e, true]));
/** The events this scenario gives rise to (no affiliate application arrives; the affiliate program does not end). */
const REFERRAL_EVENTS_SENT = Object.keys(REFERRAL_EVENTS);
const AFFILIATE_EVENTS_SENT = Object.keys(AFFILIATE_EVENTS).filter((e) => e !== 'CAMPAIGN_ENDED' && e !== 'AFFILIATE_APPLICATIONS_PENDING_REVIEW');

/** The program mail this scenario sends in the referral program: templates, the free-form P11 email and the invitation follow-up. */
const REFERRAL_MAIL = [
  'welcomeNonReferred',
  'welcomeReferred',
  'referredSignup',
  'referralLinkUsed',
  'goalAchieved',
  'invite',
  'followUpReminder',
  'referralLinkViewedFirstTime',
  'campaignEndedWinners',
  'campaignEndedNonWinners',
  'progressUpdateMonthly',
  'freeForm',
  'paypalEmailConfirmation',
  'loginLink',
];
/** The program mail this scenario sends in the affiliate program (Wise has no template: built-in copy). */
const AFFILIATE_MAIL = [
  'welcomeNonReferred',
  'referredSignup',
  'commissionGenerated',
  'commissionAdjusted',
  'payoutPending',
  'payoutSentSuccess',
  'referralLinkViewedFirstTime',
  'progressUpdateMonthly',
  'paypalEmailConfirmation',
  'payoutDestinationConfirmation',
  'taxInfoReceived',
  'loginLink',
];
