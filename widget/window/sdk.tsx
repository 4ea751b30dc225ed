// Boot: the real `window.growsurf` (and `window.refloop`) methods replace the stub's, queued calls
// settle in order, embeddable elements render and badges count. Nothing here throws into the page.
import { effect } from '@preact/signals';
import { STORE_KEYS, type WidgetRuntime } from '../runtime.ts';
import { t } from '../i18n/index.ts';
import * as act from './actions.ts';
import type { Fields } from './actions.ts';
import { Api } from './api.ts';
import { closeWindow, openWindow, type OpenOptions } from './dialog.tsx';
import { PANELS, preloadFirstPanel, type Identity } from './panels/registry.tsx';
import { ctx, me, preview, refresh, resetListeners, state, subscribe, unread } from './state.ts';
import { Ready, Root, mount } from './ui.tsx';

const BADGE_CLASS = '.growsurf-unread-notifications-badge';
const selectors = new Set<string>([BADGE_CLASS]);
let stopBadge: (() => void) | undefined;
let clicks = false;

/** Renders every `[data-grsf-block-*]` element on the page into its own shadow root. */
export function initElements(): void {
  for (const p of PANELS) {
    for (const el of document.querySelectorAll<HTMLElement>(`[data-grsf-block-${p.id}]`)) {
      const d = el.dataset;
      const identity: Identity = { email: d.grsfEmail, firstName: d.grsfFirstName, lastName: d.grsfLastName };
      try {
        mount(
          el,
          <Root>
            <Ready>
              <p.C identity={identity} />
            </Ready>
          </Root>,
        );
      } catch (e) {
        // An element that cannot host a shadow root (a <button>, an <input>…) is skipped, not fatal.
        if (import.meta.env.DEV) console.warn(`[refloop] cannot render data-grsf-block-${p.id} into <${el.localName}>:`, e);
      }
    }
  }
}

function paintBadges(n: number): void {
  for (const sel of selectors) {
    let els: NodeListOf<HTMLElement>;
    try {
      els = document.querySelectorAll<HTMLElement>(sel);
    } catch {
      continue;
    }
    for (const el of els) {
      let b = el.querySelector<HTMLElement>(':scope > [data-grsf-badge]');
      if (!b) {
        b = document.createElement('span');
        b.setAttribute('data-grsf-badge', '');
        b.style.cssText = 'min-width:18px;padding:0 5px;margin-left:4px;border-radius:9px;background:#dc2626;color:#fff;font:600 12px/18px system-ui,sans-serif;text-align:center';
        el.append(b);
      }
      b.textContent = String(n);
      b.title = t('badge.label', { count: n });
      b.hidden = !n;
      // `hidden` alone loses to any display rule (ours inline, or the page's): nothing unread shows nothing, not "0".
      b.style.display = n ? 'inline-block' : 'none';
      el.setAttribute('data-grsf-unread', String(n));
    }
  }
}

/** `initUnreadNotificationsBadge(selector)`: shows the unread count on matching elements. */
export function initUnreadNotificationsBadge(selector?: string): void {
  if (typeof selector === 'string' && selector) selectors.add(selector);
  paintBadges(unread.value);
}

/** `handleDeepLink(url)`: the attribution the URL carries (kept as the pending referral), or null. */
export async function handleDeepLink(url: string) {
  // The parser is its own chunk: the attribution script already captured the landing page.
  const a = (await import('../../shared/attribution.ts')).parseAttributionUrl(url);
  if (!a) return null;
  if (a.referralCode) {
    const click: Record<string, string> = {};
    if (a.clickId) click.click_id = a.clickId;
    if (a.unique !== undefined) click.unique = String(a.unique);
    await ctx.rt.store.set(STORE_KEYS.pending, { referralCode: a.referralCode, utm: a.utm, click, capturedAt: Date.now() });
  }
  return a;
}

const signUps = () => import('./panels/signup.tsx');

type Ops = typeof import('./ops.ts');
/**
 * A method calling one of ops.ts's operations, the chunk fetched on the first call (issue #32: what
 * only the page's calls and the lazy panels use stays out of the first load).
 */
const op =
  <K extends keyof Ops>(k: K) =>
  (...a: unknown[]) =>
    import('./ops.ts').then((m) => (m[k] as (...x: unknown[]) => unknown)(...a));

