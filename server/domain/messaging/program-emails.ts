import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import { selectRows } from '../../db/rows.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Mailer } from '../platform/mail.ts';
import { ACTIONS, type Activity } from '../platform/activity.ts';
import { rewardMetadataVars } from '../programs/reward-references.ts';
import type { Participants } from '../participants/service.ts';
import { programLanguages, shareBase, withShareKey, type ParticipantRow, type Q } from '../participants/model.ts';
import { toProgram, type Program } from '../programs/programs.ts';
import { completeDocument, programEmailBrand } from '../programs/program-config.ts';
import { brandEmailSettings } from '../programs/brand.ts';
import { hostedPagesOn, portalLinkedFromEmails, portalUrl } from '../programs/hosted-pages.ts';
import { TeamNotVerifiedError, ValidationError } from '../../errors.ts';
import type { CampaignEmails, EmailTemplate } from '../../../shared/schemas/program-config-emails.ts';
import { AFFILIATE_EMAIL_TYPES, REFERRAL_EMAIL_TYPES, type EmailParticipant } from '../../../shared/schemas/referral.ts';
import { displayName, layoutEmail, type EmailParts, type EmailVars } from './email-layout.ts';
import { ParticipantEventEmails } from './participant-event-emails.ts';
import { teamVerified } from './team-verification.ts';
import { UnsubscribeLinks } from './unsubscribe-links.ts';
import { defaultTemplate, isDefaultText } from '../programs/email-copy/index.ts';
import { emailOverride, footerOverride, readTranslation, type Translation } from '../programs/program-translations.ts';

// Program emails: the program's templates (rest-v2 §2.19) rendered with merge tags, wrapped in one
// layout with the company footer and an unsubscribe link, sent through the mailer inside the
// caller's transaction, and recorded in the activity log. Nothing leaves while the team is not
// VERIFIED (team-verification.ts) or the participant has unsubscribed (unsubscribe-links.ts);
// automatic sends record why they were skipped.

/** A template key of the emails document (every key but `settings`). */
export type TemplateKey = Exclude<keyof CampaignEmails, 'settings'>;

/** Why a program email was not sent. */
export type SkipReason = 'TEAM_NOT_VERIFIED' | 'UNSUBSCRIBED' | 'TEMPLATE_DISABLED' | 'TEMPLATE_NOT_AVAILABLE';

/** What happened to one program email. */
export type SendOutcome = { sent: true; mailId: string } | { sent: false; reason: SkipReason };

/** The send budgets (implemented by server/http/limits.ts); charged before any transaction opens. */
export interface SendBudgets {
  chargeInvites(teamId: string, senderKey: string, count: number): Promise<void>;
  chargeParticipantEmail(teamId: string): Promise<void>;
}

/** Options of one send. */
export interface SendOptions {
  /** Send even when the template's `isEnabled` is off (P11: it "controls automatic sending only"). */
  ignoreEnabled?: boolean;
  /** Outbox kind and activity `emailType` for mail that is not a template (free-form, reminders). */
  emailType?: string;
  replyTo?: string | null;
  /** Extra `data` for the activity row. */
  data?: Record<string, unknown>;
  /** Changes the template's body before it is rendered (a line the template did not place itself). */
  amendBody?: (body: string) => string;
}

const SKIP_TEXT: Record<SkipReason, string> = {
  TEAM_NOT_VERIFIED: 'the team is not verified yet. Program emails are held until an owner requests verification on the Team page and it is approved',
  UNSUBSCRIBED: 'the participant unsubscribed from program emails',
  TEMPLATE_DISABLED: 'the template is switched off',
  TEMPLATE_NOT_AVAILABLE: 'the program type has no such template',
};

/**
 * What the owner calls each email in the activity log (issue #32: the log showed the template's
 * key). Activity texts are the API's English, as every other activity row the server writes; the
 * console's Emails page names the templates the same way.
 */
