import type { Knex } from 'knex';

// Reward configurations (CampaignReward). Scalars are typed columns; the nested objects
// (commissionStructure, value, referredValue, metadata) are JSON text written only after the domain
// has validated them against the shared zod schemas. Rows are soft-deleted because issued rewards
// keep pointing at the configuration they were earned under.

/** Creates `reward_configs`. */
export async function up(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable('reward_configs')) return;
  await knex.schema.createTable('reward_configs', (t) => {
    t.string('id', 40).primary(); // crew_ + newId()
    t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
    t.string('type', 16).notNullable(); // SINGLE_SIDED | DOUBLE_SIDED | MILESTONE | LEADERBOARD | AFFILIATE
    t.string('title', 255).nullable();
    t.text('description').nullable();
    t.text('referral_description').nullable();
    t.boolean('is_visible').notNullable();
    t.boolean('is_unlimited').notNullable();
    t.string('event', 16).nullable(); // LEAD | CONVERSION; null on LEADERBOARD and AFFILIATE
    t.boolean('referred_reward_upfront').notNullable();
    t.integer('reward_limit').nullable(); // `limit`; null = none stored
    t.string('limit_duration', 16).notNullable();
    t.integer('conversions_required').nullable();
    t.integer('number_of_winners').nullable();
    t.integer('sort_order').notNullable(); // `order`
    t.string('image_url', 2048).nullable();
    t.string('coupon_code', 255).nullable();
    t.string('referral_coupon_code', 255).nullable();
    t.string('next_milestone_prefix', 255).nullable();
    t.string('next_milestone_suffix', 255).nullable();
    t.text('metadata').notNullable();
    t.text('commission_structure').nullable();
    t.text('value').nullable();
    t.text('referred_value').nullable();
    // Creation sequence within the program: a stable tie-break when several rows share `order` and a millisecond.
    t.integer('seq').notNullable();
    t.bigInteger('deleted_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['program_id', 'deleted_at', 'sort_order']);
  });
}

/** Drops `reward_configs`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('reward_configs');
}
