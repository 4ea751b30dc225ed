import { z } from 'zod';
import { epochMs } from './common.ts';
import { MONEY_PAGE_DEFAULT } from './commission.ts';

// Payouts (rest-v2 §2.13, §2.27 ParticipantPayoutList, §3.12 AF14/AF15) and our payout-run
// extension (docs/decisions.md "Affiliate money").

/** Payout states (§4; `REVERSED` from the later SDKs). */
export const payoutStatus = z.enum(['UPCOMING', 'QUEUED', 'ISSUED', 'FAILED', 'REVERSED']);

/** `Payout` (§2.13). */
export const payout = z
  .object({
    id: z.string(),
    participantId: z.string(),
    status: payoutStatus,
    amount: z.number().int().meta({ description: 'Minor units of currencyISO: approved commissions plus adjustments of paid ones.' }),
    currencyISO: z.string(),
    commissionIds: z.array(z.string()),
    createdAt: epochMs,
    amountInCampaignCurrency: z.number().int().nullable(),
    campaignCurrencyISO: z.string().nullable(),
    exchangeRate: z.number().nullable(),
    exchangeRateAt: epochMs.nullable(),
    fxError: z.string().nullable(),
    queuedAt: epochMs.nullable(),
    issuedAt: epochMs.nullable(),
    failedAt: epochMs.nullable(),
    reversedAt: epochMs.nullable(),
    provider: z.string().nullable().meta({ description: 'The affiliate’s payout destination provider when one is on file (PAYPAL, VENMO, WISECOM).' }),
  })
  .meta({ id: 'Payout' });

/** `ParticipantPayoutList` (AF14/AF15): newest first; `nextId` is null on the last page. */
export const payoutList = z.object({ payouts: z.array(payout), limit: z.number().int(), nextId: z.string().nullable() }).meta({ id: 'ParticipantPayoutList' });

/** AF14/AF15 query. */
export const payoutListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(MONEY_PAGE_DEFAULT),
  nextId: z.string().min(1).max(64).optional().meta({ description: 'The last payout id of the previous page.' }),
  status: payoutStatus.optional(),
});

/** AF17 query (refloop extension): no parameters; an unknown one is refused so a typo is not silently ignored. */
export const payoutCountsQuery = z.strictObject({});

/** `PayoutCounts` (AF17, refloop extension): how many of the program's payouts AF14 lists in each status, and without one (ALL). */
export const payoutCounts = z
  .object({
    UPCOMING: z.number().int(),
    QUEUED: z.number().int(),
    ISSUED: z.number().int(),
    FAILED: z.number().int(),
    REVERSED: z.number().int(),
    ALL: z.number().int(),
  })
  .meta({ id: 'PayoutCounts' });

/** Payout run body (our extension): nothing to send. */
export const payoutRunBody = z.strictObject({}).meta({ id: 'PayoutRun' });

/** Payout run response: the payouts this run created (UPCOMING). */
export const payoutRunResponse = z
  .object({ success: z.boolean(), payoutsCreated: z.number().int(), payouts: z.array(payout) })
  .meta({ id: 'PayoutRunResponse' });

/** Status change body (our extension): the manual provider's owner reports what happened to the money. */
export const payoutStatusChange = z
  .strictObject({
    status: z.enum(['QUEUED', 'ISSUED', 'FAILED', 'REVERSED']).meta({
      description: 'UPCOMING → QUEUED (sent to the provider batch); UPCOMING/QUEUED → ISSUED or FAILED; ISSUED → REVERSED. Anything else is 406.',
    }),
    reason: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .meta({ description: 'Why (a provider reference, a bounce): kept in the affiliate’s activity log with the status change.' }),
  })
  .meta({ id: 'PayoutStatusChange' });

/** Batch file formats of the CSV export (the manual provider's; docs/decisions.md "Payout providers"). */
export const PAYOUT_EXPORT_FORMATS = ['generic', 'paypal', 'wise'] as const;

/**
 * CSV export query: which payouts to list (default UPCOMING and QUEUED: the ones still to pay) and,
 * as a refloop extension, the file's format and one currency (the default is the generic CSV of
 * every currency, as before).
 */
export const payoutExportQuery = z.object({
  status: payoutStatus.optional(),
  format: z.enum(PAYOUT_EXPORT_FORMATS).default('generic').meta({
    description:
      'refloop extension. generic (default): every payout with a header row and 15 columns. paypal: PayPal Payouts web upload (no header; confirmed PAYPAL and VENMO destinations only; one currency per file, so pass currency when payouts are in several). wise: Wise batch "send by email" template (confirmed WISECOM destinations only). Provider files leave out payouts without a confirmed destination of that provider.',
  }),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'A three-letter ISO 4217 code.')
    .transform((c) => c.toUpperCase())
    .optional()
    .meta({ description: 'refloop extension. Only payouts in this currency.' }),
});

export type Payout = z.infer<typeof payout>;
export type PayoutList = z.infer<typeof payoutList>;
/** AF17 response. */
export type PayoutCounts = z.infer<typeof payoutCounts>;
export type PayoutListQuery = z.infer<typeof payoutListQuery>;
export type PayoutRunResponse = z.infer<typeof payoutRunResponse>;

/** Participant API: the signed-in affiliate's summary, in minor units of the program currency. */
export const affiliateSummary = z
  .object({
    currencyISO: z.string(),
    referralRevenue: z.number().int().meta({ description: 'Gross sales of referred customers, less refunds.' }),
    totalPaidOut: z.number().int().meta({ description: 'Payouts ISSUED.' }),
    upcomingPayout: z.number().int().meta({ description: 'Approved commissions not yet paid, plus adjustments of paid ones.' }),
    unreadCommissionsCount: z.number().int(),
    unreadPayoutsCount: z.number().int(),
  })
  .meta({ id: 'MobileAffiliateSummary' });

/** Participant API page query for commissions and payouts: `limit` 1–100 (default 20), `nextId`. */
export const mobileMoneyPageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(MONEY_PAGE_DEFAULT),
  nextId: z.string().min(1).max(64).optional(),
});
