import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import type { Program } from '../programs/programs.ts';
import { selectRows } from '../../db/rows.ts';
import { ValidationError, WrongProgramTypeError } from '../../errors.ts';
import type { TeamBilling } from '../platform/plans.ts';
import { boardSpec, type ScoredRow } from './boards.ts';
import { Leaderboard, readRows } from './leaderboard.ts';
import type { BulkDeleteResponse, Participant, ParticipantCreate, ParticipantUpdate } from '../../../shared/schemas/participant.ts';
import type { LeaderboardQuery, ParticipantList, ParticipantListQuery } from '../../../shared/schemas/participant-list.ts';
import { emailKey, fieldError, valueHash, type EventSink, type ParticipantHooks, type ParticipantRow, type Q } from './model.ts';
import { findParticipant, type Credit, type ParticipantLock } from './referrals.ts';
import { serializeParticipants, type EventParticipant, type SerializeOptions } from './serialize.ts';
import { addParticipant, type AddOptions } from './sign-ups.ts';
import { adjustCounters, setReferralStatus, updateParticipant, type CounterDeltas } from './updates.ts';
import { bulkRemoveParticipants, removeParticipant } from './deletion.ts';
import { listPageRows } from './participant-list.ts';

/** The service's collaborators and its serializer and resolver, as sign-ups.ts, updates.ts and deletion.ts take them. */
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
  /** What the adding (sign-ups.ts), changing (updates.ts) and deleting (deletion.ts) paths use of this service. */
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
  update(program: Program, idOrEmail: string, patch: ParticipantUpdate, opts: { actor?: string | null } = {}): Promise<Participant> {
    return updateParticipant(this.ctx, program, idOrEmail, patch, opts);
  }

  /**
   * Moves one referral to `to` inside the caller's transaction, as P5 does for a status change: the
   * referrer's counts, the ranks and the program counter stay exact, `referralChanged` runs, and a
   * new CREDIT_AWARDED runs `referralCredited` (rewards). For the engines that change credit on their
   * own (trigger referral, credit windows). False when the participant has no referrer or is
   * already in that state (nothing changed). `locked` is the row when the caller already read it
   * under lock in this transaction (saves reading it again).
   */
  setReferralStatus(trx: Knex.Transaction, program: Program, participantId: string, to: Exclude<Credit, null>, locked?: ParticipantRow): Promise<boolean> {
    return setReferralStatus(this.ctx, trx, program, participantId, to, locked);
  }

  /**
   * Adds to a participant's counters (visits, invites, affiliate money) inside the caller's
   * transaction and moves their board scores with them; for the engines that own those events.
   */
  adjustCounters(trx: Knex.Transaction, programId: string, participantId: string, deltas: CounterDeltas, locked?: ParticipantRow): Promise<ParticipantRow | null> {
    return adjustCounters(this.ctx, trx, programId, participantId, deltas, locked);
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
