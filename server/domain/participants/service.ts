import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import type { Program } from '../programs.ts';
import { newId } from '../../crypto.ts';
import { updateRows } from '../../db/rows.ts';
import { ConflictError, ParticipantBlockedError, ValidationError, WrongProgramTypeError } from '../../errors.ts';
import { isRetryableTxError } from '../../db/retry.ts';
import { assertParticipantCapacity, type TeamBilling } from '../plans.ts';
import { Leaderboard, ScoreLedger, boardSpec, readRows } from '../leaderboard.ts';
import type {
  BulkDeleteResponse,
  LeaderboardQuery,
  Participant,
  ParticipantCreate,
  ParticipantList,
  ParticipantListQuery,
  ParticipantUpdate,
} from '../../../shared/schemas/participant.ts';
import { METADATA_LIMITS } from '../../../shared/schemas/participant.ts';
import {
  assertProgramLanguage,
  derivedReferralStatus,
  emailKey,
  fieldError,
  gdprStrict,
  metadataStrings,
  parseJson,
  programLanguages,
  valueHash,
  type EventSink,
  type ParticipantHooks,
  type ParticipantRow,
  type ScreeningCandidate,
  type RequestEvidence,
  type ScreeningDecision,
  type Q,
} from './model.ts';
import { findParticipant, findReferrer, removeScores, updateReferrer, type Credit, type ParticipantLock } from './referrals.ts';

/** The reserved metadata key (rest-v2 §2.8) that holds recorded GDPR consent. */
export const GDPR_AGREEMENTS = 'gdprAgreements';
import { serializeParticipants, type EventParticipant, type SerializeOptions } from './serialize.ts';
import { freeShareKey, replaceVanityKeys, writeMetadata } from './keys.ts';

/** Counters other engines add to, and the board each one ranks (invites rank nowhere). */
export type CounterDeltas = Partial<Record<'impression_count' | 'unique_impression_count' | 'invite_count' | 'commission_total' | 'revenue_total', number>>;
const COUNTER_BOARDS: Record<keyof CounterDeltas, string | null> = {
  impression_count: 'TOTAL_IMPRESSION_COUNT',
  unique_impression_count: 'UNIQUE_IMPRESSION_COUNT',
  invite_count: null,
  commission_total: 'BY_COMMISSIONS',
  revenue_total: 'BY_REVENUE',
};

/**
 * Participants (rest-v2 §3.8 P1–P7): add, read, update, delete, list and leaderboards. Every change
 * that touches more than one row (referrer counters, histograms, program counters, vanity keys,
 * metadata index) runs in one transaction.
 */
