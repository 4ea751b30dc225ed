import { z } from 'zod';
import { epochMs } from './common.ts';
import { fraudRiskLevel, referralStatus } from './participant.ts';

// The fraud review queue (FR1, a refloop extension): the participants the anti-fraud checks
// flagged, or whose level the owner set, with the decisions that say why. The owner's verdict is
// recorded through P5 `fraudRiskLevel` (reason code MANUAL_UPDATE).

/** Which participants FR1 lists. */
export const fraudReviewState = z.enum(['OPEN', 'DECIDED', 'ALL']);

/** FR1 query: `state` (default OPEN), `limit` 1–100 (default 20), `nextId` = the last participant id of the previous page. */
export const fraudReviewQuery = z.object({
  state: fraudReviewState.default('OPEN').meta({
    description: 'OPEN: flagged MEDIUM or HIGH by the automatic checks and not yet decided by the owner; DECIDED: the owner set the level (fraudReasonCode MANUAL_UPDATE); ALL: both.',
  }),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  nextId: z.string().min(1).max(64).optional().meta({ description: 'The last participant id of the previous page.' }),
});

/** `FraudDecision`: one stored anti-fraud decision about a participant. */
export const fraudDecision = z
  .object({
    id: z.string(),
    riskLevel: fraudRiskLevel,
    previousRiskLevel: fraudRiskLevel.nullable().meta({ description: 'Null on the sign-up decision.' }),
    reasonCode: z.string().meta({ description: 'The main reason (rest-v2 §4 lists UNIQUE_IDENTITY, DUPLICATE_EMAIL, MANUAL_UPDATE; refloop adds SELF_REFERRAL, SAME_IP, BLOCKED_EMAIL and others).' }),
    reasons: z.array(z.string()).meta({ description: 'Every rule and signal that matched, as English sentences.' }),
    matches: z.array(z.string()).meta({ description: 'Ids of the other participants the checks matched.' }),
    source: z.enum(['AUTOMATIC', 'MANUAL']),
    context: z.enum(['SIGNUP', 'REFERRAL_CHANGE', 'OWNER_UPDATE']),
    applied: z.boolean().meta({ description: 'False when an earlier owner verdict kept this automatic result off the participant.' }),
    createdAt: epochMs,
  })
  .meta({ id: 'FraudDecision' });

/** `FraudReviewItem`: a participant under review, its current fraud state and its newest decisions. */
export const fraudReviewItem = z
  .object({
    id: z.string(),
    email: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    createdAt: epochMs,
    referrerId: z.string().nullable(),
    referralStatus: referralStatus.nullable(),
    fraudRiskLevel,
    fraudReasonCode: z.string().nullable(),
    allMatchingFraudsters: z.array(z.object({ id: z.string(), email: z.string() })),
    decisions: z.array(fraudDecision).meta({ description: 'Newest first, at most 10.' }),
  })
  .meta({ id: 'FraudReviewItem' });

/** `FraudReviewList` (FR1): newest participants first; `nextId` is null on the last page. */
export const fraudReviewList = z
  .object({ participants: z.array(fraudReviewItem), limit: z.number().int(), nextId: z.string().nullable() })
  .meta({ id: 'FraudReviewList' });

/** FR2 query (refloop extension): no parameters; an unknown one is refused so a typo is not silently ignored. */
export const fraudReviewCountsQuery = z.strictObject({});

/** `FraudReviewCounts` (FR2, refloop extension): how many participants FR1 lists in each state. */
export const fraudReviewCounts = z
  .object({
    OPEN: z.number().int(),
    DECIDED: z.number().int(),
    ALL: z.number().int(),
  })
  .meta({ id: 'FraudReviewCounts' });

export type FraudReviewQuery = z.output<typeof fraudReviewQuery>;
/** FR2 response. */
export type FraudReviewCounts = z.infer<typeof fraudReviewCounts>;
export type FraudReviewItem = z.infer<typeof fraudReviewItem>;
export type FraudReviewList = z.infer<typeof fraudReviewList>;
export type FraudDecisionWire = z.infer<typeof fraudDecision>;
