import type { Knex } from 'knex';
import type { Db } from '../db/connect.ts';
import type { Clock } from '../clock.ts';
import type { Jobs } from './jobs.ts';
import { ACTIONS, type Activity } from './activity.ts';
import type { Participants } from './participants/service.ts';
import { emailKey, fieldError, type ParticipantRow, type Q } from './participants/model.ts';
import { toProgram, type Program } from './programs.ts';
import { completeDocument } from './program-config.ts';
import { emailRefused } from './fraud.ts';
import { displayName, escapeHtml, textAsHtml, type ProgramEmails, type SendBudgets } from './program-emails.ts';
import { newId } from '../crypto.ts';
import { TeamNotVerifiedError } from '../errors.ts';
import type { CampaignOptions } from '../../shared/schemas/program-config.ts';
import type { Referral, ReferralList, ReferralListQuery, SendInvitesResponse } from '../../shared/schemas/referral.ts';
import { plural } from '../../shared/plural.ts';

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

/** One row of the referral lists before it is put on the wire (for callers that mask emails). */
export interface ReferralRecord {
  id: string;
  kind: 'REFERRAL' | 'INVITE';
  email: string;
  referrerId: string;
}

/** Options of a referral list read. */
export interface ReferralListOptions {
  /** RF2 (and the participant API): only this participant's referrals and invitations. */
  referrer?: string;
  /** How an email appears (the participant API masks; REST shows addresses as stored). */
  presentEmail?: (row: ReferralRecord) => string;
}

