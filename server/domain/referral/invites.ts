import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import { trxRows } from '../../db/rows.ts';
import type { Clock } from '../../clock.ts';
import type { Jobs } from '../platform/jobs.ts';
import { ACTIONS, type Activity } from '../platform/activity.ts';
import type { Participants } from '../participants/service.ts';
import { emailKey, type ParticipantRow, type Q } from '../participants/model.ts';
import { toProgram, type Program } from '../programs/programs.ts';
import { completeDocument } from '../programs/program-config.ts';
import { emailRefused } from './fraud-addresses.ts';
import { readReferralList, type ReferralListOptions } from './referral-lists.ts';
import type { ProgramEmails, SendBudgets } from '../messaging/program-emails.ts';
import { teamVerified } from '../messaging/team-verification.ts';
import { displayName, escapeHtml, textAsHtml } from '../messaging/email-layout.ts';
import { newId } from '../../crypto.ts';
import { TeamNotVerifiedError } from '../../errors.ts';
import type { CampaignOptions } from '../../../shared/schemas/program-config-options.ts';
import type { ReferralList, ReferralListQuery, SendInvitesResponse } from '../../../shared/schemas/referral.ts';
import { followUpReminder } from '../programs/email-copy/index.ts';

// Email invitations and the referral lists (rest-v2 §2.14, §3.10 RF1–RF3) and follow-up reminders.
// A Referral row is either a referred participant (its id, its CREDIT_* status) or an invitation
// whose contact has not joined yet (`inv_…`, INVITE_SENT). Both lists read one UNION of the two.

const DAY = 86_400_000;
/** A contact the same sender invited less than this long ago is not emailed again. */
export const INVITE_RESEND_COOLDOWN_MS = DAY;
const FOLLOW_UP_JOB = 'invites.followUp';

/** An invites row as stored. */
export interface InviteRow {
  id: string;
  program_id: string;
  participant_id: string;
  email: string;
  email_key: string;
  status: 'INVITE_SENT' | 'JOINED';
  joined_participant_id: string | null;
  joined_at: number | null;
  subject: string | null;
  message: string | null;
  disclosure_allowed: boolean | number;
  is_private: boolean | number;
  send_count: number;
  last_sent_at: number;
  reminder_sent_at: number | null;
  created_at: number;
  updated_at: number;
}

/** What RF3 and the participant API's sendInvites take. */
export interface InviteInput {
  emailAddresses: string[];
  messageText: string;
  subjectText?: string;
  /** Participant API: a private invitation never discloses the address back to the sender (mobile rule 6). */
  private?: boolean;
}

