// Changing a participant (rest-v2 §3.8 P5), and the changes engines make to one inside their own
// transaction: its referral's credit state (trigger referral, credit windows) and the counters they
// own (visits, invites, affiliate money). Every change moves the referrers' counts, the board scores
// and the program counters with it, in the same transaction.
import type { Knex } from 'knex';
import type { Program } from '../programs/programs.ts';
import { updateRows } from '../../db/rows.ts';
import { ConflictError } from '../../errors.ts';
import type { Participant, ParticipantUpdate } from '../../../shared/schemas/participant.ts';
import { METADATA_LIMITS } from '../../../shared/schemas/participant.ts';
import { assertProgramLanguage, derivedReferralStatus, emailKey, fieldError, parseJson, programLanguages, type ParticipantRow, type ScreeningCandidate } from './model.ts';
import { findReferrer, updateReferrer, type Credit } from './referrals.ts';
import { ScoreLedger } from './score-ledger.ts';
import { replaceVanityKeys, writeMetadata } from './keys.ts';
import { screenSignUp } from './sign-ups.ts';
import type { ParticipantsContext } from './service.ts';

/** Counters other engines add to, and the board each one ranks (invites rank nowhere). */
export type CounterDeltas = Partial<Record<'impression_count' | 'unique_impression_count' | 'invite_count' | 'commission_total' | 'revenue_total' | 'unread_commissions_count', number>>;
const COUNTER_BOARDS: Record<keyof CounterDeltas, string | null> = {
  impression_count: 'TOTAL_IMPRESSION_COUNT',
  unique_impression_count: 'UNIQUE_IMPRESSION_COUNT',
  invite_count: null,
  unread_commissions_count: null,
  commission_total: 'BY_COMMISSIONS',
  revenue_total: 'BY_REVENUE',
};

