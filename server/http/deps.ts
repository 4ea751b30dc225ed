import type { SharedRedis } from '../redis.ts';
import type { InvalidationBus } from '../domain/platform/invalidation.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/connect.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { Jobs } from '../domain/platform/jobs.ts';
import type { Mailer } from '../domain/platform/mail.ts';
import type { Keys } from '../domain/platform/keys.ts';
import type { Accounts } from '../domain/platform/accounts.ts';
import type { Teams } from '../domain/platform/teams.ts';
import type { Programs } from '../domain/programs/programs.ts';
import type { ProgramConfig } from '../domain/programs/program-config.ts';
import type { ProgramTranslations } from '../domain/programs/program-translations.ts';
import type { Webhooks } from '../domain/messaging/webhooks.ts';
import type { RewardConfigs } from '../domain/programs/reward-configs.ts';
import type { Maintenance } from '../domain/platform/maintenance.ts';
import type { AuditLog } from '../domain/platform/audit.ts';
import type { TeamNotifications } from '../domain/messaging/team-notifications.ts';
import type { TeamOutbox } from '../domain/messaging/team-outbox.ts';
import type { Owners } from '../domain/platform/owners.ts';
import type { Sealer } from '../crypto.ts';
import type { Limits } from './limits.ts';
import type { MobileLimits } from './mobile/limits.ts';
import type { LoginLinks } from '../domain/participant-api/login-links.ts';
import type { Resources } from '../domain/programs/resources.ts';
import type { Rewards } from '../domain/referral/rewards.ts';
import type { ReferralTriggers } from '../domain/referral/referral-triggers.ts';
import type { Participants } from '../domain/participants/service.ts';
import type { Activity } from '../domain/platform/activity.ts';
import type { Fraud } from '../domain/referral/fraud.ts';
import type { Analytics } from '../domain/analytics/analytics.ts';
import type { ProgramEmails } from '../domain/messaging/program-emails.ts';
import type { Invites } from '../domain/referral/invites.ts';
import type { ParticipantTokens } from '../domain/participant-api/participant-tokens.ts';
import type { MobilePrograms } from '../domain/participant-api/mobile-programs.ts';
import type { Recaptcha } from '../domain/referral/recaptcha.ts';
import type { MobileSessions } from '../domain/participant-api/mobile-sessions.ts';
import type { Receipts } from '../domain/participant-api/visit-receipts.ts';
import type { Visits } from '../domain/participant-api/visits.ts';
import type { Screenshots } from '../domain/participant-api/screenshots.ts';
import type { BlobStorage } from '../storage.ts';
import type { AffiliateApplications } from '../domain/affiliate/affiliate-applications.ts';
import type { AffiliateInvites } from '../domain/affiliate/affiliate-invites.ts';
import type { Transactions } from '../domain/affiliate/transactions.ts';
import type { Commissions } from '../domain/affiliate/commissions.ts';
import type { Payouts } from '../domain/affiliate/payouts.ts';
import type { ExchangeRates } from '../domain/platform/exchange-rates.ts';
import type { PayoutDestinations } from '../domain/affiliate/payout-destinations.ts';
import type { TaxInfo } from '../domain/affiliate/tax-info.ts';
import type { McpOAuthStore } from '../mcp/oauth-store.ts';
import type { BillingConnections } from '../domain/billing/billing-connections.ts';
import type { StripeInbound } from '../domain/billing/stripe-inbound.ts';
import type { BillingCodes } from '../domain/billing/codes.ts';
import type { UnmatchedRefunds } from '../domain/billing/unmatched-refunds.ts';
import type { ConsoleImports } from '../domain/imports/console-imports.ts';

// The services the HTTP layer (REST, participant API, pages, MCP) is built from. server/deps.ts
// (`createDeps`) builds them; declared here, below both, so the HTTP layer never imports the
// composition root (issue #22).

/** Everything the app is built from; tests build the same thing on a fresh database. */
export interface Deps {
  config: Config;
  db: Db;
  /** The shared fast store when REDIS_URL is set (server/redis.ts); null otherwise. */
  redis: SharedRedis | null;
  /** Publishes committed changes to cached keys, teams and programs, to this process and (with Redis) every other. */
  invalidation: InvalidationBus;
  clock: Clock;
  log: Logger;
  jobs: Jobs;
  mailer: Mailer;
  keys: Keys;
  accounts: Accounts;
  teams: Teams;
  programs: Programs;
  programConfig: ProgramConfig;
  /** The owner's own texts per program language (TR1, TR2). */
  programTranslations: ProgramTranslations;
  webhooks: Webhooks;
  rewardConfigs: RewardConfigs;
  maintenance: Maintenance;
  /** The team audit trail (issue #35). */
  audit: AuditLog;
  /** Team notification emails (options.notificationEmails): the 10-minute digest sweep. */
  teamNotifications: TeamNotifications;
  /** The team's view of the mail outbox (the console's Outbox page, when no SMTP is configured). */
  teamOutbox: TeamOutbox;
  owners: Owners;
  limits: Limits;
  /** The participant API's budgets, shared by its router and the visit fast path. */
  mobileLimits: MobileLimits;
  resources: Resources;
  rewards: Rewards;
  referralTriggers: ReferralTriggers;
  participants: Participants;
  activity: Activity;
  fraud: Fraud;
  analytics: Analytics;
  programEmails: ProgramEmails;
  invites: Invites;
  storage: BlobStorage;
  sealer: Sealer;
  /** The participant API: participant tokens and auth secrets, cached program views, sessions, visit receipts, visits. */
  participantTokens: ParticipantTokens;
  /** One-time email sign-in links for returning participants (the transactional `loginLink` email). */
  loginLinks: LoginLinks;
  /** reCAPTCHA checks of web sign-ups (options.fraud.recaptcha). */
  recaptcha: Recaptcha;
  mobilePrograms: MobilePrograms;
  mobileSessions: MobileSessions;
  receipts: Receipts;
  visits: Visits;
  /** C6 referral-flow screenshots (headless Chromium). */
  screenshots: Screenshots;
  /** Affiliate enrollment (issue #6): applications, invites, payout destinations, tax information. */
  affiliateApplications: AffiliateApplications;
  affiliateInvites: AffiliateInvites;
  payoutDestinations: PayoutDestinations;
  taxInfo: TaxInfo;
  /** Affiliate money: sales and refunds (AF8/AF9), commissions, payouts, the operator's exchange rates. */
  transactions: Transactions;
  commissions: Commissions;
  payouts: Payouts;
  exchangeRates: ExchangeRates;
  /** The hosted MCP endpoint's OAuth clients, codes, grants and tokens. */
  mcpOAuth: McpOAuthStore;
  /** Billing integrations (issue #25): connections and their event logs, and Stripe's inbound webhook. */
  billing: BillingConnections;
  stripeInbound: StripeInbound;
  /** Participants' coupon and promotion codes mapped to the billing system's (docs/integrations.md "Codes"). */
  billingCodes: BillingCodes;
  /** The hourly report of refunds whose sale never arrived within 30 days (issue #35). */
  unmatchedRefunds: UnmatchedRefunds;
  /** Moving a program in from the console: the source's programs, the import job, its progress (issue #33). */
  consoleImports: ConsoleImports;
  close(): Promise<void>;
}
