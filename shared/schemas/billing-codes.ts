// Coupon and promotion codes (issue #25, refloop extensions; docs/integrations.md "Codes"): a
// participant's codes, created in refloop and mapped to codes that exist in the billing system. A
// sale that used a mapped code is attributed to the code's owner even without a visit.
import { z } from 'zod';

const billingId = (what: string) =>
  z
    .string()
    .trim()
    .min(1)
    .max(255)
    .regex(/^[A-Za-z0-9_-]+$/, `A ${what} has only letters, digits, _ and -.`);

/** Extension: create a code for a participant. At least one billing-system id is required. */
export const billingCodeCreate = z
  .strictObject({
    code: z
      .string()
      .trim()
      .min(2)
      .max(64)
      .regex(/^[A-Za-z0-9_-]+$/, 'A code has only letters, digits, _ and - (2–64 characters).')
      .meta({ description: 'What the customer types at checkout, e.g. JANE20; unique in the program, compared case-insensitively.' }),
    stripePromotionCodeId: billingId('Stripe promotion code id')
      .regex(/^promo_/, 'A Stripe promotion code id starts with promo_.')
      .nullable()
      .optional()
      .meta({ description: 'The Stripe promotion code (promo_…) this code is in Stripe.' }),
    stripeCouponId: billingId('Stripe coupon id').nullable().optional().meta({ description: 'A Stripe coupon used as this participant’s code on its own (not shared with other participants).' }),
    paddleDiscountId: billingId('Paddle discount id')
      .regex(/^dsc_/, 'A Paddle discount id starts with dsc_.')
      .nullable()
      .optional()
      .meta({ description: 'The Paddle Billing discount (dsc_…) this code is in Paddle.' }),
  })
  .refine((b) => Boolean(b.stripePromotionCodeId || b.stripeCouponId || b.paddleDiscountId), {
    message: 'Map the code to the billing system: send stripePromotionCodeId, stripeCouponId or paddleDiscountId.',
    path: ['stripePromotionCodeId'],
  })
  .meta({ id: 'BillingCodeCreate', description: 'Extension: not part of the GrowSurf contract.' });

/** Extension: one code. */
export const billingCode = z
  .object({
    id: z.string(),
    participantId: z.string(),
    code: z.string(),
    stripePromotionCodeId: z.string().nullable(),
    stripeCouponId: z.string().nullable(),
    paddleDiscountId: z.string().nullable(),
    createdAt: z.number().int(),
  })
  .meta({ id: 'BillingCode', description: 'Extension: not part of the GrowSurf contract.' });

/** Extension: a participant's codes (oldest first), or a page of the program's (newest first). */
export const billingCodeList = z
  .object({ codes: z.array(billingCode), limit: z.number().int(), nextId: z.string().nullable() })
  .meta({ id: 'BillingCodeListResponse', description: 'Extension: not part of the GrowSurf contract.' });

/** Extension: a page of the program's codes. */
export const billingCodeListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  nextId: z.string().min(1).max(64).optional(),
});

/** Extension: the answer to a deletion. */
export const billingCodeDeleted = z.object({ id: z.string(), success: z.literal(true) }).meta({ id: 'BillingCodeDeleteResponse' });

export type BillingCodeCreate = z.infer<typeof billingCodeCreate>;
export type BillingCode = z.infer<typeof billingCode>;
export type BillingCodeList = z.infer<typeof billingCodeList>;
export type BillingCodeListQuery = z.infer<typeof billingCodeListQuery>;
