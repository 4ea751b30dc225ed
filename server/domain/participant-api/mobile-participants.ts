import type { ParticipantApiServices as Deps } from './services.ts';
import type { MobileProgram } from './mobile-programs.ts';
import { createFromSignUp, pickReferrer, type ClientSignals } from './mobile-sign-ups.ts';
import { readTraffic, type TrafficRange } from './participant-traffic.ts';
import { readLeaderboard } from './mobile-leaderboard.ts';
import { completedDocument } from '../programs/program-config.ts';
import { formatReferrerName, type ReferrerNameFormat } from '../../../shared/referrer-name.ts';
import { findParticipant } from '../participants/referrals.ts';
import { emailKey, parseJson, programLanguages, shareBase, withShareKey } from '../participants/model.ts';
import { maskEmail } from '../messaging/email-layout.ts';
import { effectivePlan } from '../platform/plans.ts';
import type { ReferralRecord } from '../referral/referral-lists.ts';
import { InvalidStateError, NotAuthorizedError, NotFoundError, WrongProgramTypeError } from '../../errors.ts';
import { enrollmentOptions } from '../affiliate/affiliate-forms.ts';
import type { z } from 'zod';
import type { ParticipantRewardList, TriggerReferralResponse } from '../../../shared/schemas/reward.ts';
import type { ReferralList, SendInvitesResponse } from '../../../shared/schemas/referral.ts';
import { toMobileParticipant, type MobileParticipant } from '../../../shared/schemas/mobile.ts';
import type {
  mobileParticipantCreate,
  mobileParticipantCreated,
  mobileParticipantUpdate,
  mobileReferredParticipantCreate,
  mobileReferredParticipantCreated,
  mobileReferrerValidation,
  mobileShareTracked,
  SHARE_TYPES,
} from '../../../shared/schemas/mobile-participants.ts';
import type {
  mobileCampaign,
  mobileInvitesSend,
  mobileLeaderboard,
  mobileLeaderboardQuery,
  mobileReferralQuery,
  mobileReferralSummary,
  mobileRewardQuery,
  mobileRewardsReadResult,
} from '../../../shared/schemas/mobile-campaign.ts';
import type { mobileWindow, mobileTrafficReport } from '../../../shared/schemas/mobile-window.ts';
import { upfrontDiscountOf } from './upfront-discount.ts';
import { designIn } from '../programs/program-translations.ts';
import { chooseLanguage } from '../../../shared/program-language.ts';
import { launcherWords, type LauncherWords } from '../../../shared/i18n/launcher.ts';
import { enLauncher } from '../../../shared/i18n/en-launcher.ts';
import { defaultDesignText } from '../programs/design-copy/index.ts';

type Create = z.output<typeof mobileParticipantCreate>;
type ReferredCreate = z.output<typeof mobileReferredParticipantCreate>;

/**
 * The participant-API operations on participants (issue #5): creation with attribution, the
 * referrer check, self-service updates, share tracking and the client-side trigger. Built on the
 * referral engine's public services; the only SQL here is the share counter.
 */
type RewardConfigList = Awaited<ReturnType<Deps['rewardConfigs']['list']>>;

export class MobileParticipants {
  constructor(private readonly deps: Deps) {}

