// What `window.growsurf` does besides signing visitors up (sign-ups.ts, in the sign-up form's chunk):
// auto-authentication, shares and the events they fire, shutdown (referral triggers and invitations:
// ops.ts, fetched when called).
import type { Participant, ShareType, UpfrontDiscount } from './api.ts';
import { countUnread, ctx, fire, me, refresh, state } from './state.ts';

/** Fields as the page passes them: email, firstName, lastName; every other key goes to metadata. */
export type Fields = { email: string; firstName?: string; lastName?: string; [k: string]: unknown };

/** The open window's `onParticipantCreated` callback (`open({callbacks})`), if any. */
export const hooks: { created?: (d: { participant: Participant | null; participantToken: string }) => void } = {};

/** `init({email, hash})` (or `window.grsfConfig`): auto-authentication; without either, reloads for the current token. */
export async function init(opts?: { email?: string; hash?: string }): Promise<Participant | null> {
  const cfg = opts?.email ? opts : (globalThis as { grsfConfig?: { email?: string; hash?: string } }).grsfConfig;
  if (cfg?.email && cfg.hash) {
    const res = await ctx.api.autoAuth(cfg.email.trim(), cfg.hash);
    await ctx.api.setToken(res.participantToken);
  }
  await refresh();
  return me();
}

/** Counts a share, then tells subscribers. */
export async function trackShare(type: ShareType) {
  const res = await ctx.api.trackShare(type);
  fire('share', { type, shareCount: res.shareCount });
  return res;
}

/** `getUpfrontDiscount(type?)`: synchronous; null unless the window payload carries an upfront discount for a referred visitor. */
export function getUpfrontDiscount(type?: string): UpfrontDiscount | null {
  const s = state.value;
  if (s.status !== 'ready' || !s.referred) return null;
  const all = ([] as UpfrontDiscount[]).concat(s.win.upfrontDiscount ?? []);
  return all.find((d) => !type || d.integration === type) ?? null;
}

/** `shutdown`: forgets the session token, participant token and pending attribution; the UI turns anonymous without a new session. */
export async function shutdown(): Promise<void> {
  await Promise.all([ctx.api.clear(), ctx.rt.clearPendingAttribution()]);
  const s = state.value;
  if (s.status === 'ready') state.value = { ...s, win: { ...s.win, participant: null, traffic: null }, referred: false };
  await countUnread();
}
