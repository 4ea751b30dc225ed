import type { Config } from './config.ts';
import type { Deps } from './http/deps.ts';
import { openRedis } from './redis.ts';
import { openDb, migrate, type Db } from './db/connect.ts';
import { systemClock, type Clock } from './clock.ts';
import { createLogger, type Logger } from './log.ts';
import { Jobs } from './domain/platform/jobs.ts';
import { Mailer } from './domain/platform/mail.ts';
import { Keys } from './domain/platform/keys.ts';
import { InvalidationBus } from './domain/platform/invalidation.ts';
import { Accounts } from './domain/platform/accounts.ts';
import { Teams } from './domain/platform/teams.ts';
import { Programs } from './domain/programs/programs.ts';
import { ProgramConfig, registerConfigHooks } from './domain/programs/program-config.ts';
import { ProgramTranslations, registerTranslationHooks } from './domain/programs/program-translations.ts';
import { Webhooks } from './domain/messaging/webhooks.ts';
import { RewardConfigs, registerRewardConfigHooks } from './domain/programs/reward-configs.ts';
import { Maintenance } from './domain/platform/maintenance.ts';
import { AuditLog } from './domain/platform/audit.ts';
import { TeamNotifications } from './domain/messaging/team-notifications.ts';
import { TeamOutbox } from './domain/messaging/team-outbox.ts';
import { Owners } from './domain/platform/owners.ts';
import { Sealer, newSecret } from './crypto.ts';
import { Limits } from './http/limits.ts';
import { MobileLimits } from './http/mobile/limits.ts';
import { LoginLinks } from './domain/participant-api/login-links.ts';
import { Resources } from './domain/programs/resources.ts';
import { Rewards } from './domain/referral/rewards.ts';
import { ReferralTriggers } from './domain/referral/referral-triggers.ts';
import { Participants } from './domain/participants/service.ts';
import { Activity } from './domain/platform/activity.ts';
import { registerParticipantActivity } from './domain/participants/activity-hooks.ts';
import { Fraud, registerFraudHooks } from './domain/referral/fraud.ts';
import { Analytics } from './domain/analytics/analytics.ts';
import { ProgramEmails } from './domain/messaging/program-emails.ts';
import { displayName } from './domain/messaging/email-layout.ts';
import { Invites } from './domain/referral/invites.ts';
import { ParticipantTokens } from './domain/participant-api/participant-tokens.ts';
import { MobilePrograms } from './domain/participant-api/mobile-programs.ts';
import { Recaptcha } from './domain/referral/recaptcha.ts';
import { MobileSessions } from './domain/participant-api/mobile-sessions.ts';
import { Receipts } from './domain/participant-api/visit-receipts.ts';
import { Visits } from './domain/participant-api/visits.ts';
import { Screenshots } from './domain/participant-api/screenshots.ts';
import { Impressions } from './domain/participant-api/impressions.ts';
import { LocalDiskStorage, type BlobStorage } from './storage.ts';
import { AffiliateApplications } from './domain/affiliate/affiliate-applications.ts';
import { AffiliateInvites } from './domain/affiliate/affiliate-invites.ts';
import { Transactions } from './domain/affiliate/transactions.ts';
import { Commissions } from './domain/affiliate/commissions.ts';
import { Payouts } from './domain/affiliate/payouts.ts';
import { ExchangeRates } from './domain/platform/exchange-rates.ts';
import { PayoutDestinations } from './domain/affiliate/payout-destinations.ts';
import { TaxInfo } from './domain/affiliate/tax-info.ts';
import path from 'node:path';
import { McpOAuthStore } from './mcp/oauth-store.ts';
import { BillingConnections } from './domain/billing/billing-connections.ts';
import { StripeInbound } from './domain/billing/stripe-inbound.ts';
import { participantCodes } from './domain/billing/code-export.ts';
import { BillingCodes } from './domain/billing/codes.ts';
import { UnmatchedRefunds } from './domain/billing/unmatched-refunds.ts';
import { ProgramImports } from './domain/imports/growsurf-import.ts';
import { ConsoleImports } from './domain/imports/console-imports.ts';

export type { Deps } from './http/deps.ts';

/** Options for building dependencies. */
export interface DepsOptions {
  clock?: Clock;
  log?: Logger;
  /** Run migrations first (default true). */
  migrate?: boolean;
}

