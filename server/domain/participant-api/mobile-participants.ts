import { isIP } from 'node:net';
import type { Deps } from '../deps.ts';
import type { MobileProgram } from './mobile-programs.ts';
import type { VisitTraits } from './impressions.ts';
import { completedDocument } from './program-config.ts';
import { findParticipant, findReferrer } from './participants/referrals.ts';
import { emailKey, parseJson, programLanguages, shareBase, withShareKey, type RequestEvidence } from './participants/model.ts';
import { REASON } from './fraud.ts';
import { maskEmail } from './program-emails.ts';
import { effectivePlan } from './plans.ts';
import type { ReferralRecord } from './invites.ts';
import { InvalidStateError, NotAuthorizedError, NotFoundError, ParticipantBlockedError, ValidationError, WrongProgramTypeError } from '../errors.ts';
import { enrollmentOptions } from './affiliate-forms.ts';
import type { z } from 'zod';
import type { ParticipantRewardList, TriggerReferralResponse } from '../../shared/schemas/reward.ts';
import type { ReferralList, SendInvitesResponse } from '../../shared/schemas/referral.ts';
import type { Participant } from '../../shared/schemas/participant.ts';
import { TRAFFIC_BREAKDOWNS, TRAFFIC_RANGES, toMobileParticipant, type MobileParticipant } from '../../shared/schemas/mobile.ts';
import type {
  mobileWindow,
  mobileTrafficReport,
  mobileCampaign,
  mobileInvitesSend,
  mobileLeaderboard,
  mobileLeaderboardQuery,
  mobileReferralQuery,
  mobileReferralSummary,
  mobileRewardQuery,
  mobileRewardsReadResult,
  MOBILE_LEADERBOARD_TYPES,
  mobileParticipantCreate,
  mobileParticipantCreated,
  mobileParticipantUpdate,
  mobileReferredParticipantCreate,
  mobileReferredParticipantCreated,
  mobileReferrerValidation,
  mobileShareTracked,
  SHARE_TYPES,
} from '../../shared/schemas/mobile.ts';

type Create = z.output<typeof mobileParticipantCreate>;
type ReferredCreate = z.output<typeof mobileReferredParticipantCreate>;

/** Request signals the fraud checks see (mobile rule: IP, instance id, fingerprint). */
export interface ClientSignals {
  ip: string;
  /** A native app's session (started with the program's X-Public-Key): reCAPTCHA does not apply. */
  app?: boolean;
  /** From the operator's trusted proxy header (GEO_COUNTRY_HEADER); null or absent when unknown. */
  country?: string | null;
}

/** The referrer a client named, resolved: `revealable` when the client already knew its id. */
interface ReferrerPick {
  /** Whether the client named any referrer (code or a receipt that verifies). */
  named: boolean;
  referrerId: string | null;
  revealable: boolean;
}

/** The address the fraud checks get: IPv4-mapped IPv6 unwrapped, anything unparseable dropped. */
function clientIp(ip: string): string | undefined {
  const plain = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  return isIP(plain) ? plain : undefined;
}

/**
 * What a participant-API sign-up request shows the fraud checks beyond stored values: the country,
 * and for pages of a program with options.fraud.recaptcha on, the reCAPTCHA verdict. A token that
 * fails is a 422 before anything is written; a verification service that cannot be reached lets the
 * sign-up through as a fraud signal (held for review), so an outage at Google does not close the
 * program. Used by MP2, MP3 and the affiliate application (MAF2).
 */
export async function signupEvidence(deps: Deps, view: MobileProgram, token: string | undefined, signals: ClientSignals): Promise<RequestEvidence> {
  let recaptchaUnverified = false;
  const recaptcha = (completedDocument('options', view.program, view.program.documents.options) as { fraud: { recaptcha: { isEnabled: boolean } } }).fraud.recaptcha;
  const secret = recaptcha.isEnabled && !signals.app ? deps.programConfig.recaptchaSecret(view.program) : null;
  if (secret) {
    const outcome = await deps.recaptcha.verify(secret, token, signals.ip);
    if (outcome.result === 'failed') {
      deps.log.info('participant sign-up blocked by anti-fraud', { programId: view.program.id, riskLevel: 'HIGH', reasonCode: REASON.recaptchaFailed });
      throw new ParticipantBlockedError(`This sign-up was refused because the reCAPTCHA check failed: ${outcome.why} (${REASON.recaptchaFailed}).`);
    }
    recaptchaUnverified = outcome.result === 'unavailable';
  }
  return { country: signals.country ?? null, recaptchaUnverified };
}

