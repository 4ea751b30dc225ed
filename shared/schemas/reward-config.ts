import { z } from 'zod';

// Reward configurations (rest-v2 §2.5–§2.7, §3.4). Request schemas check shapes and ranges only;
// the rules that depend on the reward type or the program (type fit, event, commission consistency)
// live in server/domain/programs/reward-configs.ts so POST, PATCH and `POST /campaigns` share one code path.

/** Reward configuration types; affiliate programs take `AFFILIATE`, referral programs the other four. */
export const rewardType = z.enum(['SINGLE_SIDED', 'DOUBLE_SIDED', 'MILESTONE', 'LEADERBOARD', 'AFFILIATE']);
/** What earns a reward (SINGLE_SIDED, DOUBLE_SIDED, MILESTONE only); `LEAD` needs the CUSTOM referral trigger. */
export const rewardEvent = z.enum(['LEAD', 'CONVERSION']);
/** Window for a reward's `limit`. */
export const rewardLimitDuration = z.enum(['IN_TOTAL', 'PER_MONTH', 'PER_YEAR']);
/** Why a recipient earns a reward, for tax reporting (later SDKs; replaces `isTaxReportable`). */
export const taxCharacter = z.enum(['NONEMPLOYEE_SERVICES', 'PRIZE_OR_AWARD', 'PURCHASE_REBATE', 'OTHER_INCOME', 'REVIEW_REQUIRED']);
/** What a commission is paid for. */
export const commissionEvent = z.enum(['CLICK', 'LEAD', 'SALE']);
/** Commission basis (also the intro basis). */
export const commissionType = z.enum(['PERCENT', 'FIXED']);
/** How long a commission recurs. */
export const commissionDuration = z.enum(['FOREVER', 'REPEATING', 'ONCE']);
/** How long an intro rate lasts. */
export const commissionIntroDuration = z.enum(['REPEATING', 'ONCE']);

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
// Kept local rather than imported from campaign.ts, which imports this module (no import cycle).
const iso = z
  .string()
  .length(3)
  .transform((s) => s.toUpperCase())
  .refine((s) => CURRENCIES.has(s), { message: 'Must be an ISO 4217 currency code such as USD.' });
/** Money in minor units; positive because a zero commission or cap means nothing. */
const minorAmount = z.number().int().min(1).max(1_000_000_000_000);
/** Percent on the 0–100 scale: `20` means 20 %. */
const percent = z.number().min(0).max(100);
const months = z.number().int().min(1).max(120);

/** `CommissionStructure` as sent: a closed object; consistency rules are checked by the server after defaults. */
export const commissionStructureInput = z
  .strictObject({
    type: commissionType.nullish(),
    percent: percent.nullish(),
    amount: minorAmount.nullish(),
    amountISO: iso.nullish(),
    event: commissionEvent.nullish(),
    minPaidReferrals: z.number().int().min(1).max(10_000).nullish(),
    holdDuration: z.number().int().min(0).max(3650).nullish().meta({ description: 'Days before a commission becomes payable.' }),
    duration: commissionDuration.nullish(),
    durationInMonths: months.nullish(),
    approvalRequired: z.boolean().nullish(),
    hasMaxAmount: z.boolean().nullish(),
    maxAmount: minorAmount.nullish(),
    maxAmountISO: iso.nullish(),
    hasIntro: z.boolean().nullish(),
    introType: commissionType.nullish(),
    introPercent: percent.nullish(),
    introAmount: minorAmount.nullish(),
    introAmountISO: iso.nullish(),
    introDuration: commissionIntroDuration.nullish(),
    introDurationInMonths: months.nullish(),
  })
  .meta({
    id: 'CommissionStructureInput',
    description:
      'Percents use the 0–100 scale (20 = 20 %); amounts are integer minor units; holdDuration is in days. On PATCH, merged into the stored structure: keys not sent keep their values, null restores a key’s default, and stored keys the new type, duration, cap or intro no longer use are dropped.',
  });