export class Participants {
  /** Lifecycle hooks other engines fill (rewards, fraud, invites). */
  readonly hooks: ParticipantHooks = { created: [], referralCredited: [], referralChanged: [], deleting: [], rewardsOf: null, screening: [], fraudOverride: null, fraudMatchesOf: null };
  /** Score histograms and ordered boards. */
  readonly leaderboard: Leaderboard;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly events: EventSink | null,
  ) {
    this.leaderboard = new Leaderboard(db);
  }

  /** The wire shape of participants (rest-v2 §2.8); the only serializer. */
  serialize(q: Q, program: Program, rows: ParticipantRow[], opts: SerializeOptions = {}): Promise<Participant[]> {
    return serializeParticipants(q, program, rows, { db: this.db, leaderboard: this.leaderboard, hooks: this.hooks, publicUrl: this.config.publicUrl, now: this.clock.now() }, opts);
  }

  /** Participants as webhook payloads carry them: without the `rewards` list (docs/webhooks.md). */
  async forEvents(q: Q, program: Program, rows: ParticipantRow[], opts: Pick<SerializeOptions, 'referees' | 'known' | 'ledger'> = {}): Promise<EventParticipant[]> {
    return (await this.serialize(q, program, rows, { ...opts, rewards: false })) as EventParticipant[];
  }

  /**
   * Resolves a path's `{participantIdOrEmail}` (an id, or an email compared lower-cased) within the
   * program; unknown → 400 as the spec requires, never 404. Every participant operation uses this.
   */
  async resolve(q: Q, program: Program, idOrEmail: string, opts: { lock?: ParticipantLock } = {}): Promise<ParticipantRow> {
    const row = await findParticipant(q, program.id, idOrEmail, opts.lock);
    if (!row) {
      throw new ValidationError(`No participant with ${idOrEmail.includes('@') ? 'email' : 'id'} ${JSON.stringify(idOrEmail.slice(0, 254))} in program ${program.id}.`, [
        { field: 'participantIdOrEmail', code: 'PARTICIPANT_NOT_FOUND', message: 'No participant with this id or email in this program.' },
      ]);
    }
    return row;
  }

  /** P4: one participant. */
  async get(program: Program, idOrEmail: string): Promise<Participant> {
    const row = await this.resolve(this.db.knex, program, idOrEmail);
    return (await this.serialize(this.db.knex, program, [row]))[0]!;
  }

  /** P1: newest first, with up to three exact metadata filters; `nextId` is the last id of the page. */
  async list(program: Program, query: ParticipantListQuery): Promise<ParticipantList> {
    const knex = this.db.knex;
    const after = query.nextId ? await this.cursorRow(program, query.nextId) : null;
    const q = knex('participants').where('program_id', program.id);
    for (const [key, value] of Object.entries(query.metadata)) {
      q.whereIn('id', (sub) => {
        sub.select('participant_id').from('participant_metadata').where({ program_id: program.id, meta_key: key, value_hash: valueHash(value), value });
      });
    }
    if (after) q.whereRaw('(created_at, id) < (?, ?)', [Number(after.created_at), after.id]);
    const rows = await readRows<ParticipantRow>(this.db, knex, q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(query.limit + 1));
    const page = rows.slice(0, query.limit);
    return { participants: await this.serialize(knex, program, page), limit: query.limit, nextId: rows.length > query.limit ? page[page.length - 1]!.id : null };
  }

  /** P2: participants ordered by the board's score, then oldest first; `rank` is the position on that board. */
  async leaderboardPage(program: Program, query: LeaderboardQuery): Promise<ParticipantList> {
    if ((query.leaderboardType === 'BY_COMMISSIONS' || query.leaderboardType === 'BY_REVENUE') && program.type !== 'AFFILIATE') {
      throw new WrongProgramTypeError(`Leaderboard ${query.leaderboardType} is only for affiliate programs.`);
    }
    const knex = this.db.knex;
    const after = query.nextId ? await this.cursorRow(program, query.nextId) : null;
    const now = this.clock.now();
    const page = await this.leaderboard.page(knex, program.id, query.leaderboardType, now, query.limit, after);
    const boardRanks = await this.leaderboard.pageRanks(knex, program.id, boardSpec(query.leaderboardType, now).histogram, page.scores, after !== null);
    return { participants: await this.serialize(knex, program, page.rows, { boardRanks }), limit: query.limit, nextId: page.nextId };
  }

  /**
   * P3: adds a participant, or returns the one with this email unchanged (`isNew: false`). Enrollment
   * engines pass `source` (how a new affiliate enrolled) and `trx` to join their own transaction.
   */
  async create(
    program: Program,
    billing: TeamBilling,
    input: ParticipantCreate,
    opts: { source?: string; trx?: Knex.Transaction; request?: RequestEvidence; gdprAgreement?: { text: string } } = {},
  ): Promise<Participant> {
    if (input.isAffiliate !== undefined && program.type !== 'AFFILIATE') throw fieldError('isAffiliate', 'isAffiliate applies only to affiliate programs.');
    if (input.language) assertProgramLanguage(program, input.language);
    const strict = gdprStrict(program);
    const metadata = metadataStrings(input.metadata ?? {});
    // The reserved key clients cannot send: what the participant agreed to, in the program's words, and when.
    if (opts.gdprAgreement) metadata[GDPR_AGREEMENTS] = JSON.stringify([{ text: opts.gdprAgreement.text, agreedAt: new Date(this.clock.now()).toISOString() }]);
    const run = async (trx: Knex.Transaction): Promise<Participant> => {
      const now = this.clock.now();
      const existing = await findParticipant(trx, program.id, input.email);
      if (existing) return (await this.serialize(trx, program, [existing], { isNew: false }))[0]!;
      await this.assertCapacity(trx, program.id, billing, now, 0);
      const referrer = input.referredBy ? await findReferrer(trx, program.id, input.referredBy) : null;
      const id = newId();
      // Anti-fraud before anything is written: a block is a 422 that leaves no trace.
      const candidate: ScreeningCandidate = {
        id,
        email: input.email,
        ipAddress: input.ipAddress ?? null,
        fingerprint: input.fingerprint ?? null,
        mobileInstanceId: input.mobileInstanceId ?? null,
        existing: null,
        ...(opts.request ? { request: opts.request } : {}),
      };
      const screen = await this.screen(trx, program, candidate, referrer);
      const status = referrer ? (input.referralStatus ?? (screen.holdCredit ? 'CREDIT_PENDING' : derivedReferralStatus(program))) : null;
      // Affiliate programs (rest-v2 §3.8 P3): enrolled unless a valid referrer makes this a referred customer.
      const enroll = program.type === 'AFFILIATE' && (input.isAffiliate ?? !referrer);
      const row = {
        id,
        program_id: program.id,
        email: input.email,
        email_key: emailKey(input.email),
        first_name: input.firstName ?? null,
        last_name: input.lastName ?? null,
        share_key: await freeShareKey(trx, program.id),
        referred_by: referrer?.id ?? null,
        referral_status: status,
        referral_source: referrer ? 'PARTICIPANT' : 'DIRECT',
        referred_at: referrer ? now : null,
        credited_at: status === 'CREDIT_AWARDED' ? now : null,
        month_key: 0,
        ip_address: strict ? null : (input.ipAddress ?? null),
        fingerprint: strict ? null : (input.fingerprint ?? null),
        mobile_instance_id: strict ? null : (input.mobileInstanceId ?? null),
        metadata: Object.keys(metadata).length ? JSON.stringify(metadata) : null,
        language: input.language && input.language !== programLanguages(program).base ? input.language : null,
        is_affiliate: enroll,
        affiliate_status: enroll ? 'APPROVED' : null,
        affiliate_enrollment_source: enroll ? (opts.source ?? 'REST_API') : null,
        created_at: now,
        updated_at: now,
        ...screen.columns,
      };
      const inserted = await trx('participants').insert(row).onConflict(['program_id', 'email_key']).ignore().returning('id');
      if (inserted.length === 0) {
        // Added by a concurrent request a moment ago: same answer as any existing email.
        const again = (await findParticipant(trx, program.id, input.email))!;
        return (await this.serialize(trx, program, [again], { isNew: false }))[0]!;
      }
      await writeMetadata(trx, program.id, id, {}, metadata);
      const ledger = new ScoreLedger(program.id);
      ledger.count(1, 0);
      const credited = referrer && (await updateReferrer(trx, ledger, referrer.id, { from: null, to: status, creditedAt: null, attach: { id, at: now } }, now));
      const created: ParticipantRow = await trx('participants').where({ id }).first();
      for (const hook of this.hooks.created) await hook(trx, program, created, ledger);
      if (credited && status === 'CREDIT_AWARDED') for (const hook of this.hooks.referralCredited) await hook(trx, program, credited, created, ledger);
      await ledger.flush(trx);
      // Exact under concurrency: the counter now includes every committed add and this one.
      await this.assertCapacity(trx, program.id, billing, now, 1);
      const [wire] = await this.serialize(trx, program, [created], { isNew: true });
      const { isNew: _isNew, rewards: _rewards, ...data } = wire!;
      await this.events?.participantAdded(trx, program, data);
      for (const after of screen.afterWrite) await after(trx, program, created);
      return wire!;
    };
    return opts.trx ? run(opts.trx) : this.db.knex.transaction(run);
  }

  /** P5: changes the given fields; referral moves keep the referrers' counts and ranks exact. */
  async update(program: Program, idOrEmail: string, patch: ParticipantUpdate, opts: { actor?: string | null } = {}): Promise<Participant> {
    if (patch.affiliateStatus && program.type !== 'AFFILIATE') throw fieldError('affiliateStatus', 'affiliateStatus applies only to affiliate programs.');
    if (patch.language) assertProgramLanguage(program, patch.language);
    return this.db.knex.transaction(async (trx) => {
      const now = this.clock.now();
      // A new email is a new unique key: FOR UPDATE then, else the lock foreign-key inserts do not block.
      const row = await this.resolve(trx, program, idOrEmail, { lock: patch.email !== undefined ? 'key' : true });
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
      const screen = moved ? await this.screen(trx, program, candidate, newReferrer) : { holdCredit: false, columns: {}, afterWrite: [] };
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
        if (!this.hooks.fraudOverride) throw fieldError('fraudRiskLevel', 'Anti-fraud is not enabled on this server.');
        const manual = await this.hooks.fraudOverride(trx, program, row, patch.fraudRiskLevel, opts.actor ?? null);
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
        for (const hook of this.hooks.referralChanged) await hook(trx, program, fresh, { fromReferrer: row.referred_by, toReferrer: newRef, from: oldStatus, to: newStatus });
      }
      if (credited && newStatus === 'CREDIT_AWARDED' && (moved || oldStatus !== 'CREDIT_AWARDED')) {
        for (const hook of this.hooks.referralCredited) await hook(trx, program, credited, fresh, ledger);
      }
      await ledger.flush(trx);
      for (const after of afterWrites) await after(trx, program, fresh);
      return (await this.serialize(trx, program, [fresh]))[0]!;
    });
  }

  /**
   * Moves one referral to `to` inside the caller's transaction, as P5 does for a status change: the
   * referrer's counts, the ranks and the program counter stay exact, `referralChanged` runs, and a
   * new CREDIT_AWARDED runs `referralCredited` (rewards). For the engines that change credit on their
   * own (trigger referral, credit windows). False when the participant has no referrer or is
   * already in that state (nothing changed). `locked` is the row when the caller already read it
   * under lock in this transaction (saves reading it again).
   */
  async setReferralStatus(trx: Knex.Transaction, program: Program, participantId: string, to: Exclude<Credit, null>, locked?: ParticipantRow): Promise<boolean> {
    const row: ParticipantRow | undefined =
      locked?.id === participantId ? locked : await trx('participants').where({ id: participantId, program_id: program.id }).forNoKeyUpdate().first();
    if (!row || !row.referred_by || row.referral_status === to) return false;
    const now = this.clock.now();
    const changes: Partial<ParticipantRow> = { referral_status: to, updated_at: now };
    if (to === 'CREDIT_AWARDED') changes.credited_at = now;
    await updateRows(trx, 'participants', { id: row.id }, changes);
    const ledger = new ScoreLedger(program.id);
    const referrer = await updateReferrer(trx, ledger, row.referred_by, { from: row.referral_status, to, creditedAt: row.credited_at }, now);
    const fresh = { ...row, ...changes } as ParticipantRow;
    for (const hook of this.hooks.referralChanged) await hook(trx, program, fresh, { fromReferrer: row.referred_by, toReferrer: row.referred_by, from: row.referral_status, to });
    if (referrer && to === 'CREDIT_AWARDED') for (const hook of this.hooks.referralCredited) await hook(trx, program, referrer, fresh, ledger);
    await ledger.flush(trx);
    return true;
  }

  /**
   * Adds to a participant's counters (visits, invites, affiliate money) inside the caller's
   * transaction and moves their board scores with them; for the engines that own those events.
   */
  async adjustCounters(trx: Knex.Transaction, programId: string, participantId: string, deltas: CounterDeltas): Promise<ParticipantRow | null> {
    // FOR NO KEY UPDATE: callers have usually just inserted rows referencing this participant (a
    // commission, a sale), holding FOR KEY SHARE on it as concurrent callers do; FOR UPDATE made
    // each wait for the others' share locks: deadlock (issue #20).
    const row: ParticipantRow | undefined = await trx('participants').where({ id: participantId, program_id: programId }).forNoKeyUpdate().first();
    if (!row) return null;
    const ledger = new ScoreLedger(programId);
    const patch: Record<string, number> = { updated_at: this.clock.now() };
    for (const [column, delta] of Object.entries(deltas) as Array<[keyof CounterDeltas, number]>) {
      if (!delta) continue;
      const before = Number(row[column]);
      const after = Math.max(0, before + delta);
      patch[column] = after;
      const board = COUNTER_BOARDS[column];
      if (board) ledger.move(board, before, after);
    }
    await trx('participants').where({ id: participantId }).update(patch);
    await ledger.flush(trx);
    return { ...row, ...patch } as ParticipantRow;
  }

  /** P6: deletes one participant permanently. */
  async remove(program: Program, idOrEmail: string): Promise<{ success: true }> {
    await this.db.knex.transaction(async (trx) => {
      const row = await this.resolve(trx, program, idOrEmail, { lock: 'key' });
      const ledger = new ScoreLedger(program.id);
      await this.deleteRow(trx, program, ledger, row.id, this.clock.now());
      await ledger.flush(trx);
    });
    return { success: true };
  }

  /** P7: deletes up to 200 participants named by id or email, one result per identifier, in request order. */
  async bulkRemove(program: Program, identifiers: string[]): Promise<BulkDeleteResponse> {
    const results: BulkDeleteResponse['results'] = [];
    await this.db.knex.transaction(async (trx) => {
      // A PostgreSQL deadlock runs this whole callback again (server/db/retry.ts): start afresh.
      results.length = 0;
      const now = this.clock.now();
      const seen = new Map<string, number>();
      const ledger = new ScoreLedger(program.id);
      // Resolve every identifier first, so a later duplicate of a deleted row reads DUPLICATE, not NOT_FOUND.
      const resolved: Array<ParticipantRow | null> = [];
      for (const identifier of identifiers) resolved.push(await findParticipant(trx, program.id, identifier));
      for (const [index, identifier] of identifiers.entries()) {
        const row = resolved[index];
        if (!row) {
          results.push({ index, identifier, status: 'NOT_FOUND', message: 'No participant with this id or email in this program.' });
          continue;
        }
        const first = seen.get(row.id);
        if (first !== undefined) {
          results.push({ index, identifier, status: 'DUPLICATE', participantId: row.id, message: `Same participant as index ${first}.` });
          continue;
        }
        seen.set(row.id, index);
        const mark = ledger.mark();
        try {
          // A savepoint per row: one failure is reported on its row and the others still commit.
          await trx.transaction((sp) => this.deleteRow(sp, program, ledger, row.id, now));
          results.push({ index, identifier, status: 'DELETED', participantId: row.id, email: row.email });
        } catch (err) {
          // A deadlock or serialization failure is the whole transaction's to retry, not this row's error.
          if (isRetryableTxError(err)) throw err;
          ledger.rewind(mark);
          this.log.error('participant bulk delete row failed', { programId: program.id, participantId: row.id, err: String((err as Error)?.message ?? err) });
          results.push({ index, identifier, status: 'ERROR', participantId: row.id, message: 'This participant could not be deleted; try again.' });
        }
      }
      await ledger.flush(trx);
    });
    const count = (s: string) => results.filter((r) => r.status === s).length;
    return {
      summary: { total: results.length, deletedCount: count('DELETED'), notFoundCount: count('NOT_FOUND'), duplicateCount: count('DUPLICATE'), errorCount: count('ERROR') },
      results,
    };
  }

  /**
   * Deletes one participant: scores off the histograms, their own referral taken back from the
   * referrer, the people they referred kept but unlinked, dependent rows removed by `hooks.deleting`
   * and by cascade (vanity keys, metadata index), program counters adjusted.
   */
  private async deleteRow(trx: Knex.Transaction, program: Program, ledger: ScoreLedger, id: string, now: number): Promise<void> {
    const row: ParticipantRow | undefined = await trx('participants').where({ id, program_id: program.id }).forUpdate().first();
    if (!row) return;
    removeScores(ledger, row, now);
    for (const hook of this.hooks.deleting) await hook(trx, program, [row.id], ledger);
    await trx('participants').where({ referred_by: row.id }).update({ referred_by: null, referral_status: null, referred_at: null, credited_at: null, updated_at: now });
    await trx('participants').where({ id: row.id }).del();
    if (row.referred_by) {
      await updateReferrer(trx, ledger, row.referred_by, { from: row.referral_status, to: null, creditedAt: row.credited_at, detach: row.id }, now);
    }
    // The referrals they made leave with them (the people they referred stay, unlinked).
    ledger.count(-1, -Number(row.referral_count));
  }

  /**
   * 402 when the plan's participant limit is reached (BILLING=on). Checked before adding (`pending`
   * 0) for a fast answer, and again after the counter moved (`pending` 1) so two concurrent adds
   * cannot both take the last place.
   */
  private async assertCapacity(trx: Knex.Transaction, programId: string, billing: TeamBilling, now: number, pending: 0 | 1): Promise<void> {
    if (!this.config.billing) return;
    const p = await trx('programs').where({ id: programId }).first('participant_count');
    assertParticipantCapacity(this.config.billing, billing, Number(p?.participant_count ?? 0) - pending, now);
  }

  /**
   * Runs the screening hooks: the first blocking verdict is a 422 (the transaction rolls back, so
   * nothing is written); otherwise their columns merge in order and any of them may hold the credit.
   */
  private async screen(
    trx: Knex.Transaction,
    program: Program,
    candidate: ScreeningCandidate,
    referrer: ParticipantRow | null,
  ): Promise<{ holdCredit: boolean; columns: Record<string, unknown>; afterWrite: Array<ScreeningDecision['afterWrite']> }> {
    const out = { holdCredit: false, columns: {} as Record<string, unknown>, afterWrite: [] as Array<ScreeningDecision['afterWrite']> };
    for (const hook of this.hooks.screening) {
      const d = await hook(trx, program, candidate, referrer);
      if (!d) continue;
      if (d.block) throw new ParticipantBlockedError(`This participant was blocked as a high-risk fraud signup (${d.reasonCode}).`);
      out.holdCredit ||= d.holdCredit;
      Object.assign(out.columns, d.columns);
      out.afterWrite.push((t, p, r) => d.afterWrite(t, p, r));
    }
    return out;
  }

  /** The row a `nextId` names; 400 when it is not a participant of the program. */
  private async cursorRow(program: Program, nextId: string): Promise<ParticipantRow> {
    const row = await this.db.knex('participants').where({ id: nextId, program_id: program.id }).first();
    if (!row) throw fieldError('query.nextId', 'nextId must be a participant id from the previous page.');
    return row;
  }
}
