import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Participants } from '../participants/service.ts';
import type { ProgramEmails } from '../messaging/program-emails.ts';
import { teamVerified } from '../messaging/team-verification.ts';
import type { Activity } from '../platform/activity.ts';
import type { TeamBilling } from '../platform/plans.ts';
import { toProgram, type Program } from '../programs/programs.ts';
import { assertAffiliateProgram, enrollAffiliate } from './affiliate-applications.ts';
import { emailKey, programLanguages, type Q } from '../participants/model.ts';
import { maskEmail } from '../messaging/email-layout.ts';
import { affiliateInvite } from '../programs/email-copy/index.ts';
import { newId, newSecret, sha256 } from '../../crypto.ts';
import { ConflictError, InvalidStateError, NotFoundError, RateLimitedError, TeamNotVerifiedError, translateDbError } from '../../errors.ts';
import type { AffiliateInvite } from '../../../shared/schemas/affiliate.ts';

/** How long an emailed accept link works. */
export const INVITE_TTL_MS = 14 * 86_400_000;
/** The shortest time between two sends of one invite (AF7's per-invite limit). */
export const INVITE_RESEND_INTERVAL_MS = 5 * 60_000;

interface InviteRow {
  id: string;
  program_id: string;
  created_at: number;
  status: 'PENDING' | 'ACCEPTED' | 'EXPIRED' | 'REVOKED';
  email: string;
  email_key: string;
  first_name: string | null;
  last_name: string | null;
  token_hash: string | null;
  expires_at: number;
  last_sent_at: number;
  send_count: number;
  accepted_at: number | null;
  revoked_at: number | null;
  participant_id: string | null;
}

/** The billing facts of a team, for enrollments that do not come through an API key. */
export async function teamBilling(q: Q, teamId: string): Promise<TeamBilling> {
  const t = await q('teams').where({ id: teamId }).first('plan', 'has_payment_method', 'trial_ends_at');
  return { plan: t?.plan ?? 'FREE', hasPaymentMethod: Boolean(t?.has_payment_method), trialEndsAt: t?.trial_ends_at == null ? null : Number(t.trial_ends_at) };
}

/**
 * Affiliate invites (rest-v2 §2.33, §3.12 AF4–AF7): one active invite per address, a single-use
 * accept link (only its SHA-256 is stored) that revocation and resending kill at once, resends
 * limited per invite, and acceptance that enrolls an APPROVED affiliate with source INVITE.
 */