interface UnionRow {
  id: string;
  email: string;
  email_key: string;
  first_name: string | null;
  last_name: string | null;
  status: Referral['referralStatus'];
  referrer_id: string;
  created_at: number | string;
  updated_at: number | string;
  triggered_at: number | string;
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
    if (!(await this.emails.teamVerified(this.db.knex, program.teamId))) {
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
        const mailId = await this.emails.sendToContact(trx, program, email, template, vars, {
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
        await trx('programs').where({ id: program.id }).increment('invite_count', created);
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
    const rows: Array<{ id: string; participant_id: string }> = await trx('invites').where({ program_id: program.id, email_key: p.email_key, status: 'INVITE_SENT' }).select('id', 'participant_id');
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
        {
          subject: plural(due.length, { one: 'Your invitation has not been accepted yet', other: '{count} of your invitations have not been accepted yet' }),
          preheader: 'A friendly nudge often helps.',
          body:
            '<p>Hi {{firstName}},</p>' +
            `<p>${plural(due.length, { one: 'You invited a friend to {{companyName}} who has not joined yet:', other: 'You invited {count} friends to {{companyName}} who have not joined yet:' })}</p>` +
            `<ul>{{invitedContacts}}</ul>` +
            '<p>A personal reminder often helps. Here is your link to share again:</p>' +
            '<p><a href="{{shareUrl}}">{{shareUrl}}</a></p>',
        },
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

  /**
   * RF1/RF2: referred participants and not-yet-joined invitations, filtered, sorted (ties by id) and
   * paged by `nextId` (the first row of the page, inclusive; wins over `offset`) or by `offset`.
   */
  async listReferrals(program: Program, query: ReferralListQuery, opts: ReferralListOptions = {}): Promise<ReferralList> {
    const knex = this.db.knex;
    const referrerId = opts.referrer !== undefined ? (await this.participants.resolve(knex, program, opts.referrer)).id : undefined;
    const pg = this.db.dialect === 'pg';
    const collate = pg ? ' COLLATE "C"' : '';
    const sortExpr = SORT_EXPRESSIONS[query.sortBy](collate);
    const idExpr = `r.id${collate}`;
    const dir = query.desc ? 'DESC' : 'ASC';
    const f = query.filters;

    const union = unionSql({ programId: program.id, referrerId, status: f.referralStatus, email: f.email, firstName: f.firstName, lastName: f.lastName });
    if (!union) return { referrals: [], limit: query.limit, more: false, nextId: null, ...(query.nextId ? {} : { nextOffset: null }) };
    const bindings: unknown[] = [...union.bindings];
    let where = '';
    if (query.nextId) {
      const cursor = unionSql({ programId: program.id, id: query.nextId })!;
      const found = await raw<{ v: unknown; id: string }>(knex, pg, `SELECT ${sortExpr} AS v, r.id AS id FROM (${cursor.sql}) r`, cursor.bindings);
      if (!found[0]) throw fieldError('query.nextId', 'nextId must be the id of a referral or invitation of this program (a previous response’s nextId).');
      const cmp = query.desc ? '<' : '>';
      where = `WHERE (${sortExpr} ${cmp} ? OR (${sortExpr} = ? AND ${idExpr} ${cmp}= ?))`;
      bindings.push(found[0].v, found[0].v, found[0].id);
    }
    const offset = query.nextId ? 0 : (query.offset ?? 0);
    bindings.push(query.limit + 1, offset);
    const rows = await raw<UnionRow>(knex, pg, `SELECT r.* FROM (${union.sql}) r ${where} ORDER BY ${sortExpr} ${dir}, ${idExpr} ${dir} LIMIT ? OFFSET ?`, bindings);
    const more = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    const referrals = page.map((r): Referral => {
      const kind = r.status === 'INVITE_SENT' && r.id.startsWith('inv_') ? 'INVITE' : 'REFERRAL';
      return {
        id: r.id,
        email: opts.presentEmail ? opts.presentEmail({ id: r.id, kind, email: r.email, referrerId: r.referrer_id }) : r.email,
        ...(r.first_name ? { firstName: r.first_name } : {}),
        ...(r.last_name ? { lastName: r.last_name } : {}),
        referralStatus: r.status,
        referredBy: r.referrer_id,
        createdAt: Number(r.created_at),
        updatedAt: Number(r.updated_at),
      };
    });
    return {
      referrals,
      limit: query.limit,
      more,
      nextId: more ? rows[query.limit]!.id : null,
      // A page read by nextId does not know its offset; only offset (or first) pages report nextOffset.
      ...(query.nextId ? {} : { nextOffset: more ? offset + query.limit : null }),
    };
  }
}

/** Sort expressions over the union's columns; strings compare lower-cased in byte order on both databases. */
const SORT_EXPRESSIONS: Record<ReferralListQuery['sortBy'], (collate: string) => string> = {
  createdAt: () => 'r.created_at',
  updatedAt: () => 'r.updated_at',
  referralTriggeredAt: () => 'r.triggered_at',
  email: (c) => `r.email_key${c}`,
  firstName: (c) => `LOWER(COALESCE(r.first_name, ''))${c}`,
  lastName: (c) => `LOWER(COALESCE(r.last_name, ''))${c}`,
  referralStatus: (c) => `r.status${c}`,
};

/**
 * The UNION ALL of referred participants and open invitations with the same columns, with the
 * filters pushed into each branch; null when no branch can match. With `id`, the one row of that id
 * whatever its status (to position a cursor).
 */
function unionSql(f: {
  programId: string;
  referrerId?: string;
  status?: Referral['referralStatus'];
  email?: string;
  firstName?: string;
  lastName?: string;
  id?: string;
}): { sql: string; bindings: unknown[] } | null {
  const parts: string[] = [];
  const bindings: unknown[] = [];
  if (f.status !== 'INVITE_SENT' && !(f.id?.startsWith('inv_'))) {
    let sql =
      'SELECT p.id AS id, p.email AS email, p.email_key AS email_key, p.first_name AS first_name, p.last_name AS last_name, ' +
      "COALESCE(p.referral_status, '') AS status, p.referred_by AS referrer_id, COALESCE(p.referred_at, p.created_at) AS created_at, " +
      'p.updated_at AS updated_at, COALESCE(p.credited_at, 0) AS triggered_at FROM participants p WHERE p.program_id = ?';
    bindings.push(f.programId);
    if (f.id) {
      sql += ' AND p.id = ?';
      bindings.push(f.id);
    } else sql += ' AND p.referred_by IS NOT NULL AND p.referral_status IS NOT NULL';
    if (f.referrerId) (sql += ' AND p.referred_by = ?'), bindings.push(f.referrerId);
    if (f.status) (sql += ' AND p.referral_status = ?'), bindings.push(f.status);
    if (f.email) (sql += ' AND p.email_key = ?'), bindings.push(emailKey(f.email));
    if (f.firstName) (sql += ' AND LOWER(p.first_name) = LOWER(?)'), bindings.push(f.firstName);
    if (f.lastName) (sql += ' AND LOWER(p.last_name) = LOWER(?)'), bindings.push(f.lastName);
    parts.push(sql);
  }
  // Invitations carry no names, so a name filter leaves them out.
  const inviteStatus = !f.status || f.status === 'INVITE_SENT';
  if (inviteStatus && !f.firstName && !f.lastName && (!f.id || f.id.startsWith('inv_'))) {
    let sql =
      'SELECT i.id AS id, i.email AS email, i.email_key AS email_key, CAST(NULL AS varchar(255)) AS first_name, CAST(NULL AS varchar(255)) AS last_name, ' +
      "'INVITE_SENT' AS status, i.participant_id AS referrer_id, i.created_at AS created_at, i.updated_at AS updated_at, CAST(0 AS bigint) AS triggered_at " +
      'FROM invites i WHERE i.program_id = ?';
    bindings.push(f.programId);
    if (f.id) (sql += ' AND i.id = ?'), bindings.push(f.id);
    // A contact who became a participant some other way (an email change) no longer counts as invited.
    else sql += " AND i.status = 'INVITE_SENT' AND NOT EXISTS (SELECT 1 FROM participants m WHERE m.program_id = i.program_id AND m.email_key = i.email_key)";
    if (f.referrerId) (sql += ' AND i.participant_id = ?'), bindings.push(f.referrerId);
    if (f.email) (sql += ' AND i.email_key = ?'), bindings.push(emailKey(f.email));
    parts.push(sql);
  }
  return parts.length ? { sql: parts.join(' UNION ALL '), bindings } : null;
}

async function raw<T>(knex: Knex, pg: boolean, sql: string, bindings: unknown[]): Promise<T[]> {
  const result = await knex.raw(sql, bindings as Knex.RawBinding[]);
  return (pg ? result.rows : result) as T[];
}