/** Opens the database, migrates it and wires the domain services. */
export async function createDeps(config: Config, opts: DepsOptions = {}): Promise<Deps> {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? createLogger(config.logLevel);
  const db = openDb(config.database, { log });
  const redis = config.redisUrl ? openRedis(config.redisUrl, config.redisPrefix, log) : null;
  if (opts.migrate !== false) await migrate(db);
  const secret = config.secretKey ?? (await instanceSecret(db));
  const sealer = new Sealer(secret);
  const jobs = new Jobs(db, clock, log, config.jobs.pollMs);
  const mailer = new Mailer(db, clock, jobs, config.mailFrom, config.smtpUrl);
  // Caches of keys and programs, invalidated in every process through Redis (only used with REDIS_URL).
  const invalidation = new InvalidationBus(redis, log);
  const keys = new Keys(db, clock, invalidation);
  const audit = new AuditLog(db, clock);
  const accounts = new Accounts(db, clock, config, mailer, jobs, keys, audit);
  const teams = new Teams(db, clock, mailer, accounts, keys);
  const programs = new Programs(db, clock, config, invalidation);
  const programConfig = new ProgramConfig(db, clock, config, sealer);
  registerConfigHooks(programs);
  const programTranslations = new ProgramTranslations(db, clock);
  registerTranslationHooks(programs);
  const rewardConfigs = new RewardConfigs(db, clock, programs.configRows);
  registerRewardConfigHooks(programs, rewardConfigs);
  const maintenance = new Maintenance(db, clock, jobs, audit, config.auditRetentionDays);
  const owners = new Owners(db, clock, config, mailer, accounts, keys, sealer);
  // Built after the other services so CAMPAIGN_ENDED runs after their `ended` hooks and sees the final program.
  const webhooks = new Webhooks(db, clock, config, log, jobs, sealer, programs, invalidation, audit);
  const limits = new Limits(config, db, redis);
  const storage = new LocalDiskStorage(path.join(config.dataDir, 'uploads'));
  const resources = new Resources(db, clock, config, log, jobs, storage, programs, secret);
  const participants = new Participants(db, clock, config, log, webhooks);
  const activity = new Activity(db, clock);
  registerParticipantActivity(participants, activity);
  const rewards = new Rewards(db, clock, jobs, programs, participants, activity, webhooks, audit);
  const referralTriggers = new ReferralTriggers(db, clock, log, jobs, participants, activity, audit);
  const fraud = new Fraud(db, clock, log, participants, activity, webhooks, programs);
  registerFraudHooks(participants, fraud);
  const analytics = new Analytics(db, clock, participants);
  const teamNotifications = new TeamNotifications(db, clock, config, log, jobs, mailer, analytics);
  // Program emails and invitations hook participant creation after fraud screening, so a blocked sign-up sends nothing.
  const programEmails = new ProgramEmails(db, clock, config, mailer, activity, participants, limits, secret);
  // Earned rewards send the program's `goalAchieved` email to their recipient (leaderboard prizes excepted:
  // those are announced when the program ends).
  rewards.issuer.onIssued.push(async (trx, program, issued, people) => {
    for (const { reward, config: rewardConfig } of issued) {
      if (rewardConfig.type === 'LEADERBOARD') continue;
      const recipient = people.get(reward.participant_id) ?? (await trx('participants').where({ id: reward.participant_id }).first());
      if (!recipient) continue;
      const referrer = recipient.referred_by ? people.get(recipient.referred_by) : undefined;
      await programEmails.sendRewardEarned(trx, program, recipient, rewardConfig, !!reward.is_referrer, referrer);
    }
  });
  const invites = new Invites(db, clock, jobs, activity, participants, programEmails, limits);
  const participantTokens = new ParticipantTokens(db, clock, sealer);
  const mobilePrograms = new MobilePrograms(db, config.mobile.programCacheMs, new URL(config.publicUrl).hostname.toLowerCase());
  // Every committed program change is published: this process's caches (the REST row cache, the
  // participant API's) drop it at once, other processes' when Redis carries it (without Redis the
  // participant API's cache in another process ages out within its ttl).
  const programChanged = (programId: string): void => invalidation.publish({ kind: 'program', id: programId });
  programs.hooks.changed.push(programChanged);
  programConfig.changed.push(programChanged);
  programTranslations.changed.push(programChanged);
  rewardConfigs.documentsChanged.push(programChanged);
  invalidation.subscribe((change) => {
    if (change !== 'reset' && change.kind === 'program') mobilePrograms.forget(change.id);
  });
  const mobileSessions = new MobileSessions(secret, clock);
  const receipts = new Receipts(secret, clock);
  const impressions = new Impressions(db, clock, log, participants, config.mobile.counterFlushMs);
  impressions.hooks.firstImpression.push(async (trx, programId, referrer) => void (await programEmails.sendFirstLinkView(trx, programId, referrer)));
  const visits = new Visits(db, clock, log, impressions, receipts, { waitMs: config.mobile.visitWaitMs }, secret);
  const affiliateApplications = new AffiliateApplications(db, clock, participants);
  const affiliateInvites = new AffiliateInvites(db, clock, config, participants, programEmails, activity);
  const taxInfo = new TaxInfo(db, clock, config, programEmails, secret);
  const payoutDestinations = new PayoutDestinations(db, clock, config, participants, programEmails, activity);
  const exchangeRates = new ExchangeRates(config.exchangeRates);
  const commissions = new Commissions(db, clock, participants, audit);
  const transactions = new Transactions(db, clock, programs, participants, rewardConfigs, webhooks, exchangeRates, programEmails, jobs);
  const billing = new BillingConnections(db, clock, config, sealer);
  const billingCodes = new BillingCodes(db, clock, participants);
  const stripeInbound = new StripeInbound(db, clock, log, billing, participants, transactions, referralTriggers, audit, config.stripeApiUrl);
  const payouts = new Payouts(db, clock, programs, participants, commissions, webhooks, () => payoutDestinations, programEmails, jobs, audit, undefined, participantCodes);
  const consoleImports = new ConsoleImports({ db, clock, config, log, jobs, sealer, imports: new ProgramImports({ db, clock, programConfig, rewardConfigs, sealer }) });
  consoleImports.register();
  // The preview pages it photographs need every service, so it reaches them through the finished object.
  let all: Deps | null = null;
  const screenshots = new Screenshots({ config, clock, log, storage }, () => all!, secret);
  all = {
    screenshots,
    config,
    db,
    redis,
    invalidation,
    clock,
    log,
    jobs,
    mailer,
    keys,
    accounts,
    teams,
    programs,
    programConfig,
    programTranslations,
    webhooks,
    rewardConfigs,
    maintenance,
    audit,
    teamNotifications,
    teamOutbox: new TeamOutbox(db),
    owners,
    limits,
    mobileLimits: new MobileLimits(config, db, redis),
    resources,
    rewards,
    referralTriggers,
    participants,
    activity,
    fraud,
    analytics,
    programEmails,
    invites,
    storage,
    sealer,
    participantTokens,
    loginLinks: new LoginLinks(db, clock, config, programEmails, participantTokens, jobs, sealer, (id) => mobilePrograms.get(id)),
    recaptcha: new Recaptcha(config.mobile.recaptchaVerifyUrl, log),
    mobilePrograms,
    mobileSessions,
    receipts,
    visits,
    affiliateApplications,
    affiliateInvites,
    payoutDestinations,
    taxInfo,
    transactions,
    commissions,
    payouts,
    exchangeRates,
    mcpOAuth: new McpOAuthStore(db, clock, config, sealer),
    billing,
    stripeInbound,
    billingCodes,
    unmatchedRefunds: new UnmatchedRefunds(db, clock, jobs, audit),
    consoleImports,
    async close() {
      // Visits in flight and impression counts waiting in memory are written before the database closes.
      await visits.close();
      await jobs.stop();
      mailer.close();
      await db.close();
      // Invalidations of changes just committed (a CLI run's) go out before the connection closes.
      await invalidation.close();
      await redis?.close();
    },
  };
  return all;
}

/** A per-installation secret generated once and kept in the database (used when SECRET_KEY is unset). */
async function instanceSecret(db: Db): Promise<string> {
  await db.knex('instance_secrets').insert({ name: 'seal', value: newSecret(32) }).onConflict('name').ignore();
  const row = await db.knex('instance_secrets').where({ name: 'seal' }).first('value');
  return row.value;
}
