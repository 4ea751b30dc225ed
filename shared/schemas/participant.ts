import { z } from 'zod';
import { PROGRAM_LANGUAGES } from './program-config-fields.ts';

// Participants (rest-v2 §2.8–§2.10, §2.28, §3.8 P3–P7): the Participant wire shape, the bodies that
// add, change and bulk-delete participants, and the metadata rules they share; the lists of P1 and
// P2 are in participant-list.ts. Request schemas check shapes and lengths; rules that need the
// program or the database (referrer resolution, vanity-key ownership, affiliate rules, the program's
// languages) live in server/domain/participants/.

/** A referral's credit state (`Participant.referralStatus`). */
export const referralStatus = z.enum(['CREDIT_PENDING', 'CREDIT_AWARDED', 'CREDIT_EXPIRED', 'INVITE_SENT']);
/** Statuses P3 accepts; anything else is derived from the program's referral trigger. */
export const referralStatusOnCreate = z.enum(['CREDIT_PENDING', 'CREDIT_AWARDED']);
/** Statuses P5 accepts. */
export const referralStatusOnUpdate = z.enum(['CREDIT_PENDING', 'CREDIT_AWARDED', 'CREDIT_EXPIRED']);
/** How a participant joined. */
export const referralSource = z.enum(['DIRECT', 'PARTICIPANT']);
/** Affiliate enrollment states (affiliate programs only). */
export const affiliateStatus = z.enum(['APPROVED', 'SUSPENDED', 'BANNED']);
/** A program language code (§4 "Program language"). */
export const participantLanguage = z.enum(PROGRAM_LANGUAGES);

/** Metadata limits (ours; the references give none beyond the reserved key). */
export const METADATA_LIMITS = { keys: 50, keyLength: 100, valueLength: 1000 } as const;
/** Participant metadata key the official clients reserve for consent records. */
export const RESERVED_METADATA_KEY = 'gdprAgreements';
/** Vanity keys: at most 5 per participant, each 1–20 of `[A-Za-z0-9_-]`. */
export const VANITY_KEY_PATTERN = /^[A-Za-z0-9_-]{1,20}$/;

const metadataKey = z.string().min(1).max(METADATA_LIMITS.keyLength);
const metadataValue = z.union([z.string().max(METADATA_LIMITS.valueLength), z.number(), z.boolean()]);

/** Checks the key count and the reserved key, shared by create and update. */
function metadataRules(m: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (Object.keys(m).length > METADATA_LIMITS.keys) {
    ctx.addIssue({ code: 'custom', message: `At most ${METADATA_LIMITS.keys} metadata keys.` });
  }
  if (Object.hasOwn(m, RESERVED_METADATA_KEY)) {
    ctx.addIssue({ code: 'custom', path: [RESERVED_METADATA_KEY], message: `${RESERVED_METADATA_KEY} is a reserved metadata key.` });
  }
}

/** P3 metadata: a flat object of string, number or boolean values (stored as strings). */
export const participantMetadataInput = z
  .record(metadataKey, metadataValue)
  .superRefine(metadataRules)
  .meta({ description: 'Flat key/value data; values are stored and returned as strings. Key gdprAgreements is reserved.' });
/** P5 metadata: merged into the stored metadata; a `null` value removes that key. */
export const participantMetadataPatch = z
  .record(metadataKey, metadataValue.nullable())
  .superRefine(metadataRules)
  .meta({ description: 'Merged into the stored metadata; a null value removes the key. Values are stored as strings.' });

const email = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: 'Must be an email address.' }));
const name = z.string().trim().min(1).max(255);
const uuid = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'Must be a UUID.')
  .transform((s) => s.toLowerCase());

/** P3 `POST /campaign/{id}/participant` body (also P10's). */
export const participantCreate = z
  .strictObject({
    email,
    firstName: name.optional(),
    lastName: name.optional(),
    referredBy: z.string().trim().min(1).max(254).optional().meta({ description: 'Referrer participant id, share key, vanity key or email.' }),
    referralStatus: referralStatusOnCreate.optional(),
    ipAddress: z.union([z.ipv4(), z.ipv6()]).optional(),
    fingerprint: z.string().min(1).max(255).optional(),
    mobileInstanceId: uuid.optional(),
    metadata: participantMetadataInput.optional(),
    isAffiliate: z.boolean().optional().meta({ description: 'Affiliate programs only; applies only when the participant is created.' }),
    language: participantLanguage.optional().meta({ description: 'One of the program’s languages; applies only when the participant is created.' }),
  })
  .meta({ id: 'ParticipantCreate' });

/** A field P5 refuses because the server owns it. */
function readOnly(field: string) {
  return z
    .unknown()
    .optional()
    .refine((v) => v === undefined, { message: `${field} is read-only.` })
    .meta({ description: `Read-only: ${field} is rejected on update.` })
    .transform(() => undefined);
}

