import { operation } from '../operation.ts';
import { transactionCreate, transactionRecorded, transactionRefund, transactionRefunded } from '../../../shared/schemas/transaction.ts';

// Affiliate transactions (rest-v2 §3.12 AF8, AF9): affiliate programs only (422 on referral programs).

/** AF8 `POST /campaign/{id}/participant/{participantIdOrEmail}/transaction`. */
export const recordTransaction = operation({
  id: 'AF8',
  name: 'transactions.record',
  method: 'POST',
  path: '/campaign/:id/participant/:participantIdOrEmail/transaction',
  access: { scopes: ['reward:write'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary:
    'Record a sale of the customer in the path; it earns commissions for the affiliate who referred them under each SALE commission structure. At least one identifier (externalId, transactionId, orderId, paymentId, invoiceId, paymentIntentId, chargeId); a repeated identifier answers the duplicate branch (success: false, duplicate: true) and changes nothing. Sales in another currency need the operator’s exchange-rate table (400 otherwise).',
  body: transactionCreate,
  response: transactionRecorded,
  audit: { mode: 'inline' },
  handler: ({ body, params, program, auth, deps, audit }) => deps.transactions.record(program!, params.participantIdOrEmail!, body, { teamVerificationStatus: auth?.verificationStatus, audit }),
});

/** AF9 `POST /campaign/{id}/participant/{participantIdOrEmail}/transaction/refund`. */
export const refundTransaction = operation({
  id: 'AF9',
  name: 'transactions.refund',
  method: 'POST',
  path: '/campaign/:id/participant/:participantIdOrEmail/transaction/refund',
  access: { scopes: ['reward:write'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary:
    'Refund (full, or partial with the cumulative amountRefunded), cancel a refund (refundId + refundStatus "canceled") or charge back a recorded sale. Unpaid commissions are reduced, reversed or removed; paid ones get an adjustment carried into the next payout. Missing or conflicting refund history answers 409; no matching sale answers success: false, notFound: true.',
  body: transactionRefund,
  response: transactionRefunded,
  handler: ({ body, params, program, deps }) => deps.transactions.refund(program!, params.participantIdOrEmail!, body),
});
