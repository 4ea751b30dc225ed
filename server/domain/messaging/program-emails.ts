import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../db/connect.ts';
import { selectRows, trxRows } from '../db/rows.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Mailer } from './mail.ts';
import { ACTIONS, type Activity } from './activity.ts';
import { rewardMetadataVars } from './reward-references.ts';
import type { Participants } from './participants/service.ts';
import { programLanguages, shareBase, withShareKey, type ParticipantRow, type Q } from './participants/model.ts';
import { toProgram, type Program } from './programs.ts';
import type { ConfigRow } from './reward-issuing.ts';
import { completeDocument } from './program-config.ts';
import { TeamNotVerifiedError, ValidationError } from '../errors.ts';
import type { CampaignEmails, EmailTemplate } from '../../shared/schemas/program-config.ts';
import { AFFILIATE_EMAIL_TYPES, REFERRAL_EMAIL_TYPES, type EmailParticipant } from '../../shared/schemas/referral.ts';
import { fillTags } from '../../shared/merge-tags.ts';

// Program emails: the program's templates (rest-v2 §2.19) rendered with merge tags, wrapped in one
// layout with the company footer and an unsubscribe link, sent through the mailer inside the
// caller's transaction, and recorded in the activity log. Nothing leaves while the team is not
// VERIFIED or the participant has unsubscribed; automatic sends record why they were skipped.

/** A template key of the emails document (every key but `settings`). */
export type TemplateKey = Exclude<keyof CampaignEmails, 'settings'>;

/** HTML that is inserted as is (already escaped by whoever built it). */
export interface SafeHtml {
  html: string;
}

/** Merge-tag values; strings and numbers are HTML-escaped in bodies, `SafeHtml` is not. */
export type EmailVars = Record<string, string | number | null | undefined | SafeHtml>;

/** Why a program email was not sent. */
export type SkipReason = 'TEAM_NOT_VERIFIED' | 'UNSUBSCRIBED' | 'TEMPLATE_DISABLED' | 'TEMPLATE_NOT_AVAILABLE';

/** What happened to one program email. */
export type SendOutcome = { sent: true; mailId: string } | { sent: false; reason: SkipReason };

/** The send budgets (implemented by server/http/limits.ts); charged before any transaction opens. */
export interface SendBudgets {
  chargeInvites(teamId: string, senderKey: string, count: number): Promise<void>;
  chargeParticipantEmail(teamId: string): Promise<void>;
}

/** Subject, preheader and HTML body before merge tags are rendered. */
export interface EmailParts {
  subject: string;
  preheader: string;
  body: string;
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
  TEAM_NOT_VERIFIED: 'the team is not verified yet',
  UNSUBSCRIBED: 'the participant unsubscribed from program emails',
  TEMPLATE_DISABLED: 'the template is switched off',
  TEMPLATE_NOT_AVAILABLE: 'the program type has no such template',
};

/** The unsubscribe link's text in each program language (the templates themselves have one copy). */
const UNSUBSCRIBE_LABEL: Record<string, string> = {
  en: 'Unsubscribe',
  es: 'Darse de baja',
  fr: 'Se désabonner',
  de: 'Abmelden',
  it: 'Annulla l’iscrizione',
  'pt-BR': 'Cancelar inscrição',
  nl: 'Afmelden',
  pl: 'Wypisz się',
  sv: 'Avsluta prenumerationen',
  tr: 'Abonelikten çık',
  ja: '配信停止',
  ko: '수신 거부',
  'zh-CN': '退订',
  id: 'Berhenti berlangganan',
};

