import { z } from 'zod';
import { epochMs } from './common.ts';

// Issued rewards (rest-v2 §2.11, §2.27, §3.9 PR1–PR4) and the referral trigger (§3.8 P8/P9, §2.28).

/** Fulfilment state of an issued reward (`CANCELLED`, known to one SDK, is never produced here). */
export const participantRewardStatus = z.enum(['PENDING', 'FULFILLED']);

/** `ParticipantReward` (§2.11): one reward a participant earned. */
export const participantReward = z
  .object({
    id: z.string(),
    rewardId: z.string().meta({ description: 'The CampaignReward (reward configuration) it was earned under.' }),
    status: participantRewardStatus,
    approved: z.boolean(),
    amount: z.number().nullable().meta({ description: 'Always null for referral rewards (configurations carry no amount).' }),
    currencyISO: z.string().nullable(),
    approvedAt: epochMs.nullable(),
    fulfilledAt: epochMs.nullable(),
    isFulfilled: z.boolean(),
    isAvailable: z.boolean().meta({ description: 'Released to the participant: true once approved.' }),
    isReferrer: z.boolean().meta({ description: 'Earned as the referrer (false: as the referred friend).' }),
    referrerId: z.string().optional().meta({ description: 'The participant who referred; absent on leaderboard prizes.' }),
    referredId: z.string().optional().meta({ description: 'The friend who was referred; absent on leaderboard prizes.' }),
    unread: z.boolean(),
    commissionStructure: z.record(z.string(), z.unknown()).nullable().meta({ description: 'Affiliate programs only; null here.' }),
  })
  .meta({ id: 'ParticipantReward' });

/** `ParticipantListRewardsResponse` (PR1): newest first; `nextId` is null on the last page. */
export const participantRewardList = z
  .object({ rewards: z.array(participantReward), limit: z.number().int(), nextId: z.string().nullable() })
  .meta({ id: 'ParticipantListRewardsResponse' });

/** Default PR1 page size (the references give none). */
export const REWARD_PAGE_DEFAULT = 20;

/** PR1 query: `limit` 1–100 (default 20), `nextId` = the last reward id of the previous page. */
export const participantRewardListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(REWARD_PAGE_DEFAULT),
  nextId: z.string().min(1).max(64).optional().meta({ description: 'The last reward id of the previous page.' }),
});

/** Where an issued reward stands in the owner's queue (PR5): the filter of the program-wide list. */
export const programRewardState = z.enum(['AWAITING_APPROVAL', 'APPROVED', 'FULFILLED', 'ALL']);

/** PR5 query: `state` (default AWAITING_APPROVAL), `limit` 1–100 (default 20), `nextId` = the last reward id of the previous page. */
export const programRewardListQuery = z.object({
  state: programRewardState.default('AWAITING_APPROVAL').meta({
    description: 'AWAITING_APPROVAL: not approved yet; APPROVED: approved but not fulfilled; FULFILLED: marked fulfilled; ALL: every reward not deleted.',
  }),
  limit: z.coerce.number().int().min(1).max(100).default(REWARD_PAGE_DEFAULT),
  nextId: z.string().min(1).max(64).optional().meta({ description: 'The last reward id of the previous page.' }),
});

/** `ProgramReward` (PR5, refloop extension): a ParticipantReward plus who earned it and when. */
export const programReward = participantReward
  .extend({
    participantId: z.string().meta({ description: 'refloop: the participant who earned the reward (its recipient).' }),
    participantEmail: z.string().meta({ description: 'refloop: the recipient’s email address.' }),
    createdAt: epochMs.meta({ description: 'refloop: when the reward was issued.' }),
  })
  .meta({ id: 'ProgramReward' });

/** `ProgramRewardList` (PR5): newest first; `nextId` is null on the last page. */
export const programRewardList = z
  .object({ rewards: z.array(programReward), limit: z.number().int(), nextId: z.string().nullable() })
  .meta({ id: 'ProgramRewardList' });

/** PR6 query (refloop extension): no parameters; an unknown one is refused so a typo is not silently ignored. */
export const programRewardCountsQuery = z.strictObject({});

/** `ProgramRewardCounts` (PR6, refloop extension): how many of the program's rewards are in each PR5 state. */
export const programRewardCounts = z
  .object({
    AWAITING_APPROVAL: z.number().int(),
    APPROVED: z.number().int(),
    FULFILLED: z.number().int(),
    ALL: z.number().int(),
  })
  .meta({ id: 'ProgramRewardCounts' });

/** PR2 body: `fulfill: true` also marks the reward fulfilled (needs `reward:fulfill`). */
export const approveRewardBody = z.strictObject({ fulfill: z.boolean().optional() }).meta({ id: 'ApproveParticipantReward' });

/** Longest `delayInDays` (MCP bound). */
export const MAX_TRIGGER_DELAY_DAYS = 90;

/** P8 body: omit `delayInDays` to credit now. */
export const triggerReferralBody = z
  .strictObject({ delayInDays: z.number().int().min(1).max(MAX_TRIGGER_DELAY_DAYS).optional().meta({ description: 'Whole days, 1–90; omit to credit now.' }) })
  .meta({ id: 'TriggerReferral' });

/** `TriggerReferralResponse` (§2.28): `message` says what happened when credit was not awarded at once. */
export const triggerReferralResponse = z.object({ success: z.boolean(), message: z.string().optional() }).meta({ id: 'TriggerReferralResponse' });

export type ParticipantReward = z.infer<typeof participantReward>;
export type ParticipantRewardList = z.infer<typeof participantRewardList>;
export type ParticipantRewardListQuery = z.infer<typeof participantRewardListQuery>;
export type ProgramReward = z.infer<typeof programReward>;
export type ProgramRewardList = z.infer<typeof programRewardList>;
/** PR6 response. */
export type ProgramRewardCounts = z.infer<typeof programRewardCounts>;
export type ProgramRewardListQuery = z.output<typeof programRewardListQuery>;
export type TriggerReferralResponse = z.infer<typeof triggerReferralResponse>;
