import type { Knex } from 'knex';

// The program's counters (participants, credited referrals, visits, invites, winners) move off the
// `programs` row to a narrow `program_counters` row (issue #26 goal 4). The programs row carries the
// four configuration documents (≈15 KB of JSON): on SQLite every counter bump of a sign-up, trigger
// or visit fold rewrote the row and its overflow pages, on PostgreSQL it copied a wide tuple. The
// counters are written by every sign-up, credit and visit fold, the documents almost never.

const COUNTERS = ['referral_count', 'participant_count', 'impression_count', 'invite_count', 'winner_count'] as const;

/** Creates program_counters, moves each program's counts into it and drops them from programs. */
export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('program_counters'))) {
    await knex.schema.createTable('program_counters', (t) => {
      t.string('program_id', 32).primary().references('id').inTable('programs').onDelete('CASCADE');
      for (const c of COUNTERS) t.integer(c).notNullable().defaultTo(0);
    });
  }
  if (await knex.schema.hasColumn('programs', 'referral_count')) {
    await knex.raw(
      `INSERT INTO program_counters (program_id, ${COUNTERS.join(', ')}) SELECT id, ${COUNTERS.join(', ')} FROM programs WHERE id NOT IN (SELECT program_id FROM program_counters)`,
    );
    // Plain ALTER TABLE … DROP COLUMN on both databases (SQLite ≥ 3.35): no column is indexed or constrained.
    for (const c of COUNTERS) await knex.raw(`ALTER TABLE programs DROP COLUMN ${c}`);
  }
}

/** Puts the counters back on programs. */
export async function down(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasColumn('programs', 'referral_count'))) {
    await knex.schema.alterTable('programs', (t) => {
      for (const c of COUNTERS) t.integer(c).notNullable().defaultTo(0);
    });
  }
  if (await knex.schema.hasTable('program_counters')) {
    for (const c of COUNTERS) {
      await knex.raw(`UPDATE programs SET ${c} = (SELECT pc.${c} FROM program_counters pc WHERE pc.program_id = programs.id) WHERE id IN (SELECT program_id FROM program_counters)`);
    }
    await knex.schema.dropTable('program_counters');
  }
}
