// The participant API's participant creation, referrer checks and the signed-in participant's own
// changes (issue #5): request and response bodies of /mobile/v2/participants and /participant.
import { z } from 'zod';
import { participantLanguage, participantMetadataInput, participantMetadataPatch } from './participant.ts';
import { SHARE_CHANNELS } from './program-config-fields.ts';
import { instanceId, mobileParticipant } from './mobile.ts';

const participantEmail = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: 'Must be an email address.' }));
const personName = z.string().trim().min(1).max(255);
/** A referral code a client may name a referrer by: participant id, share key or vanity key (never an email). */
const referralCode = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'A participant id, share key or vanity key.')
  .meta({ description: 'The referrer’s participant id, share key or vanity key. Emails are refused so the API cannot be used to test addresses.' });
const receiptList = z
  .array(z.string().max(256))
  .max(20)
  .meta({ description: 'Visit receipts (firstVisit, lastVisit) from POST /visits; the program’s attribution model picks one. Invalid ones are ignored.' });

/** `POST /mobile/v2/participants` body (addParticipant). */
export const mobileParticipantCreate = z
  .strictObject({
    email: participantEmail,
    firstName: personName.optional(),
    lastName: personName.optional(),
    metadata: participantMetadataInput.optional(),
    mobileInstanceId: instanceId.optional().meta({ description: 'The app install (native SDKs) or the widget’s per-install id; sent to the fraud checks.' }),
    fingerprint: z.string().min(1).max(255).optional(),
    receipts: receiptList.optional(),
    recaptchaToken: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .meta({ description: 'Pages of a program with options.fraud.recaptcha on: a reCAPTCHA token for the site key in GET /window (`recaptchaSiteKey`), action `signup`. Native apps (X-Public-Key) do not send one.' }),
    gdprConsent: z
      .boolean()
      .optional()
      .meta({
        description:
          'The participant ticked the consent checkbox of design signup.gdpr: recorded with the program’s consent text and the time in metadata.gdprAgreements. Required from pages while the checkbox is on and required (400).',
      }),
  })
  .meta({ id: 'MobileParticipantCreate' });

/** `POST /mobile/v2/participants` answer. */
export const mobileParticipantCreated = z
  .object({
    requiresParticipantToken: z.boolean().meta({ description: 'True when the email already belongs to a participant: nothing is returned; get a token from your backend (REST P10), auto-authentication or a sign-in link (POST /participant/login-link).' }),
    participant: mobileParticipant.nullable(),
    participantToken: z.string().optional(),
    expiresIn: z.number().int().optional(),
  })
  .meta({ id: 'MobileParticipantCreated' });

/** `POST /mobile/v2/participant/login-link` body: ask for a one-time sign-in link by email. */
export const mobileLoginLinkRequest = z
  .strictObject({
    email: participantEmail,
    returnUrl: z
      .string()
      .max(2048)
      .optional()
      .meta({ description: 'The page the link returns to (grsfLogin=<token> is added). Used only when it is on one of the program’s allowed sites; otherwise the installation shareUrl.' }),
  })
  .meta({ id: 'MobileLoginLinkRequest' });

/** `POST /mobile/v2/participant/login-link` answer: the same whether or not the email belongs to a participant. */
export const mobileLoginLinkSent = z
  .object({ sent: z.literal(true).meta({ description: 'Always true: the answer never reveals whether the email belongs to a participant.' }) })
  .meta({ id: 'MobileLoginLinkSent' });

/** `POST /mobile/v2/participant/login-link/redeem` body. */
export const mobileLoginLinkRedeem = z
  .strictObject({ token: z.string().min(1).max(128).meta({ description: 'The grsfLogin value from the sign-in link.' }) })
  .meta({ id: 'MobileLoginLinkRedeem' });

/** `POST /mobile/v2/referred-participants` body (addReferredParticipant). */
export const mobileReferredParticipantCreate = mobileParticipantCreate
  .extend({ referredBy: referralCode.optional().meta({ description: 'An explicit referrer; wins over receipts.' }) })
  .meta({ id: 'MobileReferredParticipantCreate' });

