import type { Config } from '../../config.ts';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import type { BlobStorage } from '../../storage.ts';
import type { Activity } from '../platform/activity.ts';
import type { ProgramConfig } from '../programs/program-config.ts';
import type { RewardConfigs } from '../programs/reward-configs.ts';
import type { Resources } from '../programs/resources.ts';
import type { Participants } from '../participants/service.ts';
import type { Invites } from '../referral/invites.ts';
import type { Recaptcha } from '../referral/recaptcha.ts';
import type { ReferralTriggers } from '../referral/referral-triggers.ts';
import type { Rewards } from '../referral/rewards.ts';
import type { PayoutDestinations } from '../affiliate/payout-destinations.ts';
import type { Payouts } from '../affiliate/payouts.ts';
import type { ParticipantTokens } from './participant-tokens.ts';
import type { MobilePrograms } from './mobile-programs.ts';
import type { Receipts } from './visit-receipts.ts';
import type { BillingConnections } from '../billing/billing-connections.ts';

/**
 * The services the participant API's facade (`mobile-participants.ts`) and the screenshot renderer
 * work through. server/deps.ts builds them; naming them here keeps this context from importing the
 * composition root.
 */
export interface ParticipantApiServices {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  storage: BlobStorage;
  activity: Activity;
  programConfig: ProgramConfig;
  rewardConfigs: RewardConfigs;
  resources: Resources;
  participants: Participants;
  invites: Invites;
  recaptcha: Recaptcha;
  referralTriggers: ReferralTriggers;
  rewards: Rewards;
  billing: Pick<BillingConnections, 'row'>;
  payoutDestinations: PayoutDestinations;
  payouts: Payouts;
  participantTokens: ParticipantTokens;
  mobilePrograms: MobilePrograms;
  receipts: Receipts;
}
