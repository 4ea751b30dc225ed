import { z } from 'zod';
import { epochMs } from './common.ts';

/** The seven webhook events, in the order the official tool schema publishes them (rest-v2 §4). */
export const WEBHOOK_EVENTS = [
  'PARTICIPANT_REACHED_A_GOAL',
  'NEW_PARTICIPANT_ADDED',
  'CAMPAIGN_ENDED',
  'PARTICIPANT_FRAUD_STATUS_UPDATED',
  'NEW_COMMISSION_ADDED',
  'COMMISSION_ADJUSTED',
  'NEW_PAYOUT_ISSUED',
] as const;

/** One webhook event name. */
export const webhookEvent = z.enum(WEBHOOK_EVENTS).meta({ id: 'WebhookEvent' });

/** `Webhook` as the API returns it (rest-v2 §2.15); `secret` is write-only and never appears here. */
export const webhook = z
  .object({
    id: z.string().meta({ description: '`primary` for the program’s first webhook; later webhooks get opaque ids.' }),
    payloadUrl: z.string().nullable(),
    events: z.array(webhookEvent),
    isEnabled: z.boolean(),
    autoDisabledDueToFailures: z.boolean(),
    failureCount: z.number().int(),
    lastFailureAt: epochMs.nullable(),
  })
  .meta({ id: 'Webhook' });

/** `GET /campaign/{id}/webhooks` response. */
export const webhookList = z.object({ webhooks: z.array(webhook) }).meta({ id: 'WebhookListResponse' });

const payloadUrl = z.url({ protocol: /^https?$/, message: 'Must be an http or https URL.' }).max(2048);
const events = z.array(webhookEvent).max(WEBHOOK_EVENTS.length);
const secret = z.string().min(1).max(255).meta({ description: 'Write-only: signs deliveries (GrowSurf-Signature) and is never returned.' });

/** `POST /campaign/{id}/webhooks` body. */
export const webhookCreate = z
  .strictObject({
    payloadUrl,
    events: events.optional().meta({ description: 'Omitted → subscribed to no events.' }),
    isEnabled: z.boolean().optional().meta({ description: 'Default true.' }),
    secret: secret.optional(),
  })
  .meta({ id: 'WebhookCreate' });

/** `PATCH /campaign/{id}/webhooks/{webhookId}` body: only sent fields change; `isEnabled: true` also clears the failure state. */
export const webhookUpdate = z
  .strictObject({
    payloadUrl: payloadUrl.optional(),
    events: events.optional(),
    isEnabled: z.boolean().optional(),
    secret: secret.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'Send at least one field to change.' })
  .meta({ id: 'WebhookUpdate' });

/** `DELETE /campaign/{id}/webhooks/{webhookId}` response (DeleteWithIdResponse). */
export const webhookDeleteResponse = z.object({ id: z.string(), success: z.boolean() }).meta({ id: 'WebhookDeleteResponse' });

/** Every delivery body (rest-v2 §2.17). */
export const webhookEnvelope = z
  .object({
    event: webhookEvent,
    createdAt: epochMs,
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'WebhookEnvelope' });

/** `POST /campaign/{id}/webhooks/{webhookId}/test` body: omitted `event` → the webhook's first subscribed event. */
export const webhookTestRequest = z.strictObject({ event: webhookEvent.optional() }).meta({ id: 'WebhookTestRequest' });

/** `POST /campaign/{id}/webhooks/{webhookId}/test` response (rest-v2 §2.16). */
export const webhookTestResponse = z
  .object({
    success: z.boolean().meta({ description: 'The receiver answered 2xx.' }),
    payload: webhookEnvelope,
    response: z.object({
      msg: z.string().optional().meta({ description: 'The receiver’s response body (first 1 KiB), its status text, or why nothing was sent.' }),
      statusCode: z.number().int().optional(),
    }),
  })
  .meta({ id: 'WebhookTestResponse' });

/** Delivery states: PENDING until it succeeds, runs out of attempts (FAILED) or its webhook is off (SKIPPED). */
export const webhookDeliveryStatus = z.enum(['PENDING', 'SUCCEEDED', 'FAILED', 'SKIPPED']).meta({ id: 'WebhookDeliveryStatus' });

/** One attempt to deliver. */
export const webhookDeliveryAttempt = z
  .object({
    attempt: z.number().int(),
    at: epochMs,
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable(),
    responseBody: z.string().nullable().meta({ description: 'First 1 KiB of the receiver’s reply.' }),
    error: z.string().nullable(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

/** Extension: one delivery of one event to one webhook; `id` is the `GrowSurf-Delivery-Id` header, stable across retries. */
export const webhookDelivery = z
  .object({
    id: z.string(),
    webhookId: z.string(),
    event: webhookEvent,
    status: webhookDeliveryStatus,
    test: z.boolean().meta({ description: 'Sent by the test operation.' }),
    replayOf: z.string().nullable().meta({ description: 'The delivery this one replays.' }),
    attemptCount: z.number().int(),
    lastAttempt: webhookDeliveryAttempt.nullable(),
    nextAttemptAt: epochMs.nullable(),
    createdAt: epochMs,
    completedAt: epochMs.nullable(),
    payload: webhookEnvelope,
  })
  .meta({ id: 'WebhookDelivery', description: 'Extension: not part of the GrowSurf contract.' });

/** Extension: one delivery with every attempt, oldest first (W8). */
export const webhookDeliveryDetail = webhookDelivery
  .extend({ attempts: z.array(webhookDeliveryAttempt).meta({ description: 'Every attempt so far, oldest first, each with its status code, reply excerpt (first 1 KiB) or error.' }) })
  .meta({ id: 'WebhookDeliveryDetail', description: 'Extension: not part of the GrowSurf contract.' });

/** Extension: `GET …/deliveries` query (cursor list, newest first); unnamed so OpenAPI lists its fields as parameters. */
export const webhookDeliveryListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    nextId: z.string().min(1).max(64).optional(),
  });

/** Extension: deliveries page; `nextId` is the first delivery of the next page, null on the last. */
export const webhookDeliveryList = z
  .object({ deliveries: z.array(webhookDelivery), limit: z.number().int(), nextId: z.string().nullable() })
  .meta({ id: 'WebhookDeliveryListResponse', description: 'Extension: not part of the GrowSurf contract.' });

export type WebhookEvent = z.infer<typeof webhookEvent>;
export type Webhook = z.infer<typeof webhook>;
export type WebhookCreate = z.infer<typeof webhookCreate>;
export type WebhookUpdate = z.infer<typeof webhookUpdate>;
export type WebhookEnvelope = z.infer<typeof webhookEnvelope>;
export type WebhookTestResponse = z.infer<typeof webhookTestResponse>;
export type WebhookDelivery = z.infer<typeof webhookDelivery>;
export type WebhookDeliveryAttempt = z.infer<typeof webhookDeliveryAttempt>;
export type WebhookDeliveryDetail = z.infer<typeof webhookDeliveryDetail>;
export type WebhookDeliveryList = z.infer<typeof webhookDeliveryList>;
export type WebhookDeliveryListQuery = z.infer<typeof webhookDeliveryListQuery>;
