import { z } from 'zod';

// Affiliate transactions (rest-v2 §3.12 AF8, AF9; §2.28 RecordTransactionResponse,
// RefundTransactionResponse).

/** The identifiers a sale is recorded and later refunded by; at least one is required. */
export const TRANSACTION_ID_FIELDS = ['externalId', 'transactionId', 'orderId', 'paymentId', 'invoiceId', 'paymentIntentId', 'chargeId'] as const;
/** One identifier name. */
export type TransactionIdField = (typeof TRANSACTION_ID_FIELDS)[number];

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
/** ISO 4217 code, any case on the way in, upper case after. */
const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'Expected a 3-letter ISO 4217 currency code.')
  .transform((c) => c.toUpperCase())
  .refine((c) => CURRENCIES.has(c), 'Unknown ISO 4217 currency code.');
const MAX_MINOR = 1_000_000_000_000;
const minor = z.number().int().min(0).max(MAX_MINOR);
const identifier = z.string().min(1).max(255);
const idShape = Object.fromEntries(TRANSACTION_ID_FIELDS.map((k) => [k, identifier.nullish()])) as Record<TransactionIdField, z.ZodOptional<z.ZodNullable<z.ZodString>>>;
const taxLines = z.array(z.record(z.string(), z.unknown())).max(50).nullish().meta({ description: 'Stored as sent (item shape unspecified).' });

/** True when the body names at least one identifier. */
function hasIdentifier(b: Partial<Record<TransactionIdField, string | null | undefined>>): boolean {
  return TRANSACTION_ID_FIELDS.some((k) => b[k] != null);
}
const NEEDS_ID = { message: `Send at least one of ${TRANSACTION_ID_FIELDS.join(', ')}.`, path: ['externalId'] };

/** AF8 body. Amounts are integer minor units of `currency`; `paidAt` is epoch ms (default: now). */
export const transactionCreate = z
  .strictObject({
    currency,
    grossAmount: z.number().int().min(1).max(MAX_MINOR),
    netAmount: minor.nullish().meta({ description: 'When sent, the amount commissions are computed on (else grossAmount − taxAmount).' }),
    taxAmount: minor.nullish(),
    amountCashNet: minor.nullish(),
    amountPaid: minor.nullish(),
    paidAt: z.number().int().min(0).max(8_640_000_000_000_000).nullish(),
    paymentProvider: z.enum(['stripe', 'chargebee', 'recurly']).nullish().meta({ description: 'Requires transactionId and testMode.' }),
    testMode: z.boolean().nullish().meta({ description: 'Requires paymentProvider.' }),
    invoiceSubtotalExcludingTax: minor.nullish(),
    invoiceTotal: minor.nullish(),
    invoiceTotalExcludingTax: minor.nullish(),
    totalTaxAmount: minor.nullish(),
    totalTaxAmounts: taxLines,
    totalTaxes: taxLines,
    ...idShape,
    customerId: identifier.nullish(),
    subscriptionId: identifier.nullish(),
    description: z.string().max(500).nullish(),
  })
  .superRefine((b, ctx) => {
    if (!hasIdentifier(b)) ctx.addIssue({ code: 'custom', ...NEEDS_ID });
    if (b.paymentProvider != null) {
      if (b.transactionId == null) ctx.addIssue({ code: 'custom', path: ['transactionId'], message: 'Required with paymentProvider.' });
      if (b.testMode == null) ctx.addIssue({ code: 'custom', path: ['testMode'], message: 'Required with paymentProvider.' });
    } else if (b.testMode != null) {
      ctx.addIssue({ code: 'custom', path: ['paymentProvider'], message: 'testMode requires paymentProvider.' });
    }
    if (b.taxAmount != null && b.taxAmount > b.grossAmount) ctx.addIssue({ code: 'custom', path: ['taxAmount'], message: 'taxAmount cannot exceed grossAmount.' });
    if (b.netAmount != null && b.netAmount > b.grossAmount) ctx.addIssue({ code: 'custom', path: ['netAmount'], message: 'netAmount cannot exceed grossAmount.' });
  })
  .meta({ id: 'RecordTransaction' });

