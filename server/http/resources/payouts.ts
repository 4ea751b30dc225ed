import { z } from 'zod';
import { operation } from '../operation.ts';
import { payout, payoutCounts, payoutCountsQuery, payoutExportQuery, payoutList, payoutListQuery, payoutRunBody, payoutRunResponse, payoutStatusChange } from '../../../shared/schemas/payout.ts';

// Payouts (rest-v2 §3.12 AF14, AF15) and the manual payout provider (our extension, PO1–PO3,
// docs/decisions.md "Affiliate money"): affiliate programs only (422 on referral programs).

/** AF14 `GET /campaign/{id}/payouts`. */
export const listPayouts = operation({
  id: 'AF14',
  name: 'payouts.list',
  method: 'GET',
  path: '/campaign/:id/payouts',
  access: { scopes: ['reward:read'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary: 'The program’s payouts, newest first (limit 1–100, default 20; nextId; status UPCOMING, QUEUED, ISSUED, FAILED, REVERSED).',
  query: payoutListQuery,
  response: payoutList,
  handler: ({ query, program, deps }) => deps.payouts.list(program!, query),
});

/** AF17 `GET /campaign/{id}/payouts/counts` (refloop extension): AF14's count per status. */
export const countPayouts = operation({
  id: 'AF17',
  name: 'payouts.count',
  method: 'GET',
  path: '/campaign/:id/payouts/counts',
  access: { scopes: ['reward:read'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary:
    'refloop extension. How many of the program’s payouts AF14 lists with each status filter (UPCOMING, QUEUED, ISSUED, FAILED, REVERSED) and without one (ALL). The console’s payouts filter reads it.',
  query: payoutCountsQuery,
  response: payoutCounts,
  handler: ({ program, deps }) => deps.payouts.counts(program!),
});

/** AF15 `GET /campaign/{id}/participant/{participantIdOrEmail}/payouts`. */
export const listParticipantPayouts = operation({
  id: 'AF15',
  name: 'payouts.listForParticipant',
  method: 'GET',
  path: '/campaign/:id/participant/:participantIdOrEmail/payouts',
  access: { scopes: ['reward:read'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary: 'An affiliate’s payouts, newest first (limit, nextId, status).',
  query: payoutListQuery,
  response: payoutList,
  handler: ({ query, params, program, deps }) => deps.payouts.list(program!, query, params.participantIdOrEmail!),
});

/** PO1 `POST /campaign/{id}/payouts/run` (refloop extension). */
export const runPayouts = operation({
  id: 'PO1',
  name: 'payouts.run',
  method: 'POST',
  path: '/campaign/:id/payouts/run',
  access: { scopes: ['reward:write'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary:
    'refloop extension. Group each affiliate’s APPROVED commissions whose hold has passed (plus adjustments of paid ones) per currency into UPCOMING payouts, when the program-currency total reaches options.payoutThreshold. Nothing is paid: export the CSV, pay, then report each payout’s status.',
  body: payoutRunBody,
  response: payoutRunResponse,
  handler: ({ program, deps }) => deps.payouts.run(program!),
});

/** PO2 `POST /campaign/{id}/payouts/{payoutId}/status` (refloop extension). */
export const setPayoutStatus = operation({
  id: 'PO2',
  name: 'payouts.setStatus',
  method: 'POST',
  path: '/campaign/:id/payouts/:payoutId/status',
  access: { scopes: ['reward:write'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary:
    'refloop extension (manual provider). Report what happened to a payout: QUEUED (in a provider batch), ISSUED (commissions become PAID; NEW_PAYOUT_ISSUED), FAILED (commissions released for the next run), or REVERSED after ISSUED. Other moves answer 406.',
  body: payoutStatusChange,
  response: payout,
  handler: ({ body, params, program, deps }) => deps.payouts.setStatus(program!, params.payoutId!, body.status, body.reason),
});

/** PO3 `GET /campaign/{id}/payouts/export.csv` (refloop extension). */
export const exportPayouts = operation({
  id: 'PO3',
  name: 'payouts.exportCsv',
  method: 'GET',
  path: '/campaign/:id/payouts/export.csv',
  access: { scopes: ['reward:read'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary:
    'refloop extension. A CSV for PayPal / Wise batch payments: one row per payout (default UPCOMING and QUEUED, or ?status=), with the affiliate, amount in major and minor units, currency and the affiliate’s current payout destination (provider, account, country, status). Cells starting with = + - @ are prefixed with an apostrophe. ?format=paypal or wise writes that provider’s upload file instead, and ?currency= keeps one currency.',
  query: payoutExportQuery,
  response: z.string(),
  audit: { reads: true, mode: 'after' },
  contentType: 'text/csv',
  handler: async ({ query, program, deps }) => (await deps.payouts.exportBatch(program!, { status: query.status, format: query.format, currency: query.currency })).body,
});
