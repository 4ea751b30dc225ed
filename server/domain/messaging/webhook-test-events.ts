// The mock payloads of the webhook test operation (`POST …/webhooks/{webhookId}/test`): the real
// program's campaign with clearly fake participant, reward, commission and payout records.
import type { Clock } from '../../clock.ts';
import type { Program, Programs } from '../programs/programs.ts';
import type { WebhookEvent } from '../../../shared/schemas/webhook.ts';

/** A realistic mock payload for the test operation: the real program plus clearly fake records. */
export async function mockEventData(clock: Clock, programs: Programs, program: Program, event: WebhookEvent): Promise<Record<string, unknown>> {
  const now = clock.now();
  const campaign = await programs.toCampaign(program);
  const participant = {
    id: 'test_participant',
    email: 'test.participant@example.com',
    firstName: 'Test',
    lastName: 'Participant',
    referralCount: 1,
    monthlyReferralCount: 1,
    rank: 1,
    monthlyRank: 1,
    createdAt: now,
    referralSource: 'DIRECT',
    fraudRiskLevel: 'LOW',
    metadata: {},
  };
  const currencyISO = program.currencyISO;
  switch (event) {
    case 'CAMPAIGN_ENDED':
      return { campaign };
    case 'NEW_PARTICIPANT_ADDED':
      return { ...participant, campaign };
    case 'PARTICIPANT_FRAUD_STATUS_UPDATED':
      return { campaign, participant: { ...participant, fraudRiskLevel: 'HIGH', fraudReasonCode: 'MANUAL_UPDATE' } };
    case 'PARTICIPANT_REACHED_A_GOAL':
      return {
        campaign,
        participant,
        reward: {
          type: 'SINGLE_SIDED',
          title: 'Test reward',
          description: 'A test reward',
          couponCode: 'TEST-COUPON',
          id: 'test_reward',
          rewardId: 'test_reward_config',
          status: 'PENDING',
          approved: false,
          approvedAt: null,
          fulfilledAt: null,
          isFulfilled: false,
          isAvailable: false,
          isReferrer: true,
          referrerId: participant.id,
          referredId: 'test_referred',
          createdAt: now,
        },
      };
    case 'NEW_COMMISSION_ADDED':
    case 'COMMISSION_ADJUSTED':
      return {
        campaign,
        participant,
        commission: { id: 'test_commission', status: 'PENDING', event: 'SALE', createdAt: now, currencyISO, referrerId: participant.id, referredId: 'test_referred', amount: event === 'COMMISSION_ADJUSTED' ? 500 : 1000, saleAmount: event === 'COMMISSION_ADJUSTED' ? 5000 : 10000 },
      };
    case 'NEW_PAYOUT_ISSUED':
      return {
        campaign,
        participant,
        payout: { id: 'test_payout', participantId: participant.id, status: 'ISSUED', amount: 1000, currencyISO, commissionIds: ['test_commission'], createdAt: now, issuedAt: now },
      };
  }
}
