// The rules of a reward configuration (rest-v2 §2.5, §2.7, §3.4): type and commission checks with
// their defaults, and how a PATCH's nested commission structure merges into the stored one.
import type { Program } from './programs.ts';
import type {
  CampaignReward,
  CommissionStructure,
  CommissionStructureInput,
  RewardConfigCreate,
  RewardTaxValuation,
  RewardType,
} from '../../../shared/schemas/reward-config.ts';

/** Reward fields as they reach the rules: parsed request fields, or a stored reward under a patch. */
export type Fields = Omit<RewardConfigCreate, 'type'>;

/** A reward configuration after defaults and rules, as stored: `limit` is the stored limit, `event` null where it does not apply. */
export type Resolved = Omit<CampaignReward, 'id' | 'limit' | 'event'> & { limit: number | null; event: 'LEAD' | 'CONVERSION' | null };

/** Reward types whose earning event is configurable (rest-v2 §2.5 `event`). */
export const EVENT_TYPES = new Set<RewardType>(['SINGLE_SIDED', 'DOUBLE_SIDED', 'MILESTONE']);
const INTRO_KEYS = ['introType', 'introPercent', 'introAmount', 'introAmountISO', 'introDuration', 'introDurationInMonths'] as const;

type Report = (field: string, message: string, code?: string) => void;

interface RuleContext {
  program: Program;
  /** Fields the caller sent; program-state checks (LEAD needs CUSTOM) apply only to what changes. */
  sent: Set<string>;
  /** Order used when none is given. */
  defaultOrder: number;
}

/** Applies the commission rules of rest-v2 §2.7 to a whole structure and fills its defaults. */
function resolveCommission(c: NonNullable<CommissionStructureInput>, currency: string, bad: Report): CommissionStructure {
  const event = c.event ?? 'SALE';
  const type = c.type ?? null;
  if (!type) bad('type', 'Required: PERCENT or FIXED.', 'REQUIRED');
  if (event !== 'SALE' && type === 'PERCENT') bad('type', `${event} commissions must be FIXED with a positive amount.`);
  if (type === 'FIXED') {
    if (c.amount == null) bad('amount', 'Required for FIXED commissions (integer minor units).', 'REQUIRED');
    if (c.percent != null) bad('percent', 'percent applies only to PERCENT commissions.');
  }
  if (type === 'PERCENT') {
    if (c.percent == null) bad('percent', 'Required for PERCENT commissions (0–100, 20 = 20 %).', 'REQUIRED');
    if (c.amount != null) bad('amount', 'amount applies only to FIXED commissions.');
    if (c.amountISO != null) bad('amountISO', 'amountISO applies only to FIXED commissions.');
  }
  const duration = c.duration ?? 'FOREVER';
  if (duration === 'REPEATING' && c.durationInMonths == null) bad('durationInMonths', 'Required when duration is REPEATING.', 'REQUIRED');
  if (duration !== 'REPEATING' && c.durationInMonths != null) bad('durationInMonths', 'durationInMonths applies only when duration is REPEATING.');
  const hasMaxAmount = c.hasMaxAmount ?? false;
  if (hasMaxAmount && c.maxAmount == null) bad('maxAmount', 'Required when hasMaxAmount is true.', 'REQUIRED');
  if (!hasMaxAmount) {
    if (c.maxAmount != null) bad('maxAmount', 'Set hasMaxAmount to true to cap commissions.');
    if (c.maxAmountISO != null) bad('maxAmountISO', 'Set hasMaxAmount to true to cap commissions.');
  }
  const hasIntro = c.hasIntro ?? false;
  const introType = hasIntro ? (c.introType ?? null) : null;
  if (hasIntro) {
    if (!introType) bad('introType', 'Required when hasIntro is true.', 'REQUIRED');
    if (introType === 'PERCENT') {
      if (event !== 'SALE') bad('introType', `${event} commissions can only have a FIXED intro amount.`);
      if (c.introPercent == null) bad('introPercent', 'Required for a PERCENT intro rate.', 'REQUIRED');
      if (c.introAmount != null) bad('introAmount', 'introAmount applies only to a FIXED intro.');
      if (c.introAmountISO != null) bad('introAmountISO', 'introAmountISO applies only to a FIXED intro.');
    }
    if (introType === 'FIXED') {
      if (c.introAmount == null) bad('introAmount', 'Required for a FIXED intro.', 'REQUIRED');
      if (c.introPercent != null) bad('introPercent', 'introPercent applies only to a PERCENT intro.');
    }
    if (!c.introDuration) bad('introDuration', 'Required when hasIntro is true.', 'REQUIRED');
    if (c.introDuration === 'REPEATING' && c.introDurationInMonths == null) bad('introDurationInMonths', 'Required when introDuration is REPEATING.', 'REQUIRED');
    if (c.introDuration === 'ONCE' && c.introDurationInMonths != null) bad('introDurationInMonths', 'introDurationInMonths applies only when introDuration is REPEATING.');
  } else {
    for (const k of INTRO_KEYS) if (c[k] != null) bad(k, 'Set hasIntro to true to use an intro rate.');
  }
  return {
    type: type ?? 'PERCENT',
    percent: type === 'PERCENT' ? (c.percent ?? null) : null,
    amount: type === 'FIXED' ? (c.amount ?? null) : null,
    amountISO: type === 'FIXED' ? (c.amountISO ?? currency) : null,
    event,
    minPaidReferrals: c.minPaidReferrals ?? 1,
    holdDuration: c.holdDuration ?? 0,
    duration,
    durationInMonths: duration === 'REPEATING' ? (c.durationInMonths ?? null) : null,
    approvalRequired: c.approvalRequired ?? false,
    hasMaxAmount,
    maxAmount: hasMaxAmount ? (c.maxAmount ?? null) : null,
    maxAmountISO: hasMaxAmount ? (c.maxAmountISO ?? currency) : null,
    hasIntro,
    introType,
    introPercent: introType === 'PERCENT' ? (c.introPercent ?? null) : null,
    introAmount: introType === 'FIXED' ? (c.introAmount ?? null) : null,
    introAmountISO: introType === 'FIXED' ? (c.introAmountISO ?? currency) : null,
    introDuration: hasIntro ? (c.introDuration ?? null) : null,
    introDurationInMonths: hasIntro && c.introDuration === 'REPEATING' ? (c.introDurationInMonths ?? null) : null,
  };
}

