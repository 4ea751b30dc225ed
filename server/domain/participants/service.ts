import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import type { Program } from '../programs/programs.ts';
import { selectRows, updateRows } from '../../db/rows.ts';
import { ConflictError, ValidationError, WrongProgramTypeError } from '../../errors.ts';
import type { TeamBilling } from '../platform/plans.ts';
import { boardSpec, type ScoredRow } from './boards.ts';
import { Leaderboard, readRows } from './leaderboard.ts';
import { ScoreLedger } from './score-ledger.ts';
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
  parseJson,
  programLanguages,
  valueHash,
  type EventSink,
  type ParticipantHooks,
  type ParticipantRow,
  type ScreeningCandidate,
  type Q,
} from './model.ts';
import { findParticipant, findReferrer, updateReferrer, type Credit, type ParticipantLock } from './referrals.ts';
import { serializeParticipants, type EventParticipant, type SerializeOptions } from './serialize.ts';
import { replaceVanityKeys, writeMetadata } from './keys.ts';
import { addParticipant, screenSignUp, type AddOptions } from './sign-ups.ts';
import { bulkRemoveParticipants, removeParticipant } from './deletion.ts';
import { listPageRows } from './participant-list.ts';

/** Counters other engines add to, and the board each one ranks (invites rank nowhere). */
export type CounterDeltas = Partial<Record<'impression_count' | 'unique_impression_count' | 'invite_count' | 'commission_total' | 'revenue_total', number>>;
const COUNTER_BOARDS: Record<keyof CounterDeltas, string | null> = {
  impression_count: 'TOTAL_IMPRESSION_COUNT',
  unique_impression_count: 'UNIQUE_IMPRESSION_COUNT',
  invite_count: null,
  commission_total: 'BY_COMMISSIONS',
  revenue_total: 'BY_REVENUE',
};

/** The service's collaborators and its serializer and resolver, as sign-ups.ts and deletion.ts take them. */
export interface ParticipantsContext {
  db: Db;
  clock: Clock;
  config: Config;
  log: Logger;
  events: EventSink | null;
  hooks: ParticipantHooks;
  serialize: Participants['serialize'];
  resolve: Participants['resolve'];
}

/**
 * P4's read: the participant's whole row and, under `r__` names, the columns of its referrer that the
 * serializer's referrer summary reads (`referrerOf` and the ranks in serialize.ts). The referrer is
 * joined by primary key only, like the serializer's own referrer read.
 */
const REFERRER_COLUMNS = [
  'id', 'program_id', 'created_at', 'email', 'first_name', 'last_name', 'fingerprint', 'ip_address', 'fraud_reason_code', 'fraud_risk_level',
  'is_winner', 'metadata', 'referral_count', 'month_key', 'monthly_referral_count', 'prev_monthly_referral_count', 'impression_count',
  'unique_impression_count', 'invite_count', 'lead_count', 'recent_referrals', 'recent_referrals_at', 'referral_source', 'referred_by',
  'referral_status', 'share_count', 'share_key', 'unsubscribed',
];
const WITH_REFERRER_SQL = `SELECT p.*, ${REFERRER_COLUMNS.map((c) => `r.${c} AS r__${c}`).join(', ')} FROM participants p LEFT JOIN participants r ON r.id = p.referred_by`;

/**
 * Participants (rest-v2 §3.8 P1–P7): add, read, update, delete, list and leaderboards. Every change
 * that touches more than one row (referrer counters, histograms, program counters, vanity keys,
 * metadata index) runs in one transaction.
 */