export class AffiliateInvites {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly participants: Participants,
    private readonly programEmails: ProgramEmails,
    private readonly activity: Activity,
  ) {}

  /** AF4: newest first, offset paging with the filter's total; a PENDING invite past its expiry reads EXPIRED. */
  async list(program: Program, query: { limit: number; offset: number; status?: string }): Promise<{ invites: AffiliateInvite[]; total: number; limit: number; offset: number }> {
    const now = this.clock.now();
    const base = () => {
      const q = this.db.knex('affiliate_invites').where({ program_id: program.id });
      if (query.status === 'PENDING') q.andWhere({ status: 'PENDING' }).andWhere('expires_at', '>', now);
      else if (query.status === 'EXPIRED') q.andWhere((w) => w.where({ status: 'EXPIRED' }).orWhere((x) => x.where({ status: 'PENDING' }).andWhere('expires_at', '<=', now)));
      else if (query.status) q.andWhere({ status: query.status });
      return q;
    };
    const [rows, count] = await Promise.all([
      base().orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(query.limit).offset(query.offset),
      base().count({ n: '*' }).first(),
    ]);
    return { invites: rows.map((r: InviteRow) => toWire(r, now)), total: Number(count?.n ?? 0), limit: query.limit, offset: query.offset };
  }

  /** AF5: records the invite and emails its accept link; 403 while the team is not VERIFIED, 409 for a second active invite. */
  async create(program: Program, input: { email: string; firstName?: string; lastName?: string }): Promise<AffiliateInvite> {
    assertAffiliateProgram(program, 'Affiliate invites');
    if (!(await teamVerified(this.db.knex, program.teamId))) throw new TeamNotVerifiedError('The team must be verified before affiliate invites can be emailed. Request verification with POST /v2/team/verification-request.');
    const key = emailKey(input.email);
    try {
      return await this.db.knex.transaction(async (trx) => {
        const now = this.clock.now();
        const affiliate = await trx('participants').where({ program_id: program.id, email_key: key }).first('is_affiliate');
        if (affiliate?.is_affiliate) throw new ConflictError('This email address already belongs to an affiliate of this program.');
        // An expired invite no longer counts as active: mark it so the unique index lets the new one in.
        await trx('affiliate_invites').where({ program_id: program.id, email_key: key, status: 'PENDING' }).andWhere('expires_at', '<=', now).update({ status: 'EXPIRED', token_hash: null });
        const active = await trx('affiliate_invites').where({ program_id: program.id, email_key: key, status: 'PENDING' }).first('id');
        if (active) throw new ConflictError(`An active invite (${active.id}) already exists for this email address; resend or revoke it.`);
        const token = newSecret(24);
        const row: InviteRow = {
          id: newId(),
          program_id: program.id,
          created_at: now,
          status: 'PENDING',
          email: input.email.trim(),
          email_key: key,
          first_name: input.firstName || null,
          last_name: input.lastName || null,
          token_hash: sha256(token),
          expires_at: now + INVITE_TTL_MS,
          last_sent_at: now,
          send_count: 1,
          accepted_at: null,
          revoked_at: null,
          participant_id: null,
        };
        await trx('affiliate_invites').insert(row);
        await this.#send(trx, program, row, token);
        return toWire(row, now);
      });
    } catch (err) {
      // Two concurrent invites to one address: the partial unique index decides, the loser gets 409.
      const translated = translateDbError(err);
      if (translated instanceof ConflictError) throw new ConflictError('An active invite already exists for this email address; resend or revoke it.');
      throw err;
    }
  }

  /** AF6: revokes a pending invite; its link stops working at once. */
  async revoke(program: Program, id: string): Promise<AffiliateInvite> {
    assertAffiliateProgram(program, 'Affiliate invites');
    return this.db.knex.transaction(async (trx) => {
      const now = this.clock.now();
      const row = await this.#pending(trx, program, id, now);
      const next = { ...row, status: 'REVOKED' as const, revoked_at: now, token_hash: null };
      await trx('affiliate_invites').where({ id: row.id }).update({ status: 'REVOKED', revoked_at: now, token_hash: null });
      return toWire(next, now);
    });
  }

  /** AF7: a fresh accept link (the old one stops working) and a new expiry; at most once per INVITE_RESEND_INTERVAL_MS. */
  async resend(program: Program, id: string): Promise<AffiliateInvite> {
    assertAffiliateProgram(program, 'Affiliate invites');
    if (!(await teamVerified(this.db.knex, program.teamId))) throw new TeamNotVerifiedError('The team must be verified before affiliate invites can be emailed. Request verification with POST /v2/team/verification-request.');
    return this.db.knex.transaction(async (trx) => {
      const now = this.clock.now();
      const row = await this.#pending(trx, program, id, now);
      const wait = Number(row.last_sent_at) + INVITE_RESEND_INTERVAL_MS - now;
      if (wait > 0) {
        const seconds = Math.ceil(wait / 1000);
        throw new RateLimitedError('AFFILIATE_INVITE_RESEND', `This invite was sent moments ago; resend it again in ${seconds} seconds.`, { 'Retry-After': String(seconds) });
      }
      const token = newSecret(24);
      const next: InviteRow = { ...row, token_hash: sha256(token), last_sent_at: now, expires_at: now + INVITE_TTL_MS, send_count: Number(row.send_count) + 1 };
      await trx('affiliate_invites').where({ id: row.id }).update({ token_hash: next.token_hash, last_sent_at: now, expires_at: next.expires_at, send_count: next.send_count });
      await this.#send(trx, program, next, token);
      return toWire(next, now);
    });
  }

  /** What the accept page shows for a link, or why it does not work. */
  async target(token: string): Promise<{ ok: true; company: string; email: string; program: Program } | { ok: false; reason: 'INVALID' | 'EXPIRED' }> {
    const row = await this.#byToken(this.db.knex, token);
    if (!row) return { ok: false, reason: 'INVALID' };
    if (Number(row.expires_at) <= this.clock.now()) return { ok: false, reason: 'EXPIRED' };
    const program = await this.#program(this.db.knex, row.program_id);
    if (!program) return { ok: false, reason: 'INVALID' };
    return { ok: true, company: this.programEmails.companyName(program), email: maskEmail(row.email), program };
  }

  /** Accepts an invite through its link: enrolls the invitee (source INVITE) and uses the link up. */
  async accept(token: string): Promise<{ ok: true; company: string; shareUrl: string; program: Program; language: string | null } | { ok: false; reason: 'INVALID' | 'EXPIRED' }> {
    return this.db.knex.transaction(async (trx) => {
      const now = this.clock.now();
      const found = await this.#byToken(trx, token);
      if (!found) return { ok: false as const, reason: 'INVALID' as const };
      const row: InviteRow = await trx('affiliate_invites').where({ id: found.id }).forUpdate().first();
      if (row.status !== 'PENDING' || row.token_hash !== found.token_hash) return { ok: false as const, reason: 'INVALID' as const };
      if (Number(row.expires_at) <= now) {
        await trx('affiliate_invites').where({ id: row.id }).update({ status: 'EXPIRED', token_hash: null });
        return { ok: false as const, reason: 'EXPIRED' as const };
      }
      const program = await this.#program(trx, row.program_id);
      if (!program) return { ok: false as const, reason: 'INVALID' as const };
      const billing = await teamBilling(trx, program.teamId);
      const enrolled = await enrollAffiliate(trx, this.participants, program, billing, { email: row.email, firstName: row.first_name, lastName: row.last_name }, 'INVITE', now);
      await trx('affiliate_invites').where({ id: row.id }).update({ status: 'ACCEPTED', accepted_at: now, token_hash: null, participant_id: enrolled.participantId });
      await this.activity.record(trx, { programId: program.id, participantId: enrolled.participantId, type: 'COMMON', action: 'affiliate.invite_accepted', text: 'Accepted an affiliate invite' });
      const p = await trx('participants').where({ id: enrolled.participantId }).first();
      return { ok: true as const, company: this.programEmails.companyName(program), shareUrl: this.programEmails.shareUrlOf(program, p), program, language: (p.language as string | null) ?? null };
    });
  }

  /** The accept link's URL for a token. */
  acceptUrl(token: string): string {
    return `${this.config.publicUrl}/affiliate-invite?token=${token}`;
  }

  async #send(trx: Knex.Transaction, program: Program, row: InviteRow, token: string): Promise<void> {
    const url = this.acceptUrl(token);
    // §2.19 has no template for affiliate invites (`invite` is a participant's referral invitation):
    // built-in copy in the program's base language (the invitee has no language yet), the date by Intl.
    const language = programLanguages(program).base;
    const expiresOn = new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(Number(row.expires_at)));
    await this.programEmails.sendToContact(trx, program, row.email, affiliateInvite(language), { firstName: row.first_name, acceptUrl: url, expiresOn }, { kind: 'affiliate.invite', language });
    await this.activity.record(trx, { programId: program.id, participantId: null, type: 'EMAIL', action: 'email.sent', text: `Affiliate invite emailed to ${maskEmail(row.email)}`, data: { emailType: 'affiliateInvite', inviteId: row.id } });
  }

  async #pending(trx: Knex.Transaction, program: Program, id: string, now: number): Promise<InviteRow> {
    const row: InviteRow | undefined = await trx('affiliate_invites').where({ id, program_id: program.id }).forUpdate().first();
    if (!row) throw new NotFoundError(`No affiliate invite ${id.slice(0, 64)} in program ${program.id}.`);
    const status = toWire(row, now).status;
    if (status !== 'PENDING') throw new InvalidStateError(`Invite ${id} is ${status}; only a PENDING invite can be revoked or resent.`);
    return row;
  }

  async #byToken(q: Q, token: string): Promise<InviteRow | null> {
    if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return null;
    const row = await q('affiliate_invites').where({ token_hash: sha256(token) }).first();
    return row && row.status === 'PENDING' ? row : null;
  }

  async #program(q: Q, programId: string): Promise<Program | null> {
    const row = await q('programs').where({ id: programId }).first();
    return row && row.status !== 'DELETED' ? toProgram(row) : null;
  }
}

function toWire(r: InviteRow, now: number): AffiliateInvite {
  const status = r.status === 'PENDING' && Number(r.expires_at) <= now ? 'EXPIRED' : r.status;
  return {
    id: r.id,
    email: r.email,
    firstName: r.first_name,
    lastName: r.last_name,
    status,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    lastSentAt: Number(r.last_sent_at),
    acceptedAt: r.accepted_at === null ? null : Number(r.accepted_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  };
}
