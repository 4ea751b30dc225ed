import type { Knex } from 'knex';
import { forNoKeyUpdate, forUpdate, trxRows, updateRows } from '../../db/rows.ts';
import { COLUMN_BOARD_NAMES, boardSpec, monthBoard, monthKey, monthScore } from './boards.ts';
import type { ScoreLedger } from './score-ledger.ts';
import { RECENT_REFERRALS, decodeRecent, emailKey, encodeRecent, type ParticipantRow, type Q } from './model.ts';

// A referral is the link from a referred participant to their referrer plus its credit state. Every
// change of that state goes through `updateReferrer`, which keeps the referrer's counters, the
// score histograms, the program's referral counter and the referrer's recent-referral list in step.

/** A referral's credit state, or null for "no referral". */
export type Credit = 'CREDIT_PENDING' | 'CREDIT_AWARDED' | 'CREDIT_EXPIRED' | 'INVITE_SENT' | null;

/** One change to a referrer's side of a referral. */
export interface ReferrerChange {
  from: Credit;
  to: Credit;
  /** When the referral was credited (its `credited_at`), to find the month a removed credit counted in. */
  creditedAt: number | null;
  /** A new referral to list first in the referrer's recent referrals. */
  attach?: { id: string; at: number };
  /** A referral that left the referrer (already re-pointed or deleted). */
  detach?: string;
}

const AWARDED = 'CREDIT_AWARDED';
const PENDING = 'CREDIT_PENDING';

/**
 * Applies one referral change to the referrer inside `trx`: referral, monthly and lead counts (with
 * the lazy month rollover) and the recent list now; their histogram buckets and the program's
 * referral count through `ledger`. Returns the referrer as updated, or null when it no longer exists.
 */
export async function updateReferrer(
  trx: Knex.Transaction,
  ledger: ScoreLedger,
  referrerId: string,
  change: ReferrerChange,
  now: number,
  locked?: ParticipantRow,
): Promise<ParticipantRow | null> {
  const programId = ledger.programId;
  // FOR NO KEY UPDATE: this transaction may already hold FOR KEY SHARE on the referrer (it inserted a
  // row referencing them), and so may others; FOR UPDATE waited for theirs while they waited for it.
  // `locked`: the caller read the referrer under that lock in this transaction and changed nothing of it since.
  const [old] =
    locked?.id === referrerId && locked.program_id === programId
      ? [locked]
      : await trxRows<ParticipantRow>(trx, `SELECT * FROM participants WHERE id = ? AND program_id = ? LIMIT 1${forNoKeyUpdate(trx)}`, [referrerId, programId]);
  if (!old) return null;
  const cur = monthKey(now);
  // Roll the stored month forward; the effective counts of both months stay the same.
  let monthly = monthScore(old, cur);
  let prev = monthScore(old, cur - 1);
  let count = Number(old.referral_count);
  let leads = Number(old.lead_count);
  const wasAwarded = change.from === AWARDED;
  const isAwarded = change.to === AWARDED;
  if (isAwarded && !wasAwarded) {
    count += 1;
    monthly += 1;
  }
  if (wasAwarded && !isAwarded) {
    count -= 1;
    const creditMonth = change.creditedAt != null ? monthKey(change.creditedAt) : null;
    if (creditMonth === cur) monthly -= 1;
    else if (creditMonth === cur - 1) prev -= 1;
  }
  if (change.to === PENDING && change.from !== PENDING) leads += 1;
  if (change.from === PENDING && change.to !== PENDING) leads -= 1;
  count = Math.max(0, count);
  monthly = Math.max(0, monthly);
  prev = Math.max(0, prev);
  leads = Math.max(0, leads);

  const patch: Partial<ParticipantRow> = {
    referral_count: count,
    month_key: cur,
    monthly_referral_count: monthly,
    prev_monthly_referral_count: prev,
    lead_count: leads,
    updated_at: now,
  };
  if (change.attach || change.detach) {
    let recent = decodeRecent(old);
    if (change.detach && recent.some(([id]) => id === change.detach)) {
      // The list may have had older referrals cut off; rebuild it from the referred rows.
      const rows: Array<{ id: string; referred_at: number }> = await trx('participants')
        .where('referred_by', referrerId)
        .orderBy([{ column: 'referred_at', order: 'desc' }, { column: 'id', order: 'desc' }])
        .limit(RECENT_REFERRALS)
        .select('id', 'referred_at');
      recent = rows.map((r) => [r.id, Number(r.referred_at)]);
    }
    if (change.attach) recent = [[change.attach.id, change.attach.at] as [string, number], ...recent.filter(([id]) => id !== change.attach!.id)];
    Object.assign(patch, encodeRecent(recent));
  }
  await updateRows(trx, 'participants', { id: referrerId }, patch);

  ledger.move('ALL_TIME', Number(old.referral_count), count);
  ledger.move(monthBoard(cur), monthScore(old, cur), monthly);
  ledger.move(monthBoard(cur - 1), monthScore(old, cur - 1), prev);
  ledger.move('BY_LEADS', Number(old.lead_count), leads);
  ledger.count(0, count - Number(old.referral_count));
  return { ...old, ...patch } as ParticipantRow;
}

