import type { Payout } from '../../../shared/schemas/payout.ts';

// The payouts table's row and its wire shape (rest-v2 §2.13), shared by the payouts service, its
// batch exports and the payout providers.

/** A `payouts` row as read. */
export interface PayoutRow {
  id: string;
  program_id: string;
  participant_id: string;
  status: Payout['status'];
  currency_iso: string;
  amount: number | string;
  campaign_currency_iso: string;
  amount_in_campaign_currency: number | string;
  provider: string | null;
  account: string | null;
  country: string | null;
  commission_ids: string;
  created_at: number | string;
  queued_at: number | string | null;
  issued_at: number | string | null;
  failed_at: number | string | null;
  reversed_at: number | string | null;
}

const num = (v: number | string | null): number | null => (v == null ? null : Number(v));

/** The wire shape of one payout (rest-v2 §2.13). */
export function toPayout(r: PayoutRow): Payout {
  return {
    id: r.id,
    participantId: r.participant_id,
    status: r.status,
    amount: Number(r.amount),
    currencyISO: r.currency_iso,
    commissionIds: JSON.parse(r.commission_ids) as string[],
    createdAt: Number(r.created_at),
    amountInCampaignCurrency: Number(r.amount_in_campaign_currency),
    campaignCurrencyISO: r.campaign_currency_iso,
    exchangeRate: null,
    exchangeRateAt: null,
    fxError: null,
    queuedAt: num(r.queued_at),
    issuedAt: num(r.issued_at),
    failedAt: num(r.failed_at),
    reversedAt: num(r.reversed_at),
    provider: r.provider,
  };
}

/** Allowed status moves, whether the owner marks them or a sending provider answers: from → targets. */
export const TRANSITIONS: Record<Payout['status'], Array<Payout['status']>> = {
  UPCOMING: ['QUEUED', 'ISSUED', 'FAILED'],
  QUEUED: ['ISSUED', 'FAILED'],
  ISSUED: ['REVERSED'],
  FAILED: [],
  REVERSED: [],
};
