// The score ledger: the bucket moves and program counter changes of one transaction, written
// together at its end.
import type { Knex } from 'knex';
import { statementsOf } from '../../db/statements.ts';
import { rankKey } from './boards.ts';
import { groupBoards } from './leaderboard.ts';

// The score ledger's writes, as fixed text.
/**
 * Every bucket change of a flush in one statement, `count` (program, board, score, delta) rows in
 * (board, score) order: an increase adds to its bucket or creates it, a decrease only changes a
 * bucket that exists (the EXISTS: a missing one is left alone, never created negative). PostgreSQL
 * inserts the VALUES rows in the order given, so the bucket rows are locked in that one order.
 */
const bucketsSql = cachedBySize((count) => {
  const row = '(CAST(? AS varchar(32)), CAST(? AS varchar(32)), CAST(? AS bigint), CAST(? AS integer))';
  return (
    `WITH v (p, b, s, d) AS (VALUES ${Array(count).fill(row).join(', ')}) ` +
    'INSERT INTO "leaderboard_scores" ("program_id", "board", "score", "n") SELECT p, b, s, d FROM v ' +
    'WHERE d > 0 OR EXISTS (SELECT 1 FROM "leaderboard_scores" x WHERE x."program_id" = v.p AND x."board" = v.b AND x."score" = v.s) ' +
    'ON CONFLICT ("program_id", "board", "score") DO UPDATE SET "n" = "leaderboard_scores"."n" + excluded."n"'
  );
});

/** A SQL text per row count, built once. */
function cachedBySize(build: (count: number) => string): (count: number) => string {
  const texts: string[] = [];
  return (count) => (texts[count] ??= build(count));
}
// The program's counters live on their own narrow row (migration 034), not on the wide `programs` row.
const PROGRAM_COUNTS_SQL = 'UPDATE "program_counters" SET "participant_count" = participant_count + ?, "referral_count" = referral_count + ? WHERE "program_id" = ?';
const PROGRAM_COUNTS_WINNERS_SQL =
  'UPDATE "program_counters" SET "participant_count" = participant_count + ?, "referral_count" = referral_count + ?, "winner_count" = winner_count + ? WHERE "program_id" = ?';

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
    // Fixed statements, prepared once per connection (per bucket count): every credit runs them.
    const st = await statementsOf(trx);
    if (ordered.length) await st.run(bucketsSql(ordered.length), ordered.flatMap(([board, score, delta]) => [this.programId, board, score, delta]));
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