/** P5: changes the given fields; referral moves keep the referrers' counts and ranks exact. */
export async function updateParticipant(ctx: ParticipantsContext, program: Program, idOrEmail: string, patch: ParticipantUpdate, opts: { actor?: string | null } = {}): Promise<Participant> {
  if (patch.affiliateStatus && program.type !== 'AFFILIATE') throw fieldError('affiliateStatus', 'affiliateStatus applies only to affiliate programs.');
  if (patch.language) assertProgramLanguage(program, patch.language);
  return ctx.db.knex.transaction(async (trx) => {
    const now = ctx.clock.now();
    // A new email is a new unique key: FOR UPDATE then, else the lock foreign-key inserts do not block.
    const row = await ctx.resolve(trx, program, idOrEmail, { lock: patch.email !== undefined ? 'key' : true });
    const changes: Record<string, unknown> = { updated_at: now };
    if (patch.email !== undefined) {
      const key = emailKey(patch.email);
      if (key !== row.email_key) {
        const clash = await trx('participants').where({ program_id: program.id, email_key: key }).first('id');
        if (clash) throw new ConflictError(`Another participant of this program already has the email ${patch.email}.`);
        changes.email_key = key;
      }
      changes.email = patch.email;
    }
    if (patch.firstName !== undefined) changes.first_name = patch.firstName || null;
    if (patch.lastName !== undefined) changes.last_name = patch.lastName || null;
    if (patch.unsubscribed !== undefined) changes.unsubscribed = patch.unsubscribed;
    if (patch.notes !== undefined) changes.notes = patch.notes || null;
    if (patch.paypalEmail !== undefined) changes.paypal_email = patch.paypalEmail;
    if (patch.language !== undefined) changes.language = patch.language === null || patch.language === programLanguages(program).base ? null : patch.language;
    if (patch.affiliateStatus) {
      if (!row.is_affiliate && patch.affiliateStatus !== 'APPROVED') {
        throw fieldError('affiliateStatus', `${patch.affiliateStatus} applies only to affiliates; send APPROVED to enroll this participant.`);
      }
      if (!row.is_affiliate) Object.assign(changes, { is_affiliate: true, affiliate_enrollment_source: 'REST_API' });
      changes.affiliate_status = patch.affiliateStatus;
    }
    if (patch.metadata) {
      const before = parseJson<Record<string, string>>(row.metadata, {});
      const after = { ...before };
      for (const [k, v] of Object.entries(patch.metadata)) {
        if (v === null) delete after[k];
        else after[k] = String(v);
      }
      if (Object.keys(after).length > METADATA_LIMITS.keys) throw fieldError('metadata', `A participant holds at most ${METADATA_LIMITS.keys} metadata keys.`);
      await writeMetadata(trx, program.id, row.id, before, after);
      changes.metadata = Object.keys(after).length ? JSON.stringify(after) : null;
    }
    if (patch.vanityKeys) changes.vanity_keys = JSON.stringify(await replaceVanityKeys(trx, program.id, row.id, patch.vanityKeys));

    // The referral: a new referrer, a new status, or both.
    let newRef = row.referred_by;
    let newReferrer: ParticipantRow | null = null;
    if (patch.referredBy !== undefined) {
      const ref = await findReferrer(trx, program.id, patch.referredBy);
      if (!ref) throw fieldError('referredBy', 'No participant of this program has this id, share key, vanity key or email.', 'REFERRER_NOT_FOUND');
      if (ref.id === row.id) throw fieldError('referredBy', 'A participant cannot refer themselves.');
      newRef = ref.id;
      newReferrer = ref;
    }
    if (patch.referralStatus !== undefined && !newRef) throw fieldError('referralStatus', 'This participant has no referrer; send referredBy with it.');
    const oldStatus: Credit = row.referred_by ? row.referral_status : null;
    const moved = newRef !== row.referred_by;
    // A referral moving to another referrer is screened like a sign-up (flagged, never blocked here).
    const candidate: ScreeningCandidate = { id: row.id, email: patch.email ?? row.email, ipAddress: row.ip_address, fingerprint: row.fingerprint, mobileInstanceId: row.mobile_instance_id, existing: row };
    const screen = moved ? await screenSignUp(ctx.hooks, trx, program, candidate, newReferrer) : { holdCredit: false, columns: {}, afterWrite: [] };
    const derived = moved && !row.referred_by ? derivedReferralStatus(program) : oldStatus;
    const newStatus: Credit = patch.referralStatus ?? (moved && screen.holdCredit && derived === 'CREDIT_AWARDED' ? 'CREDIT_PENDING' : derived);
    if (moved) {
      Object.assign(changes, { referred_by: newRef, referral_status: newStatus, referral_source: 'PARTICIPANT', referred_at: now });
    } else if (newStatus !== oldStatus) {
      changes.referral_status = newStatus;
    }
    if ((moved || newStatus !== oldStatus) && newStatus === 'CREDIT_AWARDED') changes.credited_at = now;
    Object.assign(changes, screen.columns);
    const afterWrites = [...screen.afterWrite];
    if (patch.fraudRiskLevel !== undefined) {
      // The owner's override (the documented exception to read-only fraud state); it wins over screening.
      if (!ctx.hooks.fraudOverride) throw fieldError('fraudRiskLevel', 'Anti-fraud is not enabled on this server.');
      const manual = await ctx.hooks.fraudOverride(trx, program, row, patch.fraudRiskLevel, opts.actor ?? null);
      Object.assign(changes, manual.columns);
      afterWrites.push((t, p, r) => manual.afterWrite(t, p, r));
    }
    await trx('participants').where({ id: row.id }).update(changes);

    const ledger = new ScoreLedger(program.id);
    let credited: ParticipantRow | null = null;
    if (moved) {
      // Both referrers locked in id order, so two opposite moves cannot deadlock.
      await trx('participants').whereIn('id', [row.referred_by, newRef].filter((x): x is string => !!x).sort()).orderBy('id').forNoKeyUpdate().select('id');
      if (row.referred_by) await updateReferrer(trx, ledger, row.referred_by, { from: oldStatus, to: null, creditedAt: row.credited_at, detach: row.id }, now);
      credited = await updateReferrer(trx, ledger, newRef!, { from: null, to: newStatus, creditedAt: null, attach: { id: row.id, at: now } }, now);
    } else if (newStatus !== oldStatus && newRef) {
      credited = await updateReferrer(trx, ledger, newRef, { from: oldStatus, to: newStatus, creditedAt: row.credited_at }, now);
    }
    const fresh: ParticipantRow = await trx('participants').where({ id: row.id }).first();
    if (moved || newStatus !== oldStatus) {
      for (const hook of ctx.hooks.referralChanged) await hook(trx, program, fresh, { fromReferrer: row.referred_by, toReferrer: newRef, from: oldStatus, to: newStatus });
    }
    if (credited && newStatus === 'CREDIT_AWARDED' && (moved || oldStatus !== 'CREDIT_AWARDED')) {
      for (const hook of ctx.hooks.referralCredited) await hook(trx, program, credited, fresh, ledger);
    }
    await ledger.flush(trx);
    for (const after of afterWrites) await after(trx, program, fresh);
    return (await ctx.serialize(trx, program, [fresh]))[0]!;
  });
}

