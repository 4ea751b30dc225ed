// Billing integrations (issue #25, refloop extensions): a program's Stripe connection and the log of
// the events Stripe sent it. docs/integrations.md.
import { z } from 'zod';

/** Billing systems refloop connects to. */
export const BILLING_PROVIDERS = ['STRIPE', 'PADDLE'] as const;

/** One of them. */
export type BillingProvider = (typeof BILLING_PROVIDERS)[number];

/** What happened to one received event. */
export const BILLING_EVENT_OUTCOMES = ['ACCEPTED', 'DUPLICATE', 'UNATTRIBUTED', 'DEFERRED', 'UNMATCHED', 'REJECTED', 'IGNORED'] as const;

/** The `metadata` key a Checkout Session, Payment Link or subscription carries the referral in (as does `client_reference_id`). */
export const STRIPE_REFERRAL_METADATA_KEY = 'refloop_referral';

const webhookSigningSecret = z
  .string()
  .trim()
  .regex(/^whsec_[A-Za-z0-9+/=_-]{8,240}$/, 'A Stripe webhook signing secret starts with whsec_.')
  .meta({ description: 'Write-only: the endpoint’s signing secret from Stripe (whsec_…); stored sealed and never returned.' });

const restrictedApiKey = z
  .string()
  .trim()
  .regex(/^rk_(live|test)_[A-Za-z0-9]{8,240}$/, 'A Stripe restricted API key starts with rk_live_ or rk_test_.')
  .meta({ description: 'Write-only, optional: a restricted key (rk_…) with read access, kept sealed for look-ups; only its last four characters are shown.' });

/** Extension: connect a program to Stripe (or replace the stored credentials). */
export const stripeConnectionCreate = z
  .strictObject({ webhookSigningSecret, restrictedApiKey: restrictedApiKey.nullable().optional() })
  .meta({ id: 'StripeConnectionCreate', description: 'Extension: not part of the GrowSurf contract.' });

/** Extension: change the stored credentials of a connected program; null removes the API key. */
export const stripeConnectionUpdate = z
  .strictObject({ webhookSigningSecret: webhookSigningSecret.optional(), restrictedApiKey: restrictedApiKey.nullable().optional() })
  .refine((b) => b.webhookSigningSecret !== undefined || b.restrictedApiKey !== undefined, { message: 'Send webhookSigningSecret, restrictedApiKey or both.' })
  .meta({ id: 'StripeConnectionUpdate', description: 'Extension: not part of the GrowSurf contract.' });

/** Extension: a program's billing connection; never carries a secret. */
export const billingConnection = z
  .object({
    id: z.string().nullable().meta({ description: 'Null until the program was first connected.' }),
    provider: z.enum(BILLING_PROVIDERS),
    state: z.enum(['NOT_CONNECTED', 'ACTIVE', 'DISCONNECTED']),
    webhookUrl: z.string().nullable().meta({ description: 'The endpoint to add in Stripe (Developers → Webhooks) or Paddle (Developer tools → Notifications); null until connected. It stays the same across reconnections.' }),
    events: z.array(z.string()).meta({ description: 'The event types to select for that endpoint.' }),
    hasRestrictedApiKey: z.boolean().meta({ description: 'An API key for look-ups is stored (Stripe: the restricted key; Paddle: the API key).' }),
    restrictedApiKeyHint: z.string().nullable().meta({ description: 'The stored key’s last four characters.' }),
    createdAt: z.number().int().nullable(),
    updatedAt: z.number().int().nullable(),
    lastEventAt: z.number().int().nullable().meta({ description: 'When a correctly signed event last arrived.' }),
    unmatchedRefunds: z.number().int().meta({ description: 'How many entries of the log are UNMATCHED: refunds whose sale did not arrive within 30 days, so no commission was reversed.' }),
  })
  .meta({ id: 'BillingConnection', description: 'Extension: not part of the GrowSurf contract.' });