/** Invitations, the referral lists and follow-up reminders. */
export class Invites {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly jobs: Jobs,
    private readonly activity: Activity,
    private readonly participants: Participants,
    private readonly emails: ProgramEmails,
    private readonly budgets: SendBudgets,
  ) {
    participants.hooks.created.push((trx, program, p) => this.#contactJoined(trx, program, p));
    participants.hooks.deleting.push((trx, program, ids) => this.#forgetContacts(trx, program, ids));
    jobs.register(FOLLOW_UP_JOB, async ({ programId, participantId }: { programId: string; participantId: string }) => {
      await this.followUp(programId, participantId);
    });
  }

  // ── RF3: send invitations ────────────────────────────────────────────────────────────────────

  /**
   * RF3: emails each new address the program's `invite` template from the sender and records an
   * INVITE_SENT invitation per contact. Skipped: the sender's own address, repeats, addresses of
   * existing participants, addresses the program blocks, and contacts this sender invited within
   * the last day. 403 when the team is not VERIFIED; the invitation budgets are charged first.
   */
  async send(program: Program, senderIdOrEmail: string, input: InviteInput): Promise<SendInvitesResponse> {
    const sender = await this.participants.resolve(this.db.knex, program, senderIdOrEmail);
    if (!(await teamVerified(this.db.knex, program.teamId))) {
      throw new TeamNotVerifiedError('The team must be verified before participants can send invitations. Request verification with POST /team/verification-request.');
    }
    const options = completeDocument('options', program, program.documents.options) as CampaignOptions;
    const seen = new Set<string>();
    const wanted: Array<{ email: string; key: string }> = [];
    for (const raw of input.emailAddresses) {
      const email = raw.trim();
      const key = emailKey(email);
      if (seen.has(key) || key === sender.email_key || emailRefused(key, options.fraud)) continue;
      seen.add(key);
      wanted.push({ email, key });
    }
    const now = this.clock.now();
    const first = await this.#sendable(this.db.knex, program.id, sender.id, wanted, now);
    if (first.length === 0) return { success: true, invitesSent: 0, messageType: 'EMAIL' };
    // Outside the transaction: the limiter may use the database, and SQLite has one connection.
    await this.budgets.chargeInvites(program.teamId, `${program.id}:${sender.id}`, first.length);

    return this.db.knex.transaction(async (trx) => {
      const locked = await this.participants.resolve(trx, program, sender.id, { lock: true });
      const list = await this.#sendable(trx, program.id, sender.id, wanted, now);
      const emails = this.emails.emailsOf(program);
      const template = emails.invite;
      const privacy = options.referralEmailPrivacy;
      const disclosure = privacy.allowInvitedEmailDisclosureAfterSignIn && privacy.masking === 'PARTIAL' && !input.private;
      const company = this.emails.companyName(program);
      const vars = {
        referrerFirstName: displayName(locked),
        referrerName: [locked.first_name, locked.last_name].filter(Boolean).join(' ') || displayName(locked),
        firstName: null,
        shareUrl: this.emails.shareUrlOf(program, locked),
        companyName: company,
        messageText: textAsHtml(input.messageText),
      };
      const language = this.emails.languageOf(program, locked);
      let created = 0;
      for (const { email, key, existing } of list) {
        const id = existing?.id ?? `inv_${newId()}`;
        if (existing) {
          await trx('invites')
            .where({ id })
            .update({
              email,
              status: 'INVITE_SENT',
              joined_participant_id: null,
              joined_at: null,
              subject: input.subjectText ?? null,
              message: input.messageText,
              disclosure_allowed: disclosure,
              is_private: !!input.private,
              send_count: Number(existing.send_count) + 1,
              last_sent_at: now,
              updated_at: now,
            });
        } else {
          await trx('invites').insert({
            id,
            program_id: program.id,
            participant_id: locked.id,
            email,
            email_key: key,
            status: 'INVITE_SENT',
            subject: input.subjectText ?? null,
            message: input.messageText,
            disclosure_allowed: disclosure,
            is_private: !!input.private,
            send_count: 1,
            last_sent_at: now,
            created_at: now,
            updated_at: now,
          });
          created++;
        }
        const mailId = await this.emails.sendToContact(trx, program, email, this.emails.templateIn(program, 'invite', template, language, await this.emails.translationOf(trx, program, language)), vars, {
          kind: 'program.invite',
          language,
          // The template's subject takes merge tags; a sender's own subjectText is sent as written.
          literalSubject: input.subjectText,
          replyTo: template.useCompanyReplyTo ? emails.settings.sender.replyToEmail : locked.email,
        });
        await this.activity.record(trx, {
          programId: program.id,
          participantId: locked.id,
          type: 'INVITE',
          action: ACTIONS.inviteSent,
          text: `Invited ${email}${existing ? ' again' : ''}`,
          // The address stays out of `data`, so scrubbing `text` removes it when the contact is deleted.
          data: { inviteId: id, resend: !!existing, mailId, emailType: 'invite' },
        });
      }
      // inviteCount counts contacts invited; sending the same contact another invitation is not a new invite.
      if (created) {
        await this.participants.adjustCounters(trx, program.id, locked.id, { invite_count: created });
        await trx('program_counters').where({ program_id: program.id }).increment('invite_count', created);
      }
      const reminder = options.followUpReminder;
      if (reminder.isEnabled && list.length) {
        const runAt = now + reminder.delayDays * DAY;
        await this.jobs.enqueue(trx, FOLLOW_UP_JOB, { programId: program.id, participantId: locked.id }, { runAt, uniqueKey: `invite-follow-up:${locked.id}:${runAt}` });
      }
      return { success: true, invitesSent: list.length, messageType: 'EMAIL' as const };
    });
  }

  /** The wanted contacts that may be emailed now: not participants, not invited by this sender within the cooldown. */
  async #sendable(q: Q, programId: string, senderId: string, wanted: Array<{ email: string; key: string }>, now: number): Promise<Array<{ email: string; key: string; existing: InviteRow | null }>> {
    if (!wanted.length) return [];
    const keys = wanted.map((w) => w.key);
    const members = new Set((await q('participants').where({ program_id: programId }).whereIn('email_key', keys).select('email_key')).map((r: { email_key: string }) => r.email_key));
    const invites = new Map<string, InviteRow>(
      ((await q('invites').where({ program_id: programId, participant_id: senderId }).whereIn('email_key', keys).select('*')) as InviteRow[]).map((r) => [r.email_key, r]),
    );
    const out: Array<{ email: string; key: string; existing: InviteRow | null }> = [];
    for (const w of wanted) {
      if (members.has(w.key)) continue;
      const existing = invites.get(w.key) ?? null;
      if (existing && existing.status === 'INVITE_SENT' && Number(existing.last_sent_at) > now - INVITE_RESEND_COOLDOWN_MS) continue;
      out.push({ ...w, existing });
    }
    return out;
  }

  /** A new participant whose address was invited: their invitations are JOINED and point at them. */
  async #contactJoined(trx: Knex.Transaction, program: Program, p: ParticipantRow): Promise<void> {
    // A cached statement (named on PostgreSQL): every sign-up asks, and it rarely finds anything.
    const rows = await trxRows<{ id: string; participant_id: string }>(trx, `SELECT id, participant_id FROM invites WHERE program_id = ? AND email_key = ? AND status = 'INVITE_SENT'`, [
      program.id,
      p.email_key,
    ]);
    if (!rows.length) return;
    const now = this.clock.now();
    await trx('invites')
      .whereIn('id', rows.map((r) => r.id))
      .update({ status: 'JOINED', joined_participant_id: p.id, joined_at: now, updated_at: now });
    for (const r of rows) {
      await this.activity.record(trx, {
        programId: program.id,
        participantId: r.participant_id,
        type: 'INVITE',
        action: 'invite.joined',
        text: `${p.email} accepted your invitation and joined`,
        data: { inviteId: r.id, joinedParticipantId: p.id },
      });
    }
  }

  /**
   * A deleted participant's address leaves the invitations made to them and the inviters' activity
   * texts that name it (the invitations they sent go by cascade).
   */
  async #forgetContacts(trx: Knex.Transaction, program: Program, ids: string[]): Promise<void> {
    const rows: Array<{ id: string; participant_id: string }> = await trx('invites').where({ program_id: program.id }).whereIn('joined_participant_id', ids).select('id', 'participant_id');
    for (const r of rows) {
      await trx('activity_logs')
        .where({ participant_id: r.participant_id, type: 'INVITE' })
        .where('data', 'like', `%"inviteId":"${r.id}"%`)
        .update({ text: 'Invited a contact who later joined and was deleted' });
    }
    if (rows.length) await trx('invites').whereIn('id', rows.map((r) => r.id)).del();
  }

  // ── Follow-up reminders ──────────────────────────────────────────────────────────────────────

  /**
   * The follow-up job of one sender: one email listing their invitations made since the reminder was
   * enabled whose contacts have not joined `delayDays` after the last send, each contact once. Not
   * yet due invitations (the delay grew) get the job again at their due time.
   */
  async followUp(programId: string, participantId: string): Promise<number> {
    return this.db.knex.transaction(async (trx) => {
      const row = await trx('programs').where({ id: programId }).first();
      if (!row) return 0;
      const program = toProgram(row);
      const reminder = (completeDocument('options', program, program.documents.options) as CampaignOptions).followUpReminder;
      if (!reminder.isEnabled || reminder.enabledAt == null) return 0;
      const sender: ParticipantRow | undefined = await trx('participants').where({ id: participantId, program_id: programId }).forNoKeyUpdate().first();
      if (!sender) return 0;
      const now = this.clock.now();
      const delay = reminder.delayDays * DAY;
      const pending: InviteRow[] = await trx('invites as i')
        .where({ 'i.program_id': programId, 'i.participant_id': participantId, 'i.status': 'INVITE_SENT' })
        .whereNull('i.reminder_sent_at')
        .where('i.created_at', '>=', reminder.enabledAt)
        .whereNotExists((sub) => sub.select(trx.raw('1')).from('participants as p').where('p.program_id', programId).whereRaw('p.email_key = i.email_key'))
        .orderBy([{ column: 'i.created_at' }, { column: 'i.id' }])
        .select('i.*');
      const due = pending.filter((i) => Number(i.last_sent_at) + delay <= now);
      const later = pending.filter((i) => Number(i.last_sent_at) + delay > now);
      if (later.length) {
        const runAt = Math.min(...later.map((i) => Number(i.last_sent_at) + delay));
        await this.jobs.enqueue(trx, FOLLOW_UP_JOB, { programId, participantId }, { runAt, uniqueKey: `invite-follow-up:${participantId}:${runAt}` });
      }
      if (!due.length) return 0;
      const items = due.map((i) => `<li>${escapeHtml(i.email)}</li>`).join('');
      const outcome = await this.emails.sendComposed(
        trx,
        program,
        sender,
        followUpReminder(this.emails.languageOf(program, sender), due.length),
        { invitedContacts: { html: items } },
        { emailType: 'followUpReminder', data: { inviteIds: due.map((i) => i.id) } },
      );
      // A skipped reminder (team not verified, sender unsubscribed) stays pending for a later run.
      if (!outcome.sent) return 0;
      await trx('invites')
        .whereIn('id', due.map((i) => i.id))
        .update({ reminder_sent_at: now, updated_at: now });
      return due.length;
    });
  }

  // ── RF1 / RF2: the referral lists ───────────────────────────────────────────────────────────

  /** RF1/RF2: referred participants and not-yet-joined invitations, filtered, sorted and paged (`readReferralList`). */
  async listReferrals(program: Program, query: ReferralListQuery, opts: ReferralListOptions = {}): Promise<ReferralList> {
    return readReferralList(this.db, this.participants, program, query, opts);
  }
}
