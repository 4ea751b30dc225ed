import type { Knex } from 'knex';
import type { z } from 'zod';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Program, Programs } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import { historyWrites, type ParticipantRow } from '../participants/model.ts';
import type { RewardConfigs } from '../programs/reward-configs.ts';
import type { Webhooks } from '../messaging/webhooks.ts';
import type { ExchangeRates } from '../platform/exchange-rates.ts';
import { money } from '../messaging/email-layout.ts';
import type { ProgramEmails } from '../messaging/program-emails.ts';
import { knowTeamVerified } from '../platform/known-team.ts';
import type { Jobs } from '../platform/jobs.ts';
import { PAYOUT_RUN_JOB, nextMonthStart } from './payouts.ts';
import { newId } from '../../crypto.ts';
import { ValidationError, translateDbError, ConflictError } from '../../errors.ts';
import { insertRow } from '../../db/rows.ts';
import { commissionFor, counts, monthsBetween, newCommissionRow, toCommission, type CommissionRow } from './commissions.ts';
import type { Commission } from '../../../shared/schemas/commission.ts';
import { Refunds, identifiersOf, matchingTransactions } from './transaction-refunds.ts';
import { TRANSACTION_ID_FIELDS, transactionCreate, transactionRefund, type TransactionCreate, type TransactionIdField, type TransactionRecorded, type TransactionRefunded } from '../../../shared/schemas/transaction.ts';
import type { CommissionStructure } from '../../../shared/schemas/reward-config.ts';
import type { AuditWrite } from '../platform/audit.ts';

