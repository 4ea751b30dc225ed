// An affiliate program's money and enrollment as the source lists them (rest-v2 §2.12, §2.13,
// §2.32, §2.33), as our rows with the same ids, states, amounts and times.
import { newId } from '../../crypto.ts';
import { keepableId } from './participant-rows.ts';

/** A commission as AF10 lists it. */
export interface SourceCommission {
  id: string;
  status: string;
  createdAt: number;
  currencyISO: string;
  referrerId: string;
  referredId: string;
  event?: string;
  amount: number | null;
  saleAmount: number | null;
  amountInCampaignCurrency?: number | null;
  saleAmountInCampaignCurrency?: number | null;
  campaignCurrencyISO?: string | null;
  exchangeRate?: number | null;
  exchangeRateAt?: number | null;
  holdDuration?: number | null;
  approvedAt?: number | null;
  payoutQueuedAt?: number | null;
  paidAt?: number | null;
  reversedAt?: number | null;
  provider?: string | null;
}

/** A payout as AF14 lists it. */
export interface SourcePayout {
  id: string;
  participantId: string;
  status: string;
  amount: number;
  currencyISO: string;
  commissionIds: string[];
  createdAt: number;
  amountInCampaignCurrency?: number | null;
  campaignCurrencyISO?: string | null;
  queuedAt?: number | null;
  issuedAt?: number | null;
  failedAt?: number | null;
  reversedAt?: number | null;
  provider?: string | null;
}

/** An affiliate application as AF1 lists it. */
export interface SourceApplication {
  id: string;
  answers?: unknown[];
  createdAt: number;
  decidedAt?: number | null;
  reviewedAt?: number | null;
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  participantId?: string | null;
  reapplyAllowedAt?: number | null;
  rejectionReason?: string | null;
  riskLevel?: string | null;
  status: string;
  termsAcceptedAt?: number | null;
}

/** An affiliate invite as AF4 lists it. */
export interface SourceAffiliateInvite {
  id: string;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  status: string;
  createdAt: number;
  expiresAt?: number;
  lastSentAt?: number;
  acceptedAt?: number | null;
  revokedAt?: number | null;
}

const CURRENCY = /^[A-Z]{3}$/;
const COMMISSION_STATUSES = new Set(['PENDING', 'APPROVED', 'PAID', 'REVERSED', 'DELETED']);
const PAYOUT_STATUSES = new Set(['UPCOMING', 'QUEUED', 'ISSUED', 'FAILED', 'REVERSED']);
const int = (n: unknown): number | null => (typeof n === 'number' && Number.isFinite(n) ? Math.round(n) : null);
const text = (s: unknown, max: number): string | null => (typeof s === 'string' ? s.slice(0, max) : null);

/** Why a record's id cannot be kept, or null. */
export function badId(id: unknown): string | null {
  return keepableId(id) ? null : 'Its id is not one refloop can keep (1–32 of A–Z, a–z, 0–9, _ and -).';
}

/** A payout's row, or why it cannot be one. */
export function payoutRow(p: SourcePayout, programId: string, programCurrency: string, now: number): { row: Record<string, unknown> } | { refused: string } {
  const bad = badId(p.id);
  if (bad) return { refused: bad };
  if (!PAYOUT_STATUSES.has(p.status)) return { refused: `Its status ${String(p.status).slice(0, 20)} is not one refloop knows.` };
  if (!CURRENCY.test(p.currencyISO ?? '')) return { refused: `Its currency ${String(p.currencyISO).slice(0, 8)} is not an ISO 4217 code.` };
  const amount = int(p.amount);
  if (amount === null) return { refused: 'It has no amount.' };
  const createdAt = int(p.createdAt) ?? now;
  return {
    row: {
      id: p.id,
      program_id: programId,
      participant_id: p.participantId,
      status: p.status,
      currency_iso: p.currencyISO,
      amount,
      campaign_currency_iso: CURRENCY.test(p.campaignCurrencyISO ?? '') ? p.campaignCurrencyISO : programCurrency,
      amount_in_campaign_currency: int(p.amountInCampaignCurrency) ?? amount,
      provider: text(p.provider, 32),
      commission_ids: JSON.stringify(Array.isArray(p.commissionIds) ? p.commissionIds.filter((id) => typeof id === 'string') : []),
      created_at: createdAt,
      queued_at: int(p.queuedAt),
      issued_at: int(p.issuedAt),
      failed_at: int(p.failedAt),
      reversed_at: int(p.reversedAt),
      updated_at: Math.max(createdAt, int(p.issuedAt) ?? 0, int(p.failedAt) ?? 0, int(p.reversedAt) ?? 0, int(p.queuedAt) ?? 0),
    },
  };
}

