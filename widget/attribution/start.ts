// The attribution script's first stage (dist/widget/attribution.js, also /growsurf.js): loaded on
// every page of a site, so bytes come first and nothing may throw into the host page. It reads the
// settings, installs the `window.growsurf` stub, fires `grsfReady`, turns an early click on a
// `.growsurf-open-window` element into a queued open() and boots the window for an embeddable
// element. Everything else is in the page stage (launcher.ts, a hashed file the build names in
// __REFLOOP_LAUNCHER__), which it loads at once: the runtime with the store and the per-install id
// (widget/runtime.ts is the contract with the window), the capture stage, the launcher, form capture.
import type { QueuedCall } from '../runtime.ts';
import { notSending } from './common.ts';
import type { PageStage, PageSettings } from './launcher.ts';

export { MAY_CARRY_ATTRIBUTION } from './common.ts';

/** Imports one of the widget's ES modules by absolute URL (tests pass their own). */
export type Loader = (url: string) => Promise<any>;
type Win = Window & {
  grsfInit?: unknown;
  grsfSettings?: { campaignId?: string; publicKey?: string };
  grsfConfig?: object;
  growsurf?: Record<string, unknown>;
};

/** Swallows what must never reach the host page (one function: fewer bytes than one per call site). */
const noop = () => {};

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
    // No tag found throws here, into the catch below: nothing to start.
    const programId = s.getAttribute('grsf-campaign') || s.dataset.program || set.campaignId;
    if (!programId) {
      if (import.meta.env.DEV) notSending('no program id');
      return;
    }
    const origin = new URL(s.src).origin;
    w.grsfInit = 1;
    const queue: QueuedCall[] = [];
    // The page stage, once; a failed import is tried again by the next call that needs it.
    let stage: Promise<PageStage> | undefined;
    const pageStage = () =>
      (stage ||= load(origin + '/widget/' + (import.meta.env.DEV ? 'attribution/launcher.ts' : __REFLOOP_LAUNCHER__))
        .then((m) => m.page({ programId, origin, api: s.dataset.api, publicKey: s.dataset.publicKey || set.publicKey, queue, load, boot } satisfies PageSettings))
        .catch((e) => {
          stage = undefined;
          throw e;
        }));
    // The window bundle, once; if it cannot be loaded the queued calls are rejected and a later call tries again.
    let loading: Promise<void> | undefined;
    const boot = (): Promise<void> =>
      (loading ||= pageStage()
        .then(async (p) => {
          await p.window();
          d.removeEventListener('click', onClick);
        })
        .catch((e) => {
          loading = undefined;
          for (const c of queue.splice(0)) c.reject(e);
        }));
    // Before boot, a click on a `.growsurf-open-window` element becomes a queued open() call.
    const onClick = (e: Event) =>
      (e.target as Element).closest?.('.growsurf-open-window') && (e.preventDefault(), (g.open as () => Promise<unknown>)().catch(noop));
    const scan = () =>
      (d.querySelector(
        'form invite rewards referral-status referral-summary affiliate-summary commissions payouts'.replace(/\S+/g, '[data-grsf-block-$&],') +
          '.growsurf-open-window,.growsurf-unread-notifications-badge',
      ) ||
        w.grsfConfig) &&
      boot();

    // The stub; an older Universal Code creates `window.growsurf = {}` itself, so that object is kept.
    const g = (w.growsurf ||= {});
    for (const method of 'init addParticipant addReferredParticipant triggerReferral validateReferrer open initUnreadNotificationsBadge initElements subscribe handleDeepLink shutdown clearPendingAttribution getReferralCode'.split(' '))
      g[method] = (...args: unknown[]) =>
        new Promise((resolve, reject) => {
          queue.push({ method, args, resolve, reject });
          boot();
        });
    // Sources call it without await (web-sdk.md §6): null until the window bundle replaces it.
    g.getUpfrontDiscount = () => null;
    d.addEventListener('click', onClick);
    d.dispatchEvent(new CustomEvent('grsfReady', { bubbles: true }));
    scan();
    // An async script in <head> usually runs before the body is parsed.
    d.addEventListener('DOMContentLoaded', scan);
    return pageStage().then((p) => p.done, import.meta.env.DEV ? (e) => notSending(`${e}`) : noop);
  } catch (e) {
    if (import.meta.env.DEV) notSending(`${e}`);
  }
}
