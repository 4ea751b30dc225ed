import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import { RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, expectAccessible, shot, shotWidths, shownKey, signedInConsole } from './console-helpers.ts';
import { parseCsv } from '../../shared/csv.ts';

// Issue #23: the Data page in Chromium. The owner downloads the participants export through the
// console session and reads the file, checks a CSV with problems (each shown by line and column),
// then checks and imports a good file and finds the new participants in the list. Issue #33 part 5:
// the owner moves a program in from another refloop (a GrowSurf v2 API source) on the "Move a
// program in" page, watches it run as a job, downloads its refusals and sees the webhook secret once.

const BAD = 'email,firstName,referredBy\r\nzoe@example.com,Zoe,\r\nnot-an-email,Nope,\r\nyan@example.com,Yan,nobody@example.com\r\nzoe@example.com,Again,\r\n';
const GOOD = 'email,firstName,referredBy,metadata.plan\r\nzoe@example.com,Zoe,ann@example.com,pro\r\nyan@example.com,Yan,zoe@example.com,\r\n';

describe.skipIf(SKIP_BROWSER)('console data page in Chromium (issue #23)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite(
    (a, b) => {
      app = a;
      browser = b;
    },
    // The source of the move-in test listens on loopback, which the outbound address guard refuses otherwise.
    { WEBHOOK_ALLOW_PRIVATE: 'true' },
  );

  /** A referral program with one participant whose last name looks like a formula, made over REST. */
  async function program(page: Page): Promise<{ key: string; pid: string }> {
    const key = await shownKey(page, app.url);
    const created = await app.request('POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Data drill' } });
    expect(created.status, created.text).toBe(200);
    const ann = await app.request('POST', `/v2/campaign/${created.body.id}/participant`, { key, body: { email: 'ann@example.com', firstName: 'Ann', lastName: '=SUM(A1:A9)' } });
    expect(ann.status, ann.text).toBe(200);
    return { key, pid: created.body.id };
  }

  const upload = (page: Page, name: string, text: string) => page.getByLabel('CSV file').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });

  /** The problem table's rows as [line, column, problem]. */
  async function problems(page: Page): Promise<string[][]> {
    const table = page.getByRole('table', { name: /Problems found in/ });
    await table.waitFor();
    const rows = await table.locator('tbody tr').all();
    return Promise.all(rows.map(async (r) => (await r.locator('td').allTextContents()).map((s) => s.trim())));
  }

  it('downloads the participants CSV, reports a bad file by line and column, then imports a good one into the list (1440 px)', async () => {
    const { page, context } = await signedInConsole(app, browser, 1440);
    const { pid } = await program(page);
    await page.goto(`${app.url}/console/programs/${pid}`);
    await (await consoleNav(page)).getByRole('link', { name: 'Data' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Data');
    await expect.poll(() => page.getByRole('link', { name: 'Commissions (CSV)' }).count()).toBe(0);
    await expectAccessible(page);
    await shot(page, 'data-1440');

    // A real download through the session cookie, parsed.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Participants (CSV)' }).click()]);
    expect(download.suggestedFilename()).toBe(`participants-${pid}.csv`);
    const rows = parseCsv(fs.readFileSync((await download.path())!, 'utf8'));
    expect(rows[0]!.cells.slice(0, 4)).toEqual(['id', 'email', 'firstName', 'lastName']);
    expect(rows.slice(1).map((r) => r.cells.slice(1, 4))).toEqual([['ann@example.com', 'Ann', "'=SUM(A1:A9)"]]);

    // A file with problems: every one shown, nothing imported, no import button.
    await upload(page, 'people.csv', BAD);
    await page.getByRole('button', { name: 'Check file' }).click();
    expect(await problems(page)).toEqual([
      ['3', 'email', 'Must be an email address.'],
      ['4', 'referredBy', 'No participant of this program, and no earlier row, has the id, share key, vanity key or email nobody@example.com.'],
      ['5', 'email', 'zoe@example.com is already on line 2.'],
    ]);
    await expect.poll(() => page.getByText('3 rows have problems.', { exact: false }).count()).toBe(1);
    await expect.poll(() => page.getByRole('button', { name: /^Import/ }).count()).toBe(0);
    await expectAccessible(page);
    await shot(page, 'data-problems-1440');

    // The fixed file: checked, then imported.
    await upload(page, 'people-fixed.csv', GOOD);
    await page.getByRole('button', { name: 'Check file' }).click();
    await page.getByText('people-fixed.csv is ready: 2 participants will be added.').waitFor();
    await page.getByRole('button', { name: 'Import 2 participants' }).click();
    await page.getByText('Imported 2 participants.').first().waitFor();
    await shot(page, 'data-imported-1440');
    await page.getByRole('link', { name: 'See the participants' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Participants');
    const table = page.getByRole('table');
    await table.getByRole('link', { name: 'yan@example.com' }).waitFor();
    expect((await table.getByRole('link').allTextContents()).filter((s) => s.includes('@')).sort()).toEqual(['ann@example.com', 'yan@example.com', 'zoe@example.com']);
    await context.close();
  }, 90_000);

  it('works at 390 px: the problem table stays readable and the page passes axe', async () => {
    const { page, context } = await signedInConsole(app, browser, 390);
    const { pid } = await program(page);
    await page.goto(`${app.url}/console/programs/${pid}/data`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Data');
    await expectAccessible(page);
    await shot(page, 'data-390');
    await upload(page, 'people.csv', BAD);
    await page.getByRole('button', { name: 'Check file' }).click();
    expect((await problems(page)).map((r) => r[0])).toEqual(['3', '4', '5']);
    // Nothing scrolls sideways at this width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page);
    await shot(page, 'data-problems-390');
    await context.close();
  }, 90_000);

  it('moves a program in from a GrowSurf v2 API source: picks it, runs it as a job, reads the counts and refusals, and shows the webhook secret once (issue #33)', async () => {
    const source = await startApp({ ...RAISED_LIMITS, WEBHOOK_ALLOW_PRIVATE: 'true' });
    const pump = { on: true, done: Promise.resolve() };
    try {
      const acct = await verifiedAccount(source);
      const tea = (await source.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', name: 'Tea Circle' } })).body;
      await source.request('POST', `/v2/campaign/${tea.id}/webhooks`, { key: acct.key, body: { payloadUrl: 'http://127.0.0.1:9/tea-hook', events: ['NEW_PARTICIPANT_ADDED'] } });
      const people = [];
      for (const name of ['Ann', 'Bo', 'Cy', 'Di']) people.push((await source.request('POST', `/v2/campaign/${tea.id}/participant`, { key: acct.key, body: { email: `${name.toLowerCase()}@tea.example`, firstName: name } })).body);

      const { page, context } = await signedInConsole(app, browser, 1366);
      const { key, pid } = await program(page);
      // A participant here already holds one of the source's ids: that one is refused.
      await app.deps.db.knex('participants').insert({ id: people[1].id, program_id: pid, email: 'x@tea.example', email_key: 'x@tea.example', share_key: 'zzzzzzzzzz', referral_source: 'DIRECT', created_at: 1, updated_at: 1 });
      expect(key).toBeTruthy();
      // The suite's server runs no job runner (JOBS=false): the test is the runner, as the server's would be.
      pump.done = (async () => {
        while (pump.on) {
          app.clock.current += 10;
          await app.deps.jobs.runDue();
          await new Promise((r) => setTimeout(r, 200));
        }
      })();

      await page.goto(`${app.url}/console/programs/${pid}/data`);
      await (await consoleNav(page)).getByRole('link', { name: 'Move a program in' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Move a program in');
      expect(await page.getByLabel('Source API URL').inputValue()).toBe('https://api.growsurf.com/v2');
      await expectAccessible(page);

      // By keyboard: the URL and key typed, Enter lists the source's programs.
      await page.getByLabel('Source API URL').fill(source.url);
      await page.getByLabel('API key of the source').fill('wrong-key');
      await page.getByLabel('API key of the source').press('Enter');
      await page.getByText('The source refused this API key.').first().waitFor();
      await page.getByLabel('API key of the source').fill(acct.key);
      await page.getByLabel('API key of the source').press('Enter');
      const pick = page.getByRole('radio', { name: /Tea Circle/ });
      await pick.waitFor();
      await expect.poll(() => pick.isChecked()).toBe(true);
      expect(await page.getByRole('group', { name: 'Program to move in' }).textContent()).toContain('4 participants');
      await expectAccessible(page);
      await shotWidths(page, 'move-in-pick');

      await page.getByRole('button', { name: 'Start import' }).focus();
      await page.keyboard.press('Enter');
      await page.getByText('Done: Tea Circle is here.').first().waitFor({ timeout: 30_000 });
      const counts = page.getByRole('table', { name: 'Records' });
      const row = async (name: string) => (await counts.getByRole('row', { name: new RegExp(`^${name}`) }).locator('td').allTextContents()).map((s) => s.trim());
      expect(await row('Participants')).toEqual(['3', '0', '1']);
      expect(await row('Webhooks')).toEqual(['1', '0', '0']);
      await page.getByText('1 record was refused.').waitFor();

      // The webhook's new secret, shown this once.
      const secret = page.getByRole('heading', { name: 'Webhook primary: its new signing secret' });
      await secret.waitFor();
      expect((await page.locator('code.secret').first().textContent())!.trim()).toMatch(/^whsec_/);
      await expectAccessible(page);
      await shotWidths(page, 'move-in-done');

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download refusals (CSV)' }).click()]);
      expect(download.suggestedFilename()).toBe(`import-refusals-${tea.id}.csv`);
      expect(parseCsv(fs.readFileSync((await download.path())!, 'utf8')).map((r) => r.cells)).toEqual([
        ['kind', 'sourceId', 'reason'],
        ['participants', people[1].id, 'A participant of another program on this refloop has this id.'],
      ]);

      // A reload reads the progress again: the counts stay, the secret is gone.
      await page.reload();
      await page.getByText('Done: Tea Circle is here.').first().waitFor();
      expect(await page.getByRole('heading', { name: 'Webhook primary: its new signing secret' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Open the program' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Tea Circle');
      await context.close();
    } finally {
      pump.on = false;
      await pump.done;
      await source.close();
    }
  }, 120_000);
});