/**
 * A commission's row, and for a SALE the sale it came from: the API lists commissions, not sales,
 * so each SALE commission's sale is rebuilt from it (its amount, currency and time; docs/migrating.md).
 */
export function commissionRows(
  c: SourceCommission,
  ctx: { programId: string; programCurrency: string; configId: string; payoutId: string | null; now: number },
): { commission: Record<string, unknown>; sale: Record<string, unknown> | null } | { refused: string } {
  const bad = badId(c.id);
  if (bad) return { refused: bad };
  if (!COMMISSION_STATUSES.has(c.status)) return { refused: `Its status ${String(c.status).slice(0, 20)} is not one refloop knows.` };
  if (!CURRENCY.test(c.currencyISO ?? '')) return { refused: `Its currency ${String(c.currencyISO).slice(0, 8)} is not an ISO 4217 code.` };
  const event = c.event === 'LEAD' ? 'LEAD' : 'SALE';
  const amount = int(c.amount) ?? 0;
  const saleAmount = int(c.saleAmount);
  const createdAt = int(c.createdAt) ?? ctx.now;
  const campaignCurrency = CURRENCY.test(c.campaignCurrencyISO ?? '') ? c.campaignCurrencyISO! : ctx.programCurrency;
  const saleInCampaign = int(c.saleAmountInCampaignCurrency) ?? saleAmount;
  const sale =
    event === 'SALE'
      ? {
          id: newId(),
          program_id: ctx.programId,
          customer_id: c.referredId,
          referrer_id: c.referrerId,
          currency_iso: c.currencyISO,
          gross_amount: saleAmount ?? 0,
          commissionable_amount: saleAmount ?? 0,
          gross_amount_in_campaign_currency: saleInCampaign ?? 0,
          exchange_rate: typeof c.exchangeRate === 'number' ? c.exchangeRate : null,
          exchange_rate_at: int(c.exchangeRateAt),
          paid_at: createdAt,
          // A reversed commission's sale was refunded whole; partial refunds are worked out from the
          // affiliate's revenue once every sale is here (the totals stage).
          amount_refunded: c.status === 'REVERSED' ? (saleAmount ?? 0) : 0,
          amendment_type: c.status === 'REVERSED' ? 'REFUND' : null,
          created_at: createdAt,
          updated_at: createdAt,
          details: JSON.stringify({ importedFrom: { commissionId: c.id } }),
        }
      : null;
  const paid = c.status === 'PAID' || ctx.payoutId !== null;
  const commission = {
    id: c.id,
    program_id: ctx.programId,
    transaction_id: sale ? sale.id : null,
    reward_config_id: ctx.configId,
    referrer_id: c.referrerId,
    referred_id: c.referredId,
    event,
    status: c.status,
    currency_iso: c.currencyISO,
    amount,
    // What the sale first earned is not listed: the amount as it stands is taken for it.
    original_amount: amount,
    sale_amount: saleAmount,
    campaign_currency_iso: campaignCurrency,
    amount_in_campaign_currency: int(c.amountInCampaignCurrency) ?? amount,
    sale_amount_in_campaign_currency: saleInCampaign,
    exchange_rate: typeof c.exchangeRate === 'number' ? c.exchangeRate : null,
    exchange_rate_at: int(c.exchangeRateAt),
    hold_duration: Math.max(0, int(c.holdDuration) ?? 0),
    // Waiting commissions wait for the owner's approval here (AF12), whatever the source's hold would have done.
    auto_approve_at: null,
    payout_id: ctx.payoutId,
    paid_amount: paid ? amount : null,
    approved_at: int(c.approvedAt),
    payout_queued_at: int(c.payoutQueuedAt),
    paid_at: int(c.paidAt),
    reversed_at: int(c.reversedAt),
    provider: text(c.provider, 32),
    created_at: createdAt,
    updated_at: Math.max(createdAt, int(c.approvedAt) ?? 0, int(c.paidAt) ?? 0, int(c.reversedAt) ?? 0),
  };
  return { commission, sale };
}

