import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import path from 'node:path';
import { ARTIFACTS, SKIP_BROWSER } from './helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { consoleNav, consoleSuite, expectAccessible, shot, signedInConsole } from './console-helpers.ts';
import { SCOPES } from '../../shared/scopes.ts';

// Issue #23: the analytics page in Chromium. A program gets activity over REST on two days ten days
// apart (the server's clock is moved, the browser's is not), then an owner reads it: the charts
// are drawn by uPlot with the previous period beside them, changing the period or the time zone
// changes the AN1 request, a reversed custom period shows the API's message, and a table downloads
// as exactly its rows.

const DAY = 86_400_000;

/** Counts the non-transparent pixels of a chart's canvas and those in the current period's blue. */
function chartPixels(page: Page, chart: string) {
  return page.evaluate((sel) => {
    const c = document.querySelector<HTMLCanvasElement>(`[data-chart="${sel}"] canvas`);
    if (!c) return { drawn: 0, current: 0 };
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let drawn = 0;
    let current = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3]! > 0) drawn++;
      if (Math.abs(d[i]! - 31) < 20 && Math.abs(d[i + 1]! - 95) < 20 && Math.abs(d[i + 2]! - 191) < 20 && d[i + 3]! > 200) current++;
    }
    return { drawn, current };
  }, chart);
}

/** The rows of a table (by its caption) as shown: header cells then body cells, text trimmed. */
function tableText(page: Page, caption: string) {
  return page
    .getByRole('table', { name: caption })
    .evaluate((t: HTMLTableElement) => [...t.rows].map((r) => [...r.cells].map((c) => c.textContent!.trim())));
}

