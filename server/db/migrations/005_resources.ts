import type { Knex } from 'knex';

// Program resources (rest-v2 §3.3) and their one-time upload tickets. A ticket row outlives its
// upload so a reused ticket can be told apart from an unknown one; only its SHA-256 is stored.

export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable('resource_upload_tickets'))) {
    await knex.schema.createTable('resource_upload_tickets', (t) => {
      t.string('id', 32).primary(); // also the upload's public_id
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('ticket_hash', 64).notNullable().unique();
      t.string('file_name', 120).notNullable();
      t.string('mime_type', 255).notNullable();
      t.integer('bytes').notNullable(); // declared at R5; the upload must match
      t.string('status', 16).notNullable(); // ISSUED | UPLOADED | ATTACHED | EXPIRED
      t.bigInteger('expires_at').notNullable(); // upload deadline
      t.string('storage_key', 255).nullable();
      t.string('format', 16).nullable();
      t.string('resource_type', 8).nullable(); // image | raw
      t.bigInteger('version').nullable();
      t.string('signature', 128).nullable();
      t.bigInteger('uploaded_at').nullable();
      t.bigInteger('attached_at').nullable();
      t.bigInteger('created_at').notNullable();
      t.index(['program_id']);
    });
  }
  if (!(await knex.schema.hasTable('program_resources'))) {
    await knex.schema.createTable('program_resources', (t) => {
      t.string('id', 32).primary();
      t.string('program_id', 32).notNullable().references('programs.id').onDelete('CASCADE');
      t.string('type', 8).notNullable(); // FILE | LINK | TEXT
      t.string('title', 120).notNullable();
      t.string('description', 500).nullable();
      t.string('category', 60).nullable();
      t.string('url', 2048).nullable();
      t.text('text').nullable();
      // FILE only: the stored file (shared by clones of a program, so deleted when no row points at it).
      t.string('file_key', 255).nullable();
      t.string('file_name', 120).nullable();
      t.string('file_mime_type', 255).nullable();
      t.integer('file_bytes').nullable();
      t.string('file_format', 16).nullable();
      t.string('file_moderation_status', 16).nullable();
      t.string('upload_id', 32).nullable();
      t.boolean('is_published').notNullable();
      t.integer('position').notNullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.index(['program_id', 'position']);
      t.index(['file_key']);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('program_resources');
  await knex.schema.dropTableIfExists('resource_upload_tickets');
}