/** `CommissionStructure` as returned: every key present, inapplicable ones null. */
export const commissionStructure = z
  .object({
    type: commissionType,
    percent: z.number().nullable(),
    amount: z.number().int().nullable(),
    amountISO: z.string().nullable(),
    event: commissionEvent,
    minPaidReferrals: z.number().int(),
    holdDuration: z.number().int(),
    duration: commissionDuration,
    durationInMonths: z.number().int().nullable(),
    approvalRequired: z.boolean(),
    hasMaxAmount: z.boolean(),
    maxAmount: z.number().int().nullable(),
    maxAmountISO: z.string().nullable(),
    hasIntro: z.boolean(),
    introType: commissionType.nullable(),
    introPercent: z.number().nullable(),
    introAmount: z.number().int().nullable(),
    introAmountISO: z.string().nullable(),
    introDuration: commissionIntroDuration.nullable(),
    introDurationInMonths: z.number().int().nullable(),
  })
  .meta({ id: 'CommissionStructure' });

/**
 * `RewardTaxValuation` as sent: the later shape `{fairMarketValueUSD, taxCharacter}` or the older
 * `{fairMarketValueUSD, isTaxReportable}`, normalised to the later shape (true → OTHER_INCOME,
 * false → PURCHASE_REBATE, null → null = inherit the program's treatment). Keys not sent stay
 * absent, so a PATCH can merge the object into the stored one.
 */
export const rewardTaxValuationInput = z
  .strictObject({
    fairMarketValueUSD: z.number().min(0).max(90071992547409.9).nullish(),
    taxCharacter: taxCharacter.nullish(),
    isTaxReportable: z.boolean().nullish().meta({ description: 'Older clients; mapped to taxCharacter and never returned.' }),
  })
  .refine((v) => v.taxCharacter == null || v.isTaxReportable == null, { message: 'Send taxCharacter or isTaxReportable, not both.', path: ['isTaxReportable'] })
  .transform((v) => {
    const out: { fairMarketValueUSD?: number | null; taxCharacter?: z.infer<typeof taxCharacter> | null } = {};
    if (v.fairMarketValueUSD !== undefined) out.fairMarketValueUSD = v.fairMarketValueUSD;
    if (v.taxCharacter != null || (v.taxCharacter === null && v.isTaxReportable == null)) out.taxCharacter = v.taxCharacter;
    else if (v.isTaxReportable !== undefined) out.taxCharacter = v.isTaxReportable == null ? null : v.isTaxReportable ? 'OTHER_INCOME' : 'PURCHASE_REBATE';
    return out;
  })
  .meta({ id: 'RewardTaxValuationInput', description: 'On PATCH, merged into the stored valuation: keys not sent keep their values.' });

/** `RewardTaxValuation` as returned (the later SDKs' shape). */
export const rewardTaxValuation = z
  .object({ fairMarketValueUSD: z.number().nullable(), taxCharacter: taxCharacter.nullable() })
  .meta({ id: 'RewardTaxValuation' });

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Flat reward metadata: scalar values, stored and returned as strings. */
export const rewardMetadataInput = z
  .record(
    z
      .string()
      .min(1)
      .max(100)
      .refine((k) => !RESERVED_KEYS.has(k), { message: 'This metadata key is reserved.' }),
    z.union([z.string().max(1000), z.number(), z.boolean()]),
  )
  .refine((m) => Object.keys(m).length <= 50, { message: 'At most 50 metadata keys.' })
  .transform((m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, String(v)])) as Record<string, string>)
  .meta({ description: 'Single-level key/value pairs; values are stored as strings.' });

const text = (max: number) => z.string().max(max);
/** Fields shared by create and update; `null` means "default" on create and "clear / reset to default" on update. */
const fields = {
  title: z.string().trim().min(1).max(255).nullish(),
  event: rewardEvent.nullish(),
  description: text(5000).nullish(),
  referralDescription: text(5000).nullish(),
  imageUrl: z.url({ protocol: /^https?$/ }).max(2048).nullish(),
  isVisible: z.boolean().optional(),
  isUnlimited: z.boolean().optional(),
  referredRewardUpfront: z.boolean().optional(),
  limit: z.number().int().min(-1).max(1_000_000).nullish().meta({ description: 'Times a participant may earn it; -1 or null = no limit.' }),
  limitDuration: rewardLimitDuration.nullish(),
  conversionsRequired: z.number().int().min(1).max(1_000_000).nullish(),
  numberOfWinners: z.number().int().min(0).max(1000).nullish(),
  order: z.number().int().min(-1_000_000).max(1_000_000).nullish(),
  nextMilestonePrefix: text(255).nullish(),
  nextMilestoneSuffix: text(255).nullish(),
  couponCode: text(255).nullish(),
  referralCouponCode: text(255).nullish(),
  metadata: rewardMetadataInput.optional().meta({ description: 'Single-level key/value pairs; values are stored as strings. On PATCH, replaced whole: keys not sent are removed.' }),
  commissionStructure: commissionStructureInput.nullish(),
  value: rewardTaxValuationInput.nullish(),
  referredValue: rewardTaxValuationInput.nullish(),
};

