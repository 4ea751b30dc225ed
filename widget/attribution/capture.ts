// The attribution script's second stage (dist/widget/chunks/capture-<hash>.js, an ES module with
// no imports): the URL parser, the visit queue and its sender. The first stage (start.ts, on every
// page) loads it only when the page URL may carry attribution or a visit is still queued, so the
// bytes every page pays stay small. Nothing here throws into the host page.
import type { PendingAttribution, StoredReceipts, WidgetRuntime } from '../runtime.ts';
import type { Attribution } from '../../shared/attribution.ts';
import { parse } from './parse.ts';
import { PENDING, RECEIPTS, VISITS, notSending, uuid } from './common.ts';

/** A queued visit: the `POST /visits` body without `firstVisit`, which is added from the receipts at send time. */
export interface QueuedVisit {
  visitId: string;
  attribution: Attribution;
}

/** At most this many visits wait in the queue (a site that never answers must not fill the disk). */
const MAX_QUEUED = 50;

let sending = 0;
let tries = 0;

const queued = async (rt: WidgetRuntime): Promise<QueuedVisit[]> => (await rt.store.get(VISITS)) || [];

/**
 * Sends the queued visits in order. RECORDED removes a visit and keeps its receipts; PROCESSING, 429,
 * 5xx and network errors keep it for a retry (2, 4, 8, 16, 32 s, then the next page load or `online`);
 * any other 4xx is about the visit itself and drops it.
 */
async function flush(rt: WidgetRuntime): Promise<void> {
  if (sending) return void (import.meta.env.DEV && notSending('a send is already running'));
  sending = 1;
  const done: string[] = [];
  const post = (path: string, headers: Record<string, string>, body: object) => {
    const init: RequestInit = { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
    // keepalive lets a send outlive the page; engines that refuse it with a CORS preflight get a plain request.
    return fetch(rt.apiBase + path, { ...init, keepalive: true }).catch(() => fetch(rt.apiBase + path, init));
  };
  try {
    const visits = await queued(rt);
    if (!visits.length) return;
    const key: Record<string, string> = { 'x-program-id': rt.programId };
    if (rt.publicKey) key['x-public-key'] = rt.publicKey;
    let r = await post('/sessions', key, { instanceId: rt.instanceId });
    if (!r.ok) throw r.status;
    const session = { 'x-session-token': (await r.json()).sessionToken };
    let receipts: StoredReceipts = await rt.receipts();
    for (const v of visits) {
      const status = (r = await post('/visits', session, { ...v, firstVisit: receipts.firstVisit })).status;
      if (status == 429 || status > 499) throw status;
      const answer = status > 399 ? 0 : await r.json();
      if (answer && answer.status != 'RECORDED') throw answer.status;
      if (!answer && import.meta.env.DEV) notSending(`the server refused visit ${v.visitId} (${status}); dropped`);
      done.push(v.visitId);
      if (answer.receipts) await rt.store.set(RECEIPTS, (receipts = answer.receipts));
    }
    tries = 0;
  } catch (e) {
    if (import.meta.env.DEV) notSending(`${e}; kept queued`);
    if (tries < 5) setTimeout(flush, 2000 << tries++, rt);
  } finally {
    if (done.length) await rt.store.set(VISITS, (await queued(rt)).filter((v) => !done.includes(v.visitId)));
    sending = 0;
  }
}

/**
 * Reads the landing URL, queues its visit and keeps its pending attribution, calls `stored` (the
 * window may now read the pending referral), then sends what is queued.
 */
export async function capture(rt: WidgetRuntime, href: string, referrer: string, stored?: () => void): Promise<void> {
  try {
    window.addEventListener('online', () => void flush(rt));
    const a = parse(href, referrer);
    if (a) {
      await rt.store.set(VISITS, [...(await queued(rt)), { visitId: uuid(), attribution: a }].slice(-MAX_QUEUED));
      // A hosted share link of another program names nobody here; a later landing without a code
      // (a newsletter's UTM link) must not erase the referrer already pending.
      const referralCode = a.campaignId && a.campaignId != rt.programId ? undefined : a.referralCode;
      // Read from the store itself: rt.pendingAttribution() waits for `stored`, which comes after this.
      if (referralCode || !(await rt.store.get<PendingAttribution>(PENDING))?.referralCode) {
        const click: Record<string, string> = {};
        if (a.clickId) click.click_id = a.clickId;
        if (a.unique != null) click.unique = '' + a.unique;
        await rt.store.set(PENDING, { referralCode, utm: a.utm, click, capturedAt: Date.now() } satisfies PendingAttribution);
      }
    }
    stored?.();
    await flush(rt);
  } catch (e) {
    if (import.meta.env.DEV) notSending(`${e}`);
  }
}
