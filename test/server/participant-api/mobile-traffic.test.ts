import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, mobile, mobileProgram, session, type MobileProgramFixture } from '../../helpers/mobile.ts';

// The traffic report's breakdowns (design.trafficInsights.breakdowns): real visits through
// POST /mobile/v2/visits, counted by the impressions flush, reported by MT1 and the window.

let app: TestApp;

beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, GEO_COUNTRY_HEADER: 'CF-IPCountry' });
});
afterAll(async () => {
  await app?.close();
});

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const IPAD = 'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const ANDROID_TABLET = 'Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

async function signedIn(p: MobileProgramFixture, email: string) {
  const res = await app.request('POST', `/v2/campaign/${p.pid}/mobile-participant-token`, { key: p.key, body: { email } });
  expect(res.status, res.text).toBe(200);
  return res.body as { participantToken: string; participant: { id: string } };
}

async function trafficProgram() {
  const p = await mobileProgram(app);
  const d = await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { trafficInsights: { isPublicDisplayed: true } } });
  expect(d.status, d.text).toBe(200);
  app.deps.mobilePrograms.forget(p.pid);
  return p;
}

describe('traffic report breakdowns', () => {
  it('breaks real visits down by campaign, referring site, landing page, country, device and source', async () => {
    const p = await trafficProgram();
    const own = await signedIn(p, 'traffic-owner@example.com');
    const page = await session(app, p, { origin: 'https://shop.example.com' });
    const app1 = await session(app, p);
    const send = async (s: { token: string }, attribution: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const res = await mobile(app, 'POST', '/visits', s, { body: { visitId: crypto.randomUUID(), attribution: { referralCode: own.participant.id, utm: {}, ...attribution } }, headers });
      expect(res.status, res.text).toBe(200);
    };
    await send(page, { utm: { utm_source: 'newsletter', utm_campaign: 'spring' }, destination: 'https://shop.example.com/pricing', referrer: 'https://mail.example.net/inbox' }, { 'user-agent': IPHONE, 'cf-ipcountry': 'de' });
    await send(page, { utm: { utm_source: 'newsletter', utm_campaign: 'spring' }, destination: 'https://shop.example.com/pricing' }, { 'user-agent': MAC, 'cf-ipcountry': 'DE' });
    await send(page, { destination: 'https://shop.example.com/', referrer: 'https://Blog.Example.org/post?id=7#top' }, { 'user-agent': IPAD, 'cf-ipcountry': 'FR' });
    await send(page, { destination: 'https://shop.example.com' }, { 'user-agent': ANDROID_TABLET, 'cf-ipcountry': 'XX' });
    await send(app1, {});
    await app.deps.visits.flush();

    const res = await mobile(app, 'GET', '/participant/traffic?range=LAST_7_DAYS', page, { participantToken: own.participantToken });
    expect(res.status, res.text).toBe(200);
    const b = res.body.breakdowns;
    expect(res.body.visits).toBe(5);
    // Most visits first; ties by value, "not set" last.
    expect(b.utm).toEqual([
      { value: null, visits: 3 },
      { value: 'spring', visits: 2 },
    ]);
    expect(b.referrer).toEqual([
      { value: null, visits: 3 },
      { value: 'blog.example.org', visits: 1 },
      { value: 'mail.example.net', visits: 1 },
    ]);
    // Landing pages keep the path only (no query string or fragment); a bare origin is "/".
    expect(b.destination).toEqual([
      { value: '/', visits: 2 },
      { value: '/pricing', visits: 2 },
      { value: null, visits: 1 },
    ]);
    // Country codes from the proxy header, upper-cased; "XX" (unknown) and no header count as not set.
    expect(b.geo).toEqual([
      { value: 'DE', visits: 2 },
      { value: null, visits: 2 },
      { value: 'FR', visits: 1 },
    ]);
    expect(b.technology).toEqual([
      { value: 'tablet', visits: 2 },
      { value: 'app', visits: 1 },
      { value: 'desktop', visits: 1 },
      { value: 'mobile', visits: 1 },
    ]);
    // Sources: utm_source, else the referring host (the report's `sources` list is the same).
    expect(b.trigger).toEqual([
      { value: 'newsletter', visits: 2 },
      { value: null, visits: 2 },
      { value: 'blog.example.org', visits: 1 },
    ]);
    expect(res.body.sources).toEqual(b.trigger.map((r: { value: string | null; visits: number }) => ({ source: r.value, visits: r.visits })));
    // The window carries the same report for the design's default range.
    const win = await mobile(app, 'GET', '/window', page, { participantToken: own.participantToken });
    expect(win.body.traffic.breakdowns).toEqual(b);
  });

  it('reports each breakdown separately for each participant and range, with no data left from other programs', async () => {
    const p = await trafficProgram();
    const other = await trafficProgram();
    const ann = await signedIn(p, 'ann-traffic@example.com');
    const bob = await signedIn(p, 'bob-traffic@example.com');
    const stranger = await signedIn(other, 'ann-traffic@example.com');
    expect(stranger.participant.id).not.toBe(ann.participant.id);
    const s = await session(app, p, { origin: 'https://shop.example.com' });
    const so = await session(app, other, { origin: 'https://shop.example.com' });
    const send = (sess: { token: string }, code: string, campaign: string) =>
      mobile(app, 'POST', '/visits', sess, { body: { visitId: crypto.randomUUID(), attribution: { referralCode: code, utm: { utm_campaign: campaign } } }, headers: { 'user-agent': MAC } });
    await send(s, ann.participant.id, 'old');
    await app.deps.visits.flush();
    app.clock.advance(10 * 86_400_000);
    // Sessions last an hour: new ones after the clock moved.
    const s2 = await session(app, p, { origin: 'https://shop.example.com' });
    const so2 = await session(app, other, { origin: 'https://shop.example.com' });
    await send(s2, ann.participant.id, 'new');
    await send(s2, bob.participant.id, 'bobs');
    await send(so2, stranger.participant.id, 'elsewhere');
    await app.deps.visits.flush();
    const report = async (who: { participantToken: string }, sess: { token: string }, range: string) =>
      (await mobile(app, 'GET', `/participant/traffic?range=${range}`, sess, { participantToken: who.participantToken })).body.breakdowns;
    // A fresh token: the first ones were minted before the clock moved.
    const annNow = await signedIn(p, 'ann-traffic@example.com');
    expect((await report(annNow, s2, 'LAST_7_DAYS')).utm).toEqual([{ value: 'new', visits: 1 }]);
    expect((await report(annNow, s2, 'LAST_30_DAYS')).utm).toEqual([
      { value: 'new', visits: 1 },
      { value: 'old', visits: 1 },
    ]);
    expect((await report(await signedIn(p, 'bob-traffic@example.com'), s2, 'ALL_TIME')).utm).toEqual([{ value: 'bobs', visits: 1 }]);
    expect((await report(await signedIn(other, 'ann-traffic@example.com'), so2, 'ALL_TIME')).utm).toEqual([{ value: 'elsewhere', visits: 1 }]);
  });
});
