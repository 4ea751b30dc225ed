import type { Knex } from 'knex';

// Anti-fraud: every decision about a participant with its reasons (so the owner can see why), the
// ids of the other participants a decision matched, and the indexes the checks look up per sign-up.

/** Partial indexes: most participants of GDPR-mode programs hold none of these values. */
const LOOKUP_INDEXES: Array<{ name: string; columns: string; where: string }> = [
  { name: 'participants_fraud_fingerprint', columns: 'program_id, fingerprint', where: 'fingerprint IS NOT NULL' },
  { name: 'participants_fraud_instance', columns: 'program_id, mobile_instance_id', where: 'mobile_instance_id IS NOT NULL' },
  { name: 'participants_fraud_ip', columns: 'program_id, ip_address, created_at', where: 'ip_address IS NOT NULL' },
];

export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasColumn('participants', 'fraud_matches'))) {
    await knex.schema.alterTable('participants', (t) => {
      // JSON array of participant ids (`allMatchingFraudsters`); null when none, the common case.
      t.text('fraud_matches').nullable();
    });
  }
  for (const i of LOOKUP_INDEXES) {
    await knex.raw(`CREATE INDEX IF NOT EXISTS ${i.name} ON participants (${i.columns}) WHERE ${i.where}`);
  }

  if (!(await knex.schema.hasTable('fraud_decisions'))) {
    await knex.schema.createTable('fraud_decisions', (t) => {
      t.increments('seq').primary(); // insertion order breaks ties between equal timestamps
      t.string('id', 32).notNullable().unique();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('participant_id', 32).notNullable().references('participants.id').onDelete('CASCADE');
      t.string('risk_level', 8).notNullable(); // LOW | MEDIUM | HIGH
      t.string('previous_risk_level', 8).nullable(); // null on sign-up
      t.string('reason_code', 64).notNullable();
      t.text('reasons').notNullable(); // JSON array of human sentences
      t.text('matches').notNullable(); // JSON array of participant ids
      t.string('source', 16).notNullable(); // AUTOMATIC | MANUAL
      t.string('context', 24).notNullable(); // SIGNUP | REFERRAL_CHANGE | OWNER_UPDATE
      t.string('actor', 64).nullable(); // `key:<api key id>` for MANUAL decisions
      t.boolean('applied').notNullable(); // false when a manual level kept an automatic result off the participant
      t.bigInteger('created_at').notNullable();
      t.index(['participant_id', 'created_at']);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('fraud_decisions');
  for (const i of LOOKUP_INDEXES) await knex.raw(`DROP INDEX IF EXISTS ${i.name}`);
  if (await knex.schema.hasColumn('participants', 'fraud_matches')) {
    await knex.schema.alterTable('participants', (t) => t.dropColumn('fraud_matches'));
  }
}