/**
 * The type rules of rest-v2 §2.5/§3.4 and the defaults, applied to a complete set of fields. Every
 * violation is reported (with `bad`) so one 400 lists them all.
 */
export function resolveReward(type: RewardType, f: Fields, ctx: RuleContext, bad: Report): Resolved {
  const { program } = ctx;
  const double = type === 'DOUBLE_SIDED';
  const milestone = type === 'MILESTONE';
  const leaderboard = type === 'LEADERBOARD';
  const affiliate = type === 'AFFILIATE';
  if ((program.type === 'AFFILIATE') !== affiliate) {
    bad(
      'type',
      program.type === 'AFFILIATE'
        ? 'Affiliate programs accept only AFFILIATE rewards.'
        : 'Referral programs accept SINGLE_SIDED, DOUBLE_SIDED, MILESTONE or LEADERBOARD rewards.',
      'INVALID_VALUE',
    );
  }
  let event: Resolved['event'] = null;
  if (EVENT_TYPES.has(type)) {
    event = f.event ?? 'CONVERSION';
    if (event === 'LEAD' && ctx.sent.has('event') && program.documents.installation.referralTrigger !== 'CUSTOM') {
      bad('event', 'LEAD rewards need the program’s installation referralTrigger to be CUSTOM.', 'INVALID_VALUE');
    }
  } else if (f.event != null) {
    bad('event', 'event applies only to SINGLE_SIDED, DOUBLE_SIDED and MILESTONE rewards.');
  }
  if (!double) {
    for (const k of ['referralDescription', 'referralCouponCode', 'referredValue'] as const) {
      if (f[k] != null) bad(k, `${k} applies only to DOUBLE_SIDED rewards.`);
    }
    if (f.referredRewardUpfront === true) bad('referredRewardUpfront', 'referredRewardUpfront applies only to DOUBLE_SIDED rewards.');
  }
  if (!leaderboard && f.numberOfWinners != null) bad('numberOfWinners', 'numberOfWinners applies only to LEADERBOARD rewards.');
  if (!milestone) {
    for (const k of ['nextMilestonePrefix', 'nextMilestoneSuffix'] as const) if (f[k] != null) bad(k, `${k} applies only to MILESTONE rewards.`);
  }
  if (milestone && f.conversionsRequired == null) bad('conversionsRequired', 'Required for MILESTONE rewards.', 'REQUIRED');
  if (affiliate && f.conversionsRequired != null) bad('conversionsRequired', 'AFFILIATE rewards use commissionStructure.minPaidReferrals instead.');
  if (!affiliate && f.commissionStructure != null) bad('commissionStructure', 'commissionStructure applies only to AFFILIATE rewards.');

  let commissionStructure: CommissionStructure | null = null;
  if (affiliate) {
    if (f.commissionStructure == null) bad('commissionStructure', 'Required for AFFILIATE rewards.', 'REQUIRED');
    else commissionStructure = resolveCommission(f.commissionStructure, program.currencyISO, (k, m, c) => bad(`commissionStructure.${k}`, m, c));
  }
  let value = valuation(f.value);
  if (affiliate) {
    // Commissions pay for a service, whatever the caller says (rest-v2 §2.6).
    if (value?.taxCharacter != null && value.taxCharacter !== 'NONEMPLOYEE_SERVICES') {
      bad('value.taxCharacter', 'Commission (AFFILIATE) rewards are always NONEMPLOYEE_SERVICES.');
    }
    value = { fairMarketValueUSD: value?.fairMarketValueUSD ?? null, taxCharacter: 'NONEMPLOYEE_SERVICES' };
  }
  const isUnlimited = f.isUnlimited ?? !milestone;
  // -1 (what responses show for "unlimited") round-trips as "no stored limit"; a limited reward defaults to once.
  const stored = f.limit == null || f.limit === -1 ? null : f.limit;
  return {
    type,
    isUnlimited,
    metadata: f.metadata ?? {},
    title: f.title ?? null,
    isVisible: f.isVisible ?? true,
    event,
    description: f.description ?? null,
    referralDescription: double ? (f.referralDescription ?? null) : null,
    referredRewardUpfront: double ? (f.referredRewardUpfront ?? false) : false,
    limit: stored ?? (isUnlimited ? null : 1),
    limitDuration: f.limitDuration ?? 'IN_TOTAL',
    conversionsRequired: affiliate ? null : (f.conversionsRequired ?? 1),
    numberOfWinners: leaderboard ? (f.numberOfWinners ?? 3) : null,
    order: f.order ?? ctx.defaultOrder,
    imageUrl: f.imageUrl ?? null,
    couponCode: f.couponCode ?? null,
    referralCouponCode: double ? (f.referralCouponCode ?? null) : null,
    nextMilestonePrefix: milestone ? (f.nextMilestonePrefix ?? null) : null,
    nextMilestoneSuffix: milestone ? (f.nextMilestoneSuffix ?? null) : null,
    commissionStructure,
    value,
    referredValue: double ? valuation(f.referredValue) : null,
  };
}