/** Validates a body the way the REST pipeline does, for callers that skip it (MCP tools). */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body ?? {});
  if (r.success) return r.data;
  const errors = r.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', code: 'INVALID', message: i.message }));
  throw new ValidationError(`Invalid request body: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
}

/** A commission another product already decided (`refloop import csv`): its amount in the sale's currency, its state and when it was earned, paid or reversed. */
export interface ImportedCommission {
  amount: number;
  status: Commission['status'];
  createdAt: number;
  paidAt?: number | null;
}

/** The affiliate a customer's sales earn for: their referrer, while enrolled and not suspended or banned. */
export function earningAffiliate(referrer: ParticipantRow | undefined): ParticipantRow | null {
  if (!referrer || !referrer.is_affiliate) return null;
  return referrer.affiliate_status === 'SUSPENDED' || referrer.affiliate_status === 'BANNED' ? null : referrer;
}

/**
 * Affiliate transactions (rest-v2 §3.12 AF8 record, AF9 refund). A sale is recorded for the
 * customer named in the path and earns commissions for the affiliate who referred them, under every
 * live AFFILIATE reward configuration whose structure is for SALE. Everything (sale, identifiers,
 * commissions, the affiliate's totals and unread count, NEW_COMMISSION_ADDED) is one transaction.
 */
export class Transactions {
  /** AF9. */
  readonly refunds: Refunds;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly programs: Programs,
    private readonly participants: Participants,
    private readonly rewardConfigs: RewardConfigs,
    private readonly webhooks: Pick<Webhooks, 'emit' | 'listens'>,
    private readonly rates: ExchangeRates,
    private readonly emails: Pick<ProgramEmails, 'sendProgramEmail'>,
    private readonly jobs: Pick<Jobs, 'enqueue'>,
  ) {
    this.refunds = new Refunds(db, clock, participants, (trx, program, affiliateId, rows) => this.announce(trx, program, affiliateId, rows, 'COMMISSION_ADJUSTED'));
    participants.hooks.created.push((trx, program, participant, _ledger, referrer) => this.onReferredSignup(trx, program, participant, referrer));
  }

  /**
   * LEAD commissions: a customer referred by an affiliate signs up (inside the sign-up's
   * transaction). One per customer and structure; FIXED amounts in the program currency.
   */
  async onReferredSignup(trx: Knex.Transaction, program: Program, customer: ParticipantRow, referrer: ParticipantRow | null): Promise<void> {
    if (program.type !== 'AFFILIATE' || !customer.referred_by || historyWrites.has(trx)) return;
    const structures = (await this.rewardConfigs.list(program.id, trx)).filter((r) => r.type === 'AFFILIATE' && r.commissionStructure?.event === 'LEAD');
    if (!structures.length) return;
    // The referrer as the sign-up left it (its `referred_by`, in this program).
    const affiliate = earningAffiliate(referrer ?? undefined);
    if (!affiliate) return;
    const now = this.clock.now();
    const currency = program.currencyISO;
    const created: CommissionRow[] = [];
    for (const config of structures) {
      const s = config.commissionStructure as CommissionStructure;
      const seen = await trx('commissions').where({ referrer_id: affiliate.id, referred_id: customer.id, reward_config_id: config.id, event: 'LEAD' }).first('id');
      if (seen) continue;
      // A structure amount the rate table cannot convert earns nothing here: a sign-up never fails over a commission.
      let convertible = true;
      const result = commissionFor(s, {
        event: 'LEAD',
        saleAmount: 0,
        currency,
        saleIndex: 0,
        monthsSinceFirstSale: 0,
        earnedSoFar: 0,
        convert: (amount, iso) => {
          const c = iso === currency ? { amount } : this.rates.convert(amount, iso, currency);
          if (!c) convertible = false;
          return c?.amount ?? 0;
        },
      });
      if (!result || !convertible) continue;
      const row = newCommissionRow(program, config.id, affiliate.id, customer.id, s, now, { event: 'LEAD', transactionId: null, currency, amount: result.amount, inCampaign: result.amount, saleAmount: null, saleInCampaign: null, rate: null });
      await insertRow(this.db, trx, 'commissions', row as unknown as Record<string, unknown>);
      created.push(row);
    }
    if (!created.length) return;
    await this.participants.adjustCounters(trx, program.id, affiliate.id, { commission_total: created.reduce((n, c) => n + Number(c.amount), 0) });
    await trx('participants').where({ id: affiliate.id }).increment('unread_commissions_count', created.length);
    await this.announce(trx, program, affiliate.id, created, 'NEW_COMMISSION_ADDED');
    await this.schedulePayoutRun(trx, program, now);
  }

  /** The program's monthly payout run (first day of next month, UTC), queued once per month by the first commission. */
  private async schedulePayoutRun(trx: Knex.Transaction, program: Program, now: number): Promise<void> {
    const runAt = nextMonthStart(now);
    await this.jobs.enqueue(trx, PAYOUT_RUN_JOB, { programId: program.id }, { runAt, uniqueKey: `payout-run:${program.id}:${runAt}` });
  }

  /**
   * AF8 (also the MCP tool `growsurf_record_sale`): records a sale, or answers the duplicate branch
   * when any identifier was seen before in the program. Returns exactly the REST response object.
   * `teamVerificationStatus`: the team's state as the request's credential read it (the program
   * emails then need not read it again); `audit`: the request's audit entry, written in the sale's transaction.
   */
  async record(program: Program, idOrEmail: string, input: unknown, opts: { teamVerificationStatus?: string; audit?: AuditWrite } = {}): Promise<TransactionRecorded> {
    const body = parseBody(transactionCreate, input);
    const ids = identifiersOf(body);
    const toCampaign = this.rates.rate(body.currency, program.currencyISO);
    if (!toCampaign) throw this.noRate('currency', body.currency, program.currencyISO);
    try {
      // Concurrent sales share one SQLite transaction, each in its own savepoint (group commit): with
      // synchronous FULL every COMMIT waits for a sync of the WAL, which one group pays once.
      // The request's audit entry rides the same transaction (issue #35): one INSERT at its end.
      return await this.db.grouped(async (trx) => {
        if (opts.teamVerificationStatus !== undefined) knowTeamVerified(trx, program.teamId, opts.teamVerificationStatus);
        const out = await this.#record(trx, program, idOrEmail, body, ids, toCampaign);
        await opts.audit?.(trx, out);
        return out;
      });
    } catch (err) {
      // Two requests with the same new identifier raced; the loser answers as the duplicate it is.
      if (translateDbError(err) instanceof ConflictError) {
        const dup = await this.duplicate(this.db.knex, program.id, ids);
        if (dup) return dup;
      }
      throw err;
    }
  }

  /** AF9 (also the MCP tool `growsurf_refund_transaction`). Returns exactly the REST response object; `audit`: see `Refunds.apply`. */
  refund(program: Program, idOrEmail: string, input: unknown, audit?: AuditWrite): Promise<TransactionRefunded> {
    return this.refunds.apply(program, idOrEmail, parseBody(transactionRefund, input), audit);
  }

  /**
   * A sale moved in from another product's export (`refloop import csv`): AF8's own record inside
   * the caller's transaction (so one bad row never leaves half a sale), deduplicated by its
   * identifiers as AF8 is. With `commissions` the source's amounts and states are kept instead of
   * computing them from the program's structure (what the affiliate was actually owed); either way
   * no email or webhook goes out, because the imported history is not lived again.
   */
  async recordImported(trx: Knex.Transaction, program: Program, customerId: string, input: unknown, commissions: ImportedCommission[] | null): Promise<TransactionRecorded> {
    const body = parseBody(transactionCreate, input);
    const toCampaign = this.rates.rate(body.currency, program.currencyISO);
    if (!toCampaign) throw this.noRate('currency', body.currency, program.currencyISO);
    return this.#record(trx, program, customerId, body, identifiersOf(body), toCampaign, { commissions });
  }

  private noRate(field: string, from: string, to: string): ValidationError {
    return new ValidationError(`No exchange rate from ${from} to ${to}: the operator’s rate table (EXCHANGE_RATES_FILE) does not cover it.`, [
      { field, code: 'EXCHANGE_RATE_UNAVAILABLE', message: `No exchange rate from ${from} to ${to}.` },
    ]);
  }

  /** The duplicate branch of RecordTransactionResponse, or null when no identifier was seen. */
  private async duplicate(q: Knex | Knex.Transaction, programId: string, ids: Array<{ kind: string; value: string }>): Promise<TransactionRecorded | null> {
    const matches = await matchingTransactions(q, programId, ids);
    if (matches.size === 0) return null;
    const commissionIds: Array<{ id: string }> = await q('commissions').whereIn('transaction_id', [...matches.keys()]).orderBy('created_at').select('id');
    const fields = [...new Set([...matches.values()].flat())].sort((a, b) => TRANSACTION_ID_FIELDS.indexOf(a as TransactionIdField) - TRANSACTION_ID_FIELDS.indexOf(b as TransactionIdField));
    return {
      success: false,
      duplicate: true,
      commissionsCreated: commissionIds.length,
      duplicateFields: fields,
      matchingCommissionIds: commissionIds.map((c) => c.id),
      message: `A transaction with the same ${fields.join(', ')} was already recorded; nothing was changed.`,
    };
  }

  async #record(
    trx: Knex.Transaction,
    program: Program,
    idOrEmail: string,
    body: TransactionCreate,
    ids: Array<{ kind: TransactionIdField; value: string }>,
    toCampaign: { rate: number; at: number },
    imported?: { commissions: ImportedCommission[] | null },
  ): Promise<TransactionRecorded> {
    // The customer's row lock orders their sales, so "first sale" and month counts are exact.
    const customer = await this.participants.resolve(trx, program, idOrEmail, { lock: true });
    const dup = await this.duplicate(trx, program.id, ids);
    if (dup) return dup;
    // Then the referrer's, before this sale inserts anything that references them: every sale of
    // their customers updates their totals, so their sales run one at a time (paid-referral counts
    // and max-amount sums read exact values) and no sale waits for another's share lock (issue #20).
    const referrer = customer.referred_by
      ? ((await trx('participants').where({ id: customer.referred_by, program_id: program.id }).forNoKeyUpdate().first()) as ParticipantRow | undefined)
      : undefined;
    const now = this.clock.now();
    const paidAt = body.paidAt ?? now;
    const currency = body.currency;
    const converted = currency !== program.currencyISO;
    const inCampaign = (amount: number) => (converted ? this.rates.convert(amount, currency, program.currencyISO)!.amount : amount);
    const commissionable = body.netAmount ?? body.grossAmount - (body.taxAmount ?? 0);
    const affiliate = earningAffiliate(referrer);

    // The customer's earlier sales: all of them (firstSale), and those credited to this affiliate (recurrence).
    const prior = await trx('affiliate_transactions')
      .where({ customer_id: customer.id })
      .select(
        trx.raw('COUNT(*) AS n'),
        trx.raw('SUM(CASE WHEN referrer_id = ? THEN 1 ELSE 0 END) AS mine', [affiliate?.id ?? '']),
        trx.raw('MIN(CASE WHEN referrer_id = ? THEN paid_at END) AS first', [affiliate?.id ?? '']),
      )
      .first();
    const firstSale = Number(prior?.n ?? 0) === 0;
    const transactionId = newId();
    const details: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) if (v != null) details[k] = v;
    await insertRow(this.db, trx, 'affiliate_transactions', {
      id: transactionId,
      program_id: program.id,
      customer_id: customer.id,
      referrer_id: affiliate?.id ?? null,
      currency_iso: currency,
      gross_amount: body.grossAmount,
      commissionable_amount: commissionable,
      gross_amount_in_campaign_currency: inCampaign(body.grossAmount),
      exchange_rate: converted ? toCampaign.rate : null,
      exchange_rate_at: converted ? toCampaign.at : null,
      paid_at: paidAt,
      amount_refunded: 0,
      amendment_type: null,
      created_at: now,
      updated_at: now,
      details: JSON.stringify(details),
    });
    for (const { kind, value } of ids) await insertRow(this.db, trx, 'transaction_keys', { program_id: program.id, kind, value, transaction_id: transactionId });

    const created: CommissionRow[] = [];
    if (affiliate && imported?.commissions) {
      const configs = (await this.rewardConfigs.list(program.id, trx)).filter((r) => r.type === 'AFFILIATE' && r.commissionStructure);
      const config = configs.find((r) => r.commissionStructure!.event === 'SALE') ?? configs[0];
      if (!config) throw new ValidationError('The program has no commission structure to file imported commissions under.', [{ field: 'rewards', code: 'INVALID_STATE', message: 'The program has no affiliate reward configuration.' }]);
      for (const c of imported.commissions) {
        const row = newCommissionRow(program, config.id, affiliate.id, customer.id, config.commissionStructure as CommissionStructure, c.createdAt, {
          event: 'SALE',
          transactionId,
          currency,
          amount: c.amount,
          inCampaign: inCampaign(c.amount),
          saleAmount: commissionable,
          saleInCampaign: inCampaign(commissionable),
          rate: converted ? toCampaign : null,
        });
        // The source's state, not the structure's: a PENDING one waits for the owner (its hold clock stayed behind).
        Object.assign(row, {
          status: c.status,
          auto_approve_at: null,
          approved_at: c.status === 'APPROVED' || c.status === 'PAID' ? c.createdAt : null,
          paid_at: c.status === 'PAID' ? (c.paidAt ?? c.createdAt) : null,
          paid_amount: c.status === 'PAID' ? c.amount : null,
          reversed_at: c.status === 'REVERSED' ? (c.paidAt ?? c.createdAt) : null,
          updated_at: now,
        });
        await insertRow(this.db, trx, 'commissions', row as unknown as Record<string, unknown>);
        created.push(row);
      }
    } else if (affiliate) {
      const structures = (await this.rewardConfigs.list(program.id, trx)).filter((r) => r.type === 'AFFILIATE' && r.commissionStructure?.event === 'SALE');
      if (structures.length) {
        const saleIndex = Number(prior?.mine ?? 0);
        const firstPaidAt = saleIndex ? Math.min(Number(prior!.first), paidAt) : paidAt;
        for (const config of structures) {
          const s = config.commissionStructure as CommissionStructure;
          if (s.minPaidReferrals > 1 && (await this.paidReferrals(trx, affiliate.id)) < s.minPaidReferrals) continue;
          const earned = s.hasMaxAmount
            ? await trx('commissions')
                .where({ referrer_id: affiliate.id, referred_id: customer.id, reward_config_id: config.id })
                .whereIn('status', ['PENDING', 'APPROVED', 'PAID'])
                .sum({ total: 'amount' })
                .first()
            : null;
          const result = commissionFor(s, {
            event: 'SALE',
            saleAmount: commissionable,
            currency,
            saleIndex,
            monthsSinceFirstSale: monthsBetween(firstPaidAt, paidAt),
            earnedSoFar: Number(earned?.total ?? 0),
            convert: (amount, iso) => {
              if (iso === currency) return amount;
              const c = this.rates.convert(amount, iso, currency);
              if (!c) throw this.noRate('currency', iso, currency);
              return c.amount;
            },
          });
          if (!result) continue;
          const row = newCommissionRow(program, config.id, affiliate.id, customer.id, s, now, {
            event: 'SALE',
            transactionId,
            currency,
            amount: result.amount,
            inCampaign: inCampaign(result.amount),
            saleAmount: commissionable,
            saleInCampaign: inCampaign(commissionable),
            rate: converted ? toCampaign : null,
          });
          await insertRow(this.db, trx, 'commissions', row as unknown as Record<string, unknown>);
          created.push(row);
        }
      }
    }
    if (affiliate) {
      const total = created.filter((c) => counts(c.status)).reduce((n, c) => n + Number(c.amount_in_campaign_currency), 0);
      // The affiliate's row as locked above (nothing since changed it): one UPDATE for the totals and the unread count, no re-read.
      const unread = created.length && !imported ? created.length : 0;
      const counted = await this.participants.adjustCounters(trx, program.id, affiliate.id, { commission_total: total, revenue_total: inCampaign(body.grossAmount), unread_commissions_count: unread }, affiliate);
      if (created.length && imported) await this.schedulePayoutRun(trx, program, now);
      else if (created.length) {
        await this.announce(trx, program, affiliate.id, created, 'NEW_COMMISSION_ADDED', counted ?? undefined);
        await this.schedulePayoutRun(trx, program, now);
      }
    }
    const message = !affiliate
      ? 'Transaction recorded; the customer has no affiliate referrer, so no commission was created.'
      : `Transaction recorded; ${created.length} commission${created.length === 1 ? '' : 's'} created.`;
    return { success: true, duplicate: false, firstSale, message };
  }

  /** Distinct customers of an affiliate with at least one recorded sale (`minPaidReferrals`). */
  private async paidReferrals(trx: Knex.Transaction, affiliateId: string): Promise<number> {
    const r = await trx('affiliate_transactions').where({ referrer_id: affiliateId }).countDistinct({ n: 'customer_id' }).first();
    return Number(r?.n ?? 0);
  }

  /** NEW_COMMISSION_ADDED / COMMISSION_ADJUSTED, one event per commission: `{campaign, participant, commission}`. */
  async announce(trx: Knex.Transaction, program: Program, affiliateId: string, rows: CommissionRow[], event: 'NEW_COMMISSION_ADDED' | 'COMMISSION_ADJUSTED', current?: ParticipantRow): Promise<void> {
    if (!rows.length) return;
    // `current`: the affiliate's row as the caller just wrote it, saving a read.
    const row = current ?? ((await trx('participants').where({ id: affiliateId }).first()) as ParticipantRow);
    // The program's commissionGenerated / commissionAdjusted email (skipped while the team is not VERIFIED).
    const template = event === 'NEW_COMMISSION_ADDED' ? 'commissionGenerated' : 'commissionAdjusted';
    for (const c of rows) await this.emails.sendProgramEmail(trx, program, row, template, { commissionAmount: money(Number(c.amount), c.currency_iso) });
    if (!(await this.webhooks.listens(trx, program.id, event))) return;
    const [participant] = await this.participants.forEvents(trx, program, [row]);
    const campaign = await this.programs.toCampaign(program, trx);
    for (const c of rows) await this.webhooks.emit(trx, program.id, event, { campaign, participant, commission: toCommission(c) });
  }
}
