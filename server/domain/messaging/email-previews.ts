import type { Db } from '../../db/connect.ts';
import type { Config } from '../../config.ts';
import type { Mailer } from '../platform/mail.ts';
import { rewardMetadataVars } from '../programs/reward-references.ts';
import { programLanguages } from '../participants/model.ts';
import type { Program } from '../programs/programs.ts';
import type { ProgramConfig } from '../programs/program-config.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { EmailTemplate } from '../../../shared/schemas/program-config-emails.ts';
import type { EmailPreview, EmailTemplateDraft } from '../../../shared/schemas/program-previews.ts';
import type { EmailVars } from './email-layout.ts';
import type { ProgramEmails, TemplateKey } from './program-emails.ts';
import type { Translation } from '../../../shared/program-translations.ts';

// Email previews for the owner console (refloop extensions EP1 and EP2, issue #23): one of the
// program's templates, or an unsaved draft of it and of the settings every email shares, rendered
// in the real layout with sample values, and the same rendering sent as a test to a member of the
// program's team. A test never goes to a participant or any other address, so it cannot be used to
// send mail to strangers. A draft is never written: it is merged over a copy of the program.

/** What a preview reads. */
type PreviewDeps = { db: Db; config: Config; programEmails: ProgramEmails; programConfig: ProgramConfig };

/** The sample participant and event values every preview is filled with. */
export function sampleVars(program: Program, emails: ProgramEmails, publicUrl: string): EmailVars {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    firstName: 'Alex',
    lastName: 'Rivera',
    email: 'alex.rivera@example.com',
    shareUrl: `${base}/r/${program.id}?grsf=alex`,
    companyName: emails.companyName(program),
    referralCount: 3,
    monthlyReferralCount: 2,
    inviteCount: 5,
    referrerFirstName: 'Sam',
    referrerName: 'Sam Lee',
    referredFirstName: 'Jordan',
    couponCode: 'FRIEND10',
    rewardDescription: '$10 store credit',
    commissionAmount: '$12.50',
    payoutAmount: '$50.00',
    paypalEmail: 'alex.rivera@example.com',
    messageText: 'Thought you might like this!',
    loginUrl: `${base}/r/${program.id}?grsfLogin=preview`,
    confirmationUrl: `${base}/payout-confirm?token=preview`,
    taxInfoUrl: `${base}/tax?token=preview`,
    reason: 'The form was incomplete.',
    date: new Date().toISOString().slice(0, 10),
  };
}

/** The saved template of `key`, or 404 when the program's type has no such template. */
function templateOf(emails: ProgramEmails, program: Program, key: string): EmailTemplate {
  const template = (emails.emailsOf(program) as unknown as Record<string, EmailTemplate | undefined>)[key];
  if (!template || key === 'settings') throw new NotFoundError(`This ${program.type === 'AFFILIATE' ? 'affiliate' : 'referral'} program has no email template ${key}.`);
  return template;
}

/**
 * The program as the draft would leave it: its emails document with the draft's `settings` merged
 * in and checked exactly as CF4 would check them (400 with the same fields), in memory only.
 */
function draftProgram(deps: PreviewDeps, program: Program, draft: EmailTemplateDraft): Program {
  if (!draft.settings) return program;
  const emails = deps.programConfig.draft(program, 'emails', { settings: draft.settings });
  return { ...program, documents: { ...program.documents, emails } };
}

/** Renders `key` (with the draft's parts over the saved ones) as a participant would receive it. */
export async function previewEmail(deps: PreviewDeps, savedProgram: Program, key: TemplateKey, draft: EmailTemplateDraft): Promise<EmailPreview> {
  return render(deps, draftProgram(deps, savedProgram, draft), key, draft);
}