/** A valuation as stored: both keys present (a PATCH or an older client may send only one). */
function valuation(v: Fields['value']): RewardTaxValuation | null {
  return v ? { fairMarketValueUSD: v.fairMarketValueUSD ?? null, taxCharacter: v.taxCharacter ?? null } : null;
}

/** The keys of a patch that were sent (undefined means "not sent"). */
export function sentKeys<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * A PATCH's commissionStructure merged into the stored one (issue #19): keys not sent keep their
 * stored values and null restores a key's default, as for the configuration documents. A stored key
 * the merged switches no longer use (percent after a change to FIXED, the intro fields after hasIntro
 * turns off, …) is dropped rather than reported, since the caller did not send it; a sent one is
 * still checked by `resolveCommission`.
 */
export function mergeCommission(stored: CommissionStructure, patch: NonNullable<CommissionStructureInput>): NonNullable<CommissionStructureInput> {
  const sent = sentKeys(patch);
  const out: Record<string, unknown> = { ...stored, ...sent };
  const intro = out.hasIntro === true;
  const uses: Record<string, boolean> = {
    percent: out.type === 'PERCENT',
    amount: out.type === 'FIXED',
    amountISO: out.type === 'FIXED',
    durationInMonths: out.duration === 'REPEATING',
    maxAmount: out.hasMaxAmount === true,
    maxAmountISO: out.hasMaxAmount === true,
    introType: intro,
    introPercent: intro && out.introType === 'PERCENT',
    introAmount: intro && out.introType === 'FIXED',
    introAmountISO: intro && out.introType === 'FIXED',
    introDuration: intro,
    introDurationInMonths: intro && out.introDuration === 'REPEATING',
  };
  for (const [k, used] of Object.entries(uses)) if (!used && !(k in sent)) delete out[k];
  return out as NonNullable<CommissionStructureInput>;
}
