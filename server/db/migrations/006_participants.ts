import type { Knex } from 'knex';

// Participants, their vanity keys and metadata index, and the leaderboard score histogram.
//
// Ranks are never counted over participants: `leaderboard_scores` holds, per program and board, how
// many participants have each positive score, so a rank is 1 + the sum of the buckets above a score.
// Each board's score column has a partial index (score > 0, score DESC, created_at, id) that serves
// the leaderboard's order; participants with a zero score are listed from the (created_at, id) index.
// The partial indexes leave the common zero-score row out, so adding a participant touches few trees.

/** Board columns with their leaderboard index; the month columns are qualified by `month_key`. */
const BOARD_INDEXES: Array<{ name: string; column: string; month?: true }> = [
  { name: 'participants_board_referrals', column: 'referral_count' },
  { name: 'participants_board_month', column: 'monthly_referral_count', month: true },
  { name: 'participants_board_prev_month', column: 'prev_monthly_referral_count', month: true },
  { name: 'participants_board_impressions', column: 'impression_count' },
  { name: 'participants_board_unique_impressions', column: 'unique_impression_count' },
  { name: 'participants_board_leads', column: 'lead_count' },
  { name: 'participants_board_commissions', column: 'commission_total' },
  { name: 'participants_board_revenue', column: 'revenue_total' },
];

export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('participants'))) {
    await knex.schema.createTable('participants', (t) => {
      // Short columns first and the long text columns last, so reading a row's scores and times
      // never walks into a large row's overflow pages.
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.string('email', 254).notNullable(); // as given (trimmed)
      t.string('email_key', 254).notNullable(); // lower-cased: lookups and uniqueness
      t.string('first_name', 255).nullable();
      t.string('last_name', 255).nullable();
      t.string('share_key', 16).notNullable(); // `grsf=` value: 10 of [a-z0-9]
      // The participant's own referral (who referred them).
      t.string('referred_by', 32).nullable();
      t.string('referral_status', 16).nullable(); // CREDIT_PENDING | CREDIT_AWARDED | CREDIT_EXPIRED
      t.string('referral_source', 16).notNullable(); // DIRECT | PARTICIPANT
      t.bigInteger('referred_at').nullable();
      t.bigInteger('credited_at').nullable(); // when the status last became CREDIT_AWARDED
      // Scores. Monthly counts belong to `month_key` (year*12 + month, UTC); a stale key reads as 0.
      t.integer('referral_count').notNullable().defaultTo(0);
      t.integer('month_key').notNullable().defaultTo(0);
      t.integer('monthly_referral_count').notNullable().defaultTo(0);
      t.integer('prev_monthly_referral_count').notNullable().defaultTo(0); // month_key - 1
      t.integer('lead_count').notNullable().defaultTo(0);
      t.integer('impression_count').notNullable().defaultTo(0);
      t.integer('unique_impression_count').notNullable().defaultTo(0);
      t.integer('invite_count').notNullable().defaultTo(0);
      t.bigInteger('commission_total').notNullable().defaultTo(0); // minor units, affiliate boards
      t.bigInteger('revenue_total').notNullable().defaultTo(0);
      t.string('fraud_risk_level', 8).notNullable().defaultTo('LOW');
      t.string('fraud_reason_code', 64).nullable();
      t.boolean('is_winner').notNullable().defaultTo(false);
      t.string('ip_address', 64).nullable();
      t.string('fingerprint', 255).nullable();
      t.string('mobile_instance_id', 36).nullable();
      t.string('notes', 500).nullable();
      t.boolean('unsubscribed').notNullable().defaultTo(false);
      t.string('language', 8).nullable(); // null = the program's base language
      t.string('paypal_email', 254).nullable();
      t.boolean('is_affiliate').notNullable().defaultTo(false);
      t.string('affiliate_status', 16).nullable();
      t.string('affiliate_enrollment_source', 24).nullable();
      t.text('vanity_keys').nullable(); // JSON array, as given; `participant_vanity_keys` enforces uniqueness
      t.text('share_count').nullable(); // JSON object channel → count
      t.text('metadata').nullable(); // JSON object of strings
      // The 100 most recent referrals, newest first: ids and their referral times, comma-separated
      // (split is several times cheaper than JSON.parse on a 50-row leaderboard page).
      t.text('recent_referrals').nullable();
      t.text('recent_referrals_at').nullable();
      t.unique(['program_id', 'email_key'], { indexName: 'participants_program_email' });
      t.unique(['program_id', 'share_key'], { indexName: 'participants_program_share_key' });
      t.index(['program_id', 'created_at', 'id'], 'participants_program_created');
    });
  }
  await knex.raw('CREATE INDEX IF NOT EXISTS participants_referred_by ON participants (referred_by, referred_at) WHERE referred_by IS NOT NULL');
  for (const b of BOARD_INDEXES) {
    const cols = b.month ? `program_id, month_key, ${b.column} DESC, created_at, id` : `program_id, ${b.column} DESC, created_at, id`;
    await knex.raw(`CREATE INDEX IF NOT EXISTS ${b.name} ON participants (${cols}) WHERE ${b.column} > 0`);
  }

  if (!(await knex.schema.hasTable('participant_vanity_keys'))) {
    await knex.schema.createTable('participant_vanity_keys', (t) => {
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('key_lower', 20).notNullable();
      t.string('participant_id', 32).notNullable().references('participants.id').onDelete('CASCADE');
      t.primary(['program_id', 'key_lower']);
      t.index(['participant_id']);
    });
  }

  if (!(await knex.schema.hasTable('participant_metadata'))) {
    // An index of `participants.metadata` for the list filter; values are hashed in the index so a
    // 1000-character value never exceeds PostgreSQL's b-tree entry limit.
    await knex.schema.createTable('participant_metadata', (t) => {
      t.string('participant_id', 32).notNullable().references('participants.id').onDelete('CASCADE');
      t.string('program_id', 32).notNullable();
      t.string('meta_key', 100).notNullable();
      t.text('value').notNullable();
      t.string('value_hash', 16).notNullable();
      t.primary(['participant_id', 'meta_key']);
      t.index(['program_id', 'meta_key', 'value_hash'], 'participant_metadata_lookup');
    });
  }

  if (!(await knex.schema.hasTable('leaderboard_scores'))) {
    await knex.schema.createTable('leaderboard_scores', (t) => {
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('board', 32).notNullable(); // ALL_TIME, M2026-01, TOTAL_IMPRESSION_COUNT, …
      t.bigInteger('score').notNullable(); // always > 0
      t.integer('n').notNullable(); // participants with this score (0 rows are harmless)
      t.primary(['program_id', 'board', 'score']);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('leaderboard_scores');
  await knex.schema.dropTableIfExists('participant_metadata');
  await knex.schema.dropTableIfExists('participant_vanity_keys');
  await knex.schema.dropTableIfExists('participants');
}
