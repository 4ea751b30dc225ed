import type { Knex } from 'knex';
import { GroupCache, statementsOf, type Db } from '../db/connect.ts';
import type { LeaderboardType } from '../../shared/schemas/participant.ts';

// Leaderboards and ranks without counting participants.
//
// `leaderboard_scores` is a histogram per (program, board): how many participants hold each positive
// score. A participant's rank is 1 + the number of participants with a strictly higher score
// (competition ranking: ties share a rank, the next rank skips), i.e. one SUM over the buckets above.
// Zero scores are never stored: nobody's rank depends on how many others have zero.
//
// Monthly counts live on the participant row with the month they belong to (`month_key`, UTC); a
// stale month reads as zero and the row rolls over on its next write, so nothing runs at month end.
// Each calendar month has its own histogram board (`M2026-01`): CURRENT_MONTH reads this month's,
// PREV_MONTH last month's, and a rollover moves no bucket because the month's scores do not change.

/** A leaderboard type after aliases (BY_REFERRALS is the all-time referral board). */
export type BoardType = Exclude<LeaderboardType, 'BY_REFERRALS'>;

/** The subset of a participants row the boards read. */
export interface ScoredRow {
  id: string;
  created_at: number;
  referral_count: number;
  month_key: number;
  monthly_referral_count: number;
  prev_monthly_referral_count: number;
  lead_count: number;
  impression_count: number;
  unique_impression_count: number;
  commission_total: number;
  revenue_total: number;
}

/** A board's rows with a positive score: one column, optionally pinned to one `month_key`. */
interface Segment {
  column: keyof ScoredRow & string;
  month?: number;
}

/** How one board is stored and read at a given moment. */
export interface BoardSpec {
  /** Histogram board name in `leaderboard_scores`. */
  histogram: string;
  /** Where its positive scores are; several segments are merged (PREV_MONTH). */
  segments: Segment[];
  scoreOf(row: ScoredRow): number;
}

// Plain counter boards: histogram name → participants column.
const COLUMN_BOARDS: Record<Exclude<BoardType, 'CURRENT_MONTH' | 'PREV_MONTH'>, keyof ScoredRow & string> = {
  ALL_TIME: 'referral_count',
  TOTAL_IMPRESSION_COUNT: 'impression_count',
  UNIQUE_IMPRESSION_COUNT: 'unique_impression_count',
  BY_LEADS: 'lead_count',
  BY_COMMISSIONS: 'commission_total',
  BY_REVENUE: 'revenue_total',
};

/** Histogram boards kept for every participant regardless of month (all but the month boards). */
export const COLUMN_BOARD_NAMES = Object.keys(COLUMN_BOARDS) as Array<keyof typeof COLUMN_BOARDS>;

