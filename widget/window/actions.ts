// What `window.growsurf` and the first panels do: participant creation with receipts and the
// pending referral attached, auto-authentication, shares and the events they fire.
import type { Participant, ReferredCreated, ShareType, UpfrontDiscount } from './api.ts';
import { countUnread, ctx, fire, me, recaptchaField, refresh, safely, state } from './state.ts';

/** Fields as the page passes them: email, firstName, lastName; every other key goes to metadata. */
export type Fields = { email: string; firstName?: string; lastName?: string; [k: string]: unknown };

async function creationBody(fields: Fields) {
  if (!fields || typeof fields.email !== 'string') throw new TypeError('An email is required.');
  // gdprConsent is the sign-up's consent checkbox (design signup.gdpr), never metadata.
  const { email, firstName, lastName, gdprConsent, ...rest } = fields;
  const receipts = await ctx.rt.receipts();
  const list = [...new Set([receipts.firstVisit, receipts.lastVisit].filter((r): r is string => !!r))];
  const metadata = Object.fromEntries(Object.entries(rest).filter(([, v]) => v == null || ['string', 'number', 'boolean'].includes(typeof v))) as Record<string, string | number | boolean>;
  return {
    email,
    ...(firstName ? { firstName } : {}),
    ...(lastName ? { lastName } : {}),
    ...(Object.keys(metadata).length ? { metadata } : {}),
    mobileInstanceId: ctx.rt.instanceId,
    ...(list.length ? { receipts: list } : {}),
    ...(gdprConsent ? { gdprConsent: true } : {}),
  };
}

/** The open window's `onParticipantCreated` callback (`open({callbacks})`), if any. */
export const hooks: { created?: (d: { participant: Participant | null; participantToken: string }) => void } = {};

async function signedIn(token: string | undefined, participant: Participant | null): Promise<void> {
  if (!token) return;
  await ctx.api.setToken(token);
  await refresh();
  safely(() => hooks.created?.({ participant, participantToken: token }));
}


/**
 * `addParticipant`: with a pending referral code the referred path is tried first (MP2 carries
 * receipts but no code), falling back to a plain sign-up when that code names nobody.
 * Resolves to the participant, or null when the email already belongs to one (mobile rule 5).
 */
export async function addParticipant(fields: Fields): Promise<Participant | null> {
  const body = await creationBody(fields);
  const code = (await ctx.rt.pendingAttribution())?.referralCode;
  if (code) {
    const r = await ctx.api.addReferredParticipant({ ...body, ...(await recaptchaField()), referredBy: code });
    if (r.added || r.notAddedReason === 'participant_already_exists') return afterReferred(r);
  }
  // A reCAPTCHA token is good for one check, so each call gets its own.
  const created = await ctx.api.addParticipant({ ...body, ...(await recaptchaField()) });
  await signedIn(created.participantToken, created.participant);
  return created.participant;
}

async function afterReferred(r: ReferredCreated) {
  if (r.added) {
    fire('referral', { participant: r.participant, referredBy: r.referredBy });
    await signedIn(r.participantToken, r.participant);
  }
  return r.participant;
}

/** `addReferredParticipant`: adds only when the referral verifies (explicit referredBy, else the pending code, else receipts). */
export async function addReferredParticipant(fields: Fields & { referredBy?: string }) {
  const { referredBy, ...rest } = fields ?? ({} as Fields);
  const body = await creationBody(rest as Fields);
  const code = referredBy ?? (await ctx.rt.pendingAttribution())?.referralCode;
  const r = await ctx.api.addReferredParticipant({ ...body, ...(await recaptchaField()), ...(code ? { referredBy: code } : {}) });
  await afterReferred(r);
  return { added: r.added, participant: r.participant, referredBy: r.referredBy, validReferral: r.validReferral, notAddedReason: r.notAddedReason };
}

/** `validateReferrer(id?)`: an explicit id, else the pending referral code, else the stored receipts. */
export async function validateReferrer(id?: string): Promise<boolean> {
  const code = id ?? (await ctx.rt.pendingAttribution())?.referralCode;
  const receipts = await ctx.rt.receipts();
  const list = [receipts.firstVisit, receipts.lastVisit].filter((r): r is string => !!r);
  if (!code && !list.length) return false;
  return (await ctx.api.validateReferrer(code ? { referredBy: code } : { receipts: list })).valid;
}

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

/** `triggerReferral({email})`: only for the signed-in participant's own referral (MT1); the server decides whether it is allowed. */
export async function triggerReferral(who?: { email?: string }) {
  const p = me();
  if (!p || (who?.email && who.email.trim().toLowerCase() !== p.email.toLowerCase())) {
    throw new Error('triggerReferral works for the signed-in participant only; trigger other referrals from your server (REST).');
  }
  const res = await ctx.api.triggerReferral();
  if (res.success) fire('referral', { participant: p, triggered: true });
  return res;
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
