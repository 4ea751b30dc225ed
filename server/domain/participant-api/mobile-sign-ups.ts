// What the participant API's sign-ups (MP2, MP3, the affiliate application) share: the request's
// fraud evidence, the referrer a client names, and the participant they create.
import { isIP } from 'node:net';
import type { ParticipantApiServices as Deps } from './services.ts';
import type { MobileProgram } from './mobile-programs.ts';
import { completedDocument } from '../programs/program-config.ts';
import { findParticipant, findReferrer } from '../participants/referrals.ts';
import { programLanguages, type RequestEvidence } from '../participants/model.ts';
import { bestAccepted, type LANGUAGE_CODES } from '../../../shared/program-language.ts';
import { REASON } from '../referral/fraud-screening.ts';
import { ParticipantBlockedError, ValidationError } from '../../errors.ts';
import type { z } from 'zod';
import type { mobileParticipantCreate } from '../../../shared/schemas/mobile-participants.ts';

type Create = z.output<typeof mobileParticipantCreate>;

/** Request signals the fraud checks see (mobile rule: IP, instance id, fingerprint). */
export interface ClientSignals {
  ip: string;
  /** A native app's session (started with the program's X-Public-Key): reCAPTCHA does not apply. */
  app?: boolean;
  /** From the operator's trusted proxy header (GEO_COUNTRY_HEADER); null or absent when unknown. */
  country?: string | null;
  /** The request's Accept-Language: the language a visitor joins in (issue #27). */
  acceptLanguage?: string | null;
}

/** The referrer a client named, resolved: `revealable` when the client already knew its id. */
interface ReferrerPick {
  /** Whether the client named any referrer (code or a receipt that verifies). */
  named: boolean;
  referrerId: string | null;
  revealable: boolean;
}

/** The address the fraud checks get: IPv4-mapped IPv6 unwrapped, anything unparseable dropped. */
function clientIp(ip: string): string | undefined {
  const plain = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  return isIP(plain) ? plain : undefined;
}

/**
 * What a participant-API sign-up request shows the fraud checks beyond stored values: the country,
 * and for pages of a program with options.fraud.recaptcha on, the reCAPTCHA verdict. A token that
 * fails is a 422 before anything is written; a verification service that cannot be reached lets the
 * sign-up through as a fraud signal (held for review), so an outage at Google does not close the
 * program. Used by MP2, MP3 and the affiliate application (MAF2).
 */
export async function signupEvidence(deps: Deps, view: MobileProgram, token: string | undefined, signals: ClientSignals): Promise<RequestEvidence> {
  let recaptchaUnverified = false;
  const recaptcha = (completedDocument('options', view.program, view.program.documents.options) as { fraud: { recaptcha: { isEnabled: boolean } } }).fraud.recaptcha;
  const secret = recaptcha.isEnabled && !signals.app ? deps.programConfig.recaptchaSecret(view.program) : null;
  if (secret) {
    const outcome = await deps.recaptcha.verify(secret, token, signals.ip);
    if (outcome.result === 'failed') {
      deps.log.info('participant sign-up blocked by anti-fraud', { programId: view.program.id, riskLevel: 'HIGH', reasonCode: REASON.recaptchaFailed });
      throw new ParticipantBlockedError(`This sign-up was refused because the reCAPTCHA check failed: ${outcome.why} (${REASON.recaptchaFailed}).`);
    }
    recaptchaUnverified = outcome.result === 'unavailable';
  }
  return { country: signals.country ?? null, recaptchaUnverified };
}

/**
 * Resolves the referrer a client names: an explicit code (participant id, share key, vanity key)
 * wins; else the program's attribution model picks among valid receipts. Forged, expired and
 * other-program receipts count as not sent.
 */
export async function pickReferrer(deps: Deps, view: MobileProgram, referredBy: string | undefined, receipts: readonly string[] | undefined): Promise<ReferrerPick> {
  const knex = deps.db.knex;
  if (referredBy) {
    const row = await findReferrer(knex, view.program.id, referredBy);
    return { named: true, referrerId: row?.id ?? null, revealable: row?.id === referredBy };
  }
  const fromReceipt = receipts?.length ? deps.receipts.apply(view.program, receipts) : null;
  if (!fromReceipt) return { named: false, referrerId: null, revealable: false };
  const row = await findParticipant(knex, view.program.id, fromReceipt);
  return { named: true, referrerId: row?.id ?? null, revealable: true };
}

/** Creates the participant a sign-up asks for (MP2, MP3), after the design's consent check and the fraud evidence. */
export async function createFromSignUp(deps: Deps, view: MobileProgram, input: Create, referrerId: string | null, signals: ClientSignals) {
  // design signup.gdpr: the widget draws the checkbox, so pages must send the tick when it is required; apps draw their own forms.
  const gdpr = (completedDocument('design', view.program, view.program.documents.design) as { signup: { gdpr: { isEnabled: boolean; text: string; isCheckboxRequired: boolean } } }).signup.gdpr;
  if (gdpr.isEnabled && gdpr.isCheckboxRequired && !signals.app && input.gdprConsent !== true) {
    throw new ValidationError('This program asks new participants to agree to its email consent first.', [{ field: 'gdprConsent', code: 'REQUIRED', message: 'Tick the consent checkbox.' }]);
  }
  const request = await signupEvidence(deps, view, input.recaptchaToken, signals);
  return deps.participants.create(
    view.program,
    view.team,
    {
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      metadata: input.metadata,
      mobileInstanceId: input.mobileInstanceId,
      fingerprint: input.fingerprint,
      ipAddress: clientIp(signals.ip),
      referredBy: referrerId ?? undefined,
      // A visitor joins in the language the page showed them (the browser's best match among the program's, as
      // the window and hosted pages chose it), so the window, portal and emails stay in it after sign-up.
      language: joinLanguage(view, signals.acceptLanguage),
      // Affiliate programs: a referred customer is never enrolled from a browser or app.
      ...(view.program.type === 'AFFILIATE' && referrerId ? { isAffiliate: false } : {}),
    },
    // A public sign-up that enrolls an affiliate is open enrollment (rest-v2 §2.8 sources).
    { source: 'OPEN_ENROLLMENT', request, ...(gdpr.isEnabled && input.gdprConsent === true ? { gdprAgreement: { text: gdpr.text } } : {}) },
  );
}

/** The program language a visitor's browser asks for, when it is one the program offers other than its base (undefined: the base). */
function joinLanguage(view: MobileProgram, acceptLanguage: string | null | undefined): (typeof LANGUAGE_CODES)[number] | undefined {
  if (!acceptLanguage) return undefined;
  const { base, all } = programLanguages(view.program);
  const best = bestAccepted(acceptLanguage, all);
  return best && best !== base ? (best as (typeof LANGUAGE_CODES)[number]) : undefined;
}
