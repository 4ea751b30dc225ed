import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Program } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import type { ParticipantRow, Q } from '../participants/model.ts';
import { findParticipant } from '../participants/referrals.ts';
import { newOrderedId } from '../../crypto.ts';
import { NotFoundError, ValidationError, translateDbError } from '../../errors.ts';
import type { BillingCode, BillingCodeCreate, BillingCodeList, BillingCodeListQuery } from '../../../shared/schemas/billing-codes.ts';

/** A billing_codes row. */
interface CodeRow {
  id: string;
  program_id: string;
  participant_id: string;
  code: string;
  code_key: string;
  stripe_promotion_code_id: string | null;
  stripe_coupon_id: string | null;
  paddle_discount_id: string | null;
  created_at: number | string;
}

const toCode = (r: CodeRow): BillingCode => ({
  id: r.id,
  participantId: r.participant_id,
  code: r.code,
  stripePromotionCodeId: r.stripe_promotion_code_id,
  stripeCouponId: r.stripe_coupon_id,
  paddleDiscountId: r.paddle_discount_id,
  createdAt: Number(r.created_at),
});

/** The billing system's references a sale names, each kind tried in this order by `codeOwner`. */
export interface CodeRefs {
  stripePromotionCodeIds?: string[];
  paddleDiscountIds?: string[];
  stripeCouponIds?: string[];
  /** The code text itself, when the billing system sends it (an expanded Stripe promotion code). */
  codes?: string[];
}

/** The participant a code names, and which code. */
export interface CodeOwner {
  participant: ParticipantRow;
  /** The billing_codes row's id. */
  id: string;
  code: string;
  /** Which id matched, for the event log. */
  via: string;
}

const COLUMNS: Array<[keyof CodeRefs, keyof CodeRow, string]> = [
  ['stripePromotionCodeIds', 'stripe_promotion_code_id', 'Stripe promotion code'],
  ['paddleDiscountIds', 'paddle_discount_id', 'Paddle discount'],
  ['stripeCouponIds', 'stripe_coupon_id', 'Stripe coupon'],
  ['codes', 'code_key', 'code'],
];

/**
 * The owner of the first mapped code a sale used: promotion code or Paddle discount ids first
 * (they name one code each), then coupon ids, then the code text; null when none is mapped. The
 * one look-up both billing integrations call (Stripe's inbound webhook; Paddle's).
 */
export async function codeOwner(q: Q, programId: string, refs: CodeRefs): Promise<CodeOwner | null> {
  for (const [field, column, label] of COLUMNS) {
    const values = [...new Set((refs[field] ?? []).filter((v) => typeof v === 'string' && v.length > 0 && v.length <= 255))].map((v) => (field === 'codes' ? v.toLowerCase() : v));
    if (!values.length) continue;
    const row = (await q('billing_codes').where('program_id', programId).whereIn(column, values).orderBy('id').first()) as CodeRow | undefined;
    if (!row) continue;
    const participant = await findParticipant(q, programId, row.participant_id);
    if (participant) return { participant, id: row.id, code: row.code, via: `${label} ${String(row[column])}` };
  }
  return null;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 && v.length <= 255 ? v : null);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * The promotion codes and coupons a Stripe Checkout Session or invoice used, wherever the API
 * version puts them: `discounts[]` ({coupon, promotion_code}, or an expanded Discount), the
 * expanded `total_details.breakdown.discounts[].discount`, an invoice's `discount`,
 * `total_discount_amounts[].discount` and the newer `source.coupon`. Unexpanded ids (di_…) name no code.
 */
export function stripeDiscountRefs(object: unknown): CodeRefs {
  const o = obj(object);
  const refs = { stripePromotionCodeIds: [] as string[], stripeCouponIds: [] as string[], codes: [] as string[] };
  if (!o) return refs;
  const discounts: unknown[] = [
    ...list(o.discounts),
    ...list(obj(obj(o.total_details)?.breakdown)?.discounts).map((d) => obj(d)?.discount),
    o.discount,
    ...list(o.total_discount_amounts).map((d) => obj(d)?.discount),
  ];
  for (const d of discounts) {
    const disc = obj(d);
    if (!disc) continue;
    const promo = disc.promotion_code;
    const promoId = str(promo) ?? str(obj(promo)?.id);
    if (promoId) refs.stripePromotionCodeIds.push(promoId);
    const text = str(obj(promo)?.code);
    if (text) refs.codes.push(text);
    for (const c of [disc.coupon, obj(disc.source)?.coupon]) {
      const couponId = str(c) ?? str(obj(c)?.id);
      if (couponId) refs.stripeCouponIds.push(couponId);
    }
  }
  return refs;
}

