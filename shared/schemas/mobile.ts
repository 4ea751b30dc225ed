import { z } from 'zod';
import { ATTRIBUTION_LIMITS, ATTRIBUTION_PROVIDERS, UTM_KEYS, cleanUrl, stripControls } from '../attribution.ts';
import { participant } from './participant.ts';

// The participant API under /mobile/v2 (docs/participant-api.md): request and response bodies,
// shared by the server, the widget's client and /openapi/mobile-v2.json. Here: sessions, visits, the
// participant as they see themselves and their tokens; participant creation and self-service changes
// are in mobile-participants.ts, the program's data in mobile-campaign.ts, the window in mobile-window.ts.

/** A client instance id: a UUID, stored lower-case (the native SDKs' `mobileInstanceId`; the widget's per-install id). */
export const instanceId = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'Must be a UUID.')
  .transform((s) => s.toLowerCase());

/** `POST /mobile/v2/sessions` body. */
export const mobileSessionCreate = z.strictObject({ instanceId }).meta({ id: 'MobileSessionCreate' });

/** A session token for one client instance of one program. */
export const mobileSession = z
  .object({
    sessionToken: z.string().meta({ description: 'Send as X-Session-Token on every other call.' }),
    expiresIn: z.number().int().meta({ description: 'Seconds (3600).' }),
    expiresAt: z.number().int().meta({ description: 'Epoch ms.' }),
    programId: z.string(),
  })
  .meta({ id: 'MobileSession' });

const url = z
  .string()
  .max(8192)
  .transform((v) => cleanUrl(v))
  .meta({ description: 'Stored as origin and path only; a query string or fragment is dropped, an unparseable URL ignored.' });
const utmValue = z
  .string()
  .max(1024)
  .transform((v) => stripControls(v).slice(0, ATTRIBUTION_LIMITS.utmValue));

/** An attribution as `shared/attribution.ts` produces it; the server cleans the URLs again. */
export const attribution = z
  .strictObject({
    referralCode: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'A share key, vanity key or participant id.').optional(),
    campaignId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional().meta({ description: 'The program a hosted share URL named; another program’s code is ignored.' }),
    clickId: z.string().regex(/^[\x21-\x7e]{1,128}$/).optional(),
    unique: z.boolean().optional(),
    utm: z.strictObject(Object.fromEntries(UTM_KEYS.map((k) => [k, utmValue.optional()])) as Record<(typeof UTM_KEYS)[number], z.ZodOptional<typeof utmValue>>).optional(),
    destination: url.optional(),
    referrer: url.optional(),
  })
  .meta({ id: 'Attribution' });

/** `POST /mobile/v2/visits` body. */
export const visitCreate = z
  .strictObject({
    visitId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{8,64}$/, 'A client-generated id: the same id for every retry of one visit.')
      .meta({ description: 'Client-generated, the same for every retry of one visit. A time-ordered UUID (version 7) is recommended: it is stored in a time-ordered index.' }),
    attribution: attribution.nullable(),
    provider: z.enum(ATTRIBUTION_PROVIDERS).optional().meta({ description: 'The attribution provider the parameters came from, if any.' }),
    firstVisit: z
      .string()
      .max(256)
      .optional()
      .meta({ description: 'The firstVisit receipt this client holds from an earlier answer: while it is valid (same program, inside the cookie window) it stays the first visit.' }),
  })
  .meta({ id: 'VisitCreate' });

/** Signed visit receipts to keep and attach to participant creation. */
export const visitReceipts = z
  .object({
    firstVisit: z.string().meta({ description: 'The earliest referred visit within the cookie window: the receipt the client sent while still valid, else this visit.' }),
    lastVisit: z.string().meta({ description: 'This visit.' }),
  })
  .meta({ id: 'VisitReceipts' });

