import { describe, expect, it } from 'vitest';
import { demoInBrowser, eventually, idbGet, SKIP_BROWSER } from './helpers.ts';

// Issue #7 end to end, in real headless Chromium against the real server: the Universal Code of the
// demo store (GrowSurf's snippet with only the host changed) loads the attribution script, which
// records a referred visit through IndexedDB, and keeps a visit made while the API is down until
// it can be sent.

describe.skipIf(SKIP_BROWSER)('attribution script in Chromium', () => {
  const env = demoInBrowser();

  const visits = async (programId: string) => Number((await env.demo.app.deps.db.knex('visits').where({ program_id: programId }).count({ n: '*' }).first())?.n ?? 0);
  const shareUrlOf = async (email: string) => (await env.demo.rest('GET', `/campaign/${env.demo.state.referralProgramId}/participant/${encodeURIComponent(email)}`)).shareUrl as string;

  it('a page carrying the Universal Code gets window.growsurf and grsfReady on document and window', async () => {
    const page = await env.browser.newPage();
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as any).__ready = seen;
      document.addEventListener('grsfReady', () => seen.push('document'));
      window.addEventListener('grsfReady', () => seen.push('window'));
    });
    await page.goto(`${env.demo.url}/`);
    await eventually(() => page.evaluate(() => (window as any).__ready.length === 2), 10_000, 'grsfReady');
    expect(await page.evaluate(() => (window as any).__ready)).toEqual(['document', 'window']);
    expect(await page.evaluate(() => typeof (window as any).growsurf?.open)).toBe('function');
    expect(await page.evaluate(() => Boolean((window as any).grsfInit))).toBe(true);
    // The script was loaded once even though the page carries the snippet (a second copy would be inert).
    expect(await page.locator('script[grsf-campaign]').count()).toBe(1);
    await page.close();
  });

  it('records a visit that arrives on a referral link and keeps the signed receipts', async () => {
    const before = await visits(env.demo.state.referralProgramId);
    const context = await env.browser.newContext();
    const page = await context.newPage();
    await page.goto(await shareUrlOf(env.demo.state.people.referrer));
    await eventually(async () => (await visits(env.demo.state.referralProgramId)) === before + 1, 15_000, 'the visit row');
    const receipts = (await eventually(() => idbGet(page, `${env.demo.state.referralProgramId}/receipts`), 10_000, 'stored receipts')) as { firstVisit?: string; lastVisit?: string };
    expect(typeof receipts.firstVisit).toBe('string');
    expect(typeof receipts.lastVisit).toBe('string');
    expect(((await idbGet(page, `${env.demo.state.referralProgramId}/visitQueue`)) as unknown[] | undefined) ?? []).toHaveLength(0);
    // Only origin and path are kept of the landing URL.
    const row = await env.demo.app.deps.db.knex('visits').where({ program_id: env.demo.state.referralProgramId }).orderBy('created_at', 'desc').first();
    expect(JSON.stringify(row)).not.toMatch(/\?grsf=/);
    await context.close();
  });

  it('keeps two programs on one site apart: each has its own queue and receipts', async () => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    await page.goto(await shareUrlOf(env.demo.state.people.referrer));
    const referralKey = `${env.demo.state.referralProgramId}/receipts`;
    const first = (await eventually(() => idbGet(page, referralKey), 10_000, 'referral receipts')) as { lastVisit: string };
    const partner = await env.demo.rest('GET', `/campaign/${env.demo.state.affiliateProgramId}/participant/${encodeURIComponent(env.demo.state.people.affiliate)}`);
    const before = await visits(env.demo.state.affiliateProgramId);
    await page.goto(partner.shareUrl);
    await eventually(async () => (await visits(env.demo.state.affiliateProgramId)) === before + 1, 15_000, 'the affiliate visit');
    const second = (await eventually(() => idbGet(page, `${env.demo.state.affiliateProgramId}/receipts`), 10_000, 'affiliate receipts')) as { lastVisit: string };
    expect(second.lastVisit).not.toBe(first.lastVisit);
    expect(((await idbGet(page, referralKey)) as { lastVisit: string }).lastVisit).toBe(first.lastVisit);
    await context.close();
  });

  it('keeps a visit made while the API is down and sends it once the API answers again', async () => {
    const before = await visits(env.demo.state.referralProgramId);
    const context = await env.browser.newContext();
    const page = await context.newPage();
    await page.route('**/mobile/v2/**', (route) => route.abort('connectionrefused'));
    await page.goto(await shareUrlOf('hugo@example.com'));
    const queued = (await eventually(async () => {
      const q = (await idbGet(page, `${env.demo.state.referralProgramId}/visitQueue`)) as unknown[] | undefined;
      return q && q.length === 1 ? q : null;
    }, 10_000, 'a queued visit')) as Array<{ id?: string; visitId?: string }>;
    expect(await visits(env.demo.state.referralProgramId)).toBe(before);
    // The API is back; the next page of the site sends what is queued.
    await page.unroute('**/mobile/v2/**');
    await page.goto(`${env.demo.url}/`);
    await eventually(async () => (await visits(env.demo.state.referralProgramId)) === before + 1, 15_000, 'the queued visit to arrive');
    await eventually(async () => (((await idbGet(page, `${env.demo.state.referralProgramId}/visitQueue`)) as unknown[] | undefined) ?? []).length === 0, 10_000, 'an empty queue');
    expect(queued).toHaveLength(1);
    await context.close();
  });
});
