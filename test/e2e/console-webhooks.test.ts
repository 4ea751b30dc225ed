import crypto from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { freePort, launch, SKIP_BROWSER } from './helpers.ts';
import { RAISED_LIMITS, startApp, type TestApp } from '../helpers/app.ts';
import { buildConsole } from '../../scripts/build-console.ts';
import { consoleNav, expectAccessible, shot, shotWidths, signedInConsole } from './console-helpers.ts';
import { SCOPES } from '../../shared/scopes.ts';

// Issue #23: the webhooks page in Chromium, delivering to a real HTTP receiver on 127.0.0.1 (the
// app allows private targets for this, as the server suites do; the guard has its own tests). The
// owner adds a webhook, keeps the secret shown once, sends a test, sees a real event's delivery in
// the log, replays it and sees the second copy arrive, edits and deletes the webhook.

describe.skipIf(SKIP_BROWSER)('console webhooks page in Chromium (issue #23)', () => {
  let app: TestApp;
  let browser: Browser;
  const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks, got it');
    });
  });
  let hookUrl = '';

  beforeAll(async () => {
    await buildConsole({ ifStale: true });
    const port = await freePort();
    app = await startApp({ ...RAISED_LIMITS, PUBLIC_URL: `http://127.0.0.1:${port}`, WEBHOOK_ALLOW_PRIVATE: 'true' }, { port });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/refloop-hook`;
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
  });

  it('adds a webhook, shows its secret once, sends a test, and replays a delivery that then arrives again', async () => {
    const { acct, page, context } = await signedInConsole(app, browser, 1440);
    // A key of the owner's team for the REST calls that set the scene.
    const key = (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes: [...SCOPES], programIds: null, origin: 'CLI' })).secret;
    const program = (await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Hooks' } })).body;
    expect((await app.request('PATCH', `/v2/campaign/${program.id}`, { key, body: { status: 'IN_PROGRESS' } })).status).toBe(200);

    await page.goto(`${app.url}/console/programs/${program.id}`);
    await (await consoleNav(page)).getByRole('link', { name: 'Webhooks' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Webhooks');
    // Issue #32: no webhook yet, so the page says what one does; its action leads to the form's first field.
    await expect.poll(() => page.getByRole('heading', { level: 2, name: 'No webhooks yet' }).count()).toBe(1);
    expect(await page.getByText('A webhook sends a signed POST to your server').count()).toBe(1);
    await expectAccessible(page);
    await shotWidths(page, 'webhooks-empty');
    await page.getByRole('button', { name: 'Add a webhook' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('hook-new-url');

    // A URL the API refuses: its own message, on the field.
    await page.getByLabel('Payload URL').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('Must be an http or https URL.');
    // In plain words: never the request's field path (issue #32).
    expect(await page.getByRole('alert').first().textContent()).not.toContain('payloadUrl');

    await page.getByLabel('Payload URL').fill(hookUrl);
    await page.getByLabel('New participant added').check();
    await page.getByLabel('Program ended').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect.poll(() => page.getByRole('heading', { name: hookUrl, exact: true }).count()).toBe(1);
    expect(await page.getByRole('status').first().textContent()).toContain('Webhook added.');
    // The signing secret the console made, shown once, with focus on it.
    const secret = (await page.locator('code.secret').textContent())!;
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-labelledby'))).toBe('secret-title');
    const hook = page.getByRole('region', { name: hookUrl, exact: true });
    expect(await hook.getByRole('list', { name: 'Events to send' }).getByRole('listitem').allTextContents()).toEqual(['New participant added', 'Program ended']);
    await expectAccessible(page);
    await shot(page, 'webhooks-secret-1440');
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await expect.poll(() => page.locator('code.secret').count()).toBe(0);

    // A test delivery, signed with that secret; its result and its row in the log.
    await hook.getByLabel('Test event').selectOption({ label: 'New participant added' });
    await hook.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => hook.locator('[data-test-result]').textContent()).toContain('Test delivered: the receiver accepted it (status 200).');
    expect(await hook.locator('[data-test-result]').textContent()).toContain('thanks, got it');
    expect(received).toHaveLength(1);
    const [, ts, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(received[0]!.headers['growsurf-signature'] as string)!;
    expect(crypto.createHmac('sha256', secret).update(`${ts}.${received[0]!.body}`).digest('hex')).toBe(v1);
    const log = hook.getByRole('table', { name: `Deliveries to ${hookUrl}, newest first` });
    await expect.poll(() => log.getByRole('row').count()).toBe(2);
    expect(await log.getByRole('row').nth(1).textContent()).toMatch(/New participant added.*Delivered test.*200 thanks, got it/);
    // A test delivery is not replayed (send a new test instead).
    await expect.poll(() => log.getByRole('button', { name: /^Replay delivery/ }).count()).toBe(0);

    // A real event: a participant joins over REST and the delivery job runs.
    expect((await app.request('POST', `/v2/campaign/${program.id}/participant`, { key, body: { email: 'joiner@example.com' } })).status).toBe(200);
    await app.deps.jobs.runDue();
    expect(received).toHaveLength(2);
    const original = received[1]!;
    expect(JSON.parse(original.body)).toMatchObject({ event: 'NEW_PARTICIPANT_ADDED', data: { campaign: { id: program.id } } });
    expect(original.body).toContain('joiner@example.com');
    await hook.getByRole('button', { name: `Refresh the log: ${hookUrl}` }).click();
    await expect.poll(() => log.getByRole('row').count()).toBe(3);
    const deliveryId = original.headers['growsurf-delivery-id'] as string;
    const row = log.locator(`tr[data-delivery="${deliveryId}"]`);
    expect(await row.textContent()).toMatch(/New participant added.*Delivered.*1.*200 thanks, got it/);

    // Replay it: a new delivery is queued, then arrives with the same body and a new delivery id.
    await row.getByRole('button', { name: `Replay delivery ${deliveryId}` }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Replay queued as delivery \S+\.$/);
    const replayId = /as delivery (\S+)\.$/.exec((await page.getByRole('status').first().textContent())!)![1]!;
    await expect.poll(() => log.getByRole('row').count()).toBe(4);
    expect(await log.locator(`tr[data-delivery="${replayId}"]`).textContent()).toContain(`Retrying replay of ${deliveryId}`);
    await app.deps.jobs.runDue();
    expect(received).toHaveLength(3);
    expect(received[2]!.body).toBe(original.body);
    expect(received[2]!.headers['growsurf-delivery-id']).toBe(replayId);
    await hook.getByRole('button', { name: `Refresh the log: ${hookUrl}` }).click();
    const replayRow = log.locator(`tr[data-delivery="${replayId}"]`);
    await expect.poll(() => replayRow.textContent()).toMatch(/Delivered replay of .*1.*200 thanks, got it/);
    // Every attempt of it (W8), opened from the row.
    await replayRow.getByText('Show every attempt').click();
    await expect.poll(() => replayRow.getByRole('list', { name: `Attempts of delivery ${replayId}` }).textContent()).toMatch(/^Attempt 1, .+, \d+ ms: 200 thanks, got it$/);
    await expectAccessible(page);
    await shot(page, 'webhooks-log-1440');

    // Edit: switch it off; the card says so.
    await hook.getByRole('button', { name: 'Edit' }).click();
    await hook.getByLabel('Send deliveries (enabled)').uncheck();
    await hook.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => hook.getByText('Disabled', { exact: true }).count()).toBe(1);
    expect((await app.request('GET', `/v2/campaign/${program.id}/webhooks`, { key })).body.webhooks[0]).toMatchObject({ isEnabled: false, payloadUrl: hookUrl });

    await page.setViewportSize({ width: 390, height: 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page);
    await shot(page, 'webhooks-390');

    // Delete, after confirming.
    page.once('dialog', (d) => void d.accept());
    await hook.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 2, name: 'No webhooks yet' }).count()).toBe(1);
    expect(await page.getByRole('status').first().textContent()).toContain('Webhook deleted.');
    await context.close();
  });
});