/** `RecordTransactionResponse` (§2.28): the new-sale branch or the duplicate branch. */
export const transactionRecorded = z
  .union([
    z.object({ success: z.literal(true), duplicate: z.literal(false), firstSale: z.boolean(), message: z.string() }),
    z.object({
      success: z.literal(false),
      duplicate: z.literal(true),
      commissionsCreated: z.number().int(),
      duplicateFields: z.array(z.string()),
      matchingCommissionIds: z.array(z.string()),
      message: z.string(),
    }),
  ])
  .meta({ id: 'RecordTransactionResponse' });

/** Refund statuses that undo a refund; the others (succeeded, pending, requires_action) count as refunded. */
export const CANCELLING_REFUND_STATUSES = ['canceled', 'failed'] as const;

/** AF9 body: at least one identifier of the sale. */
export const transactionRefund = z
  .strictObject({
    amendmentType: z.enum(['REFUND', 'CHARGEBACK']).nullish().meta({ description: 'Default REFUND; CHARGEBACK is always a full reversal.' }),
    amountRefunded: minor.nullish().meta({ description: 'Cumulative amount refunded so far (minor units); omit for a full refund.' }),
    amount: z.number().int().min(1).max(MAX_MINOR).nullish().meta({ description: 'Original sale gross; the stored value wins when they differ.' }),
    refundAmount: minor.nullish().meta({ description: 'This one refund’s amount; record it with refundId.' }),
    refundId: identifier.nullish(),
    refundStatus: z.enum(['succeeded', 'pending', 'requires_action', 'failed', 'canceled']).nullish().meta({ description: '"canceled" (or "failed") with refundId undoes that refund.' }),
    refundHistoryComplete: z.boolean().nullish().meta({ description: 'Every refund id and amount has been recorded; needs amountRefunded equal to their total.' }),
    currency: currency.nullish(),
    ...idShape,
    description: z.string().max(500).nullish(),
  })
  .superRefine((b, ctx) => {
    if (!hasIdentifier(b)) ctx.addIssue({ code: 'custom', ...NEEDS_ID });
    const cancels = b.refundStatus === 'canceled' || b.refundStatus === 'failed';
    if (cancels && b.refundId == null) ctx.addIssue({ code: 'custom', path: ['refundId'], message: 'Required to cancel a refund: send the original refund’s id.' });
    if (cancels && b.amendmentType === 'CHARGEBACK') ctx.addIssue({ code: 'custom', path: ['refundStatus'], message: 'A chargeback cannot be cancelled.' });
    if (b.refundHistoryComplete === true && b.amountRefunded == null) ctx.addIssue({ code: 'custom', path: ['amountRefunded'], message: 'Required with refundHistoryComplete.' });
  })
  .meta({ id: 'RefundTransaction' });

/** `RefundTransactionResponse` (§2.28). */
export const transactionRefunded = z
  .object({
    success: z.boolean(),
    amendmentType: z.enum(['REFUND', 'CHARGEBACK']),
    matched: z.number().int().meta({ description: 'Commissions of the matched sale.' }),
    reversed: z.number().int().meta({ description: 'Commissions set to zero (APPROVED → REVERSED).' }),
    adjusted: z.number().int().meta({ description: 'Commissions reduced or restored in part, or adjusted after payout.' }),
    deleted: z.number().int().meta({ description: 'Pending commissions removed (PENDING → DELETED).' }),
    matchingCommissionIds: z.array(z.string()),
    message: z.string(),
    notFound: z.boolean().optional(),
  })
  .meta({ id: 'RefundTransactionResponse' });

export type TransactionCreate = z.output<typeof transactionCreate>;
export type TransactionRecorded = z.infer<typeof transactionRecorded>;
export type TransactionRefund = z.output<typeof transactionRefund>;
export type TransactionRefunded = z.infer<typeof transactionRefunded>;
