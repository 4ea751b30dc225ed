import type { Knex } from 'knex';

// Email invitations participants send to their contacts (RF3, the participant API's sendInvites),
// and what program emails need from the mail outbox: a Reply-To and extra headers
// (List-Unsubscribe for RFC 8058 one-click unsubscribe).
//
// An invite row lives per (program, sender, contact): re-inviting the same contact updates it. It is
// INVITE_SENT until the contact becomes a participant of the program, then JOINED and linked to them.

export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('invites'))) {
    await knex.schema.createTable('invites', (t) => {
      t.string('id', 32).primary(); // `inv_` + newId(): never equal to a participant id in the referral lists
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('participant_id', 32).notNullable().references('participants.id').onDelete('CASCADE'); // the sender
      t.string('email', 254).notNullable(); // as given (trimmed)
      t.string('email_key', 254).notNullable(); // lower-cased: matching and uniqueness
      t.string('status', 16).notNullable(); // INVITE_SENT | JOINED
      t.string('joined_participant_id', 32).nullable().references('participants.id').onDelete('SET NULL');
      t.bigInteger('joined_at').nullable();
      t.string('subject', 255).nullable(); // the sender's subjectText, null = the template's subject
      t.text('message').nullable(); // the sender's messageText
      // Mobile rule 6: may the sender later see this address unmasked? Decided when the invite is made.
      t.boolean('disclosure_allowed').notNullable().defaultTo(false);
      t.boolean('is_private').notNullable().defaultTo(false);
      t.integer('send_count').notNullable().defaultTo(1);
      t.bigInteger('last_sent_at').notNullable();
      t.bigInteger('reminder_sent_at').nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.unique(['program_id', 'participant_id', 'email_key'], { indexName: 'invites_sender_contact' });
      t.index(['program_id', 'email_key'], 'invites_program_contact');
      t.index(['program_id', 'status', 'created_at', 'id'], 'invites_program_status');
      t.index(['participant_id', 'status', 'created_at'], 'invites_sender_status');
    });
  }
  if (!(await knex.schema.hasColumn('mail_outbox', 'reply_to'))) {
    await knex.schema.alterTable('mail_outbox', (t) => {
      t.string('reply_to', 320).nullable();
    });
  }
  if (!(await knex.schema.hasColumn('mail_outbox', 'headers'))) {
    await knex.schema.alterTable('mail_outbox', (t) => {
      t.text('headers').nullable(); // JSON object of extra headers
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('invites');
  if (await knex.schema.hasColumn('mail_outbox', 'headers')) await knex.schema.alterTable('mail_outbox', (t) => t.dropColumn('headers'));
  if (await knex.schema.hasColumn('mail_outbox', 'reply_to')) await knex.schema.alterTable('mail_outbox', (t) => t.dropColumn('reply_to'));
}