/** Extension: one received event of the connection's log. */
export const billingEvent = z
  .object({
    id: z.string(),
    eventId: z.string().meta({ description: 'The billing system’s event id (Stripe’s or Paddle’s evt_…); each is applied once.' }),
    type: z.string(),
    outcome: z.enum(BILLING_EVENT_OUTCOMES),
    reason: z.string().nullable(),
    participantId: z.string().nullable(),
    transactionId: z.string().nullable(),
    livemode: z.boolean(),
    deliveries: z.number().int().meta({ description: 'How many times the event arrived (re-deliveries are answered and counted, never applied again).' }),
    createdAt: z.number().int().nullable().meta({ description: 'When the billing system created the event (ms).' }),
    receivedAt: z.number().int().meta({ description: 'When it arrived; for UNMATCHED, when its 30 days ended and it was reported.' }),
    refund: z
      .object({
        refundId: z.string().nullable().meta({ description: 'The billing system’s refund or adjustment id (re_…, adj_…); null for a charge refunded in several parts.' }),
        amount: z.number().int().meta({ description: 'Minor units.' }),
        currency: z.string(),
        saleRef: z.string().nullable().meta({ description: 'The charge, payment intent or transaction it refunds.' }),
      })
      .nullable()
      .meta({ description: 'A DEFERRED or UNMATCHED entry’s refund; null otherwise.' }),
  })
  .meta({ id: 'BillingEvent', description: 'Extension: not part of the GrowSurf contract.' });

/** Extension: a page of the log, newest first. */
export const billingEventListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  nextId: z.string().min(1).max(64).optional(),
  outcome: z.enum(BILLING_EVENT_OUTCOMES).optional().meta({ description: 'Only the events with this outcome (UNMATCHED: the refunds that never matched a sale).' }),
});

/** Extension: the log page; `nextId` starts the next page, null on the last. */
export const billingEventList = z
  .object({ events: z.array(billingEvent), limit: z.number().int(), nextId: z.string().nullable() })
  .meta({ id: 'BillingEventListResponse', description: 'Extension: not part of the GrowSurf contract.' });

/** Extension: the answer to a disconnection. */
export const billingDisconnected = z.object({ id: z.string(), success: z.literal(true) }).meta({ id: 'BillingDisconnectResponse' });

/** The key of Paddle's `custom_data` that carries the referral (the same referrer's code as Stripe's metadata). */
export const PADDLE_REFERRAL_CUSTOM_DATA_KEY = 'refloop_referral';

const paddleWebhookSecretKey = z
  .string()
  .trim()
  .regex(/^pdl_ntfset_[A-Za-z0-9_]{8,240}$/, 'A Paddle notification destination secret key starts with pdl_ntfset_.')
  .meta({ description: 'Write-only: the notification destination’s secret key from Paddle (pdl_ntfset_…); stored sealed and never returned.' });

const paddleApiKey = z
  .string()
  .trim()
  .regex(/^(pdl_(live|sdbx)_apikey_[A-Za-z0-9_]{8,240}|[a-f0-9]{50})$/, 'A Paddle API key starts with pdl_live_apikey_ or pdl_sdbx_apikey_.')
  .meta({ description: 'Write-only, optional: an API key with customer read permission, kept sealed to look up a customer’s email; only its last four characters are shown.' });

/** Extension: connect a program to Paddle Billing (or replace the stored credentials). */
export const paddleConnectionCreate = z
  .strictObject({ webhookSecretKey: paddleWebhookSecretKey, apiKey: paddleApiKey.nullable().optional() })
  .meta({ id: 'PaddleConnectionCreate', description: 'Extension: not part of the GrowSurf contract.' });

/** Extension: change the stored credentials of a connected program; null removes the API key. */
export const paddleConnectionUpdate = z
  .strictObject({ webhookSecretKey: paddleWebhookSecretKey.optional(), apiKey: paddleApiKey.nullable().optional() })
  .refine((b) => b.webhookSecretKey !== undefined || b.apiKey !== undefined, { message: 'Send webhookSecretKey, apiKey or both.' })
  .meta({ id: 'PaddleConnectionUpdate', description: 'Extension: not part of the GrowSurf contract.' });

export type PaddleConnectionCreate = z.infer<typeof paddleConnectionCreate>;
export type PaddleConnectionUpdate = z.infer<typeof paddleConnectionUpdate>;
export type StripeConnectionCreate = z.infer<typeof stripeConnectionCreate>;
export type StripeConnectionUpdate = z.infer<typeof stripeConnectionUpdate>;
export type BillingConnection = z.infer<typeof billingConnection>;
export type BillingEvent = z.infer<typeof billingEvent>;
export type BillingEventList = z.infer<typeof billingEventList>;
export type BillingEventListQuery = z.infer<typeof billingEventListQuery>;