/** The GrowSurf-compatible methods (web-sdk.md §2) plus our own. */
function methods() {
  const api = ctx.api;
  const open = (opts?: OpenOptions) => openWindow(opts);
  return {
    init: act.init,
    // Sign-up code travels in the sign-up form's chunk (a participant's first load never needs it).
    addParticipant: (f: Fields) => signUps().then((m) => m.addParticipant(f)),
    addReferredParticipant: (f: Fields & { referredBy?: string }) => signUps().then((m) => m.addReferredParticipant(f)),
    triggerReferral: op('triggerReferralFor'),
    validateReferrer: (id?: string) => signUps().then((m) => m.validateReferrer(id)),
    getUpfrontDiscount: act.getUpfrontDiscount,
    open,
    close: closeWindow,
    initUnreadNotificationsBadge,
    initElements,
    subscribe: subscribe,
    handleDeepLink,
    shutdown: act.shutdown,
    // The referred-friend welcome (the launcher calls it for a referred visitor): its own chunk.
    welcome: () => import('./welcome.tsx').then((w) => w.welcome()),
    clearPendingAttribution: op('clearPendingAttribution'),
    pendingAttribution: op('pendingAttribution'),
    getReferralCode: op('getReferralCode'),
    getParticipant: () => api.participant(),
    updateParticipant: api.updateParticipant,
    // The operations only the page's calls and the lazy panels use: ops.ts, fetched on the first call.
    updateVanityLinks: op('setVanityKeys'),
    getParticipantReferrals: op('referrals'),
    sendInvites: op('invite'),
    trackShare: act.trackShare,
    getParticipantRewards: api.rewards,
    markParticipantRewardsRead: op('markRewardsRead'),
    getParticipantReferralSummary: op('referralSummary'),
    getParticipantCommissions: op('commissions'),
    getParticipantPayouts: op('payouts'),
    getParticipantAffiliateSummary: api.affiliateSummary,
    getCampaign: api.campaign,
    getLeaderboard: op('leaderboard'),
    getWindow: api.window,
    getParticipantResourceDownloadURL: op('downloadUrl'),
    setParticipantToken: async (token: string) => {
      await api.setToken(token || undefined);
      await refresh();
    },
    participantToken: () => api.token ?? null,
    currentParticipantId: () => me()?.id ?? null,
    mobileInstanceId: () => ctx.rt.instanceId,
  };
}

type Methods = ReturnType<typeof methods>;
type Host = typeof globalThis & { growsurf?: Record<string, unknown>; refloop?: Record<string, unknown>; grsfConfig?: unknown };

/** Starts the window bundle for one runtime. */
export async function start(rt: WidgetRuntime): Promise<void> {
  const api = new Api(rt);
  await api.load();
  // The first panel's chunk travels beside the session and window payload requests.
  preloadFirstPanel(!!api.token || !!(globalThis as Host).grsfConfig);
  ctx.rt = rt;
  ctx.api = api;
  resetListeners();
  state.value = { status: 'loading' };
  const m = methods();
  const g = globalThis as Host;
  g.growsurf = Object.assign(g.growsurf ?? {}, m);
  g.refloop = Object.assign(g.refloop ?? {}, m);

  // A sign-in link's token (grsfLogin) is redeemed before auto-authentication, which wins when the page also sends one.
  const login = /grsfLogin=/.test(location.search) ? await import('./panels/login.tsx').then((m) => m.redeemLoginFromUrl(), () => false) : null;
  // A wrong grsfConfig hash must not keep the rest of the widget from working.
  await act.init().catch(() => refresh());
  stopBadge?.();
  stopBadge = effect(() => paintBadges(unread.value));
  initElements();
  // Back from a sign-in link: show the portal, or the sign-up view with why the link did not work.
  if (login !== null) openWindow();
  if (!clicks) {
    clicks = true;
    // A server preview page swaps in an unsaved design (the owner console's live preview) and says so.
    if (preview) document.addEventListener('grsfpreviewchange', () => void refresh());
    document.addEventListener('click', (e) => {
      const el = (e.target as Element | null)?.closest?.('.growsurf-open-window');
      if (el) {
        e.preventDefault();
        openWindow();
      }
    });
  }

  for (const call of rt.queue.splice(0)) {
    const fn = m[call.method as keyof Methods] as ((...a: unknown[]) => unknown) | undefined;
    try {
      if (!fn) throw new TypeError(`growsurf.${call.method} is not a function`);
      call.resolve(await fn(...call.args));
    } catch (e) {
      call.reject(e);
    }
  }
}
