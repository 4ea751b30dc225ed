import { mobileOperation } from './operation.ts';
import type { MobileProgram } from '../../domain/participant-api/mobile-programs.ts';
import type { Deps } from '../deps.ts';
import { effectivePlan } from '../../domain/platform/plans.ts';
import { PaymentMethodRequiredError, WrongProgramTypeError } from '../../errors.ts';
import { emptyBody, successResponse } from '../../../shared/schemas/common.ts';
import { commissionList } from '../../../shared/schemas/commission.ts';
import { affiliateSummary, mobileMoneyPageQuery, payoutList } from '../../../shared/schemas/payout.ts';

// The signed-in affiliate's money on the participant API (issue #6; Mobile SDK table:
// getParticipantCommissions, markParticipantCommissionsRead, getParticipantPayouts,
// markParticipantPayoutsRead, getParticipantAffiliateSummary).

/** Affiliate programs only (422), and, like REST, only while the team has a payment method on file (402, BILLING=on). */
function gate(view: MobileProgram, deps: Deps): void {
  if (view.program.type !== 'AFFILIATE') throw new WrongProgramTypeError('Commissions and payouts exist only in affiliate programs.');
  if (!effectivePlan(deps.config.billing, view.team, deps.clock.now()).hasPaymentMethod) throw new PaymentMethodRequiredError();
}

/** MCM1 `GET /mobile/v2/participant/commissions`. */
export const listOwnCommissions = mobileOperation({
  id: 'MCM1',
  name: 'participant.commissions',
  method: 'GET',
  path: '/participant/commissions',
  auth: 'participant',
  summary: 'Affiliate programs (422 otherwise): the signed-in affiliate’s commissions, newest first (limit, nextId), as REST AF11.',
  query: mobileMoneyPageQuery,
  response: commissionList,
  handler: async ({ query, view, participantId, deps }) => {
    gate(view, deps);
    return deps.commissions.page(view.program, query, participantId!);
  },
});

/** MCM2 `POST /mobile/v2/participant/commissions/read`. */
export const markOwnCommissionsRead = mobileOperation({
  id: 'MCM2',
  name: 'participant.commissionsRead',
  method: 'POST',
  path: '/participant/commissions/read',
  auth: 'participant',
  summary: 'Affiliate programs: marks the signed-in affiliate’s commissions seen (unreadCommissionsCount becomes 0).',
  body: emptyBody,
  response: successResponse,
  handler: async ({ view, participantId, deps }) => {
    gate(view, deps);
    await deps.db.knex('participants').where({ id: participantId!, program_id: view.program.id }).update({ unread_commissions_count: 0 });
    return { success: true };
  },
});

/** MPO1 `GET /mobile/v2/participant/payouts`. */
export const listOwnPayouts = mobileOperation({
  id: 'MPO1',
  name: 'participant.payouts',
  method: 'GET',
  path: '/participant/payouts',
  auth: 'participant',
  summary: 'Affiliate programs (422 otherwise): the signed-in affiliate’s payouts, newest first (limit, nextId), as REST AF15.',
  query: mobileMoneyPageQuery,
  response: payoutList,
  handler: async ({ query, view, participantId, deps }) => {
    gate(view, deps);
    return deps.payouts.page(view.program, query, participantId!);
  },
});

/** MPO2 `POST /mobile/v2/participant/payouts/read`. */
export const markOwnPayoutsRead = mobileOperation({
  id: 'MPO2',
  name: 'participant.payoutsRead',
  method: 'POST',
  path: '/participant/payouts/read',
  auth: 'participant',
  summary: 'Affiliate programs: marks the signed-in affiliate’s payouts seen (unreadPayoutsCount becomes 0).',
  body: emptyBody,
  response: successResponse,
  handler: async ({ view, participantId, deps }) => {
    gate(view, deps);
    await deps.db.knex('participants').where({ id: participantId!, program_id: view.program.id }).update({ unread_payouts_count: 0 });
    return { success: true };
  },
});

/** MAS1 `GET /mobile/v2/participant/affiliate-summary`. */
export const getOwnAffiliateSummary = mobileOperation({
  id: 'MAS1',
  name: 'participant.affiliateSummary',
  method: 'GET',
  path: '/participant/affiliate-summary',
  auth: 'participant',
  summary: 'Affiliate programs (422 otherwise): referral revenue, total paid out and upcoming payout of the signed-in affiliate (program-currency minor units), with the unread counts.',
  response: affiliateSummary,
  handler: async ({ view, participantId, deps }) => {
    gate(view, deps);
    return deps.payouts.summary(view.program, participantId!);
  },
});

/** The affiliate money operations, in the order the participant API lists them. */
export const affiliateMoneyOperations = [listOwnCommissions, markOwnCommissionsRead, listOwnPayouts, markOwnPayoutsRead, getOwnAffiliateSummary];
