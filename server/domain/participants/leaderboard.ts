// Reading the boards: ranks from the score histograms (`leaderboard_scores`, which the ledger of
// score-ledger.ts keeps) and pages of participants in board order; the boards are in boards.ts.
import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import { GroupCache } from '../../db/group-commit.ts';
import type { LeaderboardType } from '../../../shared/schemas/participant-list.ts';
import { boardSpec, rankKey, type LeaderboardPage, type ScoredRow, type Segment } from './boards.ts';

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

/**
 * Whole board histograms (score → participants) read inside a group-commit transaction, keyed
 * `program|board`: the callers of one group (up to 64 referral triggers) rank on the same few
 * boards, so each is read once per group and `ScoreLedger.flush` applies its moves to the copy.
 */
export const groupBoards = new GroupCache<Map<number, number>>();
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
    // Only the columns the board scores by (P4 reads one participant's rank; the row has 45 columns).
    const sql = `SELECT ${scoreColumns(spec).join(', ')} FROM participants WHERE id = ? AND program_id = ?`;
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
    const columns = ['id', 'created_at', ...scoreColumns(spec)];
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

/** The columns a board's score is computed from (`scoreOf` reads nothing else). */
function scoreColumns(spec: ReturnType<typeof boardSpec>): string[] {
  return [...new Set(spec.segments.flatMap((s) => (s.month !== undefined ? [s.column, 'month_key'] : [s.column])))];
}
