import { z } from 'zod';
import { epochMs } from './common.ts';

// Commissions (rest-v2 §2.12, §2.27 ParticipantCommissionList, §3.12 AF10–AF13).

/** Commission states (§4). */
export const commissionStatus = z.enum(['PENDING', 'APPROVED', 'PAID', 'REVERSED', 'DELETED']);
/** What generated a commission (§4 "Commission event"). */
export const commissionEventKind = z.enum(['LEAD', 'SALE']);

/** `Commission` (§2.12): optional fields are present and null when unset, as the later SDKs expect. */
export const commission = z
  .object({
    id: z.string(),
    status: commissionStatus,
    createdAt: epochMs,
    currencyISO: z.string().meta({ description: 'Currency of amount and saleAmount (the sale currency).' }),
    referrerId: z.string().meta({ description: 'The affiliate earning it.' }),
    referredId: z.string().meta({ description: 'The customer who bought.' }),
    event: commissionEventKind,
    amount: z.number().int().nullable().meta({ description: 'Minor units, after refunds.' }),
    saleAmount: z.number().int().nullable().meta({ description: 'The commissionable sale amount (minor units); null for LEAD commissions.' }),
    amountInCampaignCurrency: z.number().int().nullable(),
    saleAmountInCampaignCurrency: z.number().int().nullable(),
    campaignCurrencyISO: z.string().nullable(),
    exchangeRate: z.number().nullable().meta({ description: 'Sale currency → program currency, from the operator’s rate table; null when no conversion was needed.' }),
    exchangeRateAt: epochMs.nullable(),
    fxError: z.string().nullable(),
    holdDuration: z.number().int().nullable().meta({ description: 'Days before the commission becomes payable.' }),
    approvedAt: epochMs.nullable(),
    payoutQueuedAt: epochMs.nullable(),
    paidAt: epochMs.nullable(),
    reversedAt: epochMs.nullable(),
    provider: z.string().nullable(),
  })
  .meta({ id: 'Commission' });

/** `ParticipantCommissionList` (AF10/AF11): newest first; `nextId` is null on the last page. */
export const commissionList = z
  .object({ commissions: z.array(commission), limit: z.number().int(), nextId: z.string().nullable() })
  .meta({ id: 'ParticipantCommissionList' });

/** Default page size of commission and payout lists (the references give none). */
export const MONEY_PAGE_DEFAULT = 20;

/** AF10/AF11 query: `limit` 1–100 (default 20), `nextId` = the last commission id of the previous page, `status` filter. */
export const commissionListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(MONEY_PAGE_DEFAULT),
  nextId: z.string().min(1).max(64).optional().meta({ description: 'The last commission id of the previous page.' }),
  status: commissionStatus.optional(),
});

/** AF16 query (refloop extension): no parameters; an unknown one is refused so a typo is not silently ignored. */
export const commissionCountsQuery = z.strictObject({});

/** `CommissionCounts` (AF16, refloop extension): how many of the program's commissions AF10 lists in each status, and without one (ALL, deleted ones included as AF10 includes them). */
export const commissionCounts = z
  .object({
    PENDING: z.number().int(),
    APPROVED: z.number().int(),
    PAID: z.number().int(),
    REVERSED: z.number().int(),
    DELETED: z.number().int(),
    ALL: z.number().int(),
  })
  .meta({ id: 'CommissionCounts' });

export type Commission = z.infer<typeof commission>;
/** AF16 response. */
export type CommissionCounts = z.infer<typeof commissionCounts>;
export type CommissionList = z.infer<typeof commissionList>;
export type CommissionListQuery = z.infer<typeof commissionListQuery>;