/** The label of the coupon code line the `goalAchieved` layout adds when the template shows no `{{couponCode}}`. */
const COUPON_LABEL: Record<string, string> = {
  en: 'Your code',
  es: 'Tu código',
  fr: 'Votre code',
  de: 'Ihr Code',
  it: 'Il tuo codice',
  'pt-BR': 'Seu código',
  nl: 'Je code',
  pl: 'Twój kod',
  sv: 'Din kod',
  tr: 'Kodunuz',
  ja: 'あなたのコード',
  ko: '코드',
  'zh-CN': '您的代码',
  id: 'Kode Anda',
};

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Plain text as HTML: escaped, line breaks kept (a participant's invitation note). */
export function textAsHtml(text: string): SafeHtml {
  return { html: escapeHtml(text).replace(/\r?\n/g, '<br>') };
}

/**
 * Renders `{{tag}}` and `{{tag|fallback}}` merge tags by the shared rules (shared/merge-tags.ts):
 * unknown or empty tags give the fallback or nothing, "Hi {{firstName}}," reads "Hi," without a
 * first name, and a value that ends its own sentence swallows the template's full stop after it.
 */
export function renderTags(template: string, vars: EmailVars, mode: 'html' | 'text'): string {
  return fillTags(
    template,
    (name) => {
      const v = vars[name];
      if (v !== null && typeof v === 'object') return mode === 'html' ? v.html : htmlToText(v.html);
      if (v === undefined || v === null || v === '') return '';
      return mode === 'html' ? escapeHtml(v) : String(v);
    },
    (fallback) => (mode === 'html' ? escapeHtml(fallback) : fallback),
  );
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/** A readable plain-text version of an HTML fragment (the text/plain part of every email). */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<a\s[^>]*href\s*=\s*"([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, (_m, href: string, label: string) => {
      const text = label.replace(/<[^>]+>/g, '').trim();
      return text && text !== href ? `${text} (${href})` : href;
    })
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr|table)>/gi, '\n')
    .replace(/<li[^>]*>/gi, '- ')
    .replace(/<[^>]+>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_m, e: string) => ENTITIES[e]!)
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** `a***@example.com`: how names fall back when a participant gave none (never the full address). */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

/** First name, else the masked address: what other people see of a participant in an email. */
export function displayName(p: Pick<ParticipantRow, 'first_name' | 'email'>): string {
  return p.first_name || maskEmail(p.email);
}

/** Subjects are one line of at most 255 characters. */
function subjectLine(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').trim().slice(0, 255);
}

/** Templates P11 may send for a program type (§3.8). */
export function sendableTemplates(type: Program['type']): readonly string[] {
  return type === 'AFFILIATE' ? AFFILIATE_EMAIL_TYPES : REFERRAL_EMAIL_TYPES;
}

/**
 * Program emails: template rendering, the layout and footer, unsubscribe links and tokens, the
 * automatic emails of participant events (registered on `participants.hooks`), and P11.
 */