/** Why addReferredParticipant added nobody. */
export const NOT_ADDED_REASONS = ['no_referrer', 'invalid_referrer', 'participant_already_exists'] as const;

/** `POST /mobile/v2/referred-participants` answer. */
export const mobileReferredParticipantCreated = z
  .object({
    added: z.boolean(),
    participant: mobileParticipant.nullable(),
    referredBy: z.string().optional().meta({ description: 'The referrer’s participant id, only when the client already named it by id or receipt (never resolved from a share or vanity key).' }),
    validReferral: z.boolean(),
    notAddedReason: z.enum(NOT_ADDED_REASONS).optional(),
    participantToken: z.string().optional().meta({ description: 'For a newly created participant of a referral program, or a new affiliate; a referred customer of an affiliate program gets none.' }),
    expiresIn: z.number().int().optional(),
  })
  .meta({ id: 'MobileReferredParticipantCreated' });

/** `POST /mobile/v2/referrer/validate` body (validateReferrer). */
export const mobileReferrerValidate = z
  .strictObject({
    referredBy: referralCode.optional(),
    receipts: receiptList.optional(),
    name: z
      .literal(true)
      .optional()
      .meta({
        description:
          'refloop extension (issue #24): also answer the referrer’s name as the program’s design shows it to a referred friend (referredExperience.referrerNameFormat). Never for a referrer named by email.',
      }),
  })
  .meta({ id: 'MobileReferrerValidate' });

/**
 * `POST /mobile/v2/referrer/validate` answer: nothing about the referrer beyond what the client sent,
 * except the name the design greets a referred friend with when the client asks for it (`name: true`).
 */
export const mobileReferrerValidation = z
  .object({
    valid: z.boolean(),
    referredBy: z.string().optional().meta({ description: 'As in MobileReferredParticipantCreated.' }),
    referrerName: z
      .string()
      .nullable()
      .optional()
      .meta({
        description:
          'refloop extension, only when the body sent `name: true` and the referrer is valid: the referrer’s name by the design’s referredExperience.referrerNameFormat (FIRST "Ada", FIRST_LAST_INITIAL "Ada L.", FIRST_LAST "Ada Lovelace"); null when the referrer has no first name or was named by email (show referrerNameFallback).',
      }),
    referrerFirstName: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'refloop extension, beside referrerName: the referrer’s first name alone (the {{referrerFirstName}} merge tag); null when referrerName is.' }),
  })
  .meta({ id: 'MobileReferrerValidation' });

/** `PATCH /mobile/v2/participant` body: what a participant may change about themselves. */
export const mobileParticipantUpdate = z
  .strictObject({
    firstName: z.string().trim().max(255).optional(),
    lastName: z.string().trim().max(255).optional(),
    metadata: participantMetadataPatch.optional(),
    language: participantLanguage
      .nullable()
      .optional()
      .meta({ description: 'refloop extension (issue #27): the participant’s language (the window’s settings); must be one of the program’s languages, else 400; null or the base language resets to the base language.' }),
  })
  .refine((b) => b.firstName !== undefined || b.lastName !== undefined || b.metadata !== undefined || b.language !== undefined, { message: 'Send firstName, lastName, metadata or language.' })
  .meta({ id: 'MobileParticipantUpdate' });

/** Share types trackShare accepts: the copy buttons of the SDKs and the design's share channels. */
export const SHARE_TYPES = ['copyRefLink', 'copy', ...SHARE_CHANNELS] as const;

/** `POST /mobile/v2/participant/shares` body (trackShare). */
export const mobileShareTrack = z
  .strictObject({ type: z.enum(SHARE_TYPES, { error: `type must be one of ${SHARE_TYPES.join(', ')}.` }) })
  .meta({ id: 'MobileShareTrack' });

/** `POST /mobile/v2/participant/shares` answer. */
export const mobileShareTracked = z
  .object({ success: z.literal(true), shareCount: z.record(z.string(), z.number().int()) })
  .meta({ id: 'MobileShareTracked' });
