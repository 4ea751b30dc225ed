import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS, freePort, launch, seriousA11yViolations, SKIP_BROWSER } from './helpers.ts';
import { createAccount, RAISED_LIMITS, startApp, type TestApp } from '../helpers/app.ts';
import { mobile, mobileProgram, session } from '../helpers/mobile.ts';
import { CHALLENGE, VERIFIER } from '../helpers/mcp.ts';

// Issue #19: every form of every page, submitted in real Chromium by typing and clicking, end to
// end; and the same forms posted from another site, refused. Chromium posts what curl does not:
// `Origin` (null under `Referrer-Policy: no-referrer`) and `Sec-Fetch-Site`. These tests run the
// real server on 127.0.0.1; "another site" is a small server on localhost (another site to the
// browser), which also plays the OAuth client's redirect target.

const PASSWORD = 'correct horse battery staple';

describe.skipIf(SKIP_BROWSER)('owner and link pages in Chromium (issue #19)', () => {
  let app: TestApp;
  let browser: Browser;
  let other: http.Server;
  let otherUrl = '';
  /** Where the OAuth client's redirect went, by state. */
  const callbacks = new Map<string, URL>();

  beforeAll(async () => {
    const port = await freePort();
    app = await startApp({ ...RAISED_LIMITS, PUBLIC_URL: `http://127.0.0.1:${port}` }, { port });
    other = http.createServer((req, res) => {
      const url = new URL(req.url!, otherUrl);
      if (url.pathname === '/callback') {
        callbacks.set(url.searchParams.get('state') ?? '', url);
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Client</title><h1>Connected</h1>');
        return;
      }
      // `/forge?to=URL&f=JSON`: a page of another site with a form that posts the given fields to one of ours.
      const fields = JSON.parse(url.searchParams.get('f') ?? '{}') as Record<string, string>;
      const inputs = Object.entries(fields)
        .map(([k, v]) => `<input type="hidden" name="${k}" value="${String(v).replace(/"/g, '&quot;')}">`)
        .join('');
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Another site</title><form method="post" action="${url.searchParams.get('to')}">${inputs}<button>Send</button></form>`);
    });
    const otherPort = await freePort();
    await new Promise<void>((r) => other.listen(otherPort, '127.0.0.1', () => r()));
    otherUrl = `http://localhost:${otherPort}`;
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    other?.closeAllConnections();
    await new Promise((r) => other?.close(r));
    await app?.close();
  });

  const newContext = async (): Promise<BrowserContext> => {
    const c = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    c.setDefaultTimeout(15_000);
    return c;
  };
  /** The link of the newest message to `to` whose URL contains `part`, on this server. */
  const mailLink = async (to: string, part: string) => {
    const messages = await app.deps.mailer.list({ to });
    const link = messages.flatMap((m) => m.links).find((l) => l.includes(part));
    if (!link) throw new Error(`no ${part} link mailed to ${to}`);
    return app.local(link);
  };
  /** Clicks a submit button and returns the response of the navigation it starts. */
  const submit = async (page: Page, button: string) => {
    const [res] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: button, exact: true }).click()]);
    return res!;
  };
  /** Types a new password twice (set-password or invitation page) and submits the form with `button`. */
  const choosePassword = async (page: Page, button: string) => {
    await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Repeat the new password').fill(PASSWORD);
    return submit(page, button);
  };
  /** Signs `email` in on the sign-in form the page shows. */
  const signIn = async (page: Page, email: string) => {
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    return submit(page, 'Sign in');
  };
  const expectAccessible = async (page: Page) => expect(await seriousA11yViolations(page)).toEqual([]);
  const shot = async (page: Page, name: string) => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  };
  const rest = async (key: string, method: string, p: string, body?: unknown) => {
    const res = await app.request(method, `/v2${p}`, { key, body });
    if (res.status !== 200) throw new Error(`${method} ${p} → ${res.status} ${res.text}`);
    return res.body;
  };

  // State the steps share: one owner walked through every owner page in order.
  const owner = { email: '', key: '', teamId: '' };
  let ownerContext: BrowserContext;
  let ownerPage: Page;

  it('a new owner signs up on /signup, reads the welcome email in the outbox, verifies, chooses a password and signs in', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${app.url}/signin`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await expectAccessible(page);
    const email = `founder-${crypto.randomBytes(3).toString('hex')}@northwind-roasters.com`;
    await page.getByLabel('Work email address').fill(email);
    await page.getByLabel('Company (optional; it names your team)').fill('Northwind Roasters');
    // The terms box is required: the browser keeps the form until it is ticked.
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(page.url()).toBe(`${app.url}/signup`);
    await page.getByLabel('I accept the terms of service and the privacy policy.').check();
    const created = await submit(page, 'Create account');
    expect(created.status()).toBe(200);
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await shot(page, 'owner-signup-done');

    await page.getByRole('link', { name: 'mail outbox' }).click();
    await page.getByRole('link', { name: /\/verify\?token=/ }).first().click();
    await page.getByRole('heading', { name: 'Email verified' }).waitFor();
    await page.goBack();
    await page.getByRole('link', { name: /\/set-password\?token=/ }).first().click();
    await choosePassword(page, 'Set password');
    await page.getByText('Your password is set. Sign in with it now.').waitFor();
    await signIn(page, email);
    // The sign-in lands on the console, which says at once that a new key waits on the keys page.
    expect(new URL(page.url()).pathname).toBe('/console');
    await page.getByText('Your new API key is ready: it is shown once on the API keys page.').waitFor();
    await page.getByRole('link', { name: 'Show my API key' }).click();
    await page.waitForURL(/\/keys$/);
    await page.getByRole('heading', { name: /^New API key for team Northwind Roasters/ }).waitFor();
    await context.close();
  }, 90_000);

  it('an owner created over REST verifies, sets a password, signs in and is shown the replacement key once', async () => {
    const acct = await createAccount(app);
    Object.assign(owner, { email: acct.email, teamId: acct.teamId });
    ownerContext = await newContext();
    ownerPage = await ownerContext.newPage();
    const page = ownerPage;
    await page.goto(app.local(acct.verifyLink));
    await page.getByRole('heading', { name: 'Email verified' }).waitFor();
    await page.goto(app.local(acct.passwordLink));
    await expectAccessible(page);
    expect((await choosePassword(page, 'Set password')).status()).toBe(200);
    await page.getByLabel('Email address').fill(acct.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await expectAccessible(page);
    await submit(page, 'Sign in');
    // The sign-in lands on the console: its notice says the new key waits, shown once on the keys page.
    expect(new URL(page.url()).pathname).toBe('/console');
    // A banner of the frame, there on arrival (not a live region: the console's status line stays its own).
    const notice = page.locator('p.key-waiting', { hasText: 'Your new API key is ready: it is shown once on the API keys page.' });
    await notice.waitFor();
    await page.getByRole('heading', { level: 1 }).waitFor();
    await expectAccessible(page);
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await shot(page, `owner-console-key-waiting-${width}`);
    }
    await page.setViewportSize({ width: 1024, height: 800 });
    await ownerContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await notice.getByRole('link', { name: 'Show my API key' }).click();
    await page.waitForURL(/\/keys$/);
    // The first sign-in replaced the account-creation key: the new one is shown here, once.
    owner.key = (await page.locator('code.secret').textContent())!.trim();
    expect(owner.key).toMatch(/^sk_/);
    expect((await app.request('GET', '/v2/team', { key: acct.key })).status).toBe(403);
    expect((await app.request('GET', '/v2/team', { key: owner.key })).status).toBe(200);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: /^Key copied\.$/ }).count()).toBe(1);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(owner.key);
    await expectAccessible(page);
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await shot(page, `owner-keys-first-sign-in-${width}`);
    }
    await page.setViewportSize({ width: 1024, height: 800 });
    await page.reload();
    expect(await page.locator('code.secret').count()).toBe(0);
    // Shown: the console no longer announces it.
    await page.goto(`${app.url}/console`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.getByText('Your new API key is ready').count()).toBe(0);
    await page.goto(`${app.url}/keys`);
  }, 60_000);

  it('without JavaScript the key shown once stays visible and selectable, with no dead Copy button', async () => {
    const acct = await createAccount(app);
    const context = await browser.newContext({ viewport: { width: 390, height: 800 }, javaScriptEnabled: false });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await page.goto(app.local(acct.passwordLink));
    await choosePassword(page, 'Set password');
    await signIn(page, acct.email);
    expect(new URL(page.url()).pathname).toBe('/console');
    // The console needs JavaScript; its page says where the key pages are.
    await page.getByRole('link', { name: 'API keys' }).click();
    const key = page.locator('code.secret');
    expect((await key.textContent())!.trim()).toMatch(/^sk_/);
    expect(await key.evaluate((el) => getComputedStyle(el).userSelect)).not.toBe('none');
    expect(await page.getByRole('button', { name: 'Copy key' }).count()).toBe(0);
    await shot(page, 'owner-keys-first-sign-in-no-js-390');
    await context.close();
  }, 60_000);

  it('the team picker takes the chosen team', async () => {
    const page = ownerPage;
    await page.getByRole('link', { name: 'Switch team' }).click();
    await expectAccessible(page);
    await page.getByRole('radio').first().check();
    await submit(page, 'Continue');
    expect(new URL(page.url()).pathname).toBe('/console');
    await page.goto(`${app.url}/keys`);
  });

  let createdPrefix = '';
  it('creates a key with the chosen scopes, shows it once, and it works over REST', async () => {
    const page = ownerPage;
    await page.getByLabel('team:read').check();
    await page.getByLabel('Label (optional)').fill('Reporting');
    expect((await submit(page, 'Create key')).status()).toBe(200);
    const secret = (await page.locator('code.secret').textContent())!.trim();
    expect((await app.request('GET', '/v2/team', { key: secret })).status).toBe(200);
    expect((await app.request('GET', '/v2/campaigns', { key: secret })).status).toBe(403);
    createdPrefix = secret.slice(0, 11);
    await page.getByRole('row', { name: /Reporting/ }).waitFor();
    await page.reload();
    expect(await page.locator('code.secret').count()).toBe(0);
    (owner as any).reporting = secret;
  });

  it('revokes that key by clicking its button; REST then refuses it', async () => {
    const page = ownerPage;
    await submit(page, `Revoke ${createdPrefix}…`);
    await page.getByText(`The key ${createdPrefix}… is revoked and no longer works.`).waitFor();
    expect((await app.request('GET', '/v2/team', { key: (owner as any).reporting })).status).toBe(403);
  });

  it('invites a teammate, who accepts in another browser, chooses a password and signs in', async () => {
    const page = ownerPage;
    await page.getByRole('link', { name: 'Team members' }).click();
    await expectAccessible(page);
    const mate = `mate-${crypto.randomBytes(3).toString('hex')}@northwind-roasters.com`;
    await page.getByLabel('Email address').fill(mate);
    await page.getByLabel('Role').selectOption('MEMBER');
    await page.getByLabel(/^Manage API/).check();
    await submit(page, 'Send invitation');
    await page.getByText(`Invitation sent to ${mate}.`).waitFor();

    const second = await newContext();
    const p2 = await second.newPage();
    await p2.goto(await mailLink(mate, '/invite/accept?token='));
    await expectAccessible(p2);
    await choosePassword(p2, 'Join the team');
    await p2.getByText('You joined the team. Sign in to continue.').waitFor();
    await signIn(p2, mate);
    expect(new URL(p2.url()).pathname).toBe('/console');
    await p2.goto(`${app.url}/team/members`);
    await p2.getByRole('cell', { name: mate }).waitFor();
    await second.close();
  }, 60_000);

  it('an invited affiliate accepts on the invite page and is shown their link', async () => {
    await app.deps.teams.approveVerification(owner.teamId);
    const program = await rest(owner.key, 'POST', '/campaigns', { type: 'AFFILIATE', companyName: 'Northwind Partners' });
    (owner as any).affiliateProgram = program.id;
    await rest(owner.key, 'POST', `/campaign/${program.id}/affiliate-invites`, { email: 'aff@partner.example', firstName: 'Ada' });
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(await mailLink('aff@partner.example', '/affiliate-invite?token='));
    await page.getByRole('heading', { name: 'Join the Northwind Partners affiliate program' }).waitFor();
    await expectAccessible(page);
    expect((await submit(page, 'Accept the invite')).status()).toBe(200);
    await page.getByText('You are an approved affiliate.').waitFor();
    const participant = await rest(owner.key, 'GET', `/campaign/${program.id}/participant/aff@partner.example`);
    expect(await page.getByRole('link', { name: participant.shareUrl }).count()).toBe(1);
    await context.close();
  });

  it('completes hosted-MCP OAuth by signing in and clicking Approve; the token lists tools', async () => {
    const reg = await app.request('POST', '/oauth/register', { body: { client_name: 'Desk agent', redirect_uris: [`${otherUrl}/callback`], token_endpoint_auth_method: 'none' } });
    expect(reg.status).toBe(201);
    const authorize = new URL(`${app.url}/oauth/authorize`);
    const state = crypto.randomBytes(6).toString('hex');
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: reg.body.client_id, redirect_uri: `${otherUrl}/callback`, code_challenge: CHALLENGE, code_challenge_method: 'S256', state, scope: 'program:read team:read' })) {
      authorize.searchParams.set(k, v);
    }
    // A browser without the owner's session: the consent page asks for sign-in first.
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(authorize.href);
    await page.getByLabel('Email address').fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await expectAccessible(page);
    await submit(page, 'Sign in');
    await page.getByRole('heading', { name: 'Connect Desk agent' }).waitFor();
    await expectAccessible(page);
    await shot(page, 'oauth-consent');
    await submit(page, 'Approve');
    await page.getByRole('heading', { name: 'Connected' }).waitFor();
    const back = callbacks.get(state)!;
    expect(back.searchParams.get('code')).toBeTruthy();
    const token = await fetch(`${app.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, code_verifier: VERIFIER, client_id: reg.body.client_id, redirect_uri: `${otherUrl}/callback` }).toString(),
    });
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    const list = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
    const text = await list.text();
    expect(text).toContain('growsurf_get_team');
    await context.close();
  }, 60_000);

  it('a participant unsubscribes through the link of a program email', async () => {
    const program = await rest(owner.key, 'POST', '/campaigns', { type: 'REFERRAL', companyName: 'Northwind Coffee' });
    const p = await rest(owner.key, 'POST', `/campaign/${program.id}/participant`, { email: 'reader@example.com', firstName: 'Rita' });
    await rest(owner.key, 'POST', `/campaign/${program.id}/participant/${p.id}/email`, { emailType: 'progressUpdateMonthly' });
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(await mailLink('reader@example.com', '/unsubscribe?token='));
    await page.getByRole('heading', { name: 'Unsubscribe from Northwind Coffee emails?' }).waitFor();
    await expectAccessible(page);
    await submit(page, 'Unsubscribe');
    await page.getByRole('heading', { name: 'You are unsubscribed' }).waitFor();
    expect((await rest(owner.key, 'GET', `/campaign/${program.id}/participant/${p.id}`)).unsubscribed).toBe(true);
    await context.close();
  });

  it('an affiliate confirms PayPal payout details through the emailed link', async () => {
    const pid = (owner as any).affiliateProgram as string;
    await rest(owner.key, 'PATCH', `/campaign/${pid}/options`, { payoutSettings: { enabledProviders: ['PAYPAL'] } });
    await rest(owner.key, 'POST', `/campaign/${pid}/participant/aff@partner.example/payout-destination/request-confirmation`, { provider: 'PAYPAL' });
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(await mailLink('aff@partner.example', '/payout-confirm?token='));
    await expectAccessible(page);
    await page.getByLabel('PayPal email address').fill('ada.payouts@partner.example');
    await page.getByLabel('The same email address again').fill('ada.payouts@partner.example');
    await page.getByLabel('Legal name of the recipient').fill('Ada Lovelace');
    await page.getByLabel('Business').check();
    await submit(page, 'Confirm');
    await page.getByText('Thanks! Your PayPal payout details are confirmed.').waitFor();
    const status = await rest(owner.key, 'GET', `/campaign/${pid}/participant/aff@partner.example/payout-destination`);
    expect(JSON.stringify(status)).toContain('CONFIRMED');
    await context.close();
  });

  it('an affiliate completes the hosted tax form', async () => {
    const p = await mobileProgram(app, { type: 'AFFILIATE', options: { payoutSettings: { enabledProviders: [], requireTaxInfo: true } } });
    const tokenRes = await app.request('POST', `/v2/campaign/${p.pid}/mobile-participant-token`, { key: p.key, body: { email: 'tax@partner.example' } });
    const s = await session(app, p);
    const hosted = await mobile(app, 'POST', '/participant/tax-info/session', s, { participantToken: tokenRes.body.participantToken, body: {} });
    expect(hosted.status, hosted.text).toBe(200);
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(app.local(hosted.body.hostedUrl));
    await expectAccessible(page);
    await page.getByLabel('W-9 (US person)').check();
    await page.getByLabel('Legal name').fill('Tess Example');
    await page.getByLabel(/^Country of tax residence/).fill('US');
    await page.getByLabel(/^Taxpayer identification number/).fill('123-45-6789');
    await page.getByLabel('I certify that this information is correct.').check();
    await submit(page, 'Submit');
    await page.getByText('Your tax information was received.').waitFor();
    const status = await mobile(app, 'GET', '/participant/tax-info', s, { participantToken: tokenRes.body.participantToken });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ status: 'SUBMITTED', formType: 'W9', residencyCountryCode: 'US' });
    expect(JSON.stringify(status.body)).not.toContain('123-45-6789');
    await context.close();
  });

  it('signs out by clicking Sign out', async () => {
    await ownerPage.goto(`${app.url}/keys`);
    await submit(ownerPage, 'Sign out');
    await ownerPage.getByText('You are signed out.').waitFor();
    await ownerPage.goto(`${app.url}/keys`);
    expect(new URL(ownerPage.url()).pathname).toBe('/signin');
  });

  describe('a form posted from another site is refused', () => {
    /** Opens a page of another site whose form posts `fields` to `to` (a path or URL of ours), clicks Send, returns status and text. */
    const forge = async (context: BrowserContext, to: string, fields: Record<string, string>) => {
      const page = await context.newPage();
      const target = to.startsWith('http') ? to : `${app.url}${to}`;
      await page.goto(`${otherUrl}/forge?to=${encodeURIComponent(target)}&f=${encodeURIComponent(JSON.stringify(fields))}`);
      const res = await submit(page, 'Send');
      const text = (await page.locator('body').textContent()) ?? '';
      await page.close();
      return { status: res.status(), text };
    };
    const refused = (r: { status: number; text: string }) => {
      expect(r.status).toBe(403);
      expect(r.text).toContain('This form was sent from another site.');
    };
    let context: BrowserContext;
    let csrf = '';
    let victim: { email: string; key: string; teamId: string; passwordLink: string; verifyLink: string };
    beforeAll(async () => {
      // A signed-in victim: the forged posts go out from the browser that holds the session.
      victim = await createAccount(app);
      await fetch(app.local(victim.verifyLink));
      context = await newContext();
      const page = await context.newPage();
      await page.goto(app.local(victim.passwordLink));
      await choosePassword(page, 'Set password');
      await signIn(page, victim.email);
      // The console says the new key waits on the keys page; the victim follows it there.
      await Promise.all([page.waitForURL(/\/keys$/), page.getByRole('link', { name: 'Show my API key' }).click()]);
      csrf = (await page.locator('input[name=csrf]').first().getAttribute('value'))!;
      // The first sign-in replaced the account-creation key.
      victim.key = (await page.locator('code.secret').textContent())!.trim();
      await page.close();
    }, 60_000);
    afterAll(() => context?.close());

    const keysOf = () => app.deps.db.knex('api_keys').where({ team_id: victim.teamId }).whereNull('revoked_at');

    it('/signin and /signup', async () => {
      refused(await forge(context, '/signin', { email: victim.email, password: PASSWORD }));
      refused(await forge(context, '/signup', { email: 'forged@northwind-roasters.com', terms: 'on' }));
      expect(await app.deps.db.knex('users').where({ email: 'forged@northwind-roasters.com' }).first()).toBeUndefined();
    });

    it('/set-password', async () => {
      const acct = await createAccount(app);
      refused(await forge(context, new URL(app.local(acct.passwordLink)).pathname + new URL(acct.passwordLink).search, { password: 'forged password 123', confirm: 'forged password 123' }));
      expect(await app.deps.owners.passwordLink(new URL(acct.passwordLink).searchParams.get('token')!)).not.toBeNull();
    });

    it('/signin/team, /keys, /keys/revoke and /signout', async () => {
      const before = (await keysOf()).length;
      refused(await forge(context, '/signin/team', { csrf, teamId: victim.teamId }));
      refused(await forge(context, '/keys', { csrf, scopes: 'team:read' }));
      const [key] = await keysOf();
      refused(await forge(context, '/keys/revoke', { csrf, prefix: key.prefix }));
      expect((await keysOf()).length).toBe(before);
      refused(await forge(context, '/signout', { csrf }));
      const page = await context.newPage();
      await page.goto(`${app.url}/keys`);
      expect(new URL(page.url()).pathname).toBe('/keys');
      await page.close();
    });

    it('/team/members/invite and /invite/accept', async () => {
      refused(await forge(context, '/team/members/invite', { csrf, email: 'forged-mate@northwind-roasters.com', role: 'ADMIN' }));
      expect(await app.deps.mailer.list({ to: 'forged-mate@northwind-roasters.com' })).toEqual([]);
      const mate = `m-${crypto.randomBytes(3).toString('hex')}@northwind-roasters.com`;
      const page = await context.newPage();
      await page.goto(`${app.url}/team/members`);
      await page.getByLabel('Email address').fill(mate);
      await submit(page, 'Send invitation');
      await page.close();
      const link = new URL(await mailLink(mate, '/invite/accept?token='));
      refused(await forge(context, link.pathname + link.search, { password: 'forged password 123', confirm: 'forged password 123' }));
      expect(await app.deps.owners.invitation(link.searchParams.get('token')!)).not.toBeNull();
    });

    it('/affiliate-invite, /unsubscribe, /payout-confirm and /tax', async () => {
      const program = await rest(victim.key, 'POST', '/campaigns', { type: 'AFFILIATE', companyName: 'Victim Partners' });
      await app.deps.teams.approveVerification(victim.teamId);
      await rest(victim.key, 'POST', `/campaign/${program.id}/affiliate-invites`, { email: 'forged-aff@partner.example' });
      const invite = new URL(await mailLink('forged-aff@partner.example', '/affiliate-invite?token='));
      refused(await forge(context, invite.pathname + invite.search, {}));
      expect((await rest(victim.key, 'GET', `/campaign/${program.id}/affiliate-invites`)).invites[0].status).toBe('PENDING');

      const p = await rest(victim.key, 'POST', `/campaign/${program.id}/participant`, { email: 'forged-reader@example.com' });
      await rest(victim.key, 'POST', `/campaign/${program.id}/participant/${p.id}/email`, { emailType: 'progressUpdateMonthly' });
      const unsubscribe = new URL(await mailLink('forged-reader@example.com', '/unsubscribe?token='));
      refused(await forge(context, unsubscribe.pathname + unsubscribe.search, {}));
      expect((await rest(victim.key, 'GET', `/campaign/${program.id}/participant/${p.id}`)).unsubscribed).toBe(false);

      await rest(victim.key, 'PATCH', `/campaign/${program.id}/options`, { payoutSettings: { enabledProviders: ['PAYPAL'] } });
      await rest(victim.key, 'POST', `/campaign/${program.id}/participant/${p.id}/payout-destination/request-confirmation`, { provider: 'PAYPAL' });
      const confirm = new URL(await mailLink('forged-reader@example.com', '/payout-confirm?token='));
      refused(await forge(context, confirm.pathname + confirm.search, { email: 'thief@evil.example', emailAgain: 'thief@evil.example', legalName: 'Thief', legalEntityType: 'INDIVIDUAL' }));
      expect(JSON.stringify(await rest(victim.key, 'GET', `/campaign/${program.id}/participant/${p.id}/payout-destination`))).not.toContain('thief@evil.example');

      const m = await mobileProgram(app, { type: 'AFFILIATE', options: { payoutSettings: { enabledProviders: [], requireTaxInfo: true } } });
      const tokenRes = await app.request('POST', `/v2/campaign/${m.pid}/mobile-participant-token`, { key: m.key, body: { email: 'forged-tax@partner.example' } });
      const s = await session(app, m);
      const hosted = new URL(app.local((await mobile(app, 'POST', '/participant/tax-info/session', s, { participantToken: tokenRes.body.participantToken, body: {} })).body.hostedUrl));
      refused(await forge(context, hosted.pathname + hosted.search, { formType: 'W9', legalName: 'Thief', residencyCountryCode: 'US', taxId: '123-45-6789', certify: 'yes' }));
    }, 60_000);

    it('/oauth/consent', async () => {
      refused(await forge(context, '/oauth/consent', { csrf, request: 'x', teamId: victim.teamId, decision: 'approve' }));
      refused(await forge(context, '/oauth/consent', { action: 'signin', request: 'x', email: victim.email, password: PASSWORD }));
    });
  });

  it('the mail outbox says how many messages there are and "Next" pages to older ones; the tab shows the icon (issue #21)', async () => {
    for (let i = 1; i <= 25; i++) await app.deps.mailer.send(app.deps.db.knex, { to: `paging-${i}@example.com`, subject: `Paging test ${i}`, text: `Body ${i}`, kind: 'test.outbox' });
    const total = await app.deps.mailer.count();
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${app.url}/`);
    expect(await page.title()).toBe('refloop: referral and affiliate programs');
    // The browser fetched the linked icon and it decodes as an image.
    const icon = await page.evaluate(async () => {
      const href = document.querySelector<HTMLLinkElement>('link[rel=icon]')!.href;
      const img = new Image();
      img.src = href;
      await img.decode();
      return { href, width: img.naturalWidth };
    });
    expect(icon.href).toBe(`${app.url}/favicon.svg`);
    expect(icon.width).toBeGreaterThan(0);
    await page.getByRole('link', { name: 'Mail outbox' }).click();
    const pages = Math.ceil(total / 20);
    await page.getByText(`${total} messages, newest first. Showing 1–20 (page 1 of ${pages}).`).waitFor();
    await page.getByRole('heading', { name: 'Paging test 25' }).waitFor();
    await shot(page, 'dev-mail-page-1');
    await page.getByRole('navigation', { name: 'Outbox pages' }).first().getByRole('link', { name: 'Next' }).click();
    await page.getByText(`Showing 21–${Math.min(40, total)} (page 2 of ${pages}).`).waitFor();
    await page.getByRole('heading', { name: 'Paging test 5', exact: true }).waitFor();
    expect(await page.getByRole('heading', { name: 'Paging test 25' }).count()).toBe(0);
    await expectAccessible(page);
    await shot(page, 'dev-mail-page-2');
    await page.getByRole('link', { name: 'Previous' }).first().click();
    await page.getByRole('heading', { name: 'Paging test 25' }).waitFor();
    // The .ico form, as a tab would draw it.
    await page.goto(`${app.url}/favicon.ico`);
    await page.setViewportSize({ width: 64, height: 64 });
    await shot(page, 'favicon-ico');
    await context.close();
  }, 60_000);
});