/** An affiliate application's row, or why it cannot be one. */
export function applicationRow(a: SourceApplication, programId: string, now: number): { row: Record<string, unknown> } | { refused: string } {
  const bad = badId(a.id);
  if (bad) return { refused: bad };
  if (!['PENDING', 'APPROVED', 'DENIED'].includes(a.status)) return { refused: `Its status ${String(a.status).slice(0, 20)} is not one refloop knows.` };
  const createdAt = int(a.createdAt) ?? now;
  const email = text(a.email, 254);
  return {
    row: {
      id: a.id,
      program_id: programId,
      created_at: createdAt,
      status: a.status,
      email,
      email_key: email ? email.toLowerCase() : null,
      first_name: text(a.firstName, 255),
      last_name: text(a.lastName, 255),
      risk_level: ['LOW', 'MEDIUM', 'HIGH'].includes(a.riskLevel ?? '') ? a.riskLevel : null,
      participant_id: keepableId(a.participantId) ? a.participantId : null,
      decided_at: int(a.decidedAt),
      reviewed_at: int(a.reviewedAt),
      reapply_allowed_at: int(a.reapplyAllowedAt),
      terms_accepted_at: int(a.termsAcceptedAt),
      rejection_reason: text(a.rejectionReason, 255),
      updated_at: Math.max(createdAt, int(a.decidedAt) ?? 0, int(a.reviewedAt) ?? 0),
      answers: JSON.stringify(Array.isArray(a.answers) ? a.answers : []),
    },
  };
}

/**
 * An affiliate invite's row, or why it cannot be one. Its accept link is not carried over (the
 * source keeps the token): a pending invite is resent from here to get a working link.
 */
export function affiliateInviteRow(i: SourceAffiliateInvite, programId: string, now: number): { row: Record<string, unknown> } | { refused: string } {
  const bad = badId(i.id);
  if (bad) return { refused: bad };
  if (!['PENDING', 'ACCEPTED', 'EXPIRED', 'REVOKED'].includes(i.status)) return { refused: `Its status ${String(i.status).slice(0, 20)} is not one refloop knows.` };
  const email = text(i.email, 254);
  if (!email) return { refused: 'It has no email address.' };
  const createdAt = int(i.createdAt) ?? now;
  return {
    row: {
      id: i.id,
      program_id: programId,
      created_at: createdAt,
      // EXPIRED is a PENDING invite past its expiry, as our reads derive it.
      status: i.status === 'EXPIRED' ? 'PENDING' : i.status,
      email,
      email_key: email.toLowerCase(),
      first_name: text(i.firstName, 255),
      last_name: text(i.lastName, 255),
      token_hash: null,
      expires_at: int(i.expiresAt) ?? createdAt,
      last_sent_at: int(i.lastSentAt) ?? createdAt,
      send_count: 1,
      accepted_at: int(i.acceptedAt),
      revoked_at: int(i.revokedAt),
    },
  };
}