/** The UTC month of an instant as one integer (year * 12 + month index), so the previous month is key - 1. */
export function monthKey(ms: number): number {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/** Histogram board name of a month key, e.g. `M2026-01`. */
export function monthBoard(key: number): string {
  return `M${Math.floor(key / 12)}-${String((key % 12) + 1).padStart(2, '0')}`;
}

/** A row's referral count for month `key`: its monthly count, its previous-month count, or 0 when stale. */
export function monthScore(row: Pick<ScoredRow, 'month_key' | 'monthly_referral_count' | 'prev_monthly_referral_count'>, key: number): number {
  if (Number(row.month_key) === key) return Number(row.monthly_referral_count);
  if (Number(row.month_key) === key + 1) return Number(row.prev_monthly_referral_count);
  return 0;
}

/** The storage and scoring of `type` at instant `now`. */
export function boardSpec(type: LeaderboardType, now: number): BoardSpec {
  const cur = monthKey(now);
  if (type === 'CURRENT_MONTH') {
    return { histogram: monthBoard(cur), segments: [{ column: 'monthly_referral_count', month: cur }], scoreOf: (r) => monthScore(r, cur) };
  }
  if (type === 'PREV_MONTH') {
    return {
      histogram: monthBoard(cur - 1),
      segments: [
        { column: 'prev_monthly_referral_count', month: cur },
        { column: 'monthly_referral_count', month: cur - 1 },
      ],
      scoreOf: (r) => monthScore(r, cur - 1),
    };
  }
  const board = type === 'BY_REFERRALS' ? 'ALL_TIME' : type;
  const column = COLUMN_BOARDS[board];
  return { histogram: board, segments: [{ column }], scoreOf: (r) => Number(r[column]) };
}

/** One page of a leaderboard: rows best first, their board scores, and the cursor of the next page. */
export interface LeaderboardPage<R> {
  rows: R[];
  scores: number[];
  nextId: string | null;
}

/** Key of a (board, score) pair in the maps `higherCounts` returns. */
export function rankKey(board: string, score: number): string {
  return `${board}|${score}`;
}

/**
 * Runs a built read query. Outside a transaction on SQLite it goes through a cached prepared
 * statement (`db.all`), several times cheaper than knex's own execution on leaderboard pages.
 */
export async function readRows<T>(db: Db, q: Knex | Knex.Transaction, builder: Knex.QueryBuilder): Promise<T[]> {
  if (q === db.knex && db.dialect === 'sqlite') {
    const { sql, bindings } = builder.toSQL().toNative();
    return db.all<T>(sql, ...bindings);
  }
  return (await builder) as T[];
}

const HIGHER_SQL = 'SELECT COALESCE(SUM(n), 0) AS h FROM leaderboard_scores WHERE program_id = ? AND board = ? AND score > ?';

// The score ledger's writes (what knex built before, as fixed text).
const BUCKET_DOWN_SQL = 'UPDATE "leaderboard_scores" SET "n" = n + ? WHERE "program_id" = ? AND "board" = ? AND "score" = ?';
const BUCKET_UP_SQL =
  'INSERT INTO "leaderboard_scores" ("program_id", "board", "score", "n") VALUES (?, ?, ?, ?) ON CONFLICT ("program_id", "board", "score") DO UPDATE SET "n" = "leaderboard_scores"."n" + ?';
/** `BUCKET_UP_SQL` for `count` buckets at once (SQLite). */
function bucketsUpSql(count: number): string {
  return `INSERT INTO "leaderboard_scores" ("program_id", "board", "score", "n") VALUES ${Array(count).fill('(?, ?, ?, ?)').join(', ')} ON CONFLICT ("program_id", "board", "score") DO UPDATE SET "n" = "leaderboard_scores"."n" + excluded."n"`;
}
const PROGRAM_COUNTS_SQL = 'UPDATE "programs" SET "participant_count" = participant_count + ?, "referral_count" = referral_count + ? WHERE "id" = ?';
const PROGRAM_COUNTS_WINNERS_SQL =
  'UPDATE "programs" SET "participant_count" = participant_count + ?, "referral_count" = referral_count + ?, "winner_count" = winner_count + ? WHERE "id" = ?';

/**
 * Whole board histograms (score → participants) read inside a group-commit transaction, keyed
 * `program|board`: the callers of one group (up to 64 referral triggers) rank on the same few
 * boards, so each is read once per group and `ScoreLedger.flush` applies its moves to the copy.
 */
const groupBoards = new GroupCache<Map<number, number>>();
const BOARD_SQL = 'SELECT score, n FROM leaderboard_scores WHERE program_id = ? AND board = ?';

/** Most scores one `higherCounts` part sums above (its columns n0…n3). */
const SCORES_PER_PART = 4;
/**
 * One scan of a board's buckets above the lowest of `count` asked scores (ascending): n0 sums them
 * all (the lowest), n1… the buckets above each higher score; unused columns are constant 0 (every
 * CASE costs per bucket scanned).
 */
const HIGHER_PART_SQL = Array.from(
  { length: SCORES_PER_PART + 1 },
  (_, count) =>
    'SELECT CAST(? AS INTEGER) AS b, 0 AS r, COALESCE(SUM(n), 0) AS n0, ' +
    Array.from({ length: SCORES_PER_PART - 1 }, (_, i) => (i + 1 < count ? `COALESCE(SUM(CASE WHEN score > ? THEN n END), 0) AS n${i + 1}` : `0 AS n${i + 1}`)).join(', ') +
    ' FROM leaderboard_scores WHERE program_id = ? AND board = ? AND score > ?',
);
// A board asked about many scores returns its buckets above the lowest (n0 = score, n1 = participants).
const BUCKETS_PART_SQL =
  'SELECT CAST(? AS INTEGER) AS b, 1 AS r, score AS n0, n AS n1, ' +
  Array.from({ length: SCORES_PER_PART - 2 }, (_, i) => `0 AS n${i + 2}`).join(', ') +
  ' FROM leaderboard_scores WHERE program_id = ? AND board = ? AND score > ?';

/**
 * Score moves and program counter changes of one transaction, applied together at its end by
 * `flush`: buckets in (board, score) order, then the program row. Every writer locks participant
 * rows first and these shared rows last, in one order, so concurrent writers on PostgreSQL cannot
 * deadlock on them; opposite moves in one transaction cancel out before any statement runs.
 */
export class ScoreLedger {
  readonly #moves: Array<[board: string, score: number, delta: number]> = [];
  readonly #program = { participants: 0, referrals: 0, winners: 0 };

  constructor(readonly programId: string) {}

  /** One participant's score on `board` goes from `from` to `to` (only positive scores have buckets). */
  move(board: string, from: number, to: number): void {
    if (from === to) return;
    if (from > 0) this.#moves.push([board, from, -1]);
    if (to > 0) this.#moves.push([board, to, 1]);
  }

  /**
   * Participants this transaction moved above `score` on `board` that `flush` has not written yet:
   * what a rank read inside the transaction adds to the stored counts (webhook payloads are built
   * before the flush).
   */
  pendingAbove(board: string, score: number): number {
    let n = 0;
    for (const [b, s, delta] of this.#moves) if (s > score && b === board) n += delta;
    return n;
  }

  /** Program counter changes `flush` has not written yet (added to a webhook payload's `campaign`). */
  pendingCounts(): { participants: number; referrals: number; winners: number } {
    return { ...this.#program };
  }

  /** Changes the program's participant and (credited) referral counters. */
  count(participants: number, referrals: number): void {
    this.#program.participants += participants;
    this.#program.referrals += referrals;
  }

  /** Changes the program's winner counter (participants with an approved reward; the rewards engine). */
  winners(delta: number): void {
    this.#program.winners += delta;
  }

  /** A mark to `rewind` to when the work since then was rolled back (a failed bulk-delete row). */
  mark(): { moves: number; participants: number; referrals: number; winners: number } {
    return { moves: this.#moves.length, ...this.#program };
  }

  /** Forgets everything recorded after `mark`. */
  rewind(mark: { moves: number; participants: number; referrals: number; winners: number }): void {
    this.#moves.length = mark.moves;
    this.#program.participants = mark.participants;
    this.#program.referrals = mark.referrals;
    this.#program.winners = mark.winners;
  }

  /** Applies the net changes inside `trx`. */
  async flush(trx: Knex.Transaction): Promise<void> {
    const net = new Map<string, [string, number, number]>();
    for (const [board, score, delta] of this.#moves) {
      const key = rankKey(board, score);
      const cur = net.get(key);
      if (cur) cur[2] += delta;
      else net.set(key, [board, score, delta]);
    }
    this.#moves.length = 0;
    const ordered = [...net.values()].filter(([, , d]) => d !== 0).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    const { participants, referrals, winners } = this.#program;
    this.#program.participants = 0;
    this.#program.referrals = 0;
    this.#program.winners = 0;
    if (!ordered.length && !participants && !referrals && !winners) return;
    // Fixed statements, prepared once per connection: every credit runs several of these.
    const st = await statementsOf(trx);
    if ((trx.client as { dialect: string }).dialect === 'postgresql') {
      for (const [board, score, delta] of ordered) {
        if (delta < 0) await st.run(BUCKET_DOWN_SQL, [delta, this.programId, board, score]);
        else await st.run(BUCKET_UP_SQL, [this.programId, board, score, delta, delta]);
      }
    } else {
      // One writer at a time on SQLite, so no lock order to keep: the additions go in one statement.
      for (const [board, score, delta] of ordered) if (delta < 0) await st.run(BUCKET_DOWN_SQL, [delta, this.programId, board, score]);
      const ups = ordered.filter(([, , delta]) => delta > 0);
      if (ups.length) await st.run(bucketsUpSql(ups.length), ups.flatMap(([board, score, delta]) => [this.programId, board, score, delta]));
    }
    const cached = groupBoards.peek(trx);
    if (cached) {
      for (const [board, score, delta] of ordered) {
        const histogram = cached.get(`${this.programId}|${board}`);
        // As the statements did: a decrease only changes an existing bucket, an increase creates one.
        if (histogram && (delta > 0 || histogram.has(score))) histogram.set(score, (histogram.get(score) ?? 0) + delta);
      }
    }
    if (participants || referrals || winners) {
      await st.run(winners ? PROGRAM_COUNTS_WINNERS_SQL : PROGRAM_COUNTS_SQL, winners ? [participants, referrals, winners, this.programId] : [participants, referrals, this.programId]);
    }
  }
}

/** Reads and maintains the score histograms, and lists boards in order. */
export class Leaderboard {
  constructor(private readonly db: Db) {}

  /**
   * Runs fixed-shape SQL as a cached prepared statement: inside a transaction on its connection (both
   * databases), outside one on SQLite; knex.raw on PostgreSQL outside transactions.
   */
  private async all<T>(q: Knex | Knex.Transaction, sql: string, bindings: unknown[]): Promise<T[]> {
    if ((q as Knex.Transaction).isTransaction === true) return (await this.db.statements(q as Knex.Transaction)).all<T>(sql, bindings);
    if (q === this.db.knex && this.db.dialect === 'sqlite') return this.db.all<T>(sql, ...bindings);
    const res = await q.raw(sql, bindings as Knex.RawBinding[]);
    return this.db.dialect === 'pg' ? res.rows : res;
  }

  /** How many participants score strictly higher than `score` on `board`: the rank is this + 1. */
  async higherThan(q: Knex | Knex.Transaction, programId: string, board: string, score: number): Promise<number> {
    // Outside a transaction on SQLite, a cached prepared statement skips knex's query builder.
    if (q === this.db.knex && this.db.dialect === 'sqlite') {
      return Number((await this.db.get<{ h: number }>(HIGHER_SQL, programId, board, score))?.h ?? 0);
    }
    const res = await q.raw(HIGHER_SQL, [programId, board, score]);
    const row = this.db.dialect === 'pg' ? res.rows[0] : res[0];
    return Number(row?.h ?? 0);
  }

  /**
   * `higherThan` for many (board, score) pairs, keyed by `rankKey`, in one round trip per 100 boards.
   * A board asked about a few scores is one scan above the lowest of them, summing the buckets above
   * each; a board asked about many (a page of mixed scores) returns its buckets above the lowest
   * score once, summed here. Meant for the referral boards, whose distinct scores are few.
   */
  async higherCounts(q: Knex | Knex.Transaction, programId: string, pairs: Array<[board: string, score: number]>): Promise<Map<string, number>> {
    const cache = (q as Knex.Transaction).isTransaction === true ? groupBoards.of(q) : null;
    if (cache) return this.#higherFromCache(q as Knex.Transaction, cache, programId, pairs);
    const byBoard = new Map<string, Set<number>>();
    for (const [b, s] of pairs) {
      let set = byBoard.get(b);
      if (!set) byBoard.set(b, (set = new Set()));
      set.add(s);
    }
    const boards = [...byBoard.keys()];
    const parts: Array<{ sql: string; bindings: unknown[] }> = [];
    const ascending = new Map<string, number[]>();
    for (const [bi, board] of boards.entries()) {
      const scores = [...byBoard.get(board)!].sort((a, b) => a - b);
      ascending.set(board, scores);
      const lowest = scores[0]!;
      if (scores.length <= SCORES_PER_PART) {
        parts.push({ sql: HIGHER_PART_SQL[scores.length]!, bindings: [bi, ...scores.slice(1), programId, board, lowest] });
      } else {
        parts.push({ sql: BUCKETS_PART_SQL, bindings: [bi, programId, board, lowest] });
      }
    }
    const out = new Map<string, number>();
    const buckets = new Map<string, Array<[score: number, n: number]>>();
    for (let i = 0; i < parts.length; i += 100) {
      const chunk = parts.slice(i, i + 100);
      const rows = await this.all<{ b: number; r: number; n0: number; n1: number; n2: number; n3: number }>(q, chunk.map((p) => p.sql).join(' UNION ALL '), chunk.flatMap((p) => p.bindings));
      for (const row of rows) {
        const board = boards[Number(row.b)]!;
        if (Number(row.r) === 0) {
          const sums = [row.n0, row.n1, row.n2, row.n3];
          ascending.get(board)!.forEach((score, k) => out.set(rankKey(board, score), Number(sums[k])));
        } else {
          let list = buckets.get(board);
          if (!list) buckets.set(board, (list = []));
          list.push([Number(row.n0), Number(row.n1)]);
        }
      }
    }
    for (const board of boards) {
      if (byBoard.get(board)!.size <= SCORES_PER_PART) continue;
      const list = (buckets.get(board) ?? []).sort((a, b) => b[0] - a[0]);
      const scores = [...byBoard.get(board)!].sort((a, b) => b - a);
      let running = 0;
      let k = 0;
      for (const score of scores) {
        while (k < list.length && list[k]![0] > score) running += list[k++]![1];
        out.set(rankKey(board, score), running);
      }
    }
    return out;
  }

  /** `higherCounts` from the group transaction's board copies (each board read once per group). */
  async #higherFromCache(trx: Knex.Transaction, cache: Map<string, Map<number, number>>, programId: string, pairs: Array<[board: string, score: number]>): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const [board, score] of pairs) {
      const key = rankKey(board, score);
      if (out.has(key)) continue;
      const boardKey = `${programId}|${board}`;
      let histogram = cache.get(boardKey);
      if (!histogram) {
        const rows = await this.all<{ score: number; n: number }>(trx, BOARD_SQL, [programId, board]);
        cache.set(boardKey, (histogram = new Map(rows.map((r) => [Number(r.score), Number(r.n)]))));
      }
      let higher = 0;
      for (const [s, n] of histogram) if (s > score) higher += n;
      out.set(key, higher);
    }
    return out;
  }

  /** All-time (or another board's) rank of one participant; null when the id is not in the program. */
  async rankOfParticipant(programId: string, participantId: string, type: LeaderboardType, now: number): Promise<number | null> {
    const spec = boardSpec(type, now);
    const sql = 'SELECT * FROM participants WHERE id = ? AND program_id = ?';
    const row =
      this.db.dialect === 'sqlite'
        ? await this.db.get<ScoredRow>(sql, participantId, programId)
        : (await this.db.knex.raw(sql, [participantId, programId])).rows[0];
    if (!row) return null;
    return 1 + (await this.higherThan(this.db.knex, programId, spec.histogram, spec.scoreOf(row)));
  }

  /**
   * The ranking alone for one page of a board: ids, scores and competition ranks in board order,
   * without loading whole participants (what the leaderboard benchmark measures).
   */
  async ranked(q: Knex | Knex.Transaction, programId: string, type: LeaderboardType, now: number, limit: number): Promise<Array<{ id: string; score: number; rank: number }>> {
    const spec = boardSpec(type, now);
    // Only columns of the board's index, so SQLite answers from the index alone.
    const columns = ['id', 'created_at', ...new Set(spec.segments.flatMap((s) => (s.month !== undefined ? [s.column, 'month_key'] : [s.column])))];
    const page = await this.page<ScoredRow>(q, programId, type, now, limit, null, columns);
    const ranks = await this.pageRanks(q, programId, spec.histogram, page.scores, false);
    return page.rows.map((r, i) => ({ id: r.id, score: page.scores[i]!, rank: ranks[i]! }));
  }

  /**
   * Board ranks of one page's rows (scores in board order). Everyone scoring between the page's
   * first and last score is on the page, so one SUM above the first score plus the buckets inside
   * the page's range give every rank; the first page needs no query at all.
   */
  async pageRanks(q: Knex | Knex.Transaction, programId: string, board: string, scores: number[], continued: boolean): Promise<number[]> {
    if (scores.length === 0) return [];
    const top = scores[0]!;
    const bottom = scores[scores.length - 1]!;
    const between = new Map<number, number>(); // score → participants, for scores in (bottom, top]
    let above = 0;
    if (continued) {
      const rows = await this.all<{ score: number; n: number }>(
        q,
        'SELECT -1 AS score, COALESCE(SUM(n), 0) AS n FROM leaderboard_scores WHERE program_id = ? AND board = ? AND score > ? ' +
          'UNION ALL SELECT score, n FROM leaderboard_scores WHERE program_id = ? AND board = ? AND score > ? AND score <= ?',
        [programId, board, top, programId, board, bottom, top],
      );
      for (const r of rows) {
        if (Number(r.score) === -1) above = Number(r.n);
        else between.set(Number(r.score), Number(r.n));
      }
    } else {
      for (const s of scores) if (s > bottom) between.set(s, (between.get(s) ?? 0) + 1);
    }
    const distinct = [...between.keys()].sort((a, b) => b - a);
    const higher = new Map<number, number>();
    let running = above;
    let k = 0;
    for (const s of [...new Set(scores)]) {
      while (k < distinct.length && distinct[k]! > s) running += between.get(distinct[k++]!)!;
      higher.set(s, running);
    }
    return scores.map((s) => 1 + higher.get(s)!);
  }

  /**
   * One page of board `type`: score descending, then oldest first, then id. `after` is the row whose
   * id the client sent as `nextId`; the page starts right after it. Positive scores come from each
   * segment's partial index, zero scores from the (created_at, id) index.
   */
  async page<R extends ScoredRow>(
    q: Knex | Knex.Transaction,
    programId: string,
    type: LeaderboardType,
    now: number,
    limit: number,
    after: R | null,
    columns: readonly string[] | '*' = '*',
  ): Promise<LeaderboardPage<R>> {
    const spec = boardSpec(type, now);
    const want = limit + 1;
    const afterScore = after ? spec.scoreOf(after) : null;
    const cols = columns === '*' ? '*' : columns.join(', ');
    // Column names come from the board table above, never from input; values are bound.
    const where = (seg: Segment) => `program_id = ? AND ${seg.column} > 0${seg.month !== undefined ? ' AND month_key = ?' : ''}`;
    const binds = (seg: Segment) => (seg.month !== undefined ? [programId, seg.month] : [programId]);
    let picked: Array<{ row: R; score: number }> = [];
    if (afterScore === null || afterScore > 0) {
      const found: Array<{ row: R; score: number }> = [];
      for (const seg of spec.segments) {
        const order = `ORDER BY ${seg.column} DESC, created_at, id LIMIT ?`;
        let rows: R[];
        if (after && afterScore !== null) {
          rows = await this.all<R>(q, `SELECT ${cols} FROM participants WHERE ${where(seg)} AND ${seg.column} = ? AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?`, [
            ...binds(seg),
            afterScore,
            Number(after.created_at),
            after.id,
            want,
          ]);
          if (rows.length < want) {
            rows = rows.concat(await this.all<R>(q, `SELECT ${cols} FROM participants WHERE ${where(seg)} AND ${seg.column} < ? ${order}`, [...binds(seg), afterScore, want - rows.length]));
          }
        } else {
          rows = await this.all<R>(q, `SELECT ${cols} FROM participants WHERE ${where(seg)} ${order}`, [...binds(seg), want]);
        }
        for (const row of rows) found.push({ row, score: Number(row[seg.column]) });
      }
      if (spec.segments.length > 1) {
        found.sort((a, b) => b.score - a.score || Number(a.row.created_at) - Number(b.row.created_at) || (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0));
      }
      picked = found.slice(0, want);
    }
    if (picked.length < want) {
      const positive = spec.segments.map((seg) => `(${seg.column} > 0${seg.month !== undefined ? ' AND month_key = ?' : ''})`).join(' OR ');
      const bindings: unknown[] = [programId, ...spec.segments.flatMap((seg) => (seg.month !== undefined ? [seg.month] : []))];
      let cursor = '';
      if (after && afterScore === 0) {
        cursor = ' AND (created_at, id) > (?, ?)';
        bindings.push(Number(after.created_at), after.id);
      }
      bindings.push(want - picked.length);
      const rows = await this.all<R>(q, `SELECT ${cols} FROM participants WHERE program_id = ? AND NOT (${positive})${cursor} ORDER BY created_at, id LIMIT ?`, bindings);
      picked = picked.concat(rows.map((row) => ({ row, score: 0 })));
    }
    const more = picked.length > limit;
    const page = picked.slice(0, limit);
    return { rows: page.map((p) => p.row), scores: page.map((p) => p.score), nextId: more ? page[page.length - 1]!.row.id : null };
  }
}
