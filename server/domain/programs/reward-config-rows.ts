// A reward configuration between storage and the wire: the reward_configs columns of a resolved
// reward, a row read back, and the CampaignReward shape the API answers with.
import type { CampaignReward } from '../../../shared/schemas/reward-config.ts';
import { EVENT_TYPES, type Resolved } from './reward-config-rules.ts';

/** The wire shape, keys in the order of rest-v2 §2.5. */
export function toWire(id: string, r: Resolved): CampaignReward {
  const out: CampaignReward = {
    id,
    type: r.type,
    isUnlimited: r.isUnlimited,
    metadata: r.metadata,
    title: r.title,
    isVisible: r.isVisible,
    description: r.description,
    referralDescription: r.referralDescription,
    referredRewardUpfront: r.referredRewardUpfront,
    limit: r.isUnlimited ? -1 : (r.limit ?? -1),
    limitDuration: r.limitDuration,
    conversionsRequired: r.conversionsRequired,
    numberOfWinners: r.numberOfWinners,
    order: r.order,
    imageUrl: r.imageUrl,
    couponCode: r.couponCode,
    referralCouponCode: r.referralCouponCode,
    nextMilestonePrefix: r.nextMilestonePrefix,
    nextMilestoneSuffix: r.nextMilestoneSuffix,
    commissionStructure: r.commissionStructure,
    value: r.value,
    referredValue: r.referredValue,
    // refloop extension (issue #24): an unedited starter reward says so; absent otherwise.
    ...(r.isStarter ? { isStarter: true as const } : {}),
  };
  if (!EVENT_TYPES.has(r.type)) return out;
  // `event` sits after isVisible, and only on the types it applies to.
  const { id: _id, type, isUnlimited, metadata, title, isVisible, ...rest } = out;
  return { id, type, isUnlimited, metadata, title, isVisible, event: r.event ?? 'CONVERSION', ...rest };
}

const json = (v: unknown) => (v == null ? null : JSON.stringify(v));
const parsed = (v: unknown) => (v == null ? null : JSON.parse(String(v)));

/** Columns of a resolved reward (everything but ids, program, sequence, times and the starter flag). */
export function toColumns(r: Resolved): Record<string, unknown> {
  return {
    type: r.type,
    title: r.title,
    description: r.description,
    referral_description: r.referralDescription,
    is_visible: r.isVisible,
    is_unlimited: r.isUnlimited,
    event: r.event,
    referred_reward_upfront: r.referredRewardUpfront,
    reward_limit: r.limit,
    limit_duration: r.limitDuration,
    conversions_required: r.conversionsRequired,
    number_of_winners: r.numberOfWinners,
    sort_order: r.order,
    image_url: r.imageUrl,
    coupon_code: r.couponCode,
    referral_coupon_code: r.referralCouponCode,
    next_milestone_prefix: r.nextMilestonePrefix,
    next_milestone_suffix: r.nextMilestoneSuffix,
    metadata: JSON.stringify(r.metadata),
    commission_structure: json(r.commissionStructure),
    value: json(r.value),
    referred_value: json(r.referredValue),
  };
}

const num = (v: unknown) => (v == null ? null : Number(v));

/** Maps a reward_configs row (SQLite returns booleans as 0/1). */
export function fromRow(row: any): Resolved {
  return {
    type: row.type,
    isUnlimited: Boolean(row.is_unlimited),
    metadata: JSON.parse(row.metadata),
    title: row.title,
    isVisible: Boolean(row.is_visible),
    event: row.event,
    description: row.description,
    referralDescription: row.referral_description,
    referredRewardUpfront: Boolean(row.referred_reward_upfront),
    limit: num(row.reward_limit),
    limitDuration: row.limit_duration,
    conversionsRequired: num(row.conversions_required),
    numberOfWinners: num(row.number_of_winners),
    order: Number(row.sort_order),
    imageUrl: row.image_url,
    couponCode: row.coupon_code,
    referralCouponCode: row.referral_coupon_code,
    nextMilestonePrefix: row.next_milestone_prefix,
    nextMilestoneSuffix: row.next_milestone_suffix,
    commissionStructure: parsed(row.commission_structure),
    value: parsed(row.value),
    referredValue: parsed(row.referred_value),
    ...(row.is_starter ? { isStarter: true as const } : {}),
  };
}