/**
 * Participants' coupon and promotion codes (refloop extensions, docs/integrations.md "Codes"):
 * created in refloop, each mapped to ids that exist in the billing system, unique per program
 * (the code case-insensitively, and each billing id).
 */
export class BillingCodes {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly participants: Participants,
  ) {}

  /** BC1: adds a code to a participant. A code or billing id the program already has is a 400 naming the field. */
  async create(program: Program, idOrEmail: string, body: BillingCodeCreate): Promise<BillingCode> {
    const knex = this.db.knex;
    const participant = await this.participants.resolve(knex, program, idOrEmail);
    const row: CodeRow = {
      id: newOrderedId(),
      program_id: program.id,
      participant_id: participant.id,
      code: body.code,
      code_key: body.code.toLowerCase(),
      stripe_promotion_code_id: body.stripePromotionCodeId ?? null,
      stripe_coupon_id: body.stripeCouponId ?? null,
      paddle_discount_id: body.paddleDiscountId ?? null,
      created_at: this.clock.now(),
    };
    await this.assertFree(row);
    try {
      await knex('billing_codes').insert(row);
    } catch (err) {
      // Another request took one of them meanwhile: the same answer as the check above.
      const known = translateDbError(err);
      if (known?.status !== 409) throw known ?? err;
      await this.assertFree(row);
      throw known;
    }
    return toCode(row);
  }

  private async assertFree(row: CodeRow): Promise<void> {
    const checks: Array<[keyof CodeRow, string, string]> = [
      ['code_key', 'code', `The code ${row.code} is already used in this program (codes are compared without case).`],
      ['stripe_promotion_code_id', 'stripePromotionCodeId', 'This Stripe promotion code is already mapped to a code in this program.'],
      ['stripe_coupon_id', 'stripeCouponId', 'This Stripe coupon is already mapped to a code in this program.'],
      ['paddle_discount_id', 'paddleDiscountId', 'This Paddle discount is already mapped to a code in this program.'],
    ];
    const errors = [];
    for (const [column, field, message] of checks) {
      if (row[column] == null) continue;
      const taken = await this.db.knex('billing_codes').where({ program_id: row.program_id, [column]: row[column] }).first('id');
      if (taken) errors.push({ field, code: 'CODE_TAKEN', message });
    }
    if (errors.length) throw new ValidationError(errors[0]!.message, errors);
  }

  /** BC2: a participant's codes, oldest first (a participant has few). */
  async listForParticipant(program: Program, idOrEmail: string): Promise<BillingCodeList> {
    const participant = await this.participants.resolve(this.db.knex, program, idOrEmail);
    const rows = (await this.db.knex('billing_codes').where({ program_id: program.id, participant_id: participant.id }).orderBy('id').limit(1000)) as CodeRow[];
    return { codes: rows.map(toCode), limit: rows.length, nextId: null };
  }

  /** BC3: the program's codes, newest first, paged by id. */
  async listForProgram(program: Program, query: BillingCodeListQuery): Promise<BillingCodeList> {
    const q = this.db.knex('billing_codes').where('program_id', program.id);
    if (query.nextId) {
      const from = await this.db.knex('billing_codes').where({ program_id: program.id, id: query.nextId }).first('id');
      if (!from) throw new NotFoundError(`No code ${query.nextId} in this program.`);
      q.where('id', '<=', from.id);
    }
    const rows = (await q.orderBy('id', 'desc').limit(query.limit + 1)) as CodeRow[];
    const page = rows.slice(0, query.limit);
    return { codes: page.map(toCode), limit: query.limit, nextId: rows.length > query.limit ? rows[query.limit]!.id : null };
  }

  /** BC4: deletes one code; sales already attributed stay where they are. */
  async remove(program: Program, codeId: string): Promise<{ id: string; success: true }> {
    const n = await this.db.knex('billing_codes').where({ program_id: program.id, id: codeId }).delete();
    if (!n) throw new NotFoundError(`No code ${codeId.slice(0, 64)} in this program.`);
    return { id: codeId, success: true };
  }
}
