// Signing visitors up: participant creation with the visit receipts and the pending referral
// attached (`growsurf.addParticipant`, `addReferredParticipant`, `validateReferrer`, and the sign-up
// form). Only the sign-up form's chunk imports it, so its code travels with that chunk; the page's
// methods fetch the chunk when called (issue #24: a signed-in participant's first load never carries it).
import type { z } from 'zod';
import type * as MP from '../../shared/schemas/mobile-participants.ts';
import type { Created, Participant, ParticipantInput, ReferredCreated, ReferredInput } from './api.ts';
import { hooks, type Fields } from './actions.ts';
import { ctx, fire, refresh, safely, state } from './state.ts';

// The sign-up operations (MR1, MP2, MP3), with the code that calls them.
const op = {
  /** MR1. */
  validateReferrer: (body: z.input<typeof MP.mobileReferrerValidate>) => ctx.api.call<z.infer<typeof MP.mobileReferrerValidation>>('post', 'referrer/validate', body),
  /** MP2. */
  addParticipant: (body: ParticipantInput) => ctx.api.call<Created>('post', 'participants', body),
  /** MP3. */
  addReferredParticipant: (body: ReferredInput) => ctx.api.call<ReferredCreated>('post', 'referred-participants', body),
};
/** MR1 (the welcome's referrer name too). */
export const checkReferrer = op.validateReferrer;

/** `{recaptchaToken}` while the program has reCAPTCHA on (window payload `recaptchaSiteKey`), else `{}`. */
export async function recaptchaField(): Promise<{ recaptchaToken?: string }> {
  const s = state.value;
  const key = s.status === 'ready' ? s.win.recaptchaSiteKey : (await ctx.api.window()).recaptchaSiteKey;
  return key ? (await import('./recaptcha.ts')).recaptchaField(key) : {};
}

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
    const r = await op.addReferredParticipant({ ...body, ...(await recaptchaField()), referredBy: code });
    if (r.added || r.notAddedReason === 'participant_already_exists') return afterReferred(r);
  }
  // A reCAPTCHA token is good for one check, so each call gets its own.
  const created = await op.addParticipant({ ...body, ...(await recaptchaField()) });
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
  const r = await op.addReferredParticipant({ ...body, ...(await recaptchaField()), ...(code ? { referredBy: code } : {}) });
  await afterReferred(r);
  return { added: r.added, participant: r.participant, referredBy: r.referredBy, validReferral: r.validReferral, notAddedReason: r.notAddedReason };
}

/** `validateReferrer(id?)`: an explicit id, else the pending referral code, else the stored receipts. */
export async function validateReferrer(id?: string): Promise<boolean> {
  const code = id ?? (await ctx.rt.pendingAttribution())?.referralCode;
  const receipts = await ctx.rt.receipts();
  const list = [receipts.firstVisit, receipts.lastVisit].filter((r): r is string => !!r);
  if (!code && !list.length) return false;
  return (await op.validateReferrer(code ? { referredBy: code } : { receipts: list })).valid;
}