async function render(deps: PreviewDeps, program: Program, key: TemplateKey, draft: EmailTemplateDraft): Promise<EmailPreview> {
  const saved = templateOf(deps.programEmails, program, key);
  const { base, all } = programLanguages(program);
  const language = draft.language ?? base;
  if (!all.includes(language)) {
    throw new ValidationError(`language must be one of this program’s languages: ${all.join(', ')}.`, [{ field: 'language', code: 'INVALID_VALUE', message: `Must be one of ${all.join(', ')}.` }]);
  }
  // Another language: the saved template as its readers get it (their own texts, else defaults in it), with the draft's parts over that.
  const stored = language === base ? null : await deps.programEmails.translationOf(deps.db.knex, program, language);
  // A draft's footer is the one previewed: in another language it is that language's footer being edited, so the saved one must not win.
  const translation = stored && draftFooter(draft) !== undefined ? withoutFooter(stored) : stored;
  const start = language === base ? saved : deps.programEmails.templateIn(program, key, saved, language, translation);
  const parts = { subject: draft.subject ?? start.subject, preheader: draft.preheader ?? start.preheader, body: draft.body ?? start.body };
  const vars: EmailVars = {
    ...sampleVars(program, deps.programEmails, deps.config.publicUrl),
    ...(await rewardMetadataVars(deps.db.knex, program.id, [parts.subject, parts.preheader, parts.body])),
  };
  const unsubscribeUrl = `${deps.config.publicUrl.replace(/\/+$/, '')}/unsubscribe?token=preview`;
  // As a participant in that language reads it: unedited defaults in that language (issue #27).
  const message = deps.programEmails.compose(program, language, deps.programEmails.templateIn(program, key, parts, language), vars, { unsubscribeUrl }, translation);
  return { subject: message.subject, preheader: parts.preheader, html: message.html, text: message.text };
}

/**
 * Sends the rendered preview (the draft's sender name and reply-to too), its subject marked "[Test]", to `to`, which must be the address of a
 * member of the program's team; `charge` (the caller's rate limit) runs once the address is accepted.
 */
export async function sendTestEmail(
  deps: PreviewDeps & { mailer: Mailer },
  savedProgram: Program,
  key: TemplateKey,
  draft: EmailTemplateDraft,
  to: string,
  charge: () => Promise<void>,
): Promise<{ success: true; to: string; subject: string }> {
  // A refused draft costs no test from the hourly allowance.
  const program = draftProgram(deps, savedProgram, draft);
  const member = await deps.db
    .knex('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where('m.team_id', program.teamId)
    .whereRaw('lower("u"."email") = ?', [to.toLowerCase()])
    .first('u.email');
  if (!member) {
    throw new ValidationError('A test email can only go to a member of this team.', [{ field: 'to', code: 'NOT_A_TEAM_MEMBER', message: 'Use the address of a member of this team, such as your own.' }]);
  }
  await charge();
  const message = await render(deps, program, key, draft);
  const subject = `[Test] ${message.subject}`.slice(0, 255);
  await deps.db.knex.transaction((trx) =>
    deps.mailer.send(trx, {
      to: member.email as string,
      subject,
      text: message.text,
      html: message.html,
      kind: `program.test.${key}`.slice(0, 48),
      teamId: program.teamId,
      fromName: deps.programEmails.senderName(program),
      replyTo: deps.programEmails.emailsOf(program).settings.sender.replyToEmail,
    }),
  );
  return { success: true, to: member.email as string, subject };
}

/** The footer text a draft's settings carry, if any. */
function draftFooter(draft: EmailTemplateDraft): unknown {
  return (draft.settings as { design?: { footerText?: unknown } } | undefined)?.design?.footerText;
}

/** A language's saved texts without its footer (the draft's footer is previewed instead). */
function withoutFooter(t: Translation): Translation {
  const settings = (t.emails.settings ?? {}) as { design?: Record<string, unknown> };
  const { footerText: _dropped, ...design } = settings.design ?? {};
  return { ...t, emails: { ...t.emails, settings: { ...settings, design } } };
}
