// The attribution script's behaviour (issue #7), run against the source (attribution.test.ts) and
// against the built dist/widget/attribution.js (built-attribution.test.ts): a real refloop server
// over HTTP, a program and participants created over REST, IndexedDB from fake-indexeddb.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { RAISED_LIMITS, startApp, type TestApp } from '../helpers/app.ts';
import { addParticipant, mobile, mobileProgram, session, shareKey, type MobileProgramFixture } from '../helpers/mobile.ts';
import { newVisitId } from '../../shared/attribution.ts';
import { STORE_KEYS } from '../../widget/runtime.ts';
import { Proxy, accessLog, addTestListener, bootQueues, boots, freshIndexedDb, unloadPage, waitFor, type Logged, type Mode, type Page, type PageSpec } from './attribution-harness.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Defines the suite for one way of running the script. */
export function attributionSuite(mode: Mode & { open(spec: PageSpec, origin: string): Promise<Page> }): void {
  let app: TestApp;
  let requests: Logged[];
  let proxy: Proxy;
  let p: MobileProgramFixture;
  let ann: { id: string; shareUrl: string };
  let bob: { id: string; shareUrl: string };
  let db: ReturnType<typeof freshIndexedDb>;

  beforeAll(async () => {
    const logged = accessLog();
    requests = logged.requests;
    app = await startApp({ ...RAISED_LIMITS, MOBILE_VISIT_WAIT_MS: '100' }, { log: logged.log });
  });
  afterAll(async () => {
    unloadPage();
    await app?.close();
  });
  beforeEach(async () => {
    db = freshIndexedDb(() => `${p.pid}/`);
    boots.length = 0;
    bootQueues.length = 0;
    // A proxy per test: a fresh origin, so the built capture module is a fresh instance too.
    proxy = await new Proxy(Number(new URL(app.url).port)).listen();
    // The test's own REST calls go through happy-dom's fetch too: made from the app's origin, they need no CORS.
    (window as any).happyDOM.setURL(app.url);
    p = await mobileProgram(app);
    ann = await addParticipant(app, p, { email: `ann-${Date.now()}@example.com` });
    bob = await addParticipant(app, p, { email: `bob-${Date.now()}@example.com` });
  });
  afterEach(async () => {
    unloadPage();
    await proxy.close();
  });

  const open = (spec: Partial<PageSpec> & { url: string }) => mode.open({ script: { 'grsf-campaign': p.pid }, ...spec }, proxy.origin);
  const visitsOf = () => app.deps.db.knex('visits').where({ program_id: p.pid }).orderBy('created_at').select('*');
  const queue = async () => (await db.get<Array<{ visitId: string; attribution: Record<string, unknown> }>>(STORE_KEYS.visits)) ?? [];
  /** Waits for the page's work: `visits` recorded for the program in total, then an empty queue. */
  const settled = async (page: Page, visits = 0) => {
    await page.done;
    // Built mode has no handle on the page's promise: wait for what the server and the store show.
    await waitFor(async () => (await visitsOf()).length >= visits, `${visits} recorded visit(s)`);
    await waitFor(async () => (await queue()).length === 0 && (await db.get(STORE_KEYS.instanceId)), 'the queue to empty');
  };

  describe(`attribution script (${mode.name})`, () => {
    it('records a referred visit: queued with a stable id, sent, receipts and pending attribution kept, no query string stored', async () => {
      const key = shareKey(ann);
      const page = await open({
        url: `http://shop.example/landing/page?grsf=${key}&utm_source=news&utm_medium=email&gclid=secret-gclid&email=someone%40example.com#top`,
        referrer: 'https://news.example.org/post/1?id=7#c',
      });
      await settled(page, 1);
      const [row, ...more] = await visitsOf();
      expect(more).toEqual([]);
      expect(row).toMatchObject({
        referral_code: key,
        referrer_id: ann.id,
        destination: 'http://shop.example/landing/page',
        referrer_url: 'https://news.example.org/post/1',
      });
      expect(JSON.parse(row.utm)).toEqual({ utm_source: 'news', utm_medium: 'email' });
      expect(row.visit_id).toMatch(UUID);
      expect(row.visit_id[14]).toBe('7');
      const receipts = await db.get(STORE_KEYS.receipts);
      expect(receipts).toEqual({ firstVisit: expect.stringMatching(/^r1\./), lastVisit: expect.stringMatching(/^r1\./) });
      expect(await db.get(STORE_KEYS.pending)).toEqual({ referralCode: key, utm: { utm_source: 'news', utm_medium: 'email' }, click: {}, capturedAt: expect.any(Number) });
      expect(await db.get(STORE_KEYS.instanceId)).toMatch(UUID);
      // Nothing stored anywhere carries the query string, the fragment or the parameters outside the allowlist.
      const stored = JSON.stringify(await Promise.all(Object.values(STORE_KEYS).map((k) => db.get(k))));
      expect(stored).not.toMatch(/secret-gclid|someone|#top|id=7|#c/);
      // The page sent its Origin, and the API answered through CORS (a preflight, then the POSTs).
      expect(requests.filter((r) => r.path.startsWith('/mobile/v2') && r.method === 'POST').map((r) => `${r.path} ${r.status}`).slice(-2)).toEqual([
        '/mobile/v2/sessions 200',
        '/mobile/v2/visits 200',
      ]);
    });

    it('keeps the first visit receipt while it is valid and sends it back with later visits', async () => {
      await settled(await open({ url: `http://shop.example/?grsf=${shareKey(ann)}` }), 1);
      const first = await db.get<{ firstVisit: string; lastVisit: string }>(STORE_KEYS.receipts);
      unloadPage();
      // A pass-through recorder: what the script hands to fetch for the second visit.
      const sent: Array<{ url: string; keepalive?: boolean; body: any }> = [];
      const realFetch = globalThis.fetch;
      globalThis.fetch = ((url: string, init?: RequestInit) => {
        if (String(url).endsWith('/mobile/v2/visits')) sent.push({ url: String(url), keepalive: init?.keepalive, body: JSON.parse(String(init?.body)) });
        return realFetch(url, init);
      }) as typeof fetch;
      try {
        await settled(await open({ url: `http://shop.example/pricing?ref=${shareKey(bob)}` }), 2);
      } finally {
        globalThis.fetch = realFetch;
      }
      // One visit, sent with the first receipt. On a loaded machine a 5xx or a network error makes the
      // script send that same visit again (its retry, capture.ts): every send is the same visit id.
      expect(sent.length).toBeGreaterThan(0);
      expect(new Set(sent.map((x) => x.body.visitId)).size).toBe(1);
      expect(sent[0]).toEqual({
        url: `${proxy.origin}/mobile/v2/visits`,
        keepalive: true,
        body: { visitId: expect.stringMatching(UUID), attribution: expect.objectContaining({ referralCode: shareKey(bob) }), firstVisit: first!.firstVisit },
      });
      for (const again of sent.slice(1)) expect(again).toEqual(sent[0]);
      const later = await db.get<{ firstVisit: string; lastVisit: string }>(STORE_KEYS.receipts);
      // Receipts are r1.<program>.<referrer>.<time>.<expiry>.<signature>.
      expect(first!.firstVisit.split('.')[2]).toBe(ann.id);
      expect(later!.firstVisit.split('.')[2]).toBe(ann.id);
      expect(later!.lastVisit.split('.')[2]).toBe(bob.id);
      expect((await visitsOf()).map((v) => [v.referrer_id, v.first_referrer_id])).toEqual([
        [ann.id, ann.id],
        [bob.id, ann.id],
      ]);
      // The newer code replaced the pending referrer.
      expect((await db.get(STORE_KEYS.pending))?.referralCode).toBe(shareKey(bob));
    });

    it('does not let a landing without a code erase the pending referrer', async () => {
      await settled(await open({ url: `http://shop.example/?grsf=${shareKey(ann)}` }), 1);
      unloadPage();
      await settled(await open({ url: 'http://shop.example/?utm_source=newsletter&click_id=c-1&unique=1' }), 2);
      expect(await db.get(STORE_KEYS.pending)).toMatchObject({ referralCode: shareKey(ann) });
      expect((await visitsOf()).map((v) => v.click_id)).toEqual([null, 'c-1']);
    });

    it('queues the visit while the API is down and sends it, same id, on the online event', async () => {
      proxy.apiDown = true;
      const page = await open({ url: `http://shop.example/?grsf=${shareKey(ann)}` });
      await page.done;
      await waitFor(() => proxy.refused > 0, 'a refused send');
      const [queued, ...rest] = await waitFor(async () => {
        const q = await queue();
        return q.length ? q : null;
      }, 'the queued visit');
      expect(rest).toEqual([]);
      expect(await visitsOf()).toEqual([]);
      proxy.apiDown = false;
      window.dispatchEvent(new Event('online'));
      await waitFor(async () => (await queue()).length === 0, 'the queue to empty');
      expect((await visitsOf()).map((v) => [v.visit_id, v.referrer_id])).toEqual([[queued!.visitId, ann.id]]);
      expect(await db.get(STORE_KEYS.receipts)).toMatchObject({ lastVisit: expect.stringMatching(/^r1\./) });
    });

    it('sends a visit left queued by an earlier page on the next page load, even without attribution in its URL', async () => {
      proxy.apiDown = true;
      await (await open({ url: `http://shop.example/?grsf=${shareKey(ann)}` })).done;
      await waitFor(async () => (await queue()).length === 1 && proxy.refused > 0, 'the queued visit');
      const [queued] = await queue();
      unloadPage();
      proxy.apiDown = false;
      await settled(await open({ url: 'http://shop.example/checkout' }), 1);
      expect((await visitsOf()).map((v) => v.visit_id)).toEqual([queued!.visitId]);
    });

    it('keeps a PROCESSING visit queued and sends the same id again until it is RECORDED', async () => {
      proxy.apiDown = true;
      await (await open({ url: `http://shop.example/?grsf=${shareKey(ann)}` })).done;
      await waitFor(async () => (await queue()).length === 1 && proxy.refused > 0, 'the queued visit');
      const [queued] = await queue();
      unloadPage();
      // Warm the server's program and referrer caches (SQLite has one connection, which the held transaction takes).
      (window as any).happyDOM.setURL(app.url);
      const s = await session(app, p);
      expect((await mobile(app, 'POST', '/visits', s, { body: { visitId: newVisitId(), attribution: { referralCode: shareKey(ann) } } })).body.status).toBe('RECORDED');
      // Another writer holds the row: the group commit cannot finish and the server answers PROCESSING.
      const trx = await app.deps.db.knex.transaction();
      try {
        await trx('visits').insert({ program_id: p.pid, visit_id: queued!.visitId, visitor_key: 'held', created_at: 1 });
        proxy.apiDown = false;
        const before = requests.length;
        const page = await open({ url: 'http://shop.example/' });
        await page.done;
        await waitFor(() => requests.slice(before).some((r) => r.path === '/mobile/v2/visits' && r.status === 200), 'the PROCESSING answer');
        expect((await queue()).map((v) => v.visitId)).toEqual([queued!.visitId]);
      } finally {
        await trx.rollback();
      }
      window.dispatchEvent(new Event('online'));
      await waitFor(async () => (await queue()).length === 0, 'the queue to empty');
      expect((await visitsOf()).filter((v) => v.visit_id === queued!.visitId).map((v) => v.referrer_id)).toEqual([ann.id]);
    });

    it('drops a visit the server refuses with a 4xx and still sends the rest', async () => {
      await db.set(STORE_KEYS.visits, [
        { visitId: 'bad', attribution: { utm: {} } },
        { visitId: '0190aaaa-0000-7000-a000-000000000001', attribution: { referralCode: shareKey(ann), utm: {} } },
      ]);
      const info = vi.spyOn(console, 'info');
      try {
        await settled(await open({ url: 'http://shop.example/' }), 1);
        const said = info.mock.calls.map((c) => c.join(' ')).filter((l) => l.includes('[refloop]'));
        // Development builds say why a visit was not sent; production builds say nothing.
        if (mode.name === 'source') expect(said).toContain('[refloop] not sending: the server refused visit bad (400); dropped');
        else expect(said).toEqual([]);
      } finally {
        info.mockRestore();
      }
      expect((await visitsOf()).map((v) => v.visit_id)).toEqual(['0190aaaa-0000-7000-a000-000000000001']);
      expect(requests.some((r) => r.path === '/mobile/v2/visits' && r.status === 400)).toBe(true);
    });

    it('sends no visit on a page without attribution and an empty queue; the launcher reads the design once per 10 minutes (issue #24)', async () => {
      let before = requests.length;
      const page = await open({ url: 'http://shop.example/about' });
      await page.done;
      await waitFor(() => db.get(STORE_KEYS.instanceId), 'the instance id');
      await waitFor(() => db.get('launcher'), 'the launcher to keep the design it read');
      await new Promise((r) => setTimeout(r, 100));
      const sent = requests.slice(before).filter((r) => (r.path.startsWith('/mobile/v2') || r.path.includes('capture')) && r.method !== 'OPTIONS');
      expect(sent.filter((r) => r.path !== '/mobile/v2/sessions' && r.path !== '/mobile/v2/window')).toEqual([]);
      expect(sent.filter((r) => r.path === '/mobile/v2/window')).toHaveLength(1);
      expect(await queue()).toEqual([]);
      // A program whose design shows no launcher and that detects no forms: neither chunk is fetched (issue #24).
      const fetched = [...page.loaded, ...requests.slice(before).map((r) => r.path)];
      expect(fetched.filter((u) => /launcher-ui|form/.test(u))).toEqual([]);
      // The next plain page view within the cache window sends nothing at all.
      unloadPage();
      before = requests.length;
      await (await open({ url: 'http://shop.example/contact' })).done;
      await new Promise((r) => setTimeout(r, 200));
      expect(requests.slice(before).filter((r) => r.path.startsWith('/mobile/v2') || r.path.includes('capture'))).toEqual([]);
    });

    it('installs the stub, fires grsfReady observable on window, and a second copy does nothing', async () => {
      const seen: string[] = [];
      const onWindow = (e: Event) => seen.push(`window:${e.type}:${(e as CustomEvent).bubbles}`);
      const onDocument = (e: Event) => seen.push(`document:${e.type}`);
      addTestListener(window, 'grsfReady', onWindow);
      addTestListener(document, 'grsfReady', onDocument);
      try {
        // The Vue sample's bootstrap creates `window.growsurf = {}` first: the script fills that object.
        const pre: Record<string, unknown> = {};
        await settled(await open({ url: `http://shop.example/?grsf=${shareKey(ann)}`, growsurf: pre }), 1);
        const g = (window as any).growsurf;
        expect(g).toBe(pre);
        expect(seen).toEqual(['document:grsfReady', 'window:grsfReady:true']);
        expect((window as any).grsfInit).toBeTruthy();
        for (const m of ['init', 'addParticipant', 'addReferredParticipant', 'triggerReferral', 'validateReferrer', 'getUpfrontDiscount', 'open', 'initUnreadNotificationsBadge', 'initElements', 'subscribe'])
          expect(typeof g[m]).toBe('function');
        expect(g.getUpfrontDiscount('stripe')).toBeNull();
        await (await mode.runScript()).done;
        await new Promise((r) => setTimeout(r, 100));
        expect((window as any).growsurf).toBe(g);
        expect(seen).toHaveLength(2);
        expect(await visitsOf()).toHaveLength(1);
      } finally {
        window.removeEventListener('grsfReady', onWindow);
        document.removeEventListener('grsfReady', onDocument);
      }
    });

    it('queues calls until the window bundle boots, then hands them over in order with the runtime', async () => {
      await settled(await open({ url: 'http://shop.example/', script: { 'grsf-campaign': p.pid, 'data-public-key': 'pk_test' } }));
      expect(boots).toEqual([]);
      const g = (window as any).growsurf;
      const a = g.addParticipant({ email: 'zoe@example.com' });
      const b = g.validateReferrer();
      await expect(a).resolves.toEqual({ method: 'addParticipant', args: [{ email: 'zoe@example.com' }] });
      await expect(b).resolves.toEqual({ method: 'validateReferrer', args: [] });
      expect(boots).toHaveLength(1);
      const rt = boots[0]!;
      expect(rt).toMatchObject({
        programId: p.pid,
        apiBase: `${proxy.origin}/mobile/v2`,
        assetBase: `${proxy.origin}/widget/`,
        publicKey: 'pk_test',
        instanceId: await db.get(STORE_KEYS.instanceId),
      });
      expect(rt.instanceId).toMatch(UUID);
      // The runtime's store is the widget's IndexedDB store.
      await rt.store.set('probe', { ok: 1 });
      expect(await db.get('probe')).toEqual({ ok: 1 });
    });

    it('boots the window for an embeddable element, and turns an early .growsurf-open-window click into open()', async () => {
      await settled(await open({ url: 'http://shop.example/', body: '<div data-grsf-block-referral-status></div>' }));
      await waitFor(() => boots.length === 1, 'boot for an element');
      unloadPage();
      boots.length = 0;
      await settled(await open({ url: 'http://shop.example/', body: '<a href="#" class="growsurf-open-window"><span>Refer</span></a>' }));
      await waitFor(() => boots.length === 1, 'boot for the open-window class');
      unloadPage();
      boots.length = 0;
      await settled(await open({ url: 'http://shop.example/', grsfConfig: { email: 'ann@example.com', hash: 'a'.repeat(64) } }));
      await waitFor(() => boots.length === 1, 'boot for grsfConfig');
      unloadPage();
      boots.length = 0;
      // An async script in <head> usually runs before the body is parsed: elements are looked for again at DOMContentLoaded.
      await settled(await open({ url: 'http://shop.example/' }));
      document.body.innerHTML = '<div data-grsf-block-form data-grsf-email="zoe@example.com"></div>';
      expect(boots).toEqual([]);
      document.dispatchEvent(new Event('DOMContentLoaded'));
      await waitFor(() => boots.length === 1, 'boot for an element parsed after the script ran');
    });

    it('boots the window on a page opened from a sign-in link (grsfLogin), with nothing else on the page', async () => {
      await settled(await open({ url: 'http://shop.example/account?grsfLogin=abc' }));
      await waitFor(() => boots.length === 1, 'boot for grsfLogin');
      unloadPage();
      boots.length = 0;
      await settled(await open({ url: 'http://shop.example/account?tab=1' }));
      expect(boots).toEqual([]);
    });

    it('turns a click on a .growsurf-open-window element added later into a queued open() and boots the window', async () => {
      await settled(await open({ url: 'http://shop.example/' }));
      expect(boots).toEqual([]);
      document.body.innerHTML = '<a href="#refer" class="growsurf-open-window"><span>Refer a friend</span></a>';
      const click = new MouseEvent('click', { bubbles: true, cancelable: true });
      document.querySelector('span')!.dispatchEvent(click);
      expect(click.defaultPrevented).toBe(true);
      await waitFor(() => boots.length === 1, 'boot for the click');
      expect(bootQueues).toEqual([['open']]);
      // After boot the window bundle owns the class: the script no longer intercepts clicks.
      const later = new MouseEvent('click', { bubbles: true, cancelable: true });
      document.querySelector('span')!.dispatchEvent(later);
      expect(later.defaultPrevented).toBe(false);
    });

    it('boots the window when a participant token is stored', async () => {
      await db.set(STORE_KEYS.participantToken, 'a.b.c');
      await settled(await open({ url: 'http://shop.example/' }));
      await waitFor(() => boots.length === 1, 'boot for a signed-in participant');
    });

    it('reads the program from grsfSettings and the API origin from data-api; the runtime clears pending attribution', async () => {
      const page = await open({
        url: `http://shop.example/?grsf=${shareKey(ann)}`,
        script: { src: `${proxy.origin}/widget/attribution.js`, 'data-api': app.url },
        grsfSettings: { campaignId: p.pid, version: '2.0.0' },
      });
      await settled(page, 1);
      await (window as any).growsurf.initElements();
      const rt = boots[0]!;
      expect(rt.programId).toBe(p.pid);
      expect(rt.assetBase).toBe(`${proxy.origin}/widget/`);
      expect(rt.apiBase).toBe(`${app.url}/mobile/v2`);
      expect(await rt.pendingAttribution()).toMatchObject({ referralCode: shareKey(ann) });
      expect(await rt.receipts()).toMatchObject({ firstVisit: expect.stringMatching(/^r1\./) });
      await rt.clearPendingAttribution();
      expect([await db.get(STORE_KEYS.pending), await db.get(STORE_KEYS.visits), await db.get(STORE_KEYS.receipts)]).toEqual([undefined, undefined, undefined]);
      expect(await rt.receipts()).toEqual({});
      expect(await db.get(STORE_KEYS.instanceId)).toMatch(UUID);
    });

    it('never throws into the page when IndexedDB and fetch throw, and keeps working from memory', async () => {
      const g = globalThis as any;
      const realFetch = g.fetch;
      const realIdb = g.indexedDB;
      Object.defineProperty(g, 'indexedDB', { configurable: true, get: () => { throw new Error('SecurityError: storage blocked'); } });
      g.fetch = () => {
        throw new TypeError('fetch blocked');
      };
      try {
        await (await open({ url: `http://shop.example/?grsf=${shareKey(ann)}` })).done;
        expect(typeof g.window.growsurf.open).toBe('function');
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        g.fetch = realFetch;
        Object.defineProperty(g, 'indexedDB', { configurable: true, writable: true, value: realIdb });
      }
      unloadPage();
      // IndexedDB missing altogether: the visit still goes out from the memory store.
      delete g.indexedDB;
      try {
        const page = await open({ url: `http://shop.example/?grsf=${shareKey(bob)}` });
        await page.done;
        await waitFor(async () => (await visitsOf()).some((v) => v.referrer_id === bob.id), 'the visit sent from memory');
      } finally {
        g.indexedDB = realIdb;
      }
    });
  });
}
