import type { CampaignReward } from '../../../shared/schemas/reward-config.ts';
import type { Program } from '../programs/programs.ts';

/** The window payload's `upfrontDiscount` (web-sdk.md §6, docs/integrations.md "Codes"). */
export interface UpfrontDiscount {
  integration: 'stripe';
  promotionCode: string;
  couponId: string | null;
}

/** The reward metadata key an owner puts the billing system's coupon id under. */
export const UPFRONT_COUPON_METADATA_KEY = 'stripeCouponId';

/**
 * The referred-friend discount a referral program gives up front: its first visible DOUBLE_SIDED
 * reward (in the program's order) with `referredRewardUpfront` and a `referralCouponCode` (the
 * promotion code the friend enters); `couponId` is that reward's `metadata.stripeCouponId`, or null.
 * Null for affiliate programs (web-sdk.md §6: not offered) and when no reward qualifies.
 */
export function upfrontDiscountOf(program: Pick<Program, 'type'>, rewards: CampaignReward[]): UpfrontDiscount | null {
  if (program.type !== 'REFERRAL') return null;
  const r = rewards.find((x) => x.type === 'DOUBLE_SIDED' && x.isVisible && x.referredRewardUpfront && x.referralCouponCode?.trim());
  if (!r) return null;
  const couponId = r.metadata?.[UPFRONT_COUPON_METADATA_KEY]?.trim() || null;
  return { integration: 'stripe', promotionCode: r.referralCouponCode!.trim(), couponId };
}
