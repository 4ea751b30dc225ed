import type { Knex } from 'knex';

// Issue #23: the P1 extensions (search, filters, sort; server/domain/participants/participant-list.ts)
// stay index-bound at 1,000,000 participants in one program.
// - Filters on values that are usually rare get an index ordered like the default sort
//   (created_at, id): a non-LOW fraud level, a referral status (only referred participants have one),
//   "has a referrer", and is_affiliate (rare in referral programs, common in affiliate ones).
// - Name search is a case-insensitive prefix: an index on lower(name). Email search uses the
//   existing (program_id, email_key) unique index on SQLite (binary order); on PostgreSQL the
//   database collation need not be byte order, so the prefix range runs on a COLLATE "C" copy.
// The fraud, status and referrer indexes are partial: the common LOW / direct row adds no entry.

const PG = (knex: Knex) => knex.client.config.client === 'pg';

/** Index name → column list and optional WHERE. */
function indexes(pg: boolean): Array<{ name: string; cols: string; where?: string }> {
  const c = pg ? ' COLLATE "C"' : '';
  const list = [
    { name: 'participants_list_fraud', cols: 'program_id, fraud_risk_level, created_at, id', where: "fraud_risk_level <> 'LOW'" },
    { name: 'participants_list_status', cols: 'program_id, referral_status, created_at, id', where: 'referral_status IS NOT NULL' },
    { name: 'participants_list_referred', cols: 'program_id, created_at, id', where: 'referred_by IS NOT NULL' },
    { name: 'participants_list_affiliate', cols: 'program_id, is_affiliate, created_at, id' },
    { name: 'participants_list_first_name', cols: `program_id, (lower(first_name))${c}` },
    { name: 'participants_list_last_name', cols: `program_id, (lower(last_name))${c}` },
  ];
  if (pg) list.push({ name: 'participants_list_email', cols: 'program_id, email_key COLLATE "C"' });
  return list;
}

/** Creates the list indexes. */
export async function up(knex: Knex): Promise<void> {
  for (const i of indexes(PG(knex))) {
    await knex.raw(`CREATE INDEX IF NOT EXISTS ${i.name} ON participants (${i.cols})${i.where ? ` WHERE ${i.where}` : ''}`);
  }
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  for (const i of indexes(PG(knex))) await knex.raw(`DROP INDEX IF EXISTS ${i.name}`);
}