/** `POST /campaign/{id}/reward-configs` body (also the items of `rewards` on `POST /campaigns`). */
export const rewardConfigCreate = z.strictObject({ type: rewardType, ...fields }).meta({ id: 'CampaignRewardCreate' });

/** `PATCH /campaign/{id}/reward-configs/{campaignRewardId}` body: partial; `type` is immutable. */
export const rewardConfigUpdate = z
  .strictObject({
    ...fields,
    type: z
      .unknown()
      .optional()
      .refine((v) => v === undefined, { message: 'The reward type cannot change; delete this reward and create another.' })
      .meta({ description: 'Immutable: rejected on update.' })
      .transform(() => undefined),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Send at least one field to change.' })
  .meta({ id: 'CampaignRewardUpdate' });

/** `CampaignReward` as returned; `event` appears only on SINGLE_SIDED, DOUBLE_SIDED and MILESTONE rewards. */
export const campaignReward = z
  .object({
    id: z.string(),
    type: rewardType,
    isUnlimited: z.boolean(),
    metadata: z.record(z.string(), z.string()),
    title: z.string().nullable(),
    isVisible: z.boolean(),
    event: rewardEvent.optional(),
    description: z.string().nullable(),
    referralDescription: z.string().nullable(),
    referredRewardUpfront: z.boolean(),
    limit: z.number().int().meta({ description: '-1 when unlimited.' }),
    limitDuration: rewardLimitDuration,
    conversionsRequired: z.number().int().nullable(),
    numberOfWinners: z.number().int().nullable(),
    order: z.number().int(),
    imageUrl: z.string().nullable(),
    couponCode: z.string().nullable(),
    referralCouponCode: z.string().nullable(),
    nextMilestonePrefix: z.string().nullable(),
    nextMilestoneSuffix: z.string().nullable(),
    commissionStructure: commissionStructure.nullable(),
    value: rewardTaxValuation.nullable(),
    referredValue: rewardTaxValuation.nullable(),
    isStarter: z
      .literal(true)
      .optional()
      .meta({
        description:
          'refloop extension: present (true) on a starter reward, the switched-off placeholder a program created without `rewards` gets (rest-v2 §3.2), until the reward is edited (any PATCH clears it). Absent on every other reward.',
      }),
  })
  .meta({ id: 'CampaignReward' });

/** `GET /campaign/{id}/reward-configs` response. */
export const campaignRewardList = z.object({ rewards: z.array(campaignReward) }).meta({ id: 'CampaignRewardListResponse' });

/** `DELETE …/reward-configs/{campaignRewardId}` response. */
export const deleteWithIdResponse = z.object({ id: z.string(), success: z.boolean() }).meta({ id: 'DeleteWithIdResponse' });

/** A reward configuration type. */
export type RewardType = z.infer<typeof rewardType>;
/** Parsed `POST …/reward-configs` body. */
export type RewardConfigCreate = z.infer<typeof rewardConfigCreate>;
/** Parsed `PATCH …/reward-configs/{campaignRewardId}` body. */
export type RewardConfigUpdate = z.infer<typeof rewardConfigUpdate>;
/** Parsed commission structure as sent (before defaults). */
export type CommissionStructureInput = z.infer<typeof commissionStructureInput>;
/** Commission structure as stored and returned. */
export type CommissionStructure = z.infer<typeof commissionStructure>;
/** Tax valuation as stored and returned. */
export type RewardTaxValuation = z.infer<typeof rewardTaxValuation>;
/** `CampaignReward` on the wire. */
export type CampaignReward = z.infer<typeof campaignReward>;