/**
 * The participant-API operations on participants (issue #5): creation with attribution, the
 * referrer check, self-service updates, share tracking and the client-side trigger. Built on the
 * referral engine's public services; the only SQL here is the share counter.
 */
export class MobileParticipants {
  constructor(private readonly deps: Deps) {}

  /**
   * Resolves the referrer a client names: an explicit code (participant id, share key, vanity key)
   * wins; else the program's attribution model picks among valid receipts. Forged, expired and
   * other-program receipts count as not sent.
   */
  async #referrer(view: MobileProgram, referredBy: string | undefined, receipts: readonly string[] | undefined): Promise<ReferrerPick> {
    const knex = this.deps.db.knex;
    if (referredBy) {
      const row = await findReferrer(knex, view.program.id, referredBy);
      return { named: true, referrerId: row?.id ?? null, revealable: row?.id === referredBy };
    }
    const fromReceipt = receipts?.length ? this.deps.receipts.apply(view.program, receipts) : null;
    if (!fromReceipt) return { named: false, referrerId: null, revealable: false };
    const row = await findParticipant(knex, view.program.id, fromReceipt);
    return { named: true, referrerId: row?.id ?? null, revealable: true };
  }

  /** validateReferrer: whether the named referrer exists in the program, revealing nothing more. */
  async validateReferrer(view: MobileProgram, referredBy: string | undefined, receipts: readonly string[] | undefined): Promise<z.infer<typeof mobileReferrerValidation>> {
    const pick = await this.#referrer(view, referredBy, receipts);
    if (!pick.referrerId) return { valid: false };
    return pick.revealable ? { valid: true, referredBy: pick.referrerId } : { valid: true };
  }

  /**
   * addParticipant (mobile rule 5): an email that already has a participant gets
   * `requiresParticipantToken` and nothing else; a new participant is created (receipts applied,
   * fraud screening and plan limits inside `participants.create`) and gets a token.
   */
  async add(view: MobileProgram, input: Create, signals: ClientSignals): Promise<z.infer<typeof mobileParticipantCreated>> {
    const existing = await findParticipant(this.deps.db.knex, view.program.id, input.email);
    if (existing) return { requiresParticipantToken: true, participant: null };
    // An affiliate program that reviews applicants enrolls nobody directly from a browser or app.
    if (view.program.type === 'AFFILIATE' && enrollmentOptions(view.program).mode !== 'OPEN_ENROLLMENT') {
      throw new InvalidStateError('This affiliate program reviews applicants: apply with POST /mobile/v2/affiliate-applications.');
    }
    const pick = await this.#referrer(view, undefined, input.receipts);
    const created = await this.#create(view, input, pick.referrerId, signals);
    if (!created.isNew) return { requiresParticipantToken: true, participant: null };
    const token = await this.deps.participantTokens.mint(view.program.id, created.id);
    return { requiresParticipantToken: false, participant: toMobileParticipant(created), ...token };
  }

  /**
   * addReferredParticipant (mobile rule 4): adds only when a referrer verifies. A new participant
   * gets a token when they have a portal of their own: always in referral programs, only when
   * enrolled as an affiliate in affiliate programs (a referred customer is added without one).
   */
  async addReferred(view: MobileProgram, input: ReferredCreate, signals: ClientSignals): Promise<z.infer<typeof mobileReferredParticipantCreated>> {
    const pick = await this.#referrer(view, input.referredBy, input.receipts);
    if (!pick.named) return { added: false, participant: null, validReferral: false, notAddedReason: 'no_referrer' };
    if (!pick.referrerId) return { added: false, participant: null, validReferral: false, notAddedReason: 'invalid_referrer' };
    const reveal = pick.revealable ? { referredBy: pick.referrerId } : {};
    const existing = await findParticipant(this.deps.db.knex, view.program.id, input.email);
    if (existing) return { added: false, participant: null, ...reveal, validReferral: true, notAddedReason: 'participant_already_exists' };
    const created = await this.#create(view, input, pick.referrerId, signals);
    if (!created.isNew) return { added: false, participant: null, ...reveal, validReferral: true, notAddedReason: 'participant_already_exists' };
    const participant = toMobileParticipant(created);
    const validReferral = created.referredBy === pick.referrerId;
    const ownPortal = view.program.type === 'REFERRAL' || created.isAffiliate === true;
    const token = ownPortal ? await this.deps.participantTokens.mint(view.program.id, created.id) : {};
    return { added: true, participant, ...reveal, validReferral, ...token };
  }

  async #create(view: MobileProgram, input: Create, referrerId: string | null, signals: ClientSignals) {
    // design signup.gdpr: the widget draws the checkbox, so pages must send the tick when it is required; apps draw their own forms.
    const gdpr = (completedDocument('design', view.program, view.program.documents.design) as { signup: { gdpr: { isEnabled: boolean; text: string; isCheckboxRequired: boolean } } }).signup.gdpr;
    if (gdpr.isEnabled && gdpr.isCheckboxRequired && !signals.app && input.gdprConsent !== true) {
      throw new ValidationError('This program asks new participants to agree to its email consent first.', [{ field: 'gdprConsent', code: 'REQUIRED', message: 'Tick the consent checkbox.' }]);
    }
    const request = await signupEvidence(this.deps, view, input.recaptchaToken, signals);
    return this.deps.participants.create(
      view.program,
      view.team,
      {
        email: input.email,
        firstName: input.firstName,
        lastName: input.lastName,
        metadata: input.metadata,
        mobileInstanceId: input.mobileInstanceId,
        fingerprint: input.fingerprint,
        ipAddress: clientIp(signals.ip),
        referredBy: referrerId ?? undefined,
        // Affiliate programs: a referred customer is never enrolled from a browser or app.
        ...(view.program.type === 'AFFILIATE' && referrerId ? { isAffiliate: false } : {}),
      },
      // A public sign-up that enrolls an affiliate is open enrollment (rest-v2 §2.8 sources).
      { source: 'OPEN_ENROLLMENT', request, ...(gdpr.isEnabled && input.gdprConsent === true ? { gdprAgreement: { text: gdpr.text } } : {}) },
    );
  }

  /** The signed-in participant's own record. */
  async get(view: MobileProgram, participantId: string): Promise<MobileParticipant> {
    return toMobileParticipant(await this.deps.participants.get(view.program, participantId));
  }

  /** Self-service update: first name, last name and metadata only (the schema admits nothing else). */
  async update(view: MobileProgram, participantId: string, patch: z.output<typeof mobileParticipantUpdate>): Promise<MobileParticipant> {
    const changed = await this.deps.participants.update(view.program, participantId, patch);
    return toMobileParticipant(changed);
  }

  /** trackShare (mobile rule 7): one more share on the channel's counter and a SHARE activity row, in one transaction. */
  async trackShare(view: MobileProgram, participantId: string, type: (typeof SHARE_TYPES)[number]): Promise<z.infer<typeof mobileShareTracked>> {
    const { db, activity, clock } = this.deps;
    return db.knex.transaction(async (trx) => {
      const row = await trx('participants').where({ id: participantId, program_id: view.program.id }).forNoKeyUpdate().first('share_count');
      const shareCount = parseJson<Record<string, number>>(row?.share_count ?? null, {});
      shareCount[type] = (shareCount[type] ?? 0) + 1;
      await trx('participants').where({ id: participantId }).update({ share_count: JSON.stringify(shareCount), updated_at: clock.now() });
      await activity.record(trx, { programId: view.program.id, participantId, type: 'SHARE', action: `share.${type}`, text: `Shared via ${type}`, data: { channel: type } });
      return { success: true as const, shareCount };
    });
  }

  /**
   * triggerReferral from a client (mobile rule 13): referral programs only (422), and only when
   * `options.allowClientSideReferralTrigger` is on (403): server-verified purchases go through REST.
   */
  async trigger(view: MobileProgram, participantId: string): Promise<TriggerReferralResponse> {
    if (view.program.type !== 'REFERRAL') throw new WrongProgramTypeError('triggerReferral is only for referral programs.');
    const options = completedDocument('options', view.program, view.program.documents.options) as { allowClientSideReferralTrigger?: boolean };
    if (options.allowClientSideReferralTrigger !== true) {
      throw new NotAuthorizedError('This program does not accept referral triggers from browsers or apps; trigger referrals from your server with the REST API.');
    }
    return this.deps.referralTriggers.trigger(view.program, participantId, undefined);
  }

  /** getCampaign: the program's public details and its visible rewards (no coupon codes or owner data). */
  async campaign(view: MobileProgram): Promise<z.infer<typeof mobileCampaign>> {
    const p = view.program;
    const rewards = (await this.deps.rewardConfigs.list(p.id)).filter((r) => r.isVisible);
    return {
      id: p.id,
      name: p.name,
      type: p.type,
      status: p.status,
      currencyISO: p.currencyISO,
      companyName: p.companyName,
      companyLogoImageUrl: p.companyLogoImageUrl,
      rewards: rewards.map((r) => ({
        id: r.id,
        type: r.type,
        ...(r.event ? { event: r.event } : {}),
        title: r.title,
        description: r.description,
        referralDescription: r.referralDescription,
        imageUrl: r.imageUrl,
        isUnlimited: r.isUnlimited,
        limit: r.limit,
        limitDuration: r.limitDuration,
        conversionsRequired: r.conversionsRequired,
        numberOfWinners: r.numberOfWinners,
        referredRewardUpfront: r.referredRewardUpfront,
        nextMilestonePrefix: r.nextMilestonePrefix,
        nextMilestoneSuffix: r.nextMilestoneSuffix,
        commissionStructure: r.commissionStructure,
        order: r.order,
      })),
    };
  }

  /**
   * The leaderboard with names as the design's `nameFormat` shows them and masked emails. `page`
   * reads the first page × limit rows and keeps the last page (capped by the schema); `offsetKey`
   * continues from a previous page like REST P2's `nextId`.
   */
  async leaderboard(view: MobileProgram, q: z.output<typeof mobileLeaderboardQuery>, participantId: string | null = null): Promise<z.infer<typeof mobileLeaderboard>> {
    const design = completedDocument('design', view.program, view.program.documents.design) as { leaderboard: { defaultSelector: 'ALL_TIME' | 'CURRENT_MONTH' | 'PREV_MONTH'; nameFormat: NameFormat } };
    const type = q.leaderboardType ?? design.leaderboard.defaultSelector;
    const page = q.offsetKey ? 1 : (q.page ?? 1);
    const read = await this.deps.participants.leaderboardPage(view.program, { leaderboardType: type, limit: q.limit * page, nextId: q.offsetKey });
    const rows = read.participants.slice(q.limit * (page - 1));
    return {
      leaderboardType: type,
      rows: rows.map((p) => ({ rank: p.rank ?? null, name: formatName(p.firstName, p.lastName, design.leaderboard.nameFormat), email: maskEmail(p.email), score: scoreOf(p, type), isYou: p.id === participantId })),
      limit: q.limit,
      nextOffsetKey: read.nextId,
    };
  }

  /**
   * The signed-in participant's referrals and invitations with masked emails (mobile rule 6): the
   * address is shown only when the program allows disclosure after sign-in with PARTIAL masking
   * *now*, and the sender's invitation to that address recorded permission and was not private.
   */
  async referrals(view: MobileProgram, participantId: string, q: z.output<typeof mobileReferralQuery>): Promise<ReferralList> {
    const options = completedDocument('options', view.program, view.program.documents.options) as { referralEmailPrivacy: { masking: 'PARTIAL' | 'FULL'; allowInvitedEmailDisclosureAfterSignIn: boolean } };
    const privacy = options.referralEmailPrivacy;
    const disclosable = new Set<string>();
    if (privacy.masking === 'PARTIAL' && privacy.allowInvitedEmailDisclosureAfterSignIn) {
      const rows = await this.deps.db
        .knex('invites')
        .where({ program_id: view.program.id, participant_id: participantId })
        .where('disclosure_allowed', true)
        .where('is_private', false)
        .select('email_key');
      for (const r of rows) disclosable.add(r.email_key as string);
    }
    const present = (row: ReferralRecord): string => {
      if (disclosable.has(emailKey(row.email))) return row.email;
      return privacy.masking === 'FULL' ? '***' : maskEmail(row.email);
    };
    return this.deps.invites.listReferrals(view.program, q, { referrer: participantId, presentEmail: present });
  }

  /** sendInvites: RF3 for the signed-in sender (same budgets, skips and TEAM_NOT_VERIFIED 403). */
  send(view: MobileProgram, participantId: string, body: z.output<typeof mobileInvitesSend>): Promise<SendInvitesResponse> {
    return this.deps.invites.send(view.program, participantId, body);
  }

  /** The signed-in participant's rewards, newest first, `limit`/`nextId` as REST PR1. */
  rewards(view: MobileProgram, participantId: string, q: z.output<typeof mobileRewardQuery>): Promise<ParticipantRewardList> {
    return this.deps.rewards.list(view.program, participantId, q);
  }

  /** Marks the given rewards (or all) of the signed-in participant read; other participants' ids change nothing. */
  async markRewardsRead(participantId: string, rewardIds: string[] | undefined): Promise<z.infer<typeof mobileRewardsReadResult>> {
    const q = this.deps.db.knex('participant_rewards').where({ participant_id: participantId, unread: true }).whereNull('deleted_at');
    if (rewardIds) q.whereIn('id', rewardIds);
    const updated = await q.update({ unread: false });
    return { success: true, updated: Number(updated) };
  }

  /** getParticipantReferralSummary (referral programs): counters plus two counts, read together. */
  async summary(view: MobileProgram, participantId: string): Promise<z.infer<typeof mobileReferralSummary>> {
    if (view.program.type !== 'REFERRAL') throw new WrongProgramTypeError('The referral summary is only for referral programs.');
    const knex = this.deps.db.knex;
    const [me, expired, rewards] = await Promise.all([
      knex('participants').where({ id: participantId, program_id: view.program.id }).first('referral_count', 'lead_count', 'impression_count', 'invite_count'),
      knex('participants').where({ program_id: view.program.id, referred_by: participantId, referral_status: 'CREDIT_EXPIRED' }).count({ n: '*' }).first(),
      knex('participant_rewards')
        .where({ participant_id: participantId })
        .whereNull('deleted_at')
        .select(knex.raw('COUNT(*) AS earned'), knex.raw("SUM(CASE WHEN status = 'PENDING' THEN 1 ELSE 0 END) AS pending"))
        .first(),
    ]);
    return {
      referrals: Number(me?.referral_count ?? 0),
      leads: Number(me?.lead_count ?? 0),
      expiredReferrals: Number(expired?.n ?? 0),
      clicks: Number(me?.impression_count ?? 0),
      rewardsEarned: Number(rewards?.earned ?? 0),
      pendingRewards: Number(rewards?.pending ?? 0),
      invitesSent: Number(me?.invite_count ?? 0),
    };
  }

  /** The signed-in participant's vanity keys and their share links; with `keys`, replaces them first (409 when taken). */
  async vanityLinks(view: MobileProgram, participantId: string, keys?: string[]): Promise<{ vanityKeys: string[]; links: Array<{ vanityKey: string; url: string }> }> {
    const p = keys ? await this.deps.participants.update(view.program, participantId, { vanityKeys: keys }) : await this.deps.participants.get(view.program, participantId);
    const vanityKeys = (p.vanityKeys ?? []) as string[];
    const base = shareBase(view.program, this.deps.config.publicUrl);
    return { vanityKeys, links: vanityKeys.map((k) => ({ vanityKey: k, url: withShareKey(base, k) })) };
  }

  /**
   * The window payload: participant, share links and channels, rewards, the leaderboard's first
   * page (when the design shows one), the enabled payout providers with `canConfirm` and, for a signed-in participant
   * on a paid plan with the design's Traffic section on, the traffic report (rule 11); in affiliate
   * programs, the signed-in affiliate's summary (null without a payment method on file).
   */
  async window(view: MobileProgram, participantId: string | null): Promise<z.infer<typeof mobileWindow>> {
    const program = view.program;
    const design = completedDocument('design', program, program.documents.design) as {
      leaderboard: { isEnabled: boolean };
      share: { channels: Record<string, { isVisible: boolean }> };
      trafficInsights: { isPublicDisplayed: boolean; defaultDateRange: TrafficRange };
    };
    const installation = completedDocument('installation', program, program.documents.installation) as { shareUrl?: string | null };
    const now = this.deps.clock.now();
    const plan = effectivePlan(this.deps.config.billing, view.team, now);
    const paid = plan.limits.paid;
    const affiliateData = program.type === 'AFFILIATE' && participantId && plan.hasPaymentMethod;
    const [participant, campaign, leaderboard, traffic, affiliate] = await Promise.all([
      participantId ? this.get(view, participantId) : null,
      this.campaign(view),
      design.leaderboard.isEnabled ? this.leaderboard(view, { limit: 10 } as z.output<typeof mobileLeaderboardQuery>, participantId) : null,
      participantId && paid && design.trafficInsights.isPublicDisplayed ? this.traffic(program.id, participantId, now, design.trafficInsights.defaultDateRange) : null,
      affiliateData ? this.deps.payouts.summary(program, participantId) : null,
    ]);
    return {
      participant,
      type: program.type,
      languages: programLanguages(program).all,
      design: design as unknown as Record<string, unknown>,
      share: {
        preferredUrl: installation.shareUrl || null,
        fallbackUrl: `${this.deps.config.publicUrl.replace(/\/+$/, '')}/r/${program.id}`,
        channels: Object.entries(design.share.channels)
          .filter(([, c]) => c.isVisible)
          .map(([name]) => name) as z.infer<typeof mobileWindow>['share']['channels'],
      },
      rewards: campaign.rewards,
      leaderboard,
      payoutSettings: { payoutDestinations: { enabledProviders: await this.deps.payoutDestinations.providersFor(program, participantId) } },
      recaptchaSiteKey: recaptchaSiteKey(program),
      traffic,
      affiliate,
    };
  }

  /**
   * The participant's link visits over a date range (7, 30 or 90 UTC days with today, or since they
   * joined), aggregated in SQL from the VISIT activity rows: totals, visits per day (per month for
   * ALL_TIME) and the top 10 sources.
   */
  async traffic(programId: string, participantId: string, now: number, range: TrafficRange): Promise<z.infer<typeof mobileTrafficReport>> {
    const knex = this.deps.db.knex;
    const today = Math.floor(now / DAY_MS);
    let firstDay = today - (RANGE_DAYS[range] - 1);
    if (range === 'ALL_TIME') {
      const joined = await knex('participants').where({ id: participantId }).first('created_at');
      firstDay = Math.min(today, Math.floor(Number(joined?.created_at ?? now) / DAY_MS));
    }
    const since = firstDay * DAY_MS;
    const base = () => knex('activity_logs').where({ participant_id: participantId, program_id: programId, type: 'VISIT' }).where('created_at', '>=', since);
    // One GROUP BY per breakdown over the trait stored in the VISIT row's `data` (impressions.ts `traitsData`).
    const sqlite = this.deps.db.dialect === 'sqlite';
    const top = async (trait: string): Promise<Array<{ value: string | null; visits: number }>> => {
      const field = sqlite ? `json_extract(data, '$.${trait}')` : `(data::json ->> '${trait}')`;
      const rows = await base().select(knex.raw(`${field} AS value`), knex.raw('COUNT(*) AS visits')).groupByRaw(field).orderBy([{ column: 'visits', order: 'desc' }, { column: 'value', order: 'asc', nulls: 'last' }]).limit(10);
      return rows.map((r: { value: string | null; visits: number | string }) => ({ value: r.value == null ? null : String(r.value), visits: Number(r.visits) }));
    };
    const [totals, days, ...tops] = await Promise.all([
      base().select(knex.raw('COUNT(*) AS visits'), knex.raw(`SUM(CASE WHEN action = 'visit.unique' THEN 1 ELSE 0 END) AS uniques`)).first(),
      base().select(knex.raw(`created_at / ${DAY_MS} AS day`), knex.raw('COUNT(*) AS visits')).groupByRaw(`created_at / ${DAY_MS}`),
      ...TRAFFIC_BREAKDOWNS.map((b) => top(BREAKDOWN_TRAIT[b])),
    ]);
    const breakdowns = Object.fromEntries(TRAFFIC_BREAKDOWNS.map((b, i) => [b, tops[i]!])) as Record<(typeof TRAFFIC_BREAKDOWNS)[number], Array<{ value: string | null; visits: number }>>;
    const monthly = range === 'ALL_TIME';
    const label = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, monthly ? 7 : 10);
    const buckets = new Map<string, number>();
    for (let day = firstDay; day <= today; day++) buckets.set(label(day), 0);
    for (const d of days as Array<{ day: number | string; visits: number | string }>) {
      const key = label(Math.floor(Number(d.day)));
      if (buckets.has(key)) buckets.set(key, buckets.get(key)! + Number(d.visits));
    }
    return {
      range,
      interval: monthly ? 'MONTH' : 'DAY',
      days: today - firstDay + 1,
      visits: Number(totals?.visits ?? 0),
      uniqueVisitors: Number(totals?.uniques ?? 0),
      visitsOverTime: [...buckets].map(([date, visits]) => ({ date, visits })),
      sources: breakdowns.trigger.map((r) => ({ source: r.value, visits: r.visits })),
      breakdowns,
    };
  }

  /** MT1: the signed-in participant's traffic report for a range, where the window would show one (403 otherwise). */
  async trafficReport(view: MobileProgram, participantId: string, range: TrafficRange | undefined): Promise<z.infer<typeof mobileTrafficReport>> {
    const design = completedDocument('design', view.program, view.program.documents.design) as { trafficInsights: { isPublicDisplayed: boolean; defaultDateRange: TrafficRange } };
    const now = this.deps.clock.now();
    if (!design.trafficInsights.isPublicDisplayed || !effectivePlan(this.deps.config.billing, view.team, now).limits.paid) {
      throw new NotAuthorizedError('This program does not show participants their traffic (design.trafficInsights.isPublicDisplayed on a paid plan).');
    }
    return this.traffic(view.program.id, participantId, now, range ?? design.trafficInsights.defaultDateRange);
  }

  /** A new signed download link for a published FILE resource of this program (404 otherwise). */
  async downloadUrl(view: MobileProgram, resourceId: string): Promise<{ url: string; expiresIn: number }> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(resourceId)) throw new NotFoundError(`No published file resource ${resourceId.slice(0, 64)}.`);
    return this.deps.resources.downloadUrl(view.program.id, resourceId);
  }
}

