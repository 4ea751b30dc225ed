import type { Knex } from 'knex';

// Team invitations that can be cancelled and resent (issue #23, TM4/TM5). An invitation is a
// TEAM_INVITE row of owner_tokens; resending mints a new row (new link, new expiry) with the same
// invitation_id and ends the old one, so the old link can say why it no longer works:
// - invitation_id: the invitation's stable id, what the REST extensions name it by; rows sent before
//   this migration take the first 24 hex digits of their token's SHA-256 (not the token, not
//   reversible into it).
// - revoked_at, revoked_reason: when and why a link was ended before use, CANCELLED (the team took
//   the invitation back) or REPLACED (a resend sent a newer link).
// (team_id, invitation_id) serves the lookups by id, which are always within one team.

/** Adds the columns and the index, and names the invitations already sent. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('owner_tokens', (t) => {
    t.string('invitation_id', 32).nullable();
    t.bigInteger('revoked_at').nullable();
    t.string('revoked_reason', 16).nullable();
  });
  await knex('owner_tokens').where({ purpose: 'TEAM_INVITE' }).whereNull('invitation_id').update({ invitation_id: knex.raw('substr(hash, 1, 24)') });
  await knex.raw('CREATE INDEX IF NOT EXISTS owner_tokens_team_invitation ON owner_tokens (team_id, invitation_id)');
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS owner_tokens_team_invitation');
  await knex.schema.alterTable('owner_tokens', (t) => {
    t.dropColumn('invitation_id');
    t.dropColumn('revoked_at');
    t.dropColumn('revoked_reason');
  });
}