/** `POST /mobile/v2/visits` answer. */
export const visitResponse = z
  .object({
    status: z.enum(['RECORDED', 'PROCESSING']).meta({ description: 'PROCESSING: not yet durable; keep the visit queued and send the same visitId again later.' }),
    visitId: z.string(),
    receipts: visitReceipts.nullable().optional().meta({ description: 'On RECORDED: null when the referral code names no participant of this program.' }),
  })
  .meta({ id: 'VisitResponse' });

/** The fields of a participant its owner sees about themselves (no fraud, device or owner-only data). */
export const mobileParticipant = participant
  .pick({
    id: true,
    email: true,
    firstName: true,
    lastName: true,
    shareUrl: true,
    referralCount: true,
    monthlyReferralCount: true,
    prevMonthlyReferralCount: true,
    rank: true,
    monthlyRank: true,
    prevMonthlyRank: true,
    impressionCount: true,
    uniqueImpressionCount: true,
    inviteCount: true,
    leadCount: true,
    createdAt: true,
    referralSource: true,
    referralStatus: true,
    referredBy: true,
    shareCount: true,
    metadata: true,
    unsubscribed: true,
    vanityKeys: true,
    paypalEmailAddress: true,
    payoutSettings: true,
    unreadCommissionsCount: true,
    unreadPayoutsCount: true,
    isAffiliate: true,
    affiliateStatus: true,
    language: true,
  })
  .meta({ id: 'MobileParticipant' });

/** `POST /mobile/v2/participant-token` body: auto-authentication (web-sdk.md §5). */
export const participantAutoAuth = z
  .strictObject({
    email: z
      .string()
      .min(3)
      .max(254)
      .refine((v) => v.includes('@'), 'Must be an email address.')
      .meta({ description: 'Exactly the string the hash was computed over (no case change).' }),
    hash: z.string().regex(/^[0-9a-fA-F]{64}$/, 'Lower-case hex HMAC-SHA256 of the email keyed with the participant auth secret.'),
  })
  .meta({ id: 'ParticipantAutoAuth' });

/** A participant token for the participant API. */
export const mobileParticipantToken = z
  .object({
    participantToken: z.string().meta({ description: 'A JWT (HS256) with sub = participant id and pid = program id; send as Authorization: Bearer.' }),
    expiresIn: z.number().int().meta({ description: 'Seconds (2592000 = 30 days).' }),
    participant: mobileParticipant,
  })
  .meta({ id: 'MobileParticipantToken' });

/** REST P10 `POST /campaign/{id}/mobile-participant-token` answer (rest-v2 §2.28). */
export const mobileParticipantTokenResponse = z
  .object({ participantToken: z.string(), expiresIn: z.number().int(), participant, isNew: z.boolean() })
  .meta({ id: 'MobileParticipantTokenResponse' });

/** REST extension: the participant auth secret, shown once when created. */
export const participantAuthSecret = z
  .object({
    participantAuthSecret: z.string().meta({ description: 'Shown only in this answer; stored sealed. Hash emails with it on your server, never in a browser.' }),
    createdAt: z.number().int(),
  })
  .meta({ id: 'ParticipantAuthSecret' });

/** REST extension: the answer to rotating the participant-token signing secret. */
export const participantTokenSecretRotated = z
  .object({
    success: z.literal(true),
    rotatedAt: z.number().int().meta({ description: 'Epoch ms; every participant token issued before this moment is revoked.' }),
  })
  .meta({ id: 'ParticipantTokenSecretRotated' });

/** A participant as the participant API shows them to themselves. */
export type MobileParticipant = z.infer<typeof mobileParticipant>;
/** A validated visit body. */
export type VisitCreate = z.output<typeof visitCreate>;
/** A visit answer. */
export type VisitResponse = z.infer<typeof visitResponse>;

/** The participant-facing subset of a REST participant. */
export function toMobileParticipant(p: Record<string, unknown>): MobileParticipant {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(mobileParticipant.shape)) if (p[k] !== undefined) out[k] = p[k];
  return out as MobileParticipant;
}
