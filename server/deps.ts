import type { Config } from './config.ts';
import { openDb, migrate, type Db } from './db/connect.ts';
import { systemClock, type Clock } from './clock.ts';
import { createLogger, type Logger } from './log.ts';
import { Jobs } from './domain/jobs.ts';
import { Mailer } from './domain/mail.ts';
import { Keys } from './domain/keys.ts';
import { Accounts } from './domain/accounts.ts';
import { Teams } from './domain/teams.ts';
import { Programs } from './domain/programs.ts';
import { ProgramConfig, registerConfigHooks } from './domain/program-config.ts';
import { Webhooks } from './domain/webhooks.ts';
import { RewardConfigs, registerRewardConfigHooks } from './domain/reward-configs.ts';
import { Maintenance } from './domain/maintenance.ts';
import { TeamNotifications } from './domain/team-notifications.ts';
import { Owners } from './domain/owners.ts';
import { Sealer, newSecret } from './crypto.ts';
import { Limits } from './http/limits.ts';
import { MobileLimits } from './http/mobile/limits.ts';
import { LoginLinks } from './domain/login-links.ts';
import { Resources } from './domain/resources.ts';
import { Rewards } from './domain/rewards.ts';
import { ReferralTriggers } from './domain/referral-triggers.ts';
import { Participants } from './domain/participants/service.ts';
import { Activity } from './domain/activity.ts';
import { registerParticipantActivity } from './domain/activity-hooks.ts';
import { Fraud, registerFraudHooks } from './domain/fraud.ts';
import { Analytics } from './domain/analytics.ts';
import { ProgramEmails, displayName } from './domain/program-emails.ts';
import { Invites } from './domain/invites.ts';
import { ParticipantTokens } from './domain/participant-tokens.ts';
import { MobilePrograms } from './domain/mobile-programs.ts';
import { Recaptcha } from './domain/recaptcha.ts';
import { MobileSessions } from './domain/mobile-sessions.ts';
import { Receipts } from './domain/visit-receipts.ts';
import { Visits } from './domain/visits.ts';
import { Screenshots } from './domain/screenshots.ts';
import { Impressions } from './domain/impressions.ts';
import { LocalDiskStorage, type BlobStorage } from './storage.ts';
import { AffiliateApplications } from './domain/affiliate-applications.ts';
import { AffiliateInvites } from './domain/affiliate-invites.ts';
import { Transactions } from './domain/transactions.ts';
import { Commissions } from './domain/commissions.ts';
import { Payouts } from './domain/payouts.ts';
import { ExchangeRates } from './domain/exchange-rates.ts';
import { PayoutDestinations } from './domain/payout-destinations.ts';
import { TaxInfo } from './domain/tax-info.ts';
import path from 'node:path';
import { McpOAuthStore } from './mcp/oauth-store.ts';

/** Everything the app is built from; tests build the same thing on a fresh database. */
export interface Deps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  jobs: Jobs;
  mailer: Mailer;
  keys: Keys;
  accounts: Accounts;
  teams: Teams;
  programs: Programs;
  programConfig: ProgramConfig;
  webhooks: Webhooks;
  rewardConfigs: RewardConfigs;
  maintenance: Maintenance;
  /** Team notification emails (options.notificationEmails): the 10-minute digest sweep. */
  teamNotifications: TeamNotifications;
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
  close(): Promise<void>;
}

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
  if (opts.migrate !== false) await migrate(db);
  const secret = config.secretKey ?? (await instanceSecret(db));
  const sealer = new Sealer(secret);
  const jobs = new Jobs(db, clock, log, config.jobs.pollMs);
  const mailer = new Mailer(db, clock, jobs, config.mailFrom, config.smtpUrl);
  const keys = new Keys(db, clock);
  const accounts = new Accounts(db, clock, config, mailer, jobs, keys);
  const teams = new Teams(db, clock, mailer, accounts, keys);
  const programs = new Programs(db, clock, config);
  const programConfig = new ProgramConfig(db, clock, config, sealer);
  registerConfigHooks(programs);
  const rewardConfigs = new RewardConfigs(db, clock);
  registerRewardConfigHooks(programs, rewardConfigs);
  const maintenance = new Maintenance(db, clock, jobs);
  const owners = new Owners(db, clock, config, mailer, accounts, keys, sealer);
  // Built after the other services so CAMPAIGN_ENDED runs after their `ended` hooks and sees the final program.
  const webhooks = new Webhooks(db, clock, config, log, jobs, sealer, programs);
  const limits = new Limits(config, db);
  const storage = new LocalDiskStorage(path.join(config.dataDir, 'uploads'));
  const resources = new Resources(db, clock, config, log, jobs, storage, programs, secret);
  const participants = new Participants(db, clock, config, log, webhooks);
  const activity = new Activity(db, clock);
  registerParticipantActivity(participants, activity);
  const rewards = new Rewards(db, clock, jobs, programs, participants, activity, webhooks);
  const referralTriggers = new ReferralTriggers(db, clock, log, jobs, participants, activity);
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
  const commissions = new Commissions(db, clock, participants);
  const transactions = new Transactions(db, clock, programs, participants, rewardConfigs, webhooks, exchangeRates, programEmails, jobs);
  const payouts = new Payouts(db, clock, programs, participants, commissions, webhooks, () => payoutDestinations, programEmails, jobs);
  // The preview pages it photographs need every service, so it reaches them through the finished object.
  let all: Deps | null = null;
  const screenshots = new Screenshots({ config, clock, log, storage }, () => all!, secret);
  all = {
    screenshots,
    config,
    db,
    clock,
    log,
    jobs,
    mailer,
    keys,
    accounts,
    teams,
    programs,
    programConfig,
    webhooks,
    rewardConfigs,
    maintenance,
    teamNotifications,
    owners,
    limits,
    mobileLimits: new MobileLimits(config, db),
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
    async close() {
      // Visits in flight and impression counts waiting in memory are written before the database closes.
      await visits.close();
      await jobs.stop();
      mailer.close();
      await db.close();
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
