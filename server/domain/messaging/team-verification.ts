import type { Knex } from 'knex';
import { trxRows } from '../../db/rows.ts';
import type { Q } from '../participants/model.ts';
import { knowTeamVerified, knownTeamVerified, rememberTeamVerified } from '../platform/known-team.ts';

// Team verification as the program emails see it: nothing is emailed to participants while the team
// is not VERIFIED. The state is read at most once per transaction (a participant creation may send
// two emails), and not at all when the request's credential already read it (platform/known-team.ts).

export { knowTeamVerified };

/** True when the team may email participants (verification status VERIFIED). */
export async function teamVerified(q: Q, teamId: string): Promise<boolean> {
  // Only a transaction is cached: it is short-lived, while the knex handle lives as long as the process.
  const trx = (q as Knex.Transaction).isTransaction ? (q as Knex.Transaction) : null;
  let v = trx ? knownTeamVerified(trx, teamId) : undefined;
  if (v === undefined) {
    const row = trx
      ? (await trxRows<{ verification_status: string }>(trx as Knex.Transaction, 'SELECT "verification_status" FROM "teams" WHERE "id" = ? LIMIT 1', [teamId]))[0]
      : await q('teams').where({ id: teamId }).first('verification_status');
    v = row?.verification_status === 'VERIFIED';
    if (trx) rememberTeamVerified(trx, teamId, v);
  }
  return v;
}