export class Participants {
  /** Lifecycle hooks other engines fill (rewards, fraud, invites). */
  readonly hooks: ParticipantHooks = { created: [], referralCredited: [], referralChanged: [], deleting: [], rewardsOf: null, screening: [], fraudOverride: null, fraudMatchesOf: null, requiredActionsOf: null, activityBatch: null };
  /** Score histograms and ordered boards. */
  readonly leaderboard: Leaderboard;
  /** What the adding (sign-ups.ts) and deleting (deletion.ts) paths use of this service. */
  private readonly ctx: ParticipantsContext;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    log: Logger,
    events: EventSink | null,
  ) {
    this.leaderboard = new Leaderboard(db);
    this.ctx = {
      db,
      clock,
      config,
      log,
      events,
      hooks: this.hooks,
      serialize: (q, program, rows, opts) => this.serialize(q, program, rows, opts),
      resolve: (q, program, idOrEmail, opts) => this.resolve(q, program, idOrEmail, opts),
    };
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
    const row = q === this.db.knex && !opts.lock ? await this.#find(program.id, idOrEmail) : await findParticipant(q, program.id, idOrEmail, opts.lock);
    if (!row) {
      throw new ValidationError(`No participant with ${idOrEmail.includes('@') ? 'email' : 'id'} ${JSON.stringify(idOrEmail.slice(0, 254))} in program ${program.id}.`, [
        { field: 'participantIdOrEmail', code: 'PARTICIPANT_NOT_FOUND', message: 'No participant with this id or email in this program.' },
      ]);
    }
    return row;
  }

  /** `findParticipant` outside a transaction, as a cached prepared statement (the reads of P4 and the participant API). */
  async #find(programId: string, idOrEmail: string): Promise<ParticipantRow | null> {
    if (!idOrEmail || idOrEmail.length > 254) return null;
    const [row] = idOrEmail.includes('@')
      ? await selectRows<ParticipantRow>(this.db, this.db.knex, 'SELECT * FROM participants WHERE program_id = ? AND email_key = ? LIMIT 1', [programId, emailKey(idOrEmail)])
      : await selectRows<ParticipantRow>(this.db, this.db.knex, 'SELECT * FROM participants WHERE id = ? AND program_id = ? LIMIT 1', [idOrEmail, programId]);
    return row ?? null;
  }

  /**
   * P4: one participant. The participant and its referrer come from one cached statement (the
   * referrer's columns are those its wire summary shows); an unknown participant goes through
   * `resolve` for its 400.
   */
  async get(program: Program, idOrEmail: string): Promise<Participant> {
    const found = idOrEmail && idOrEmail.length <= 254 ? await this.#findWithReferrer(program.id, idOrEmail) : null;
    if (!found) {
      const row = await this.resolve(this.db.knex, program, idOrEmail);
      return (await this.serialize(this.db.knex, program, [row]))[0]!;
    }
    const known = found.referrer ? new Map([[found.referrer.id, found.referrer]]) : undefined;
    return (await this.serialize(this.db.knex, program, [found.row], { known }))[0]!;
  }

  /** A participant (`SELECT *`) and, when it has one in the program, its referrer's summary columns, in one statement. */
  async #findWithReferrer(programId: string, idOrEmail: string): Promise<{ row: ParticipantRow; referrer: ParticipantRow | null } | null> {
    const [joined] = idOrEmail.includes('@')
      ? await selectRows<Record<string, unknown>>(this.db, this.db.knex, `${WITH_REFERRER_SQL} WHERE p.program_id = ? AND p.email_key = ? LIMIT 1`, [programId, emailKey(idOrEmail)])
      : await selectRows<Record<string, unknown>>(this.db, this.db.knex, `${WITH_REFERRER_SQL} WHERE p.id = ? AND p.program_id = ? LIMIT 1`, [idOrEmail, programId]);
    if (!joined) return null;
    const row: Record<string, unknown> = {};
    const ref: Record<string, unknown> = {};
    for (const k in joined) {
      if (k.startsWith('r__')) ref[k.slice(3)] = joined[k];
      else row[k] = joined[k];
    }
    // A referrer in another program is no referrer to show (as the serializer's own read decides).
    const referrer = ref.id != null && ref.program_id === programId ? (ref as unknown as ParticipantRow) : null;
    return { row: row as unknown as ParticipantRow, referrer };
  }

  /** P1: newest first, with up to three exact metadata filters; `nextId` is the last id of the page. The refloop extensions search, filter and sort. */
  async list(program: Program, query: ParticipantListQuery): Promise<ParticipantList> {
    const knex = this.db.knex;
    const after = query.nextId ? await this.cursorRow(program, query.nextId) : null;
    if (query.extensions) {
      // refloop extensions (search, filters, sort): participant-list.ts; without them, GrowSurf's P1 below.
      const rows = await listPageRows(this.db, { programId: program.id, limit: query.limit, metadata: query.metadata, extensions: query.extensions, after });
      const page = rows.slice(0, query.limit);
      return { participants: await this.serialize(knex, program, page), limit: query.limit, nextId: rows.length > query.limit ? page[page.length - 1]!.id : null };
    }
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
    assertBoardFor(program, query.leaderboardType);
    const knex = this.db.knex;
    const after = query.nextId ? await this.cursorRow(program, query.nextId) : null;
    const now = this.clock.now();
    const page = await this.leaderboard.page(knex, program.id, query.leaderboardType, now, query.limit, after);
    const boardRanks = await this.leaderboard.pageRanks(knex, program.id, boardSpec(query.leaderboardType, now).histogram, page.scores, after !== null);
    return { participants: await this.serialize(knex, program, page.rows, { boardRanks }), limit: query.limit, nextId: page.nextId };
  }

  /**
   * A leaderboard page as others see it (the participant API's ML1 and the window's board): P2's
   * order, ranks and cursor, with only the columns a board row shows (name, email, score) read, no
   * participant serialized.
   */
  async leaderboardEntries(program: Program, query: LeaderboardQuery): Promise<{ rows: BoardEntry[]; nextId: string | null }> {
    assertBoardFor(program, query.leaderboardType);
    const knex = this.db.knex;
    const after = query.nextId ? await this.cursorRow(program, query.nextId) : null;
    const now = this.clock.now();
    const spec = boardSpec(query.leaderboardType, now);
    const scored = spec.segments.flatMap((s) => (s.month !== undefined ? [s.column, 'month_key'] : [s.column]));
    const columns = [...new Set(['id', 'created_at', 'email', 'first_name', 'last_name', ...scored])];
    const page = await this.leaderboard.page<ScoredRow & BoardEntryRow>(knex, program.id, query.leaderboardType, now, query.limit, after, columns);
    const ranks = await this.leaderboard.pageRanks(knex, program.id, spec.histogram, page.scores, after !== null);
    const rows = page.rows.map((r, i) => ({ id: r.id, email: r.email, firstName: r.first_name, lastName: r.last_name, score: page.scores[i]!, rank: ranks[i]! }));
    return { rows, nextId: page.nextId };
  }

  /**
   * P3: adds a participant, or returns the one with this email unchanged (`isNew: false`). Enrollment
   * engines pass `source` (how a new affiliate enrolled) and `trx` to join their own transaction.
   */
  create(program: Program, billing: TeamBilling, input: ParticipantCreate, opts: AddOptions = {}): Promise<Participant> {
    return addParticipant(this.ctx, program, billing, input, opts);
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
      const screen = moved ? await screenSignUp(this.hooks, trx, program, candidate, newReferrer) : { holdCredit: false, columns: {}, afterWrite: [] };
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
  remove(program: Program, idOrEmail: string): Promise<{ success: true }> {
    return removeParticipant(this.ctx, program, idOrEmail);
  }

  /** P7: deletes up to 200 participants named by id or email, one result per identifier, in request order. */
  bulkRemove(program: Program, identifiers: string[]): Promise<BulkDeleteResponse> {
    return bulkRemoveParticipants(this.ctx, program, identifiers);
  }

  /** The row a `nextId` names; 400 when it is not a participant of the program. */
  private async cursorRow(program: Program, nextId: string): Promise<ParticipantRow> {
    const [row] = await selectRows<ParticipantRow>(this.db, this.db.knex, 'SELECT * FROM participants WHERE id = ? AND program_id = ? LIMIT 1', [nextId, program.id]);
    if (!row) throw fieldError('query.nextId', 'nextId must be a participant id from the previous page.');
    return row;
  }
}

/** One row of `leaderboardEntries`: who (id, email, names), their score on the board and their rank there. */
export interface BoardEntry {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  score: number;
  rank: number;
}

/** The columns `leaderboardEntries` reads besides the board's own. */
interface BoardEntryRow {
  email: string;
  first_name: string | null;
  last_name: string | null;
}

/** BY_COMMISSIONS and BY_REVENUE rank affiliate money: 422 on a referral program. */
function assertBoardFor(program: Program, type: LeaderboardQuery['leaderboardType']): void {
  if ((type === 'BY_COMMISSIONS' || type === 'BY_REVENUE') && program.type !== 'AFFILIATE') {
    throw new WrongProgramTypeError(`Leaderboard ${type} is only for affiliate programs.`);
  }
}
