import type { Knex } from 'knex';
import { trxRows } from '../../db/rows.ts';
import type { Q } from '../participants/model.ts';

// Team verification as the program emails see it: nothing is emailed to participants while the team
// is not VERIFIED. The state is read at most once per transaction (a participant creation may send
// two emails), and not at all when the request's credential already read it.

/** Per transaction, the teams whose verification state is known (read once, or known from the request's credential). */
const verifiedIn = new WeakMap<object, Map<string, boolean>>();

/**
 * Records a team's verification state for `teamVerified` within `trx`, as the request's credential
 * read it (the API-key lookup joins `teams`), so a send in that transaction does not read it again.
 */
export function knowTeamVerified(trx: Knex.Transaction, teamId: string, verificationStatus: string): void {
  let cache = verifiedIn.get(trx);
  if (!cache) verifiedIn.set(trx, (cache = new Map()));
  cache.set(teamId, verificationStatus === 'VERIFIED');
}

/** True when the team may email participants (verification status VERIFIED). */
export async function teamVerified(q: Q, teamId: string): Promise<boolean> {
  // Only a transaction is cached: it is short-lived, while the knex handle lives as long as the process.
  const trx = (q as Knex.Transaction).isTransaction ? q : null;
  let cache = trx ? verifiedIn.get(trx) : undefined;
  if (trx && !cache) verifiedIn.set(trx, (cache = new Map()));
  let v = cache?.get(teamId);
  if (v === undefined) {
    const row = trx
      ? (await trxRows<{ verification_status: string }>(trx as Knex.Transaction, 'SELECT "verification_status" FROM "teams" WHERE "id" = ? LIMIT 1', [teamId]))[0]
      : await q('teams').where({ id: teamId }).first('verification_status');
    v = row?.verification_status === 'VERIFIED';
    cache?.set(teamId, v);
  }
  return v;
}