/** A minimal RFC 4180 reader (quoted fields, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(cell), (cell = '');
    else if (ch === '\n') row.push(cell), rows.push(row), (row = []), (cell = '');
    else if (ch !== '\r') cell += ch;
  }
  return rows;
}

describe.skipIf(SKIP_BROWSER)('console analytics page in Chromium (issue #23)', () => {
  let app: TestApp;
  let browser: Browser;

  consoleSuite((a, b) => {
    app = a;
    browser = b;
  });

  it('draws each series beside the previous period, follows the chosen period and time zone, and downloads the shown table', async () => {
    const { acct, page, context } = await signedInConsole(app, browser, 1440);
    // A key of the owner's team for the REST calls that set the scene.
    const key = (await app.deps.keys.create(app.deps.db.knex, { teamId: acct.teamId, scopes: [...SCOPES], programIds: null, origin: 'CLI' })).secret;
    const rest = async (method: string, path: string, body?: unknown) => {
      const res = await app.request(method, `/v2${path}`, { key, body });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const program = await rest('POST', '/campaigns', { type: 'REFERRAL', name: 'Spring referrals' });
    await rest('PATCH', `/campaign/${program.id}`, { status: 'IN_PROGRESS' });
    const ana = await rest('POST', `/campaign/${program.id}/participant`, { email: 'ana@example.com', firstName: 'Ana' });
    await rest('POST', `/campaign/${program.id}/participant`, { email: 'bo@example.com' });
    app.clock.advance(10 * DAY);
    for (const email of ['cy@example.com', 'dee@example.com', 'eve@example.com']) await rest('POST', `/campaign/${program.id}/participant`, { email, referredBy: ana.id });
    await rest('POST', `/campaign/${program.id}/participant/cy@example.com/ref`, {});

    const requests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/analytics')) requests.push(decodeURIComponent(r.url()));
    });
    // From the programs list (loaded again: the program was made over REST) to its analytics.
    await page.reload();
    await page.getByRole('link', { name: 'Spring referrals' }).click();
    await (await consoleNav(page)).getByRole('link', { name: 'Analytics' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Analytics');
    expect(page.url()).toMatch(/\/analytics$/);

    // The default period: the last 30 days, then the previous 30 days' series for the dashed line.
    const totals = 'Totals, this period and the previous one';
    await expect.poll(() => tableText(page, totals).catch(() => [])).toContainEqual(['Participants', '5', '0', '—']);
    expect(requests.some((u) => /\/analytics\?days=30&interval=day&include=previousPeriod,rates,statusCounts&timezone=UTC$/.test(u))).toBe(true);
    const previous = requests.find((u) => /\/analytics\?startDate=\d+&endDate=\d+&interval=day&timezone=UTC$/.test(u));
    expect(previous).toBeDefined();
    const [, prevStart, prevEnd] = /startDate=(\d+)&endDate=(\d+)/.exec(previous!)!.map(Number);
    expect(prevEnd! - prevStart! + 1).toBe(30 * DAY);

    // uPlot drew the lines on its canvas, and the chart is an image whose name says what it shows.
    await expect.poll(async () => (await chartPixels(page, 'chart-participants')).current).toBeGreaterThan(50);
    await expect.poll(() => page.getByRole('img', { name: /^Participants per day from .+: 5 in total, against 0 in the previous period\./ }).count()).toBe(1);
    await expect.poll(() => page.getByRole('img', { name: /^Referrals per day from/ }).count()).toBe(1);
    await expect.poll(() => page.getByRole('figure', { name: 'Participants per day' }).count()).toBe(1);
    // The same numbers as a table, behind a disclosure reachable by keyboard.
    await page.getByText('The numbers of “Participants per day”').focus();
    await page.keyboard.press('Enter');
    const numbers = await tableText(page, 'Participants per day: this period and the previous one');
    expect(numbers[0]).toEqual(['Period starting', 'This period', 'Same point of the previous period', 'Previous period']);
    expect(numbers.slice(1).reduce((n, r) => n + Number(r[1]), 0)).toBe(5);
    await expectAccessible(page);
    await shot(page, 'analytics-30-days-1440');
    await page.getByRole('figure', { name: 'Participants per day' }).screenshot({ path: path.join(ARTIFACTS, 'console-analytics-chart-1440.png') });

    // The last 7 days, chosen by keyboard: arrow keys move through the period's radio group.
    requests.length = 0;
    await page.getByLabel('Last 30 days').focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => requests.some((u) => u.includes('/analytics?days=7&interval=day'))).toBe(true);
    expect(page.url()).toContain('range=7');
    await expect.poll(() => tableText(page, totals).catch(() => [])).toContainEqual(['Participants', '3', '2', '+50%']);
    const referrals = (await tableText(page, totals)).find((r) => r[0] === 'Referrals')!;
    // AN1 counts a referral when the referred friend joins (three of them, all in the last seven days).
    expect(referrals.slice(1)).toEqual(['3', '0', '—']);
    await expect.poll(() => page.getByRole('img', { name: /^Participants per day from .+: 3 in total, against 2 in the previous period\./ }).count()).toBe(1);
    await expect.poll(async () => (await chartPixels(page, 'chart-participants')).current).toBeGreaterThan(50);
    // Rates as the API gives them.
    expect(await page.locator('.stats dt').allTextContents()).toEqual(['Referral conversion', 'Participation', 'Shares per participant']);
    // Everyone joined through the API, with no counted visit: a rate per visitor would be nothing (or,
    // with a few visits, over 100 %), so none is shown and the card says why (issue #32).
    const rateCards = page.locator('.stats > div');
    expect(await rateCards.nth(0).locator('dd').first().textContent()).toBe('—');
    expect(await rateCards.nth(1).locator('dd').first().textContent()).toBe('—');
    expect(await rateCards.nth(0).textContent()).toContain('No visit was counted in this period');
    expect(await page.locator('.stats').textContent()).not.toMatch(/\d %|\d%/);

    // The shown table as a CSV file: the same caption's rows, numbers unformatted.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Download “${totals}” as CSV` }).click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^analytics-totals-${program.id}-\\d{4}-\\d{2}-\\d{2}_\\d{4}-\\d{2}-\\d{2}\\.csv$`));
    const csv = parseCsv(fs.readFileSync((await download.path())!, 'utf8'));
    const shown = await tableText(page, totals);
    expect(csv).toHaveLength(shown.length);
    expect(csv[0]).toEqual(shown[0]);
    expect(csv.map((r) => r[0])).toEqual(shown.map((r) => r[0]));
    expect(csv.find((r) => r[0] === 'Participants')).toEqual(['Participants', '3', '2', '50']);
    const [byDay] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download “Numbers by day” as CSV' }).click()]);
    const dayRows = parseCsv(fs.readFileSync((await byDay.path())!, 'utf8'));
    expect(dayRows[0]).toEqual(['Period starting', 'Participants', 'Referrals', 'Unique visitors', 'Visits', 'Invites sent']);
    expect(dayRows).toHaveLength((await tableText(page, 'Numbers by day')).length);
    expect(dayRows.slice(1).every((r) => /^\d{4}-\d{2}-\d{2}$/.test(r[0]!))).toBe(true);
    expect(dayRows.slice(1).reduce((n, r) => n + Number(r[1]), 0)).toBe(3);

    // The time zone shapes the request (AN1's buckets start at midnight there).
    requests.length = 0;
    await page.getByLabel('Time zone', { exact: true }).selectOption('America/New_York');
    await expect.poll(() => requests.some((u) => u.includes('/analytics?days=7&interval=day&include=previousPeriod,rates,statusCounts&timezone=America/New_York'))).toBe(true);

    // Custom dates, read as calendar days of that zone: its midnights are 05:00 UTC in January.
    requests.length = 0;
    await page.getByLabel('Custom dates').check();
    await page.getByLabel('From', { exact: true }).fill('2026-01-01');
    await page.getByLabel('To (inclusive)', { exact: true }).fill('2026-01-31');
    await page.getByRole('button', { name: 'Show these dates' }).click();
    const start = Date.UTC(2026, 0, 1, 5);
    const end = Date.UTC(2026, 1, 1, 5) - 1;
    await expect.poll(() => requests.some((u) => u.includes(`/analytics?startDate=${start}&endDate=${end}&interval=day`))).toBe(true);
    await expect.poll(() => tableText(page, totals).catch(() => [])).toContainEqual(['Participants', '5', '0', '—']);

    // A reversed period: the API's own message.
    await page.getByLabel('From', { exact: true }).fill('2026-02-10');
    await page.getByLabel('To (inclusive)', { exact: true }).fill('2026-02-01');
    await page.getByRole('button', { name: 'Show these dates' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('endDate must not be before startDate.');

    // Cohorts and top referrers.
    await page.getByLabel('Last 30 days').check();
    await expect.poll(() => page.getByRole('heading', { name: 'Activation cohorts' }).count()).toBe(1);
    await expect.poll(() => page.getByText('Everyone who joined from').count()).toBe(1);
    const top = await tableText(page, 'Top referrers, all time');
    expect(top[0]).toEqual(['Email', 'Rank', 'Name', 'Referrals (all time)', 'Referrals this month']);
    expect(top[1]!.slice(0, 3)).toEqual(['ana@example.com', '1', 'Ana']);
    expect(top).toHaveLength(6);
    await expectAccessible(page);
    await shot(page, 'analytics-cohorts-1440');

    await page.setViewportSize({ width: 390, height: 900 });
    await expect.poll(async () => (await chartPixels(page, 'chart-participants')).current).toBeGreaterThan(50);
    // Each chart follows its box's new width from a ResizeObserver callback, one frame or more after the resize.
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page);
    await shot(page, 'analytics-390');
    await page.getByRole('figure', { name: 'Participants per day' }).screenshot({ path: path.join(ARTIFACTS, 'console-analytics-chart-390.png') });
    await context.close();
  });
});
