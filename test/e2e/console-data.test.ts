import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, expectAccessible, shot, shownKey, signedInConsole } from './console-helpers.ts';
import { parseCsv } from '../../shared/csv.ts';

// Issue #23: the Data page in Chromium. The owner downloads the participants export through the
// console session and reads the file, checks a CSV with problems (each shown by line and column),
// then checks and imports a good file and finds the new participants in the list.

const BAD = 'email,firstName,referredBy\r\nzoe@example.com,Zoe,\r\nnot-an-email,Nope,\r\nyan@example.com,Yan,nobody@example.com\r\nzoe@example.com,Again,\r\n';
const GOOD = 'email,firstName,referredBy,metadata.plan\r\nzoe@example.com,Zoe,ann@example.com,pro\r\nyan@example.com,Yan,zoe@example.com,\r\n';

describe.skipIf(SKIP_BROWSER)('console data page in Chromium (issue #23)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

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
});