/** Takes every score of a participant off the histograms (the participant is being deleted). */
export function removeScores(ledger: ScoreLedger, row: ParticipantRow, now: number): void {
  for (const board of COLUMN_BOARD_NAMES) {
    const spec = boardSpec(board, now);
    ledger.move(spec.histogram, spec.scoreOf(row), 0);
  }
  const cur = monthKey(now);
  ledger.move(monthBoard(cur), monthScore(row, cur), 0);
  ledger.move(monthBoard(cur - 1), monthScore(row, cur - 1), 0);
}

/**
 * How a participant row is locked on PostgreSQL: `true` for a row whose non-key columns will change
 * (FOR NO KEY UPDATE, which foreign-key inserts referencing it do not block), `'key'` for one that
 * will be deleted or get a new email (FOR UPDATE). Nothing on SQLite.
 */
export type ParticipantLock = boolean | 'key';

/** The SQL tail of a `ParticipantLock`. */
function lockTail(q: Q, lock: ParticipantLock): string {
  return lock === 'key' ? forUpdate(q) : lock ? forNoKeyUpdate(q) : '';
}

/**
 * The participant a path's `{participantIdOrEmail}` names: an address (it has `@`) matches the
 * lower-cased email, anything else the id. Null when none.
 */
export async function findParticipant(q: Q, programId: string, idOrEmail: string, lock: ParticipantLock = false): Promise<ParticipantRow | null> {
  if (!idOrEmail || idOrEmail.length > 254) return null;
  if ((q as Knex.Transaction).isTransaction === true) {
    // The same query as below as a cached statement: every participant write starts here.
    const [row] = idOrEmail.includes('@')
      ? await trxRows<ParticipantRow>(q as Knex.Transaction, `SELECT * FROM participants WHERE program_id = ? AND email_key = ? LIMIT 1${lockTail(q, lock)}`, [programId, emailKey(idOrEmail)])
      : await trxRows<ParticipantRow>(q as Knex.Transaction, `SELECT * FROM participants WHERE id = ? AND program_id = ? LIMIT 1${lockTail(q, lock)}`, [idOrEmail, programId]);
    return row ?? null;
  }
  const query = idOrEmail.includes('@')
    ? q('participants').where({ program_id: programId, email_key: emailKey(idOrEmail) })
    : q('participants').where({ id: idOrEmail, program_id: programId });
  if (lock === 'key') query.forUpdate();
  else if (lock) query.forNoKeyUpdate();
  return ((await query.first()) as ParticipantRow | undefined) ?? null;
}

/**
 * The participant a `referredBy` value names: an email, else an id, a share key or a vanity key.
 * `lock` (inside a transaction): the row is read FOR NO KEY UPDATE on PostgreSQL, the lock
 * `updateReferrer` takes, so a sign-up hands the row to it instead of reading it again.
 */
export async function findReferrer(q: Q, programId: string, ref: string, lock = false): Promise<ParticipantRow | null> {
  const value = ref.trim();
  if (!value || value.length > 254) return null;
  if (value.includes('@')) return findParticipant(q, programId, value, lock);
  const lower = value.toLowerCase();
  if ((q as Knex.Transaction).isTransaction === true) {
    // The same reads as below as cached statements (named on PostgreSQL): every referred sign-up runs them.
    const trx = q as Knex.Transaction;
    const tail = lock ? forNoKeyUpdate(trx) : '';
    const [byId] = await trxRows<ParticipantRow>(trx, `SELECT * FROM participants WHERE id = ? AND program_id = ? LIMIT 1${tail}`, [value, programId]);
    if (byId) return byId;
    const [byShareKey] = await trxRows<ParticipantRow>(trx, `SELECT * FROM participants WHERE program_id = ? AND share_key = ? LIMIT 1${tail}`, [programId, lower]);
    if (byShareKey) return byShareKey;
    const [byVanity] = await trxRows<ParticipantRow>(
      trx,
      `SELECT p.* FROM participant_vanity_keys v JOIN participants p ON p.id = v.participant_id WHERE v.program_id = ? AND v.key_lower = ? LIMIT 1${tail ? `${tail} OF p` : ''}`,
      [programId, lower],
    );
    return byVanity ?? null;
  }
  const byId = await q('participants').where({ id: value, program_id: programId }).first();
  if (byId) return byId;
  const byShareKey = await q('participants').where({ program_id: programId, share_key: lower }).first();
  if (byShareKey) return byShareKey;
  const vanity = await q('participant_vanity_keys').where({ program_id: programId, key_lower: lower }).first('participant_id');
  if (!vanity) return null;
  return (await q('participants').where({ id: vanity.participant_id }).first()) ?? null;
}
