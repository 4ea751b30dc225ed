import type { Knex } from 'knex';
import { ConflictError } from '../../errors.ts';
import { trxRows } from '../../db/rows.ts';
import { fieldError, newShareKey, valueHash } from './model.ts';

// A participant's keys and indexed data: share key, vanity keys, metadata filter index.

/** A share key no participant of the program holds as a share key or vanity key. */
export async function freeShareKey(trx: Knex.Transaction, programId: string): Promise<string> {
  for (;;) {
    const key = newShareKey();
    // One cached statement (named on PostgreSQL) for both places a key can be held: every sign-up asks.
    const taken = await trxRows(trx, FREE_SHARE_KEY_SQL, [programId, key, programId, key]);
    if (!taken.length) return key;
  }
}

/** Whether a share key is held, as a share key or a vanity key; each side is one unique-index probe. */
const FREE_SHARE_KEY_SQL =
  'SELECT 1 AS taken FROM participants WHERE program_id = ? AND share_key = ? UNION ALL SELECT 1 FROM participant_vanity_keys WHERE program_id = ? AND key_lower = ? LIMIT 1';

/** Replaces a participant's vanity keys; each must be free in the program case-insensitively (409 otherwise). */
export async function replaceVanityKeys(trx: Knex.Transaction, programId: string, participantId: string, keys: string[]): Promise<string[]> {
  const lowers = keys.map((k) => k.toLowerCase());
  const dup = lowers.find((k, i) => lowers.indexOf(k) !== i);
  if (dup) throw fieldError('vanityKeys', `Vanity key ${dup} is listed twice (keys compare case-insensitively).`);
  for (const [i, lower] of lowers.entries()) {
    const owner = await trx('participant_vanity_keys').where({ program_id: programId, key_lower: lower }).first('participant_id');
    const other =
      (owner && owner.participant_id !== participantId) ||
      (await trx('participants').where({ program_id: programId, share_key: lower }).whereNot('id', participantId).first('id')) ||
      (await trx('participants').where({ program_id: programId, id: lower }).whereNot('id', participantId).first('id'));
    if (other) throw new ConflictError(`Vanity key ${keys[i]} is already taken in this program.`);
  }
  await trx('participant_vanity_keys').where({ participant_id: participantId }).del();
  if (lowers.length) await trx('participant_vanity_keys').insert(lowers.map((key_lower) => ({ program_id: programId, key_lower, participant_id: participantId })));
  return keys;
}

/** Keeps the metadata filter index in step with the metadata column. */
export async function writeMetadata(trx: Knex.Transaction, programId: string, participantId: string, before: Record<string, string>, after: Record<string, string>): Promise<void> {
  const removed = Object.keys(before).filter((k) => !(k in after));
  if (removed.length) await trx('participant_metadata').where({ participant_id: participantId }).whereIn('meta_key', removed).del();
  const changed = Object.entries(after).filter(([k, v]) => before[k] !== v);
  if (changed.length) {
    await trx('participant_metadata')
      .insert(changed.map(([meta_key, value]) => ({ participant_id: participantId, program_id: programId, meta_key, value, value_hash: valueHash(value) })))
      .onConflict(['participant_id', 'meta_key'])
      .merge(['value', 'value_hash']);
  }
}
