import crypto from 'node:crypto';
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import jsQR from 'jsqr';
import { freePort, SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, PASSWORD, expectAccessible, heading, shotWidths, signedInConsole, watchCsp } from './console-helpers.ts';
import { CHALLENGE, VERIFIER } from '../helpers/mcp.ts';
import { totpCode } from '../../server/domain/platform/totp.ts';

// Issue #35 in Chromium, as a person with a phone would: enrol two-factor sign-in by scanning the
// QR code the Security page shows (a screenshot of the image, decoded with jsQR, is what a phone's
// camera reads), make new recovery codes (the old ones stop working at sign-in, a new one works
// once), and connect an MCP client through the OAuth consent page, whose sign-in asks for the code.

describe.skipIf(SKIP_BROWSER)('two-factor QR code, new recovery codes and OAuth consent in Chromium (issue #35)', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let email = '';
  let secret = '';
  let enrolmentCodes: string[] = [];

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  /** The code the authenticator app shows now (the clock moves a step first: each code works once). */
  const codeNow = () => {
    app.clock.advance(30_000);
    return totpCode(secret, app.clock.now());
  };

  /** Signs out from the console's navigation. */
  async function signOut(p: Page) {
    await consoleNav(p);
    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.waitForURL(/\/signin\?notice=signedout$/);
  }

  /** The password step, then the code step with `second`; answers the code step's page. */
  async function passwordThenCode(p: Page, second: string) {
    await p.goto(`${app.url}/signin`);
    await p.getByLabel('Email address').fill(email);
    await p.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([p.waitForURL(/\/signin\/code$/), p.getByRole('button', { name: 'Sign in' }).click()]);
    await p.getByLabel('Authentication code or recovery code').fill(second);
    await Promise.all([p.waitForNavigation(), p.getByRole('button', { name: 'Continue' }).click()]);
  }

  it('enrols by scanning the QR code: the picture decodes to the otpauth:// URI of the shown key, and a code from it turns 2FA on', async () => {
    // A laptop's high-density screen (two device pixels per CSS pixel), as a phone's camera would film it.
    const signedIn = await signedInConsole(app, browser, 1440, 2);
    page = signedIn.page;
    email = signedIn.acct.email;
    await (await consoleNav(page)).getByRole('link', { name: 'Security' }).click();
    await expect.poll(() => heading(page)).toBe('Security');
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    const qr = page.getByRole('img', { name: 'QR code that adds refloop to an authenticator app' });
    await qr.waitFor();
    await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);

    // What the phone's camera sees: the image as Chromium drew it, read back pixel by pixel.
    const png = PNG.sync.read(await qr.screenshot({ scale: 'device' }));
    const read = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
    expect(read, 'no QR code found in the screenshot').not.toBeNull();
    const uri = new URL(read!.data);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe(`/refloop:${email}`);
    const params = Object.fromEntries(uri.searchParams);
    expect(params).toEqual({ secret: expect.stringMatching(/^[A-Z2-7]{32}$/), issuer: 'refloop', algorithm: 'SHA1', digits: '6', period: '30' });
    secret = params.secret!;
    // The picture and the setup key typed by people without a camera are the same secret.
    expect((await page.locator('#totp-secret').textContent())!.replace(/\s/g, '')).toBe(secret);

    // The code the app makes from the scanned secret turns it on.
    await page.getByLabel('Code from the app').fill(codeNow());
    await page.getByRole('button', { name: 'Turn on', exact: true }).click();
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expect.poll(() => codes.count()).toBe(10);
    enrolmentCodes = (await codes.allTextContents()).map((c) => c.trim());
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText('On', { exact: true }).waitFor();
  });

  it('makes new recovery codes after the password and a code: shown once, an old code is refused at sign-in, a new one works once', async () => {
    // More than five minutes after signing in, the action asks who it is first.
    app.clock.advance(6 * 60_000);
    await page.reload();
    await expect.poll(() => heading(page)).toBe('Security');
    const renew = page.getByRole('button', { name: 'Make new recovery codes' });
    await renew.waitFor();
    await expectAccessible(page);
    await shotWidths(page, 'security-on');
    page.once('dialog', (d) => void d.accept());
    await renew.click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Code from the app, or a recovery code').fill(codeNow());
    // The keyboard alone confirms it.
    await page.getByRole('button', { name: 'Confirm' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your new recovery codes' }).waitFor();
    await page.getByRole('status').getByText('New recovery codes made; the old ones no longer work.').waitFor();
    const list = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expect.poll(() => list.count()).toBe(10);
    const fresh = (await list.allTextContents()).map((c) => c.trim());
    expect(fresh.some((c) => enrolmentCodes.includes(c))).toBe(false);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Your new recovery codes');
    await expectAccessible(page);
    await shotWidths(page, 'security-new-codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    // Shown once: gone from the page, and the count says ten unused.
    await expect.poll(() => page.getByRole('list', { name: 'Recovery codes' }).count()).toBe(0);
    await expect.poll(() => page.locator('dd', { hasText: /^10$/ }).count()).toBe(1);

    // An old code (never used) no longer signs in; a new one does, once.
    await signOut(page);
    await passwordThenCode(page, enrolmentCodes[2]!);
    expect(new URL(page.url()).pathname).toBe('/signin/code');
    await page.getByRole('alert').getByText('That code is not right', { exact: false }).waitFor();
    await passwordThenCode(page, fresh[0]!);
    await expect.poll(() => heading(page)).toBe('Programs');
    await signOut(page);
    await passwordThenCode(page, fresh[0]!);
    await page.getByRole('alert').getByText('That code is not right', { exact: false }).waitFor();
    await passwordThenCode(page, codeNow());
    await expect.poll(() => heading(page)).toBe('Programs');
  });

  it('asks a member with 2FA for the code on the OAuth consent page: a wrong code is refused with a clear message, the right one leads to consent', async () => {
    // The agent's own redirect target: a small server of another site (localhost, not 127.0.0.1).
    let callback: URL | null = null;
    const agent = http.createServer((req, res) => {
      const url = new URL(req.url!, redirect);
      if (url.pathname === '/callback') callback = url;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Agent</title><h1>Connected</h1>');
    });
    const port = await freePort();
    await new Promise<void>((r) => agent.listen(port, '127.0.0.1', () => r()));
    const redirect = `http://localhost:${port}/callback`;
    const reg = await app.request('POST', '/oauth/register', { body: { client_name: 'Desk agent', redirect_uris: [redirect], token_endpoint_auth_method: 'none' } });
    expect(reg.status).toBe(201);
    const state = crypto.randomBytes(6).toString('hex');
    const authorize = new URL(`${app.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: reg.body.client_id, redirect_uri: redirect, code_challenge: CHALLENGE, code_challenge_method: 'S256', state, scope: 'program:read team:read' })) {
      authorize.searchParams.set(k, v);
    }
    // A browser without the member's session.
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    context.setDefaultTimeout(15_000);
    context.on('page', watchCsp);
    const p = await context.newPage();
    await p.goto(authorize.href);
    await p.getByLabel('Email address').fill(email);
    await p.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([p.waitForURL(/\/signin\/code\?next=/), p.getByRole('button', { name: 'Sign in' }).click()]);
    await expect.poll(() => heading(p)).toBe('Two-factor sign-in');
    // The password alone opens nothing: the consent page asks to sign in again.
    const consentUrl = decodeURIComponent(new URL(p.url()).searchParams.get('next')!);
    expect(consentUrl).toMatch(/^\/oauth\/consent\?request=/);
    const peek = await context.newPage();
    await peek.goto(`${app.url}${consentUrl}`);
    await peek.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await peek.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await peek.close();

    await p.getByLabel('Authentication code or recovery code').fill('000000');
    await Promise.all([p.waitForNavigation(), p.getByRole('button', { name: 'Continue' }).click()]);
    await p.getByRole('alert').getByText('That code is not right. Enter the code your app shows now, or an unused recovery code.').waitFor();
    await expectAccessible(p);
    await shotWidths(p, 'oauth-code-wrong');
    await p.getByLabel('Authentication code or recovery code').fill(codeNow());
    await Promise.all([p.waitForURL(/\/oauth\/consent\?request=/), p.getByRole('button', { name: 'Continue' }).click()]);
    await p.getByRole('heading', { name: 'Connect Desk agent' }).waitFor();
    await expectAccessible(p);
    await shotWidths(p, 'oauth-consent-2fa');
    await Promise.all([p.waitForURL(/^http:\/\/localhost:\d+\/callback/), p.getByRole('button', { name: 'Approve' }).click()]);
    await p.getByRole('heading', { name: 'Connected' }).waitFor();
    const back = callback as URL | null;
    expect(back?.searchParams.get('state')).toBe(state);
    const token = await fetch(`${app.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: back!.searchParams.get('code')!, code_verifier: VERIFIER, client_id: reg.body.client_id, redirect_uri: redirect }).toString(),
    });
    expect(token.status).toBe(200);
    await context.close();
    agent.closeAllConnections();
    await new Promise((r) => agent.close(r));
  });

  it('asks for the password and a code in place when the keys page creates a key long after sign-in, then creates it', async () => {
    app.clock.advance(6 * 60_000);
    await page.goto(`${app.url}/keys`);
    await page.getByRole('checkbox', { name: /team:read/ }).check();
    await page.getByLabel('Label (optional)').fill('Reporting');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Create key', exact: true }).click()]);
    await page.getByRole('heading', { name: 'Confirm it is you to create the key' }).waitFor();
    await expectAccessible(page);
    await shotWidths(page, 'keys-create-reauth');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Authentication code or recovery code').fill(codeNow());
    await Promise.all([page.waitForURL(/\/keys$/), page.getByRole('button', { name: 'Confirm and create the key' }).click()]);
    const secretKey = (await page.locator('code.secret').first().textContent())!.trim();
    expect((await app.request('GET', '/v2/team', { key: secretKey })).status).toBe(200);
    await page.getByRole('table').getByText('Reporting').waitFor();
  });
});
