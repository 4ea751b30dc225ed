// Deleting participants (rest-v2 §3.8 P6, P7): one, or up to 200 with a result per identifier; each
// takes its scores, its referral and its dependent rows with it.
import type { Knex } from 'knex';
import type { Program } from '../programs/programs.ts';
import { isRetryableTxError } from '../../db/retry.ts';
import type { BulkDeleteResponse } from '../../../shared/schemas/participant.ts';
import type { ParticipantHooks, ParticipantRow } from './model.ts';
import { findParticipant, removeScores, updateReferrer } from './referrals.ts';
import { ScoreLedger } from './score-ledger.ts';
import type { ParticipantsContext } from './service.ts';

/** P6: deletes one participant permanently. */
export async function removeParticipant(ctx: ParticipantsContext, program: Program, idOrEmail: string): Promise<{ success: true }> {
  await ctx.db.knex.transaction(async (trx) => {
    const row = await ctx.resolve(trx, program, idOrEmail, { lock: 'key' });
    const ledger = new ScoreLedger(program.id);
    await deleteRow(ctx.hooks, trx, program, ledger, row.id, ctx.clock.now());
    await ledger.flush(trx);
  });
  return { success: true };
}

/** P7: deletes up to 200 participants named by id or email, one result per identifier, in request order. */
export async function bulkRemoveParticipants(ctx: ParticipantsContext, program: Program, identifiers: string[]): Promise<BulkDeleteResponse> {
  const results: BulkDeleteResponse['results'] = [];
  await ctx.db.knex.transaction(async (trx) => {
    // A PostgreSQL deadlock runs this whole callback again (server/db/retry.ts): start afresh.
    results.length = 0;
    const now = ctx.clock.now();
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
        await trx.transaction((sp) => deleteRow(ctx.hooks, sp, program, ledger, row.id, now));
        results.push({ index, identifier, status: 'DELETED', participantId: row.id, email: row.email });
      } catch (err) {
        // A deadlock or serialization failure is the whole transaction's to retry, not this row's error.
        if (isRetryableTxError(err)) throw err;
        ledger.rewind(mark);
        ctx.log.error('participant bulk delete row failed', { programId: program.id, participantId: row.id, err: String((err as Error)?.message ?? err) });
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
async function deleteRow(hooks: ParticipantHooks, trx: Knex.Transaction, program: Program, ledger: ScoreLedger, id: string, now: number): Promise<void> {
  const row: ParticipantRow | undefined = await trx('participants').where({ id, program_id: program.id }).forUpdate().first();
  if (!row) return;
  removeScores(ledger, row, now);
  for (const hook of hooks.deleting) await hook(trx, program, [row.id], ledger);
  await trx('participants').where({ referred_by: row.id }).update({ referred_by: null, referral_status: null, referred_at: null, credited_at: null, updated_at: now });
  await trx('participants').where({ id: row.id }).del();
  if (row.referred_by) {
    await updateReferrer(trx, ledger, row.referred_by, { from: row.referral_status, to: null, creditedAt: row.credited_at, detach: row.id }, now);
  }
  // The referrals they made leave with them (the people they referred stay, unlinked).
  ledger.count(-1, -Number(row.referral_count));
}