const EMAIL_NAMES: Record<string, string> = {
  welcomeNonReferred: 'welcome (joined on their own)',
  welcomeReferred: 'welcome (joined through a friend)',
  referralLinkViewedFirstTime: 'someone opened your link',
  referralLinkUsed: 'a friend used your link',
  referredSignup: 'a friend signed up',
  goalAchieved: 'reward earned',
  campaignEndedWinners: 'program ended (winners)',
  campaignEndedNonWinners: 'program ended (everyone else)',
  progressUpdateMonthly: 'monthly progress',
  commissionGenerated: 'commission earned',
  commissionAdjusted: 'commission changed',
  payoutPending: 'payout on its way',
  payoutSentSuccess: 'payout sent',
  invite: 'invitation from a participant',
  loginLink: 'sign-in link',
  paypalEmailConfirmation: 'confirm PayPal address',
  payoutDestinationConfirmation: 'confirm payout details',
  taxInfoMissing: 'tax details needed',
  taxInfoReceived: 'tax details received',
  taxInfoApproved: 'tax details approved',
  taxInfoRejected: 'tax details refused',
  affiliateInvite: 'affiliate invitation',
  followUpReminder: 'follow-up reminder',
  freeForm: 'message from the team',
};

/** The activity row of a program email not sent: which email in the owner's words, and why. */
export function skippedEmailText(emailType: string | undefined, reason: SkipReason): string {
  const name = (emailType && EMAIL_NAMES[emailType]) ?? emailType ?? 'program';
  return `The “${name}” email was not sent: ${SKIP_TEXT[reason]}.`;
}

/** Templates P11 may send for a program type (§3.8). */
export function sendableTemplates(type: Program['type']): readonly string[] {
  return type === 'AFFILIATE' ? AFFILIATE_EMAIL_TYPES : REFERRAL_EMAIL_TYPES;
}

/**
 * Program emails: template rendering, the layout and footer, sending, the automatic emails of
 * participant events (registered on `participants.hooks`), and P11.
 */
export class ProgramEmails {
  /** The owner's texts per program and language, read once per transaction (a send reads them for the copy and the footer). */
  readonly #translations = new WeakMap<object, Map<string, Translation | null>>();
  /** Completed emails documents by stored document object. */
  readonly #documents = new WeakMap<object, CampaignEmails>();
  /** The automatic emails of participant events (welcome, referred sign-up, goalAchieved, referralLinkUsed). */
  readonly #events = new ParticipantEventEmails(this);
  /** The unsubscribe link of every email to a participant, and the unsubscribe page's operations. */
  readonly unsubscribeLinks: UnsubscribeLinks;