  /**
   * validateReferrer: whether the named referrer exists in the program, revealing nothing more; with
   * `name` (refloop extension, issue #24) also the name the design greets a referred friend with, by
   * its `referrerNameFormat`. A referrer named by email gets no name: an email must not buy a name.
   */
  async validateReferrer(view: MobileProgram, referredBy: string | undefined, receipts: readonly string[] | undefined, name = false): Promise<z.infer<typeof mobileReferrerValidation>> {
    const pick = await pickReferrer(this.deps, view, referredBy, receipts);
    if (!pick.referrerId) return { valid: false };
    const out: z.infer<typeof mobileReferrerValidation> = pick.revealable ? { valid: true, referredBy: pick.referrerId } : { valid: true };
    if (!name) return out;
    const row = referredBy?.includes('@') ? null : await this.deps.db.knex('participants').where({ id: pick.referrerId }).first('first_name', 'last_name');
    const format = (completedDocument('design', view.program, view.program.documents.design) as { referredExperience: { referrerNameFormat: ReferrerNameFormat } }).referredExperience.referrerNameFormat;
    const formatted = formatReferrerName(row?.first_name, row?.last_name, format);
    return { ...out, referrerName: formatted, referrerFirstName: formatted && formatReferrerName(row?.first_name, null) };
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
    const pick = await pickReferrer(this.deps, view, undefined, input.receipts);
    const created = await createFromSignUp(this.deps, view, input, pick.referrerId, signals);
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
    const pick = await pickReferrer(this.deps, view, input.referredBy, input.receipts);
    if (!pick.named) return { added: false, participant: null, validReferral: false, notAddedReason: 'no_referrer' };
    if (!pick.referrerId) return { added: false, participant: null, validReferral: false, notAddedReason: 'invalid_referrer' };
    const reveal = pick.revealable ? { referredBy: pick.referrerId } : {};
    const existing = await findParticipant(this.deps.db.knex, view.program.id, input.email);
    if (existing) return { added: false, participant: null, ...reveal, validReferral: true, notAddedReason: 'participant_already_exists' };
    const created = await createFromSignUp(this.deps, view, input, pick.referrerId, signals);
    if (!created.isNew) return { added: false, participant: null, ...reveal, validReferral: true, notAddedReason: 'participant_already_exists' };
    const participant = toMobileParticipant(created);
    const validReferral = created.referredBy === pick.referrerId;
    const ownPortal = view.program.type === 'REFERRAL' || created.isAffiliate === true;
    const token = ownPortal ? await this.deps.participantTokens.mint(view.program.id, created.id) : {};
    return { added: true, participant, ...reveal, validReferral, ...token };
  }

  /** The signed-in participant's own record. */
  async get(view: MobileProgram, participantId: string): Promise<MobileParticipant> {
    return toMobileParticipant(await this.deps.participants.get(view.program, participantId));
  }

  /** Self-service update: first name, last name, metadata and language only (the schema admits nothing else; P5's rules validate the language against the program's). */
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