/** Fields of the Participant object P5 refuses with 400 (counters, origin, fraud state, identity). */
export const PARTICIPANT_READ_ONLY_FIELDS = [
  'id',
  'createdAt',
  'shareUrl',
  'referralCount',
  'monthlyReferralCount',
  'prevMonthlyReferralCount',
  'rank',
  'monthlyRank',
  'prevMonthlyRank',
  'rewards',
  'referralSource',
  'referrer',
  'referrals',
  'monthlyReferrals',
  'fraudReasonCode',
  'allMatchingFraudsters',
  'isWinner',
  'shareCount',
  'impressionCount',
  'uniqueImpressionCount',
  'inviteCount',
  'leadCount',
  'ipAddress',
  'fingerprint',
  'mobileInstanceId',
  'payoutSettings',
  'paypalEmailAddress',
  'unreadCommissionsCount',
  'unreadPayoutsCount',
  'isNew',
  'isAffiliate',
  'affiliateEnrollmentSource',
] as const;

/** Anti-fraud risk levels (`Participant.fraudRiskLevel`, rest-v2 §4). */
export const fraudRiskLevel = z.enum(['LOW', 'MEDIUM', 'HIGH']);

/** P5 `POST /campaign/{id}/participant/{participantIdOrEmail}` body: at least one field. */
export const participantUpdate = z
  .strictObject({
    email: email.optional(),
    firstName: z.string().trim().max(255).optional(),
    lastName: z.string().trim().max(255).optional(),
    referredBy: z.string().trim().min(1).max(100).optional(),
    referralStatus: referralStatusOnUpdate.optional(),
    metadata: participantMetadataPatch.optional(),
    vanityKeys: z
      .array(z.string().regex(VANITY_KEY_PATTERN, 'Each vanity key is 1–20 characters of A–Z, a–z, 0–9, _ and -.'))
      .max(5)
      .optional()
      .meta({ description: 'Replaces every vanity key of the participant; [] removes them all.' }),
    unsubscribed: z.boolean().optional(),
    notes: z.string().max(500).optional(),
    paypalEmail: email.optional().meta({ description: 'Older clients (MCP 0.10.0): payout PayPal address, read back as paypalEmailAddress.' }),
    affiliateStatus: affiliateStatus.optional().meta({ description: 'Affiliate programs only: APPROVED also enrolls a non-affiliate; SUSPENDED and BANNED only apply to affiliates.' }),
    language: participantLanguage.nullable().optional().meta({ description: 'One of the program’s languages; null or the base language resets to the base language.' }),
    fraudRiskLevel: z
      .enum(fraudRiskLevel.options, { error: 'fraudRiskLevel must be LOW, MEDIUM or HIGH (an owner override; the other fraud fields are read-only).' })
      .optional()
      .meta({ description: 'refloop: the owner’s manual anti-fraud verdict; sets fraudReasonCode MANUAL_UPDATE and emits PARTICIPANT_FRAUD_STATUS_UPDATED when it changes. Later automatic checks do not override it.' }),
    ...Object.fromEntries(PARTICIPANT_READ_ONLY_FIELDS.map((f) => [f, readOnly(f)])),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Send at least one field to change.' })
  .meta({ id: 'ParticipantUpdate' }) as unknown as z.ZodType<ParticipantUpdate>;

/** The P5 body after validation. */
export interface ParticipantUpdate {
  email?: string;
  firstName?: string;
  lastName?: string;
  referredBy?: string;
  referralStatus?: z.infer<typeof referralStatusOnUpdate>;
  metadata?: Record<string, string | number | boolean | null>;
  vanityKeys?: string[];
  unsubscribed?: boolean;
  notes?: string;
  paypalEmail?: string;
  affiliateStatus?: z.infer<typeof affiliateStatus>;
  language?: z.infer<typeof participantLanguage> | null;
  fraudRiskLevel?: z.infer<typeof fraudRiskLevel>;
}

/**
 * `payoutSettings.requiredActions` values (§2.10, §4): the ones the official Python client and MCP
 * server accept. A missing payout destination of any provider is PAYPAL_EMAIL (the TS SDK's
 * PAYOUT_DESTINATION is never sent).
 */
export const PAYOUT_REQUIRED_ACTIONS = ['PAYPAL_EMAIL', 'TAX_INFO'] as const;
/** One `payoutSettings.requiredActions` value. */
export type PayoutRequiredAction = (typeof PAYOUT_REQUIRED_ACTIONS)[number];

/** `PayoutSettings` (§2.10). */
export const payoutSettings = z
  .object({
    requiredActions: z.array(z.enum(PAYOUT_REQUIRED_ACTIONS)).meta({
      description:
        'What the participant must still do before a payout is released: PAYPAL_EMAIL while no enabled payout provider has a confirmed destination (whichever provider it is), TAX_INFO while options.payoutSettings.requireTaxInfo is on and no tax form was submitted. Empty when nothing is needed.',
    }),
  })
  .meta({ id: 'PayoutSettings' });

const counters = {
  referralCount: z.number().int(),
  monthlyReferralCount: z.number().int(),
  prevMonthlyReferralCount: z.number().int(),
  rank: z.number().int(),
  monthlyRank: z.number().int(),
  prevMonthlyRank: z.number().int(),
  impressionCount: z.number().int(),
  uniqueImpressionCount: z.number().int(),
  inviteCount: z.number().int(),
  leadCount: z.number().int(),
};

/** `Referrer` (§2.9): the summary of who referred a participant. */
export const referrer = z
  .object({
    id: z.string(),
    createdAt: z.number().int(),
    email: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    fingerprint: z.string().nullable(),
    ipAddress: z.string().nullable(),
    fraudReasonCode: z.string().optional(),
    fraudRiskLevel: z.enum(['LOW', 'MEDIUM', 'HIGH']),
    isWinner: z.boolean(),
    metadata: z.record(z.string(), z.string()),
    ...counters,
    referrals: z.array(z.string()),
    monthlyReferrals: z.array(z.string()),
    referralSource: referralSource,
    referralStatus: referralStatus.optional(),
    shareCount: z.record(z.string(), z.number().int()),
    shareUrl: z.string().optional(),
    unsubscribed: z.boolean(),
  })
  .meta({ id: 'Referrer' });

/** `Participant` (§2.8). */
export const participant = z
  .object({
    id: z.string(),
    email: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    shareUrl: z.string().meta({ description: "The participant's referral link; sent for every participant, affiliate-program customers and not-approved affiliates included (the official clients require it)." }),
    ...counters,
    rewards: z.array(z.record(z.string(), z.unknown())),
    createdAt: z.number().int(),
    referralSource: referralSource,
    referralStatus: referralStatus.optional(),
    referredBy: z.string().optional(),
    referrer: referrer.nullable().optional(),
    referrals: z.array(z.string()),
    monthlyReferrals: z.array(z.string()),
    fraudRiskLevel: z.enum(['LOW', 'MEDIUM', 'HIGH']),
    fraudReasonCode: z.string().optional(),
    allMatchingFraudsters: z
      .array(z.object({ id: z.string(), email: z.string() }))
      .meta({ description: 'refloop: other participants of the program the anti-fraud checks matched (same email pattern, device or IP as the referrer; same device as others), at most 20.' }),
    isWinner: z.boolean(),
    shareCount: z.record(z.string(), z.number().int()),
    ipAddress: z.string().nullable(),
    fingerprint: z.string().nullable(),
    mobileInstanceId: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    notes: z.string().nullable(),
    unsubscribed: z.boolean(),
    vanityKeys: z.array(z.string()),
    paypalEmailAddress: z.string().optional(),
    payoutSettings,
    unreadCommissionsCount: z.number().int().optional().meta({ description: 'Affiliate programs: commissions added since the affiliate last marked them read.' }),
    unreadPayoutsCount: z.number().int().optional().meta({ description: 'Affiliate programs: payouts issued since the affiliate last marked them read.' }),
    isNew: z.boolean().optional(),
    isAffiliate: z.boolean().optional(),
    affiliateStatus: affiliateStatus.nullable().optional(),
    affiliateEnrollmentSource: z.string().nullable().optional(),
    language: participantLanguage,
  })
  .meta({ id: 'Participant' });

/** P7 body: 1–200 ids or emails, mixed. */
export const bulkDeleteBody = z
  .strictObject({ participants: z.array(z.string().min(1).max(254)).min(1).max(200) })
  .meta({ id: 'BulkDeleteParticipants' });

/** Per-row outcome of a bulk delete. */
export const bulkDeleteStatus = z.enum(['DELETED', 'NOT_FOUND', 'DUPLICATE', 'ERROR']);

/** `BulkDeleteResponse` (§2.28): results in request order. */
export const bulkDeleteResponse = z
  .object({
    summary: z.object({
      total: z.number().int(),
      deletedCount: z.number().int(),
      notFoundCount: z.number().int(),
      duplicateCount: z.number().int(),
      errorCount: z.number().int(),
    }),
    results: z.array(
      z.object({
        index: z.number().int(),
        identifier: z.string(),
        status: bulkDeleteStatus,
        participantId: z.string().optional(),
        email: z.string().optional(),
        message: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'BulkDeleteResponse' });

export type Participant = z.infer<typeof participant>;
export type Referrer = z.infer<typeof referrer>;
export type ParticipantCreate = z.infer<typeof participantCreate>;
export type BulkDeleteResponse = z.infer<typeof bulkDeleteResponse>;
export type ReferralStatus = z.infer<typeof referralStatus>;
