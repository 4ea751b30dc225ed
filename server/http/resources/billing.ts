import { operation } from '../operation.ts';
import {
  billingConnection,
  billingDisconnected,
  billingEventList,
  billingEventListQuery,
  stripeConnectionCreate,
  stripeConnectionUpdate,
} from '../../../shared/schemas/billing.ts';

// Billing integrations (issue #25, refloop extensions; docs/integrations.md): a program's Stripe
// connection and its event log. Reads need program:read, changes program:write, like the program's settings.

const EXT = 'Extension (docs/integrations.md): ';

/** BI1 `GET /campaign/{id}/integrations/stripe`. */
export const getStripeConnection = operation({
  id: 'BI1',
  name: 'integrations.stripe.get',
  method: 'GET',
  path: '/campaign/:id/integrations/stripe',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary: `${EXT}the program's Stripe connection: its state, the endpoint URL to add in Stripe and the events to select, and how many refunds never matched a sale (unmatchedRefunds); never a secret. NOT_CONNECTED before the first connection.`,
  response: billingConnection,
  handler: ({ program, deps }) => deps.billing.read(program!),
});

/** BI2 `POST /campaign/{id}/integrations/stripe`. */
export const connectStripe = operation({
  id: 'BI2',
  name: 'integrations.stripe.connect',
  method: 'POST',
  path: '/campaign/:id/integrations/stripe',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: `${EXT}connects the program to Stripe with the endpoint's webhook signing secret (whsec_…) and optionally a restricted API key (rk_…), or replaces them. Both are stored sealed and never returned. The answer gives webhookUrl, the endpoint to add in Stripe; it stays the same across reconnections.`,
  body: stripeConnectionCreate,
  response: billingConnection,
  handler: ({ body, program, deps }) => deps.billing.connect(program!, body),
});

/** BI3 `PATCH /campaign/{id}/integrations/stripe`. */
export const updateStripeConnection = operation({
  id: 'BI3',
  name: 'integrations.stripe.update',
  method: 'PATCH',
  path: '/campaign/:id/integrations/stripe',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: `${EXT}replaces the signing secret (after rolling it in Stripe) or the restricted API key (null removes it). 406 when the program is not connected.`,
  body: stripeConnectionUpdate,
  response: billingConnection,
  handler: ({ body, program, deps }) => deps.billing.update(program!, body),
});

/** BI4 `DELETE /campaign/{id}/integrations/stripe`. */
export const disconnectStripe = operation({
  id: 'BI4',
  name: 'integrations.stripe.disconnect',
  method: 'DELETE',
  path: '/campaign/:id/integrations/stripe',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: `${EXT}disconnects Stripe: the stored secrets are deleted and events sent to the endpoint answer 404 until the program is connected again. The log is kept (30 days). 406 when not connected.`,
  response: billingDisconnected,
  handler: ({ program, deps }) => deps.billing.disconnect(program!),
});

/** BI5 `GET /campaign/{id}/integrations/stripe/events`. */
export const listStripeEvents = operation({
  id: 'BI5',
  name: 'integrations.stripe.events.list',
  method: 'GET',
  path: '/campaign/:id/integrations/stripe/events',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary: `${EXT}the events Stripe sent in the last 30 days, newest first (limit 1–100, default 20; nextId): outcome ACCEPTED, DUPLICATE (already applied), UNATTRIBUTED (no participant matched), DEFERRED (a refund waiting for its sale), UNMATCHED (a refund whose sale did not arrive within 30 days, so no commission was reversed; a later sale still takes it), REJECTED (with the reason) or IGNORED, and the participant and transaction it touched; the outcome query parameter keeps one outcome, and a waiting or unmatched refund's amount is in refund. Nothing of the payload is kept.`,
  query: billingEventListQuery,
  response: billingEventList,
  handler: ({ query, program, deps }) => deps.billing.listEvents(program!, query),
});
