import type { Knex } from 'knex';

// A team's verification state as a request already knows it, per transaction: the API-key lookup
// joins `teams`, so a write that sends program emails (messaging/team-verification.ts) need not read
// it again. Here, below every context, so whichever context opens the transaction can record it.

/** Per transaction, the teams whose verification state is known (read once, or known from the request's credential). */
const verifiedIn = new WeakMap<object, Map<string, boolean>>();

/** Records a team's verification state for `trx`, as the request's credential read it. */
export function knowTeamVerified(trx: Knex.Transaction, teamId: string, verificationStatus: string): void {
  rememberTeamVerified(trx, teamId, verificationStatus === 'VERIFIED');
}

/** What `trx` knows of the team: true when VERIFIED, undefined when not known yet. */
export function knownTeamVerified(trx: Knex.Transaction, teamId: string): boolean | undefined {
  return verifiedIn.get(trx)?.get(teamId);
}

/** Stores what `trx` learnt of the team (from its credential, or read once). */
export function rememberTeamVerified(trx: Knex.Transaction, teamId: string, verified: boolean): void {
  let cache = verifiedIn.get(trx);
  if (!cache) verifiedIn.set(trx, (cache = new Map()));
  cache.set(teamId, verified);
}
