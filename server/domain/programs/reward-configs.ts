import type { Knex } from 'knex';
import type { Db } from '../db/connect.ts';
import { selectRows } from '../db/rows.ts';
import type { Clock } from '../clock.ts';
import { newId } from '../crypto.ts';
import { AppError, NotFoundError, ValidationError } from '../errors.ts';
import { ERROR_CODES } from '../../shared/errors.ts';
import { COPY_DOCUMENTS, findRewardReferences, metadataRenames, renameRewardReferences, type RewardReference } from './reward-references.ts';
import type { FieldError } from '../../shared/errors.ts';
import type { Program, Programs } from './programs.ts';
import {
  campaignReward,
  type CampaignReward,
  type CommissionStructure,
  type CommissionStructureInput,
  type RewardConfigCreate,
  type RewardConfigUpdate,
  type RewardTaxValuation,
  type RewardType,
} from '../../shared/schemas/reward-config.ts';

/** A program holds at most this many live reward configurations (the list has no pagination). */
export const MAX_REWARD_CONFIGS_PER_PROGRAM = 100;

/** Reward fields as they reach the rules: parsed request fields, or a stored reward under a patch. */
type Fields = Omit<RewardConfigCreate, 'type'>;

/** A reward configuration after defaults and rules, as stored: `limit` is the stored limit, `event` null where it does not apply. */
type Resolved = Omit<CampaignReward, 'id' | 'limit' | 'event'> & { limit: number | null; event: 'LEAD' | 'CONVERSION' | null };

/** Ids we issue are `crew_` + [a-z0-9]; anything else (NUL bytes break PostgreSQL text) cannot exist. */
const plausibleId = (id: string) => /^[A-Za-z0-9_-]{1,64}$/.test(id);

