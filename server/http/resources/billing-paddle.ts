import { operation } from '../operation.ts';
import {
  billingConnection,
  billingDisconnected,
  billingEventList,
  billingEventListQuery,
  paddleConnectionCreate,
  paddleConnectionUpdate,
} from '../../../shared/schemas/billing.ts';

// Paddle Billing (issue #25, refloop extensions; docs/integrations.md "Paddle Billing"): the same
// operations as Stripe's BI1–BI5 for a program's Paddle connection. Reads need program:read, changes
// program:write. Paddle calls its credentials the notification destination's secret key and an API
// key; they are stored in the same sealed columns as Stripe's.

const EXT = 'Extension (docs/integrations.md): ';

/** BI6 `GET /campaign/{id}/integrations/paddle`. */
export const getPaddleConnection = operation({
  id: 'BI6',
  name: 'integrations.paddle.get',
  method: 'GET',
  path: '/campaign/:id/integrations/paddle',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary: `${EXT}the program's Paddle Billing connection: its state, the notification destination URL to add in Paddle and the events to select; never a secret. NOT_CONNECTED before the first connection; hasRestrictedApiKey says whether an API key is stored.`,
  response: billingConnection,
  handler: ({ program, deps }) => deps.billing.read(program!, 'PADDLE'),
});

/** BI7 `POST /campaign/{id}/integrations/paddle`. */
export const connectPaddle = operation({
  id: 'BI7',
  name: 'integrations.paddle.connect',
  method: 'POST',
  path: '/campaign/:id/integrations/paddle',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: `${EXT}connects the program to Paddle Billing with the notification destination's secret key (pdl_ntfset_…) and optionally an API key (customer read) to look up customers' emails, or replaces them. Both are stored sealed and never returned. The answer gives webhookUrl, the destination URL to add in Paddle; it stays the same across reconnections.`,
  body: paddleConnectionCreate,
  response: billingConnection,
  handler: ({ body, program, deps }) => deps.billing.connect(program!, { webhookSigningSecret: body.webhookSecretKey, restrictedApiKey: body.apiKey ?? null }, 'PADDLE'),
});

/** BI8 `PATCH /campaign/{id}/integrations/paddle`. */
export const updatePaddleConnection = operation({
  id: 'BI8',
  name: 'integrations.paddle.update',
  method: 'PATCH',
  path: '/campaign/:id/integrations/paddle',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: `${EXT}replaces the secret key (after rotating it in Paddle) or the API key (null removes it). 406 when the program is not connected.`,
  body: paddleConnectionUpdate,
  response: billingConnection,
  handler: ({ body, program, deps }) =>
    deps.billing.update(program!, { ...(body.webhookSecretKey !== undefined ? { webhookSigningSecret: body.webhookSecretKey } : {}), ...(body.apiKey !== undefined ? { restrictedApiKey: body.apiKey } : {}) }, 'PADDLE'),
});

/** BI9 `DELETE /campaign/{id}/integrations/paddle`. */
export const disconnectPaddle = operation({
  id: 'BI9',
  name: 'integrations.paddle.disconnect',
  method: 'DELETE',
  path: '/campaign/:id/integrations/paddle',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: `${EXT}disconnects Paddle Billing: the stored keys are deleted and notifications sent to the destination answer 404 until the program is connected again. The log is kept (30 days). 406 when not connected.`,
  response: billingDisconnected,
  handler: ({ program, deps }) => deps.billing.disconnect(program!, 'PADDLE'),
});

/** BI10 `GET /campaign/{id}/integrations/paddle/events`. */
export const listPaddleEvents = operation({
  id: 'BI10',
  name: 'integrations.paddle.events.list',
  method: 'GET',
  path: '/campaign/:id/integrations/paddle/events',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary: `${EXT}the notifications Paddle sent in the last 30 days, newest first (limit 1–100, default 20; nextId), with the same outcomes as Stripe's log (ACCEPTED, DUPLICATE, UNATTRIBUTED, DEFERRED, UNMATCHED, REJECTED, IGNORED) and the same outcome filter. Nothing of the payload is kept.`,
  query: billingEventListQuery,
  response: billingEventList,
  handler: ({ query, program, deps }) => deps.billing.listEvents(program!, query, 'PADDLE'),
});
