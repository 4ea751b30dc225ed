import { operation } from '../operation.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import {
  webhook,
  webhookCreate,
  webhookDeleteResponse,
  webhookDelivery,
  webhookDeliveryDetail,
  webhookDeliveryList,
  webhookDeliveryListQuery,
  webhookList,
  webhookTestRequest,
  webhookTestResponse,
  webhookUpdate,
} from '../../../shared/schemas/webhook.ts';

/** W1 `GET /campaign/{id}/webhooks`. */
export const listWebhooks = operation({
  id: 'W1',
  name: 'webhooks.list',
  method: 'GET',
  path: '/campaign/:id/webhooks',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary: 'List the program’s webhooks with their failure state; secrets are never returned.',
  response: webhookList,
  handler: async ({ program, deps }) => ({ webhooks: await deps.webhooks.list(program!) }),
});

/** W2 `POST /campaign/{id}/webhooks`. */
export const createWebhook = operation({
  id: 'W2',
  name: 'webhooks.create',
  method: 'POST',
  path: '/campaign/:id/webhooks',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: 'Create a webhook. The program’s first webhook gets the id `primary`. The payload URL must reach a public address.',
  body: webhookCreate,
  response: webhook,
  handler: ({ body, program, deps }) => deps.webhooks.create(program!, body),
});

/** W3 `PATCH /campaign/{id}/webhooks/{webhookId}`. */
export const updateWebhook = operation({
  id: 'W3',
  name: 'webhooks.update',
  method: 'PATCH',
  path: '/campaign/:id/webhooks/:webhookId',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: 'Update a webhook; only sent fields change. `isEnabled: true` re-enables it and clears the failure count and auto-disable flag.',
  body: webhookUpdate,
  response: webhook,
  handler: ({ body, params, program, deps }) => deps.webhooks.update(program!, params.webhookId!, body),
});

/** W4 `DELETE /campaign/{id}/webhooks/{webhookId}`. */
export const deleteWebhook = operation({
  id: 'W4',
  name: 'webhooks.delete',
  method: 'DELETE',
  path: '/campaign/:id/webhooks/:webhookId',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: 'Delete a webhook and its delivery log; queued deliveries are dropped.',
  response: webhookDeleteResponse,
  handler: ({ params, program, deps }) => deps.webhooks.remove(program!, params.webhookId!),
});

/** W5 `POST /campaign/{id}/webhooks/{webhookId}/test`. */
export const testWebhook = operation({
  id: 'W5',
  name: 'webhooks.test',
  outbound: true,
  method: 'POST',
  path: '/campaign/:id/webhooks/:webhookId/test',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: 'Send one live, signed mock delivery now (default event: the webhook’s first) and return the receiver’s reply. Logged; never counted toward auto-disable.',
  body: webhookTestRequest,
  response: webhookTestResponse,
  handler: ({ body, params, program, deps }) => deps.webhooks.test(program!, params.webhookId!, body.event),
});

/** Extension: `GET /campaign/{id}/webhooks/{webhookId}/deliveries`. */
export const listWebhookDeliveries = operation({
  id: 'W6',
  name: 'webhooks.deliveries.list',
  method: 'GET',
  path: '/campaign/:id/webhooks/:webhookId/deliveries',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary: 'Extension: the webhook’s delivery log, newest first (cursor `limit` 1–100, default 20, and `nextId`), with each delivery’s latest attempt.',
  query: webhookDeliveryListQuery,
  response: webhookDeliveryList,
  handler: ({ query, params, program, deps }) => deps.webhooks.listDeliveries(program!, params.webhookId!, query),
});

/** Extension: `GET /campaign/{id}/webhooks/{webhookId}/deliveries/{deliveryId}`. */
export const getWebhookDelivery = operation({
  id: 'W8',
  name: 'webhooks.deliveries.get',
  method: 'GET',
  path: '/campaign/:id/webhooks/:webhookId/deliveries/:deliveryId',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary: 'Extension: one delivery of the webhook’s log with every attempt so far (oldest first): when, how long, the status code and the first 1 KiB of the reply, or the error.',
  response: webhookDeliveryDetail,
  handler: ({ params, program, deps }) => deps.webhooks.getDelivery(program!, params.webhookId!, params.deliveryId!),
});

/** Extension: `POST /campaign/{id}/webhooks/{webhookId}/deliveries/{deliveryId}/replay`. */
export const replayWebhookDelivery = operation({
  id: 'W7',
  name: 'webhooks.deliveries.replay',
  method: 'POST',
  path: '/campaign/:id/webhooks/:webhookId/deliveries/:deliveryId/replay',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: 'Extension: queue a finished delivery’s event again as a new delivery (new delivery id, same envelope). The webhook must be enabled.',
  body: emptyBody,
  response: webhookDelivery,
  handler: ({ params, program, deps }) => deps.webhooks.replay(program!, params.webhookId!, params.deliveryId!),
});