/** Reward types whose earning event is configurable (rest-v2 §2.5 `event`). */
const EVENT_TYPES = new Set<RewardType>(['SINGLE_SIDED', 'DOUBLE_SIDED', 'MILESTONE']);
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
function resolveReward(type: RewardType, f: Fields, ctx: RuleContext, bad: Report): Resolved {
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
function sentKeys<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * A PATCH's commissionStructure merged into the stored one (issue #19): keys not sent keep their
 * stored values and null restores a key's default, as for the configuration documents. A stored key
 * the merged switches no longer use (percent after a change to FIXED, the intro fields after hasIntro
 * turns off, …) is dropped rather than reported, since the caller did not send it; a sent one is
 * still checked by `resolveCommission`.
 */
function mergeCommission(stored: CommissionStructure, patch: NonNullable<CommissionStructureInput>): NonNullable<CommissionStructureInput> {
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

/** The wire shape, keys in the order of rest-v2 §2.5. */
function toWire(id: string, r: Resolved): CampaignReward {
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
  };
  if (!EVENT_TYPES.has(r.type)) return out;
  // `event` sits after isVisible, and only on the types it applies to.
  const { id: _id, type, isUnlimited, metadata, title, isVisible, ...rest } = out;
  return { id, type, isUnlimited, metadata, title, isVisible, event: r.event ?? 'CONVERSION', ...rest };
}

const json = (v: unknown) => (v == null ? null : JSON.stringify(v));
const parsed = (v: unknown) => (v == null ? null : JSON.parse(String(v)));

/** Columns of a resolved reward (everything but ids, program, sequence and times). */
function toColumns(r: Resolved): Record<string, unknown> {
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
function fromRow(row: any): Resolved {
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
  };
}

/** Starter rewards for a new program created without `rewards` (rest-v2 §3.2): hidden placeholders to configure. */
export function starterRewards(program: Pick<Program, 'type' | 'goal'>): RewardConfigCreate[] {
  const hidden = { isVisible: false, metadata: {} };
  if (program.type === 'AFFILIATE') {
    return [
      {
        ...hidden,
        type: 'AFFILIATE',
        title: 'Affiliate commission (placeholder)',
        description: 'Earn 20% of every sale you refer.',
        commissionStructure: { type: 'PERCENT', percent: 20, event: 'SALE', duration: 'FOREVER', holdDuration: 30, minPaidReferrals: 1 },
      },
    ];
  }
  switch (program.goal) {
    case 'HEALTHCARE_PROVIDERS':
      return [{ ...hidden, type: 'SINGLE_SIDED', title: 'Referral reward (placeholder)', description: 'Get a reward for every person you refer.' }];
    case 'SUBSCRIBERS':
      return [1, 3, 5, 10].map((n, i) => ({
        ...hidden,
        type: 'MILESTONE' as const,
        title: `Milestone ${i + 1} reward (placeholder)`,
        description: `Refer ${n} ${n === 1 ? 'friend' : 'friends'} to unlock this reward.`,
        conversionsRequired: n,
        order: i,
        nextMilestonePrefix: 'Refer',
        nextMilestoneSuffix: 'more friends to unlock your next reward',
      }));
    case 'WAITLIST':
      return [{ ...hidden, type: 'LEADERBOARD', title: 'Leaderboard prize (placeholder)', description: 'The top referrers win a prize.', numberOfWinners: 3 }];
    default:
      return [
        {
          ...hidden,
          type: 'DOUBLE_SIDED',
          title: 'Double-sided reward (placeholder)',
          description: 'Refer a friend and you both get a reward.',
          referralDescription: 'Get a reward when you sign up through a friend.',
        },
      ];
  }
}

/** Reward configurations (CampaignReward): create, list, update, soft-delete, copy on clone, starters on create. */
export class RewardConfigs {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** `GET /campaign/{id}/reward-configs`: the same items as `Campaign.rewards`. */
  async list(programId: string, q: Knex | Knex.Transaction = this.db.knex): Promise<CampaignReward[]> {
    return (await this.listMany(q, [programId])).get(programId) ?? [];
  }

  /** Every live configuration of several programs in one query, by `order` then creation (the `Campaign.rewards` loader). */
  async listMany(q: Knex | Knex.Transaction, programIds: string[]): Promise<Map<string, CampaignReward[]>> {
    const out = new Map<string, CampaignReward[]>();
    for (let i = 0; i < programIds.length; i += 500) {
      const chunk = programIds.slice(i, i + 500);
      // Fixed text per chunk size, a cached statement: every webhook payload's campaign reads this.
      const rows = await selectRows<any>(
        this.db,
        q,
        `SELECT * FROM reward_configs WHERE program_id IN (${chunk.map(() => '?').join(', ')}) AND deleted_at IS NULL ORDER BY sort_order ASC, seq ASC, id ASC`,
        chunk,
      );
      for (const row of rows) {
        const list = out.get(row.program_id) ?? [];
        list.push(toWire(row.id, fromRow(row)));
        out.set(row.program_id, list);
      }
    }
    return out;
  }

  /** `POST /campaign/{id}/reward-configs`. */
  async create(program: Program, body: RewardConfigCreate): Promise<CampaignReward> {
    const [created] = await this.db.knex.transaction((trx) => this.createIn(trx, program, [body], () => ''));
    return created!;
  }

  /**
   * Creates several configurations inside the caller's transaction (RC2, `rewards` on C3, starters).
   * All are checked first; any violation throws one 400 naming each field under `prefix(i)`.
   */
  async createIn(trx: Knex.Transaction, program: Program, bodies: RewardConfigCreate[], prefix: (i: number) => string): Promise<CampaignReward[]> {
    if (!bodies.length) return [];
    const stats = await trx('reward_configs')
      .where({ program_id: program.id })
      .select(
        trx.raw('count(case when deleted_at is null then 1 end) as live'),
        trx.raw('max(case when deleted_at is null then sort_order end) as max_order'),
        trx.raw('max(seq) as max_seq'),
      )
      .first();
    const live = Number(stats?.live ?? 0);
    if (live + bodies.length > MAX_REWARD_CONFIGS_PER_PROGRAM) {
      throw new ValidationError(`A program holds at most ${MAX_REWARD_CONFIGS_PER_PROGRAM} reward configurations; delete one first.`);
    }
    let nextOrder = stats?.max_order == null ? 0 : Number(stats.max_order) + 1;
    let seq = stats?.max_seq == null ? 0 : Number(stats.max_seq) + 1;
    const errors: FieldError[] = [];
    const resolved = bodies.map((body, i) => {
      const { type, ...fields } = body;
      const sent = new Set(Object.keys(fields).filter((k) => (fields as Record<string, unknown>)[k] !== undefined));
      const r = resolveReward(type, fields, { program, sent, defaultOrder: nextOrder }, (field, message, code = 'INVALID') =>
        errors.push({ field: `${prefix(i)}${field}`, code, message }),
      );
      nextOrder = Math.max(nextOrder, r.order + 1);
      return r;
    });
    if (errors.length) throw invalid(errors);
    const now = this.clock.now();
    const out: CampaignReward[] = [];
    for (const r of resolved) {
      const id = `crew_${newId()}`;
      const wire = campaignReward.parse(toWire(id, r));
      await trx('reward_configs').insert({ id, program_id: program.id, ...toColumns(r), seq: seq++, created_at: now, updated_at: now });
      out.push(wire);
    }
    return out;
  }

  /** `PATCH …/reward-configs/{campaignRewardId}`: the patch over the stored reward, re-checked as a whole. */
  async update(program: Program, rewardId: string, patch: RewardConfigUpdate): Promise<CampaignReward> {
    return this.db.knex.transaction(async (trx) => {
      // The program row first (copy is read and may be rewritten), as a PATCH of its documents locks it.
      const copy = patch.metadata !== undefined ? await this.copyOf(trx, program.id) : null;
      const row = await this.liveRow(trx, program.id, rewardId);
      const current = fromRow(row);
      const { type: _immutable, ...changes } = patch;
      const sent = new Set(Object.keys(changes).filter((k) => (changes as Record<string, unknown>)[k] !== undefined));
      const merged = { ...current } as Record<string, unknown>;
      for (const k of sent) merged[k] = (changes as Record<string, unknown>)[k];
      // Nested objects merge into what is stored (metadata is replaced whole: rest-v2 §3.4 renames keys by it).
      if (changes.commissionStructure && current.commissionStructure) merged.commissionStructure = mergeCommission(current.commissionStructure, changes.commissionStructure);
      for (const k of ['value', 'referredValue'] as const) {
        const patch = changes[k];
        if (patch && current[k]) merged[k] = { ...current[k], ...sentKeys(patch) };
      }
      const errors: FieldError[] = [];
      const r = resolveReward(row.type, merged as Fields, { program, sent, defaultOrder: current.order }, (field, message, code = 'INVALID') =>
        errors.push({ field, code, message }),
      );
      if (errors.length) throw invalid(errors);
      const wire = campaignReward.parse(toWire(row.id, r));
      if (copy) await this.followMetadata(trx, program.id, row.id, copy, current.metadata, r.metadata);
      await trx('reward_configs').where({ id: row.id }).update({ ...toColumns(r), updated_at: this.clock.now() });
      return wire;
    });
  }

  /** `DELETE …/reward-configs/{campaignRewardId}`: soft delete, so issued rewards keep their configuration. */
  async remove(program: Program, rewardId: string): Promise<{ id: string; success: true }> {
    return this.db.knex.transaction(async (trx) => {
      const copy = await this.copyOf(trx, program.id);
      const row = await this.liveRow(trx, program.id, rewardId);
      const refs = findRewardReferences(copy, row.id);
      if (refs.length) throw stillReferenced(row.id, refs);
      const now = this.clock.now();
      await trx('reward_configs').where({ id: row.id }).update({ deleted_at: now, updated_at: now });
      return { id: rewardId, success: true as const };
    });
  }

  /** The program's copy documents, with its row locked for the rest of the transaction. */
  private async copyOf(trx: Knex.Transaction, programId: string): Promise<Record<string, unknown>> {
    // FOR NO KEY UPDATE: serialises copy edits without holding up the inserts that share-lock the program row (issue #20).
    const row = await trx('programs').where({ id: programId }).forNoKeyUpdate().first(...COPY_DOCUMENTS);
    if (!row) throw new NotFoundError(`No program ${programId}.`);
    return Object.fromEntries(COPY_DOCUMENTS.map((d) => [d, JSON.parse(row[d])]));
  }

  /**
   * rest-v2 §3.4: a metadata replacement rewrites references to renamed keys in program copy, and a
   * removed key that copy still references → 409 listing the referencing fields.
   */
  private async followMetadata(trx: Knex.Transaction, programId: string, rewardId: string, copy: Record<string, unknown>, before: Record<string, string>, after: Record<string, string>): Promise<void> {
    const { renames, removed } = metadataRenames(before, after);
    const gone = new Set(removed);
    const dangling = findRewardReferences(copy, rewardId).filter((ref) => gone.has(ref.key));
    if (dangling.length) throw stillReferenced(rewardId, dangling);
    if (!renames.size) return;
    const next = renameRewardReferences(copy, rewardId, renames);
    if (!next) return;
    await trx('programs')
      .where({ id: programId })
      .update({ ...Object.fromEntries(COPY_DOCUMENTS.map((d) => [d, JSON.stringify(next[d])])), updated_at: this.clock.now() });
  }

  /** Copies the live configurations of `sourceId` into `copyId` with new ids (program clone). */
  async copyAll(trx: Knex.Transaction, sourceId: string, copyId: string): Promise<void> {
    const rows = await trx('reward_configs').where({ program_id: sourceId }).whereNull('deleted_at').orderBy([{ column: 'sort_order' }, { column: 'seq' }, { column: 'id' }]);
    const now = this.clock.now();
    for (const row of rows) {
      await trx('reward_configs').insert({ ...row, id: `crew_${newId()}`, program_id: copyId, deleted_at: null, created_at: now, updated_at: now });
    }
  }

  /** Starter rewards by program type and goal, inside the creating transaction. */
  async createStarters(trx: Knex.Transaction, program: Program): Promise<void> {
    await this.createIn(trx, program, starterRewards(program), () => '');
  }

  /** The live row, locked for the update; unknown, deleted or another program's → 404. */
  private async liveRow(trx: Knex.Transaction, programId: string, rewardId: string): Promise<any> {
    const row = plausibleId(rewardId)
      ? await trx('reward_configs').where({ id: rewardId, program_id: programId }).whereNull('deleted_at').forUpdate().first()
      : undefined;
    if (!row) throw new NotFoundError(`No reward configuration ${rewardId} in program ${programId}.`);
    return row;
  }
}

/** 409: program copy uses metadata of this reward that the change would take away; each referencing field once. */
function stillReferenced(rewardId: string, refs: RewardReference[]): AppError {
  const byField = new Map<string, Set<string>>();
  for (const r of refs) byField.set(r.field, (byField.get(r.field) ?? new Set()).add(r.key));
  const errors: FieldError[] = [...byField].map(([field, keys]) => ({
    field,
    code: 'REWARD_METADATA_REFERENCED',
    message: `Uses ${[...keys].map((k) => `{{campaignReward[${rewardId}].metadata.${k}}}`).join(', ')}.`,
  }));
  return new AppError(409, ERROR_CODES.CONFLICT, 'ConflictError', `Program copy still references metadata of reward ${rewardId} in ${errors.map((e) => e.field).join(', ')}; change that copy first.`, { errors });
}

/** One 400 listing every rule a reward broke. */
function invalid(errors: FieldError[]): ValidationError {
  return new ValidationError(`Invalid reward configuration: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
}

/**
 * Wires reward configurations into the program lifecycle: `Campaign.rewards`, `rewards` (or starters)
 * on create, and copies on clone, each inside the program's own transaction.
 */
export function registerRewardConfigHooks(programs: Programs, rewardConfigs: RewardConfigs): void {
  programs.hooks.rewards = (q, programIds) => rewardConfigs.listMany(q, programIds);
  programs.hooks.created.push(async (trx, program, input) => {
    // An explicit `rewards: []` means "none", so only an absent list gets starters.
    if (input.rewards !== undefined) await rewardConfigs.createIn(trx, program, input.rewards, (i) => `rewards.${i}.`);
    else await rewardConfigs.createStarters(trx, program);
  });
  programs.hooks.cloned.push((trx, source, copy) => rewardConfigs.copyAll(trx, source.id, copy.id));
}
