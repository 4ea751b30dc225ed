// The window's shared state: one signal says loading / ready / error and carries the data every
// panel draws from (window payload and campaign); panels that need more load it themselves. Also
// the event bus (`subscribe`, DOM events) and the actions lazy panels share, so those chunks never
// import the first load's own modules.
import { signal } from '@preact/signals';
import type { ComponentType } from 'preact';
import type { WidgetRuntime } from '../runtime.ts';
import type { Api, Campaign, InvitesInput, WindowPayload } from './api.ts';

/**
 * A server preview page's data (`window.grsfPreview`, set before the widget loads): the referral-flow
 * screenshots' and the owner console's live preview pages, where the window answers from it.
 */
export const preview = (window as { grsfPreview?: { view: string; responses: Record<string, unknown> } }).grsfPreview;

/** The pending referral's referrer as the design names them (`{{referrerName}}`, `{{referrerFirstName}}`), set by the welcome chunk; empty: the design's fallback. */
export const referrer = signal<{ name?: string | null; first?: string | null }>({});

/** Why the sign-up view is shown after a sign-in link did not work, or '' (set by the login chunk, drawn by the sign-up panel). */
export const loginNotice = signal('');

/** What the window and every element draw from. */
export type State =
  | { status: 'loading' }
  | { status: 'ready'; win: WindowPayload; campaign: Campaign; referred: boolean }
  | { status: 'error'; error: unknown };

/** The one state value. */
export const state = signal<State>({ status: 'loading' });
/** The unread-notification count shown on badges. */
export const unread = signal(0);
/** Counts reloads: every panel's own data (`Async`) loads again when it changes, so `growsurf.init()` refreshes everything shown. */
export const loads = signal(0);

/** The booted runtime and client (set once by `start`; tests boot again with a fresh runtime). */
export const ctx = {} as { rt: WidgetRuntime; api: Api; L?: ComponentType };

let latest = 0;

/**
 * Whether a window or popup opening now may move focus into itself: not in a preview framed by the
 * owner console while the owner works in the console (the frame's document is not focused), where it
 * would take the keys the owner is typing into the design form.
 */
export const mayTakeFocus = (): boolean => !preview || document.hasFocus();

/** Reloads the window payload and campaign; panels re-render from the new state. Of overlapping reloads the one started last decides. */
export async function refresh(): Promise<void> {
  const mine = ++latest;
  if (state.value.status !== 'ready') state.value = { status: 'loading' };
  try {
    const [win, campaign] = await Promise.all([ctx.api.window(), ctx.api.campaign()]);
    // Read after the network calls: the capture stage, started alongside the window on a landing
    // page, has then usually stored the landing's referral code (it does not tell the window when).
    const [pending, receipts] = await Promise.all([ctx.rt.pendingAttribution(), ctx.rt.receipts()]);
    // Only a program offering more than English loads the language chooser and a language (issue #27).
    if (win.languages?.join() != 'en') await import('../i18n/load.tsx').then((m) => m.use(win), () => null);
    if (mine != latest) return;
    state.value = { status: 'ready', win, campaign, referred: !win.participant && !!(pending?.referralCode || receipts.firstVisit || receipts.lastVisit || preview?.view === 'referredFriend') };
    loads.value++;
    await countUnread();
  } catch (error) {
    if (mine == latest) state.value = { status: 'error', error };
  }
}

/** The participant shown, or null when nobody is signed in. */
export function me() {
  const s = state.value;
  return s.status === 'ready' ? s.win.participant : null;
}

/** The program type (REFERRAL unless the campaign says otherwise). */
export function programType(): 'REFERRAL' | 'AFFILIATE' {
  const s = state.value;
  return s.status === 'ready' ? s.campaign.type : 'REFERRAL';
}

/** Recounts unread rewards (referral programs) or commissions and payouts (affiliate programs) for the badge (web-sdk.md §7). */
export async function countUnread(): Promise<void> {
  const p = me();
  if (!p) {
    unread.value = 0;
    return;
  }
  if (programType() === 'AFFILIATE') {
    const m = await ctx.api.affiliateSummary().catch(() => null);
    unread.value = m ? m.unreadCommissionsCount + m.unreadPayoutsCount : 0;
  } else {
    const list = await ctx.api.rewards({ limit: 100 }).catch(() => null);
    unread.value = list ? list.rewards.filter((r) => r.unread).length : 0;
  }
}

/** Runs page code (callbacks) so that its bugs never break the widget. */
export function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // The page's callback threw; the widget carries on.
  }
}

/** `subscribe` event names (web-sdk.md §2). */
export type EventName = 'referral' | 'share' | 'invite';
const listeners = new Map<string, Set<(data: unknown) => void>>();

/** Calls subscribers and fires the matching DOM event (`grsfReferral`, `grsfShare`, `grsfInvite`) on document. */
export function fire(name: EventName, data: unknown): void {
  for (const cb of listeners.get(name) ?? []) safely(() => cb(data));
  ctx.rt.emit(`grsf${name[0]!.toUpperCase()}${name.slice(1)}`, data);
}

/** `subscribe(event, cb)`: returns the unsubscribe function (a no-op one for a bad call: never throw into the page). */
export function subscribe(name: EventName, cb: (data: unknown) => void): () => void {
  if (!['referral', 'share', 'invite'].includes(name) || typeof cb !== 'function') {
    if (import.meta.env.DEV) console.warn('[refloop] subscribe(event, callback): event is referral, share or invite');
    return () => {};
  }
  const set = listeners.get(name) ?? new Set();
  listeners.set(name, set.add(cb));
  return () => void set.delete(cb);
}

/** Forgets every subscriber (a fresh boot). */
export const resetListeners = () => listeners.clear();

