import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Request } from 'playwright-core';
import { ARTIFACTS, demoInBrowser, freePort, idbGet, seriousA11yViolations, SKIP_BROWSER } from './helpers.ts';
import { universalCode } from '../../demo/pages.ts';

// Issue #25 in real Chromium. (1) Attribution into Stripe: a plain third-party page on another origin
// with the Universal Code, a Stripe Payment Link, a Buy Button and a Pricing Table (plain custom
// elements: no Stripe script, no network), opened through an affiliate link, gets the referrer's code
// as `client_reference_id` / `client-reference-id`, also on a Pricing Table the page adds later, while
// the merchant's own value stays; opened without a referral, nothing is touched and the Stripe chunk
// is never fetched. (2) The demo's "Pay with Stripe (test)": a locally signed
// checkout.session.completed reaches the real endpoint and the commission shows on the page and over REST.

describe.skipIf(SKIP_BROWSER)('attribution into Stripe on a page, and the demo’s test payment, in Chromium (issue #25)', () => {
  const env = demoInBrowser();
  const pid = () => env.demo.state.affiliateProgramId;
  const participant = async (idOrEmail: string) => env.demo.rest('GET', `/campaign/${pid()}/participant/${encodeURIComponent(idOrEmail)}`);

  let site: http.Server;
  let siteUrl = '';
  const pricing = `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>Plain shop: pricing</title>
<script></script>
<script>for (const [name, what] of [['stripe-buy-button', 'Buy button'], ['stripe-pricing-table', 'Pricing table']])
  customElements.define(name, class extends HTMLElement {
    static observedAttributes = ['client-reference-id'];
    connectedCallback() { this.attributeChangedCallback(); }
    attributeChangedCallback() { this.textContent = what + ' ' + this.id + ': client-reference-id ' + (this.getAttribute('client-reference-id') || 'none'); this.style.display = 'block'; }
  });</script></head><body><main><h1>Pricing</h1>
<p><a id="monthly" href="https://buy.stripe.com/test_monthly00">Buy monthly</a></p>
<p><a id="own" href="https://buy.stripe.com/test_team00?client_reference_id=order-77">Buy for your team</a></p>
<p><a id="docs" href="https://stripe.com/docs/payment-links">How we take payments</a></p>
<stripe-buy-button id="button" buy-button-id="buy_btn_test1" publishable-key="pk_test_1"></stripe-buy-button>
<stripe-pricing-table id="table" pricing-table-id="prctbl_test1" publishable-key="pk_test_1"></stripe-pricing-table>
<p><button id="more" type="button">Show yearly plans</button></p>
<div id="later"></div>
<script>document.getElementById('more').addEventListener('click', function () { document.getElementById('later').innerHTML = '<section><h2>Yearly</h2><stripe-pricing-table id="yearly" pricing-table-id="prctbl_test2" publishable-key="pk_test_1"></stripe-pricing-table></section>'; });</script>
</main></body></html>`;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const port = await freePort();
    siteUrl = `http://localhost:${port}`;
    site = http.createServer((req, res) => {
      if (req.url?.startsWith('/pricing')) res.writeHead(200, { 'content-type': 'text/html' }).end(pricing.replace('<script></script>', universalCode(env.demo.url, pid())));
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => site.listen(port, '127.0.0.1', () => r()));
  });
  afterAll(() => new Promise<void>((r) => (site ? site.close(() => r()) : r())));

  const visitor = async () => {
    const context = await env.browser.newContext({ viewport: { width: 1024, height: 800 }, reducedMotion: 'reduce' });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const chunks: string[] = [];
    page.on('request', (r: Request) => void (/\/widget\//.test(r.url()) && chunks.push(r.url())));
    return { context, page, chunks };
  };
  const affiliateKey = async () => new URL((await participant(env.demo.state.people.affiliate)).shareUrl).searchParams.get('grsf')!;

  it('a visitor through an affiliate link: the Payment Link, Buy Button and Pricing Table carry her referrer’s code, a table added later too, the merchant’s own value stays', async () => {
    expect((await env.demo.rest('GET', `/campaign/${pid()}/integrations/stripe`)).state).toBe('ACTIVE');
    const key = await affiliateKey();
    const { context, page, chunks } = await visitor();
    await page.goto(`${siteUrl}/pricing?grsf=${key}`);
    const href = (id: string) => page.locator(`#${id}`).getAttribute('href');
    const ref = (id: string) => page.locator(`#${id}`).getAttribute('client-reference-id');
    await expect.poll(() => href('monthly'), { timeout: 15_000 }).toBe(`https://buy.stripe.com/test_monthly00?client_reference_id=${key}`);
    await expect.poll(() => ref('button')).toBe(key);
    await expect.poll(() => ref('table')).toBe(key);
    expect(await href('own')).toBe('https://buy.stripe.com/test_team00?client_reference_id=order-77');
    expect(await href('docs')).toBe('https://stripe.com/docs/payment-links');
    expect(chunks.filter((u) => /\/chunks\/stripe-[\w-]+\.js$/.test(u))).toHaveLength(1);

    await page.getByRole('button', { name: 'Show yearly plans' }).click();
    await page.getByRole('heading', { name: 'Yearly' }).waitFor();
    await expect.poll(() => ref('yearly')).toBe(key);
    // The merchant's backend gets the same value from the page (docs/integrations.md).
    await expect.poll(() => page.evaluate(() => (window as any).growsurf.getReferralCode())).toBe(key);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'issue-25-stripe-elements-referred.png'), fullPage: true });
    await context.close();
  });

  it('a visitor without a referral: nothing is touched and the Stripe chunk is never fetched', async () => {
    const { context, page, chunks } = await visitor();
    await page.goto(`${siteUrl}/pricing`);
    // The page stage has read the program's settings (the window payload asks for FILL) and found no referral.
    await expect.poll(async () => ((await idbGet(page, `${pid()}/launcher`)) as { s?: string } | undefined)?.s, { timeout: 15_000 }).toBe('FILL');
    await expect.poll(() => page.evaluate(() => (window as any).growsurf.getReferralCode())).toBeNull();
    await page.getByRole('button', { name: 'Show yearly plans' }).click();
    await page.getByRole('heading', { name: 'Yearly' }).waitFor();
    expect(await page.locator('#monthly').getAttribute('href')).toBe('https://buy.stripe.com/test_monthly00');
    for (const id of ['button', 'table', 'yearly']) expect(await page.locator(`#${id}`).getAttribute('client-reference-id')).toBeNull();
    expect(chunks.some((u) => /\/chunks\/stripe-/.test(u))).toBe(false);
    await context.close();
  });

  it('the demo’s “Pay with Stripe (test)”: a customer arriving through the affiliate link pays, and the commission shows on the page and over REST', async () => {
    const affiliate = await participant(env.demo.state.people.affiliate);
    const email = `stripe.buyer.${Date.now().toString(36)}@example.com`;
    const { context, page } = await visitor();
    await page.goto(`${env.demo.url}/demo/as-customer`);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/partners');
    await page.getByLabel('Customer email').last().fill(email);
    await page.getByRole('button', { name: 'Pay with Stripe (test)' }).click();
    const out = page.locator('#stripe-out');
    await expect.poll(() => out.textContent(), { timeout: 20_000 }).toContain(`Commission for ${affiliate.email}: $4.80 on a $24.00 sale`);
    expect(await out.textContent()).toContain('refloop: ACCEPTED');
    expect(await out.textContent()).toContain(`client_reference_id: ${new URL(affiliate.shareUrl).searchParams.get('grsf')}`);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await out.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'issue-25-demo-pay-with-stripe.png'), fullPage: true });

    // Over REST: the customer was added referred by the affiliate, the sale earned 20 % of $24.00, the log says ACCEPTED.
    const customer = await participant(email);
    expect(customer.referrer?.id ?? customer.referredBy).toBe(affiliate.id);
    const commissions = (await env.demo.rest('GET', `/campaign/${pid()}/participant/${affiliate.id}/commissions`)).commissions as Array<Record<string, any>>;
    expect(commissions.filter((c) => c.referredId === customer.id).map((c) => [c.amount, c.saleAmount, c.currencyISO])).toEqual([[480, 2400, 'USD']]);
    const log = (await env.demo.rest('GET', `/campaign/${pid()}/integrations/stripe/events`)).events as Array<Record<string, any>>;
    expect(log.find((e) => e.participantId === customer.id)).toMatchObject({ type: 'checkout.session.completed', outcome: 'ACCEPTED', livemode: false });
    await context.close();
  });
});
