// program_resources rows: the ProgramResource wire shape of a row, the empty content columns, and the
// program lock and count that list changes run under.
import type { Knex } from 'knex';
import type { ProgramResource } from '../../../shared/schemas/resource.ts';

export type Row = Record<string, any>;

/** The wire shape of a row: only the content of its own type is filled in. */
export function toResource(row: Row): ProgramResource {
  return {
    id: row.id,
    type: row.type,
    title: row.title,
    description: row.description ?? null,
    category: row.category ?? null,
    url: row.type === 'LINK' ? row.url : null,
    text: row.type === 'TEXT' ? row.text : null,
    file:
      row.type === 'FILE'
        ? {
            fileName: row.file_name,
            mimeType: row.file_mime_type,
            bytes: Number(row.file_bytes),
            format: row.file_format,
            moderationStatus: row.file_moderation_status,
          }
        : null,
    isPublished: Boolean(row.is_published),
    position: Number(row.position),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** Every content column empty: the base a resource's new content is written over. */
export const NO_CONTENT = {
  url: null,
  text: null,
  file_key: null,
  file_name: null,
  file_mime_type: null,
  file_bytes: null,
  file_format: null,
  file_moderation_status: null,
  upload_id: null,
};

/**
 * Serialises list changes of one program (positions) behind its row lock (PostgreSQL; SQLite writes
 * are serial). FOR NO KEY UPDATE: the foreign-key inserts of sign-ups and sales share-lock the
 * same row and need not wait for a resource edit (issue #20).
 */
export async function lockProgram(trx: Knex.Transaction, programId: string): Promise<void> {
  await trx('programs').where({ id: programId }).forNoKeyUpdate().first('id');
}

/** How many resources the program holds. */
export async function countResources(trx: Knex.Transaction, programId: string): Promise<number> {
  const r = await trx('program_resources').where({ program_id: programId }).count({ n: '*' }).first();
  return Number(r?.n ?? 0);
}