  /**
   * getCampaign: the program's public details and its visible rewards (no coupon codes or owner data).
   * With `starters` (the window payload only), also the program's unedited starter rewards, switched
   * off and flagged `isStarter`, so the window can say the reward is not set up yet (issue #24).
   * `configs`: the program's reward configurations when the caller already reads them.
   */
  async campaign(view: MobileProgram, starters = false, configs?: Promise<RewardConfigList>): Promise<z.infer<typeof mobileCampaign>> {
    const p = view.program;
    const rewards = (await (configs ?? this.deps.rewardConfigs.list(p.id))).filter((r) => r.isVisible || (starters && r.isStarter));
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
        ...(r.isStarter ? { isStarter: true as const } : {}),
      })),
    };
  }

  /** The leaderboard with names as the design's `nameFormat` shows them and masked emails (mobile-leaderboard.ts). */
  leaderboard(view: MobileProgram, q: z.output<typeof mobileLeaderboardQuery>, participantId: string | null = null): Promise<z.infer<typeof mobileLeaderboard>> {
    return readLeaderboard(this.deps, view, q, participantId);
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
   * programs, the signed-in affiliate's summary (null without a payment method on file). The
   * design's texts are in the reader's language (issue #27): a signed-in participant's own, else the
   * best match of `acceptLanguage` among the program's languages, else its base language; each text
   * is the owner's own text for that language, else the default in it where the base text is the
   * unedited default, else the base text as written (`designIn`). A reader of a language other
   * than English, and every reader of an affiliate program, also gets the corner launcher's own
   * words (`launcherTexts`): the launcher is drawn before the window and its language chunks load.
   */
  async window(view: MobileProgram, participantId: string | null, acceptLanguage?: string | null): Promise<z.infer<typeof mobileWindow>> {
    const program = view.program;
    const design = completedDocument('design', program, program.documents.design) as {
      leaderboard: { isEnabled: boolean };
      share: { channels: Record<string, { isVisible: boolean }> };
      trafficInsights: { isPublicDisplayed: boolean; defaultDateRange: TrafficRange };
    };
    const installation = completedDocument('installation', program, program.documents.installation) as {
      shareUrl?: string | null;
      signupEvent: string;
      signup: { formFields: { form: string | null; email: string | null; firstName: string | null; lastName: string | null } };
      stripe: { clientReferenceId: 'AUTO' | 'ALWAYS' | 'OVERWRITE' | 'OFF' };
    };
    const now = this.deps.clock.now();
    const plan = effectivePlan(this.deps.config.billing, view.team, now);
    const paid = plan.limits.paid;
    const affiliateData = program.type === 'AFFILIATE' && participantId && plan.hasPaymentMethod;
    // Read once for the rewards and the referred friend's upfront discount.
    const configs = this.deps.rewardConfigs.list(program.id);
    const [participant, campaign, leaderboard, traffic, affiliate] = await Promise.all([
      participantId ? this.get(view, participantId) : null,
      this.campaign(view, true, configs),
      design.leaderboard.isEnabled ? this.leaderboard(view, { limit: 10 } as z.output<typeof mobileLeaderboardQuery>, participantId) : null,
      participantId && paid && design.trafficInsights.isPublicDisplayed ? this.traffic(program.id, participantId, now, design.trafficInsights.defaultDateRange) : null,
      affiliateData ? this.deps.payouts.summary(program, participantId) : null,
    ]);
    const languages = programLanguages(program);
    const language = chooseLanguage({
      ...(participant ? { participant: (participant as { language?: string | null }).language ?? null } : {}),
      base: languages.base,
      offered: languages.all,
      acceptLanguage: acceptLanguage ?? null,
    });
    return {
      participant,
      type: program.type,
      languages: languages.all,
      design: designIn(program, design, language, view.translations.get(language)) as unknown as Record<string, unknown>,
      ...launcherTexts(program.type, language),
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
      formCapture: installation.signupEvent === 'FORM_DETECTION' ? { ...installation.signup.formFields } : null,
      stripeClientReferenceId: await this.stripeReference(program.id, installation.stripe.clientReferenceId),
      upfrontDiscount: program.type === 'REFERRAL' ? upfrontDiscountOf(program, await configs) : null,
      traffic,
      affiliate,
    };
  }

  /** installation.stripe.clientReferenceId for the attribution script: AUTO fills only while the program has an active Stripe connection. */
  private async stripeReference(programId: string, mode: 'AUTO' | 'ALWAYS' | 'OVERWRITE' | 'OFF'): Promise<'FILL' | 'OVERWRITE' | null> {
    if (mode === 'OFF') return null;
    if (mode === 'OVERWRITE') return 'OVERWRITE';
    if (mode === 'ALWAYS') return 'FILL';
    return (await this.deps.billing.row(this.deps.db.knex, programId))?.state === 'ACTIVE' ? 'FILL' : null;
  }

  /** The participant's link visits over a date range (7, 30 or 90 UTC days with today, or since they joined): participant-traffic.ts. */
  traffic(programId: string, participantId: string, now: number, range: TrafficRange): Promise<z.infer<typeof mobileTrafficReport>> {
    return readTraffic(this.deps, programId, participantId, now, range);
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

/** The public site key pages need while options.fraud.recaptcha is on (enabling it requires one). */
function recaptchaSiteKey(program: MobileProgram['program']): string | null {
  const r = (completedDocument('options', program, program.documents.options) as { fraud: { recaptcha: { isEnabled: boolean; siteKey: string | null } } }).fraud.recaptcha;
  return r.isEnabled ? r.siteKey : null;
}

/**
 * MW1's `launcherTexts` (issue #27): the corner launcher's fallback words for a blank design text in
 * the reader's language, with that language's code (`lang`, for the launcher's `lang` attribute). A
 * referral program's English words are the ones the launcher carries; an
 * affiliate program's are the affiliate defaults of the design (design.widget's newVisitorText,
 * participantText and buttonText) in that language, English included.
 */
function launcherTexts(type: 'REFERRAL' | 'AFFILIATE', language: string): { launcherTexts?: LauncherWords & { lang: string } } {
  const words = launcherWords(language);
  if (type === 'REFERRAL') return words ? { launcherTexts: { ...words, lang: language } } : {};
  return {
    launcherTexts: {
      visitor: defaultDesignText(language, 'becomeAffiliate'),
      participant: defaultDesignText(language, 'affiliateLink'),
      button: defaultDesignText(language, 'earnWithUs'),
      hide: (words ?? enLauncher).hide,
      lang: language,
    },
  };
}