const DAY_MS = 86_400_000;

type TrafficRange = (typeof TRAFFIC_RANGES)[number];
/** The stored visit trait (impressions.ts `VisitTraits`) behind each breakdown of the design. */
const BREAKDOWN_TRAIT: Record<(typeof TRAFFIC_BREAKDOWNS)[number], keyof VisitTraits> = {
  utm: 'campaign',
  referrer: 'referrer',
  destination: 'destination',
  geo: 'country',
  technology: 'device',
  trigger: 'source',
};
/** UTC days of each fixed range, today included (ALL_TIME starts on the day the participant joined). */
const RANGE_DAYS: Record<TrafficRange, number> = { LAST_7_DAYS: 7, LAST_30_DAYS: 30, LAST_90_DAYS: 90, ALL_TIME: 0 };

/** The public site key pages need while options.fraud.recaptcha is on (enabling it requires one). */
function recaptchaSiteKey(program: MobileProgram['program']): string | null {
  const r = (completedDocument('options', program, program.documents.options) as { fraud: { recaptcha: { isEnabled: boolean; siteKey: string | null } } }).fraud.recaptcha;
  return r.isEnabled ? r.siteKey : null;
}

type NameFormat = 'FIRST' | 'FIRST_LAST_INITIAL' | 'FIRST_LAST' | 'ANONYMOUS';

/** A participant's name as others see it on the leaderboard. */
function formatName(first: string | null | undefined, last: string | null | undefined, format: NameFormat): string | null {
  if (format === 'ANONYMOUS' || !first) return null;
  if (format === 'FIRST' || !last) return first;
  return format === 'FIRST_LAST' ? `${first} ${last}` : `${first} ${last[0]}.`;
}

/** The number a board ranks by. */
function scoreOf(p: Participant, type: (typeof MOBILE_LEADERBOARD_TYPES)[number]): number {
  switch (type) {
    case 'CURRENT_MONTH':
      return Number(p.monthlyReferralCount ?? 0);
    case 'PREV_MONTH':
      return Number(p.prevMonthlyReferralCount ?? 0);
    case 'TOTAL_IMPRESSION_COUNT':
      return Number(p.impressionCount ?? 0);
    case 'UNIQUE_IMPRESSION_COUNT':
      return Number(p.uniqueImpressionCount ?? 0);
    case 'BY_LEADS':
      return Number(p.leadCount ?? 0);
    default:
      return Number(p.referralCount ?? 0);
  }
}