export class ProgramEmails {
  readonly #key: Buffer;
  /** Team verification read once per transaction (a participant creation may send two emails). */
  readonly #verified = new WeakMap<object, Map<string, boolean>>();
  /** Completed emails documents by stored document object. */
  readonly #documents = new WeakMap<object, CampaignEmails>();
  /** Referrers a transaction already told about a reward (`goalAchieved`): their `referralLinkUsed` would repeat it. */
  readonly #rewardTold = new WeakMap<Knex.Transaction, Set<string>>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly mailer: Mailer,
    private readonly activity: Activity,
    private readonly participants: Participants,
    private readonly budgets: SendBudgets,
    instanceSecret: string,
  ) {
    // A key of its own, derived from the instance secret, so an unsubscribe token is useless anywhere else.
    this.#key = crypto.createHmac('sha256', instanceSecret).update('refloop:unsubscribe').digest();
    participants.hooks.created.push((trx, program, p) => this.#onCreated(trx, program, p));
    participants.hooks.referralCredited.push((trx, program, referrer, referred) => this.#onCredited(trx, program, referrer, referred));
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

  /** True when the team may email participants (verification status VERIFIED). */
  async teamVerified(q: Q, teamId: string): Promise<boolean> {
    // Only a transaction is cached: it is short-lived, while the knex handle lives as long as the process.
    const trx = (q as Knex.Transaction).isTransaction ? q : null;
    let cache = trx ? this.#verified.get(trx) : undefined;
    if (trx && !cache) this.#verified.set(trx, (cache = new Map()));
    let v = cache?.get(teamId);
    if (v === undefined) {
      const row = trx
        ? (await trxRows<{ verification_status: string }>(trx as Knex.Transaction, 'SELECT "verification_status" FROM "teams" WHERE "id" = ? LIMIT 1', [teamId]))[0]
        : await q('teams').where({ id: teamId }).first('verification_status');
      v = row?.verification_status === 'VERIFIED';
      cache?.set(teamId, v);
    }
    return v;
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
    const parts = opts.amendBody ? { ...template, body: opts.amendBody(template.body) } : template;
    return this.sendComposed(trx, program, participant, parts, vars, { ...opts, emailType: templateKey });
  }

  /**
   * The `goalAchieved` email of one newly issued reward. `{{rewardDescription}}` and
   * `{{couponCode}}` are the recipient's side of the reward: the referred friend of a double-sided
   * reward gets `referralDescription` and `referralCouponCode`, everyone else `description` (else the
   * title) and `couponCode`. A coupon code always reaches its recipient: when the template does not
   * place `{{couponCode}}` itself, a line with the code (labelled in the participant's language)
   * follows the body.
   */
  async sendRewardEarned(
    trx: Knex.Transaction,
    program: Program,
    recipient: ParticipantRow,
    config: Pick<ConfigRow, 'type' | 'title' | 'description' | 'referral_description' | 'coupon_code' | 'referral_coupon_code'>,
    isReferrer: boolean,
    referrer?: ParticipantRow,
  ): Promise<SendOutcome> {
    const friendSide = config.type === 'DOUBLE_SIDED' && !isReferrer;
    const description = (friendSide ? config.referral_description : null) ?? config.description ?? config.title ?? '';
    const couponCode = (friendSide ? config.referral_coupon_code : config.coupon_code) ?? null;
    const label = COUPON_LABEL[this.languageOf(program, recipient)] ?? COUPON_LABEL.en!;
    const amendBody = (body: string) => (couponCode && !/\{\{\s*couponCode\s*(\||\}\})/.test(body) ? `${body}\n<p>${escapeHtml(label)}: <strong>{{couponCode}}</strong></p>` : body);
    const vars: EmailVars = { rewardDescription: description, couponCode, ...(referrer ? { referrerFirstName: displayName(referrer) } : {}) };
    const outcome = await this.sendProgramEmail(trx, program, recipient, 'goalAchieved', vars, { amendBody });
    // Sent, or skipped for the person (unsubscribed, team not verified): either way the reward email
    // speaks for this moment. Only a switched-off template leaves `referralLinkUsed` to say it.
    if (isReferrer && (outcome.sent || (outcome.reason !== 'TEMPLATE_DISABLED' && outcome.reason !== 'TEMPLATE_NOT_AVAILABLE'))) {
      let told = this.#rewardTold.get(trx);
      if (!told) this.#rewardTold.set(trx, (told = new Set()));
      told.add(recipient.id);
    }
    return outcome;
  }

  /**
   * Sends already chosen copy (a template, free-form P11 mail, a reminder) to a participant: the
   * checks, the layout with footer and unsubscribe link, the outbox row and the activity row.
   */
  async sendComposed(trx: Knex.Transaction, program: Program, participant: ParticipantRow, parts: EmailParts, vars: EmailVars, opts: SendOptions & { emailType: string }): Promise<SendOutcome> {
    const skip = !(await this.teamVerified(trx, program.teamId)) ? 'TEAM_NOT_VERIFIED' : participant.unsubscribed ? 'UNSUBSCRIBED' : null;
    if (skip) {
      await this.activity.record(trx, {
        programId: program.id,
        participantId: participant.id,
        type: 'EMAIL',
        action: ACTIONS.emailSkipped,
        text: `Email "${opts.emailType}" not sent: ${SKIP_TEXT[skip]}`,
        data: { emailType: opts.emailType, reason: skip, ...opts.data },
      });
      return { sent: false, reason: skip };
    }
    const unsubscribeUrl = this.unsubscribeUrl(program.id, participant.id);
    const all: EmailVars = {
      // A caller that names the referrer already (the engines hold both rows) saves the read.
      ...(await this.participantVars(trx, program, participant, vars.referrerFirstName !== undefined)),
      ...(await rewardMetadataVars(trx, program.id, [parts.subject, parts.preheader, parts.body])),
      unsubscribeUrl,
      ...vars,
    };
    const message = this.compose(program, this.languageOf(program, participant), parts, all, { unsubscribeUrl });
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
   * colours, and a footer with the company name, postal address, footer text and, for
   * participants, the unsubscribe link.
   */
  compose(
    program: Program,
    language: string,
    parts: EmailParts,
    vars: EmailVars,
    footer: { unsubscribeUrl?: string; literalSubject?: string },
  ): { subject: string; html: string; text: string } {
    const emails = this.emailsOf(program);
    const { design, contact } = emails.settings;
    const company = this.companyName(program);
    const subject = subjectLine(footer.literalSubject ?? renderTags(parts.subject, vars, 'text'));
    const preheader = renderTags(parts.preheader, vars, 'text');
    const body = renderTags(parts.body, vars, 'html');
    const address = [contact.addressLine1, contact.addressLine2, [contact.postalCode, contact.city].filter(Boolean).join(' '), contact.state, contact.country]
      .filter((x): x is string => !!x)
      .join(', ');
    const unsubscribeLabel = UNSUBSCRIBE_LABEL[language] ?? UNSUBSCRIBE_LABEL.en!;
    const footerLines = [escapeHtml(company), address && escapeHtml(address), design.footerText && escapeHtml(design.footerText)].filter(Boolean);
    if (footer.unsubscribeUrl) footerLines.push(`<a href="${escapeHtml(footer.unsubscribeUrl)}" style="color:inherit">${escapeHtml(unsubscribeLabel)}</a>`);
    const html = `<!doctype html>
<html lang="${escapeHtml(language)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:${escapeHtml(design.backgroundColor)};color:${escapeHtml(design.textColor)};font-family:Helvetica,Arial,sans-serif;line-height:1.5">
<span style="display:none;max-height:0;overflow:hidden;opacity:0">${escapeHtml(preheader)}</span>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px"><tr><td>
${design.logoUrl ? `<p><img src="${escapeHtml(design.logoUrl)}" alt="${escapeHtml(company)}" style="max-height:48px"></p>\n` : ''}${body}
<hr style="border:none;border-top:1px solid rgba(127,127,127,.3);margin:24px 0">
<p style="font-size:12px;opacity:.75">${footerLines.join('<br>')}</p>
</td></tr></table>
</td></tr></table>
</body>
</html>`;
    const textFooter = [company, address, design.footerText, footer.unsubscribeUrl && `${unsubscribeLabel}: ${footer.unsubscribeUrl}`].filter(Boolean).join('\n');
    const text = `${htmlToText(body)}\n\n--\n${textFooter}\n`;
    return { subject, html, text };
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
    const message = this.compose(program, opts.language, parts, { companyName: this.companyName(program), ...vars }, { literalSubject: opts.literalSubject });
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
      companyName: this.companyName(program),
      referralCount: Number(p.referral_count),
      monthlyReferralCount: Number(p.monthly_referral_count),
      inviteCount: Number(p.invite_count),
      referrerFirstName: referrer ? displayName(referrer) : null,
    };
  }

  // ── Unsubscribe ──────────────────────────────────────────────────────────────────────────────

  /** The participant's unsubscribe link: a token naming program and participant, signed, with no expiry. */
  unsubscribeUrl(programId: string, participantId: string): string {
    return `${this.config.publicUrl}/unsubscribe?token=${this.unsubscribeToken(programId, participantId)}`;
  }

  /** `<programId>.<participantId>.<128-bit HMAC>` (ids are [a-z0-9], so the dots are unambiguous). */
  unsubscribeToken(programId: string, participantId: string): string {
    return `${programId}.${participantId}.${this.#mac(programId, participantId)}`;
  }

  /** The program and participant a token names, or null when it is malformed or its signature is wrong. */
  readUnsubscribeToken(token: string): { programId: string; participantId: string } | null {
    const m = /^([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{22})$/.exec(token);
    if (!m) return null;
    const expected = Buffer.from(this.#mac(m[1]!, m[2]!));
    const given = Buffer.from(m[3]!);
    return crypto.timingSafeEqual(expected, given) ? { programId: m[1]!, participantId: m[2]! } : null;
  }

  #mac(programId: string, participantId: string): string {
    return crypto.createHmac('sha256', this.#key).update(`${programId}\n${participantId}`).digest('base64url').slice(0, 22);
  }

  /** What the confirmation page shows for a token; null when the token or participant is not valid. */
  async unsubscribeTarget(token: string): Promise<{ email: string; company: string; unsubscribed: boolean; language: string } | null> {
    const ids = this.readUnsubscribeToken(token);
    if (!ids) return null;
    const row: ParticipantRow | undefined = await this.db.knex('participants').where({ id: ids.participantId, program_id: ids.programId }).first();
    if (!row) return null;
    const program = await this.#program(this.db.knex, ids.programId);
    if (!program) return null;
    return { email: maskEmail(row.email), company: this.companyName(program), unsubscribed: !!row.unsubscribed, language: this.languageOf(program, row) };
  }

  /** Unsubscribes the participant a token names from program emails (idempotent); false when the token is not valid. */
  async unsubscribe(token: string): Promise<boolean> {
    const ids = this.readUnsubscribeToken(token);
    if (!ids) return false;
    return this.db.knex.transaction(async (trx) => {
      const row = await trx('participants').where({ id: ids.participantId, program_id: ids.programId }).forNoKeyUpdate().first('id', 'unsubscribed');
      if (!row) return false;
      if (row.unsubscribed) return true;
      await trx('participants').where({ id: row.id }).update({ unsubscribed: true, updated_at: this.clock.now() });
      await this.activity.record(trx, {
        programId: ids.programId,
        participantId: row.id,
        type: 'EMAIL',
        action: 'email.unsubscribed',
        text: 'Unsubscribed from program emails with the email link',
      });
      return true;
    });
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
    if (!(await this.teamVerified(this.db.knex, program.teamId))) throw new TeamNotVerifiedError();
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

  /** Welcome the new participant; tell their referrer someone signed up (unless credited at once). */
  async #onCreated(trx: Knex.Transaction, program: Program, p: ParticipantRow): Promise<void> {
    const referrer: ParticipantRow | null = p.referred_by ? ((await trx('participants').where({ id: p.referred_by, program_id: program.id }).first()) ?? null) : null;
    if (program.type === 'AFFILIATE') {
      // A referred customer of an affiliate program is not an affiliate: no affiliate welcome for them.
      if (p.is_affiliate) await this.sendProgramEmail(trx, program, p, 'welcomeNonReferred');
    } else if (referrer) {
      await this.sendProgramEmail(trx, program, p, 'welcomeReferred', { referrerFirstName: displayName(referrer) });
    } else {
      await this.sendProgramEmail(trx, program, p, 'welcomeNonReferred');
    }
    // Credited at sign-up (ON_SIGNUP): referralLinkUsed says the same and more, so send only that.
    if (referrer && (program.type === 'AFFILIATE' || p.referral_status !== 'CREDIT_AWARDED')) {
      await this.sendProgramEmail(trx, program, referrer, 'referredSignup', { referredFirstName: displayName(p) });
    }
  }

  /**
   * The referrer's link was viewed for the first time ever (`referralLinkViewedFirstTime`), called
   * by the impressions flush inside its transaction, which makes it once per participant.
   */
  async sendFirstLinkView(trx: Knex.Transaction, programId: string, referrer: ParticipantRow): Promise<SendOutcome> {
    const program = await this.#program(trx, programId);
    if (!program) return { sent: false, reason: 'TEMPLATE_NOT_AVAILABLE' };
    return this.sendProgramEmail(trx, program, referrer, 'referralLinkViewedFirstTime');
  }

  /**
   * The referrer earned credit (referral programs: `referralLinkUsed`), unless the same credit
   * already earned them a reward: one completed referral is one email, and "You earned a reward!"
   * says more than "Your referral counts" (issue #21). The rewards engine's `referralCredited` hook
   * is registered before this one (server/deps.ts builds Rewards first), so its `goalAchieved` is
   * already sent when this runs.
   */
  async #onCredited(trx: Knex.Transaction, program: Program, referrer: ParticipantRow, referred: ParticipantRow): Promise<void> {
    if (program.type !== 'REFERRAL') return;
    // Consumed here: a group commit runs several triggers on one transaction, and the referrer's next credit in it may earn nothing.
    if (this.#rewardTold.get(trx)?.delete(referrer.id)) return;
    await this.sendProgramEmail(trx, program, referrer, 'referralLinkUsed', { referredFirstName: displayName(referred), referralCount: Number(referrer.referral_count) });
  }

  async #program(q: Q, programId: string): Promise<Program | null> {
    const row = await q('programs').where({ id: programId }).first();
    return row ? toProgram(row) : null;
  }
}