/** Moves one referral to `to` inside the caller's transaction, as P5 does for a status change (`Participants.setReferralStatus`). */
export async function setReferralStatus(ctx: ParticipantsContext, trx: Knex.Transaction, program: Program, participantId: string, to: Exclude<Credit, null>, locked?: ParticipantRow): Promise<boolean> {
  const row: ParticipantRow | undefined =
    locked?.id === participantId ? locked : await trx('participants').where({ id: participantId, program_id: program.id }).forNoKeyUpdate().first();
  if (!row || !row.referred_by || row.referral_status === to) return false;
  const now = ctx.clock.now();
  const changes: Partial<ParticipantRow> = { referral_status: to, updated_at: now };
  if (to === 'CREDIT_AWARDED') changes.credited_at = now;
  await updateRows(trx, 'participants', { id: row.id }, changes);
  const ledger = new ScoreLedger(program.id);
  const referrer = await updateReferrer(trx, ledger, row.referred_by, { from: row.referral_status, to, creditedAt: row.credited_at }, now);
  const fresh = { ...row, ...changes } as ParticipantRow;
  for (const hook of ctx.hooks.referralChanged) await hook(trx, program, fresh, { fromReferrer: row.referred_by, toReferrer: row.referred_by, from: row.referral_status, to });
  if (referrer && to === 'CREDIT_AWARDED') for (const hook of ctx.hooks.referralCredited) await hook(trx, program, referrer, fresh, ledger);
  await ledger.flush(trx);
  return true;
}

/**
 * Adds to a participant's counters inside the caller's transaction and moves their board scores with
 * them (`Participants.adjustCounters`). `locked`: the participant's row as the caller read it in this
 * transaction with FOR NO KEY UPDATE and has not changed since (a sale's affiliate), so it is not read again.
 */
export async function adjustCounters(ctx: ParticipantsContext, trx: Knex.Transaction, programId: string, participantId: string, deltas: CounterDeltas, locked?: ParticipantRow): Promise<ParticipantRow | null> {
  // FOR NO KEY UPDATE: callers have usually just inserted rows referencing this participant (a
  // commission, a sale), holding FOR KEY SHARE on it as concurrent callers do; FOR UPDATE made
  // each wait for the others' share locks: deadlock (issue #20).
  const row: ParticipantRow | undefined =
    locked && locked.id === participantId ? locked : await trx('participants').where({ id: participantId, program_id: programId }).forNoKeyUpdate().first();
  if (!row) return null;
  const ledger = new ScoreLedger(programId);
  const patch: Record<string, number> = { updated_at: ctx.clock.now() };
  for (const [column, delta] of Object.entries(deltas) as Array<[keyof CounterDeltas, number]>) {
    if (!delta) continue;
    const before = Number((row as unknown as Record<string, unknown>)[column] ?? 0);
    const after = Math.max(0, before + delta);
    patch[column] = after;
    const board = COUNTER_BOARDS[column];
    if (board) ledger.move(board, before, after);
  }
  await trx('participants').where({ id: participantId }).update(patch);
  await ledger.flush(trx);
  return { ...row, ...patch } as ParticipantRow;
}
