// The attribution script's first stage (dist/widget/attribution.js, also /growsurf.js): loaded on
// every page of a site, so bytes come first and nothing may throw into the host page. It reads the
// settings, installs the `window.growsurf` stub, fires `grsfReady` and keeps the per-install id.
// The rest loads only when needed: the capture stage (capture.ts: parser and visit queue, a hashed
// file the build names in __REFLOOP_CAPTURE__) when the URL may carry attribution or a visit is
// still queued; window.js (widget/runtime.ts is that contract) when the page needs the window.
import type { PendingAttribution, QueuedCall, StoredReceipts, WidgetRuntime } from '../runtime.ts';
import { INSTANCE_ID, PARTICIPANT_TOKEN, PENDING, RECEIPTS, VISITS, notSending } from './common.ts';
import { openStore } from './store.ts';

/** Imports one of the widget's ES modules by absolute URL (tests pass their own). */
export type Loader = (url: string) => Promise<any>;
type Win = Window & {
  grsfInit?: unknown;
  grsfSettings?: { campaignId?: string; publicKey?: string };
  grsfConfig?: object;
  growsurf?: Record<string, unknown>;
};

/**
 * A cheap test that a URL may carry attribution: every key parse.ts reads contains one of these
 * (percent-encoded keys are caught by `%`). False positives only cost loading the capture stage.
 */
export const MAY_CARRY_ATTRIBUTION = /grsf|ref|utm|click|share|%/i;

/** Starts the script once per page; the promise settles when this page's capture and first send are done (never rejects). */
export function start(load: Loader = (u) => import(/* @vite-ignore */ u)): Promise<void> | void {
  const w = window as Win;
  const d = document;
  try {
    if (w.grsfInit) {
      if (import.meta.env.DEV) notSending('a second copy of the script');
      return;
    }
    const s = (d.currentScript || d.querySelector('script[grsf-campaign],script[data-program],script[src*="/growsurf.js"],script[src*="/widget/attribution"]')) as HTMLScriptElement;
    const set = w.grsfSettings || {};
    // The tag's own attribute wins over the global settings: it is the statement closest to this copy.
    const programId = s?.getAttribute('grsf-campaign') || s?.dataset.program || set.campaignId;
    if (!programId) {
      if (import.meta.env.DEV) notSending('no program id');
      return;
    }
    const origin = new URL(s.src).origin;
    const api = new URL(s.dataset.api || origin).origin;
    w.grsfInit = 1;
    const store = openStore(programId + '/');
    const queue: QueuedCall[] = [];
    const emit = (name: string, detail?: unknown) => d.dispatchEvent(new CustomEvent(name, { bubbles: true, detail }));
    // Settles once this page's attribution is stored (or there is none): the window, which may load
    // in parallel, reads the pending referral only after that.
    let noted!: () => void;
    const stored = new Promise<void>((r) => (noted = r));

    const ready = (async (): Promise<WidgetRuntime> => {
      let instanceId = await store.get<string>(INSTANCE_ID);
      // A blob URL ends in a random (version 4) UUID: fewer bytes than a generator, and unlike
      // crypto.randomUUID it exists on http pages too.
      if (!instanceId) await store.set(INSTANCE_ID, (instanceId = URL.createObjectURL(new Blob()).slice(-36).toLowerCase()));
      return {
        programId,
        apiBase: api + '/mobile/v2',
        assetBase: origin + '/widget/',
        publicKey: s.dataset.publicKey || set.publicKey,
        instanceId,
        queue,
        store,
        pendingAttribution: () => stored.then(() => store.get<PendingAttribution>(PENDING)),
        receipts: async () => (await store.get<StoredReceipts>(RECEIPTS)) || {},
        clearPendingAttribution: async () => void (await Promise.all([PENDING, VISITS, RECEIPTS].map(store.del))),
        emit,
      };
    })();

    // The window bundle, once; if it cannot be loaded the queued calls are rejected and a later call tries again.
    let loading: Promise<void> | undefined;
    const boot = () =>
      (loading ||= ready
        .then(async (rt) => {
          await (await load(rt.assetBase + 'window.js')).boot(rt);
          d.removeEventListener('click', onClick);
        })
        .catch((e) => {
          loading = undefined;
          for (const c of queue.splice(0)) c.reject(e);
        }));
    // Before boot, a click on a `.growsurf-open-window` element becomes a queued open() call.
    const onClick = (e: Event) =>
      (e.target as Element).closest?.('.growsurf-open-window') && (e.preventDefault(), (g.open as () => Promise<unknown>)().catch(() => {}));
    const scan = () =>
      (d.querySelector(
        'form invite rewards referral-status referral-summary affiliate-summary commissions payouts'.replace(/\S+/g, '[data-grsf-block-$&],') +
          '.growsurf-open-window,.growsurf-unread-notifications-badge',
      ) ||
        w.grsfConfig) &&
      boot();

    // The stub; an older Universal Code creates `window.growsurf = {}` itself, so that object is kept.
    const g = (w.growsurf ||= {});
    for (const method of 'init addParticipant addReferredParticipant triggerReferral validateReferrer open initUnreadNotificationsBadge initElements subscribe handleDeepLink shutdown clearPendingAttribution'.split(' '))
      g[method] = (...args: unknown[]) =>
        new Promise((resolve, reject) => {
          queue.push({ method, args, resolve, reject });
          boot();
        });
    // Sources call it without await (web-sdk.md §6): null until the window bundle replaces it.
    g.getUpfrontDiscount = () => null;
    d.addEventListener('click', onClick);
    emit('grsfReady');
    scan();
    // An async script in <head> usually runs before the body is parsed.
    d.addEventListener('DOMContentLoaded', scan);

    return ready
      .then(async (rt) => {
        // A sign-in link's way back (grsfLogin): only the window can redeem it.
        if (/grsfLogin=/.test(location.search) || (await store.get(PARTICIPANT_TOKEN))) boot();
        if (MAY_CARRY_ATTRIBUTION.test(location.href) || (await store.get<unknown[]>(VISITS))?.length)
          await (await load(rt.assetBase + (import.meta.env.DEV ? 'attribution/capture.ts' : __REFLOOP_CAPTURE__))).capture(rt, location.href, d.referrer, noted);
        else if (import.meta.env.DEV) notSending('no attribution in the URL and nothing queued');
      })
      .catch(import.meta.env.DEV ? (e) => notSending(`${e}`) : () => {})
      .finally(noted);
  } catch (e) {
    if (import.meta.env.DEV) notSending(`${e}`);
  }
}