  constructor(
    private readonly db: Db,
    clock: Clock,
    private readonly config: Config,
    private readonly mailer: Mailer,
    private readonly activity: Activity,
    private readonly participants: Participants,
    private readonly budgets: SendBudgets,
    instanceSecret: string,
  ) {
    this.unsubscribeLinks = new UnsubscribeLinks(db, clock, config, activity, this, instanceSecret);
    participants.hooks.created.push((trx, program, p, _ledger, referrer) => this.#events.onCreated(trx, program, p, referrer));
    participants.hooks.referralCredited.push((trx, program, referrer, referred) => this.#events.onCredited(trx, program, referrer, referred));
  }

  /**
   * The program's emails document with defaults filled, computed once per stored document: several
   * steps of one send read it, and deep-merging twenty templates each time would be wasted work.
   */
  emailsOf(program: Program): CampaignEmails {
    const stored = program.documents.emails as object | null | undefined;
    const cached = stored ? this.#documents.get(stored) : undefined;
    if (cached) return cached;
    const doc = completeDocument('emails', program, stored) as CampaignEmails;
    if (stored) this.#documents.set(stored, doc);
    return doc;
  }

  /**
   * Sends one of the program's templates to a participant inside `trx`: the engines' entry point
   * (the rewards engine sends `goalAchieved` through it). Disabled templates are not sent; a team
   * that is not VERIFIED or an unsubscribed participant is skipped and the skip is logged.
   */
  async sendProgramEmail(trx: Knex.Transaction, program: Program, participant: ParticipantRow, templateKey: TemplateKey, vars: EmailVars = {}, opts: SendOptions = {}): Promise<SendOutcome> {
    const emails = this.emailsOf(program);
    const template = emails[templateKey] as (EmailTemplate & { useCompanyReplyTo?: boolean }) | undefined;
    if (!template) return { sent: false, reason: 'TEMPLATE_NOT_AVAILABLE' };
    if (!template.isEnabled && !opts.ignoreEnabled) return { sent: false, reason: 'TEMPLATE_DISABLED' };
    const language = this.languageOf(program, participant);
    const localized = this.templateIn(program, templateKey, template, language, await this.translationOf(trx, program, language));
    const parts = opts.amendBody ? { ...localized, body: opts.amendBody(localized.body) } : localized;
    return this.sendComposed(trx, program, participant, parts, vars, { ...opts, emailType: templateKey });
  }

  /**
   * A template as `language` reads it (issue #27): each of subject, preheader and body is the
   * owner's own text for `language` (`translation`, from `translationOf`) where set; else, while it
   * is still a default (the default text of any program language, `isDefaultText`), the default in
   * `language`; else what the owner wrote, exactly as written.
   */
  templateIn(program: Program, templateKey: string, template: EmailParts, language: string, translation: Translation | null = null): EmailParts {
    const fallback = defaultTemplate(program.type, templateKey, language);
    const pick = (field: 'subject' | 'preheader' | 'body') =>
      emailOverride(translation, templateKey, field) ?? (fallback && isDefaultText(program.type, templateKey, field, template[field]) ? fallback[field] : template[field]);
    return { subject: pick('subject'), preheader: pick('preheader'), body: pick('body') };
  }

  /**
   * The owner's own texts for `language` (`GET /campaign/{id}/translations`), or null for the base
   * language, a language the program no longer offers, or none set; read once per transaction.
   */
  async translationOf(q: Q, program: Program, language: string): Promise<Translation | null> {
    const trx = (q as Knex.Transaction).isTransaction ? q : null;
    let cache = trx ? this.#translations.get(trx) : undefined;
    if (trx && !cache) this.#translations.set(trx, (cache = new Map()));
    const id = `${program.id}|${language}`;
    if (cache?.has(id)) return cache.get(id)!;
    const t = await readTranslation(this.db, q, program, language);
    cache?.set(id, t);
    return t;
  }

  /** The `goalAchieved` email of one newly issued reward (`ParticipantEventEmails.rewardEarned` says which side gets what). */
  sendRewardEarned(...args: Parameters<ParticipantEventEmails['rewardEarned']>): Promise<SendOutcome> {
    return this.#events.rewardEarned(...args);
  }

  /**
   * Sends already chosen copy (a template, free-form P11 mail, a reminder) to a participant: the
   * checks, the layout with footer and unsubscribe link, the outbox row and the activity row.
   */
  async sendComposed(trx: Knex.Transaction, program: Program, participant: ParticipantRow, parts: EmailParts, vars: EmailVars, opts: SendOptions & { emailType: string }): Promise<SendOutcome> {
    const skip = !(await teamVerified(trx, program.teamId)) ? 'TEAM_NOT_VERIFIED' : participant.unsubscribed ? 'UNSUBSCRIBED' : null;
    if (skip) {
      await this.activity.record(trx, {
        programId: program.id,
        participantId: participant.id,
        type: 'EMAIL',
        action: ACTIONS.emailSkipped,
        text: skippedEmailText(opts.emailType, skip),
        data: { emailType: opts.emailType, reason: skip, ...opts.data },
      });
      return { sent: false, reason: skip };
    }
    const unsubscribeUrl = this.unsubscribeLinks.url(program.id, participant.id);
    const all: EmailVars = {
      // A caller that names the referrer already (the engines hold both rows) saves the read.
      ...(await this.participantVars(trx, program, participant, vars.referrerFirstName !== undefined)),
      ...(await rewardMetadataVars(trx, program.id, [parts.subject, parts.preheader, parts.body])),
      unsubscribeUrl,
      ...vars,
    };
    // The design's hosted pages (landingPages.isEnabled): every participant email links to the portal in its footer.
    const portal = portalLinkedFromEmails(program) ? portalUrl(program.id, this.config.publicUrl) : undefined;
    const language = this.languageOf(program, participant);
    const message = this.compose(program, language, parts, all, { unsubscribeUrl, portalUrl: portal }, await this.translationOf(trx, program, language));
    const emails = this.emailsOf(program);
    const mailId = await this.mailer.send(trx, {
      to: participant.email,
      subject: message.subject,
      text: message.text,
      html: message.html,
      kind: `program.${opts.emailType}`.slice(0, 48),
      teamId: program.teamId,
      fromName: this.senderName(program),
      replyTo: opts.replyTo ?? emails.settings.sender.replyToEmail,
      headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
    await this.activity.record(trx, {
      programId: program.id,
      participantId: participant.id,
      type: 'EMAIL',
      action: ACTIONS.emailSent,
      text: `Email sent: ${message.subject}`,
      data: { emailType: opts.emailType, mailId, ...opts.data },
    });
    return { sent: true, mailId };
  }

  /**
   * Renders parts with merge tags and wraps the body in the layout: preheader, logo, the program's
   * colours, and a footer with the company name, postal address, footer text (the owner's own for
   * `language` when `translation` has one) and, for participants, the unsubscribe link.
   */
  compose(
    program: Program,
    language: string,
    parts: EmailParts,
    vars: EmailVars,
    footer: { unsubscribeUrl?: string; literalSubject?: string; portalUrl?: string },
    translation: Translation | null = null,
  ): { subject: string; html: string; text: string } {
    // The emails follow the design's brand (issue #32): its main colour and logo where the emails' own are the stock ones, and its font.
    const brand = programEmailBrand(program);
    const settings = brandEmailSettings(this.emailsOf(program).settings, brand);
    const footerText = footerOverride(translation);
    const inLanguage = footerText === undefined ? settings : { ...settings, design: { ...settings.design, footerText } };
    return layoutEmail(inLanguage, this.companyName(program), language, parts, vars, footer, { fontFamily: brand.fontFamily });
  }

  /**
   * Sends program copy to someone who is not a participant (an invited contact): same layout and
   * footer without an unsubscribe link, since there is no participant to unsubscribe. The caller
   * checks team verification (invitations answer 403 instead of skipping).
   */
  async sendToContact(
    trx: Knex.Transaction,
    program: Program,
    to: string,
    parts: EmailParts,
    vars: EmailVars,
    opts: { kind: string; language: string; literalSubject?: string; replyTo?: string | null },
  ): Promise<string> {
    const translation = await this.translationOf(trx, program, opts.language);
    const message = this.compose(program, opts.language, parts, { companyName: this.companyName(program), ...vars }, { literalSubject: opts.literalSubject }, translation);
    return this.mailer.send(trx, {
      to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      kind: opts.kind,
      teamId: program.teamId,
      fromName: this.senderName(program),
      replyTo: opts.replyTo ?? null,
    });
  }

  /** `{{companyName}}`: the program's company name, else the emails' contact company, else the program name. */
  companyName(program: Program): string {
    const emails = this.emailsOf(program);
    return program.companyName || emails.settings.contact.companyName || program.name;
  }

  /** The display name program emails come from (`settings.sender.fromName`, else the company name). */
  senderName(program: Program): string {
    const emails = this.emailsOf(program);
    return emails.settings.sender.fromName || this.companyName(program);
  }

  /** The participant's language (their own, else the program's base language). */
  languageOf(program: Program, participant: Pick<ParticipantRow, 'language'>): string {
    return participant.language ?? programLanguages(program).base;
  }

  /** A participant's referral link, or '' when they have none (affiliate-program customers). */
  shareUrlOf(program: Program, p: ParticipantRow): string {
    if (program.type === 'AFFILIATE' && p.affiliate_status !== 'APPROVED') return '';
    return withShareKey(shareBase(program, this.config.publicUrl), p.share_key);
  }

  /** `{{portalUrl}}`: the hosted participant portal while the program has hosted pages, else the page its share links land on (the site with the widget). */
  portalUrlOf(program: Program): string {
    return hostedPagesOn(program, this.config.publicUrl) ? portalUrl(program.id, this.config.publicUrl) : shareBase(program, this.config.publicUrl);
  }

  /** The merge tags every email to a participant can use. */
  async participantVars(q: Q, program: Program, p: ParticipantRow, referrerKnown = false): Promise<EmailVars> {
    const referrer = p.referred_by && !referrerKnown
      ? (await selectRows<Pick<ParticipantRow, 'first_name' | 'email'>>(this.db, q, 'SELECT "first_name", "email" FROM "participants" WHERE "id" = ? LIMIT 1', [p.referred_by]))[0]
      : null;
    return {
      firstName: p.first_name,
      lastName: p.last_name,
      email: p.email,
      shareUrl: this.shareUrlOf(program, p),
      portalUrl: this.portalUrlOf(program),
      companyName: this.companyName(program),
      referralCount: Number(p.referral_count),
      monthlyReferralCount: Number(p.monthly_referral_count),
      inviteCount: Number(p.invite_count),
      referrerFirstName: referrer ? displayName(referrer) : null,
    };
  }

  // ── P11 ──────────────────────────────────────────────────────────────────────────────────────

  /** P11: one template (its `isEnabled` ignored) or one free-form email to a participant. */
  async emailParticipant(program: Program, idOrEmail: string, body: EmailParticipant): Promise<{ success: true; status: 'queued' }> {
    if (body.emailType && !sendableTemplates(program.type).includes(body.emailType)) {
      throw new ValidationError(`emailType ${body.emailType} cannot be sent on ${program.type.toLowerCase()} programs.`, [
        { field: 'emailType', code: 'INVALID_VALUE', message: `Must be one of ${sendableTemplates(program.type).join(', ')}.` },
      ]);
    }
    const found = await this.participants.resolve(this.db.knex, program, idOrEmail);
    if (!(await teamVerified(this.db.knex, program.teamId))) throw new TeamNotVerifiedError();
    const unsubscribed = () =>
      new ValidationError('This participant unsubscribed from program emails.', [
        { field: 'participantIdOrEmail', code: 'PARTICIPANT_UNSUBSCRIBED', message: 'The participant unsubscribed from program emails.' },
      ]);
    if (found.unsubscribed) throw unsubscribed();
    await this.budgets.chargeParticipantEmail(program.teamId);
    await this.db.knex.transaction(async (trx) => {
      const p = await this.participants.resolve(trx, program, found.id, { lock: true });
      if (p.unsubscribed) throw unsubscribed();
      const data = { manual: true };
      const outcome = body.emailType
        ? await this.sendProgramEmail(trx, program, p, body.emailType as TemplateKey, {}, { ignoreEnabled: true, data })
        : await this.sendComposed(trx, program, p, { subject: body.subject!, preheader: body.preheader ?? '', body: body.body! }, {}, { emailType: 'freeForm', data });
      if (!outcome.sent) throw outcome.reason === 'UNSUBSCRIBED' ? unsubscribed() : new TeamNotVerifiedError();
    });
    return { success: true, status: 'queued' };
  }

  // ── Automatic emails of participant events ────────────────────────────────────────────────────

  /**
   * The referrer's link was viewed for the first time ever (`referralLinkViewedFirstTime`), called
   * by the impressions flush inside its transaction, which makes it once per participant.
   */
  async sendFirstLinkView(trx: Knex.Transaction, programId: string, referrer: ParticipantRow): Promise<SendOutcome> {
    const program = await this.#program(trx, programId);
    if (!program) return { sent: false, reason: 'TEMPLATE_NOT_AVAILABLE' };
    return this.sendProgramEmail(trx, program, referrer, 'referralLinkViewedFirstTime');
  }

  async #program(q: Q, programId: string): Promise<Program | null> {
    const row = await q('programs').where({ id: programId }).first();
    return row ? toProgram(row) : null;
  }
}
