import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import type { BlobStorage } from '../../storage.ts';
import type { Jobs } from '../platform/jobs.ts';
import type { Programs } from './programs.ts';
import { newId, newSecret, safeEqual, sha256 } from '../../crypto.ts';
import { InvalidStateError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldError } from '../../../shared/errors.ts';
import {
  MAX_RESOURCES_PER_PROGRAM,
  UPLOAD_TICKET_TTL_SECONDS,
  contentGroups,
  fileExtension,
  type ProgramResource,
  type ProgramResourceCreate,
  type ProgramResourceUpdate,
  type ProgramResourceUploadResult,
  type ProgramResourceUploadTicket,
  type ProgramResourceUploadTicketCreate,
} from '../../../shared/schemas/resource.ts';
import { IMAGE_KINDS, KIND_OF_EXTENSION, type FileKind } from './resource-files.ts';
import { NO_CONTENT, countResources, lockProgram, toResource, type Row } from './resource-rows.ts';

/** A file our upload endpoint received, already streamed to a temp file. */
export interface ReceivedUpload {
  ticket: string;
  tempPath: string;
  bytes: number;
  kind: FileKind | null;
}

const EXPIRE_JOB = 'resources.expire_upload';
// An uploaded file that no resource claims is deleted this long after its ticket was issued.
const UNATTACHED_RETENTION_MS = 24 * 3600 * 1000;
const DEFAULT_DOWNLOAD_TTL_SECONDS = 300;

/**
 * Program resources (R1–R5): the participant-facing list, one-time upload tickets, the upload they
 * authorise, and short-lived signed download links for published files.
 */
export class Resources {
  readonly #key: Buffer;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly jobs: Jobs,
    private readonly storage: BlobStorage,
    programs: Programs,
    instanceSecret: string,
  ) {
    // A key of its own, derived from the instance secret, so a signature is useless anywhere else.
    this.#key = crypto.createHmac('sha256', instanceSecret).update('refloop:program-resource-files').digest();
    jobs.register(EXPIRE_JOB, async ({ ticketId }: { ticketId: string }) => this.#expireUpload(ticketId));
    programs.hooks.cloned.push((trx, source, copy) => this.#copyAll(trx, source.id, copy.id));
  }

  /** R1: the program's resources in list order. */
  async list(programId: string): Promise<ProgramResource[]> {
    const rows = await this.db.knex('program_resources').where({ program_id: programId }).orderBy([{ column: 'position' }, { column: 'created_at' }, { column: 'id' }]);
    return rows.map(toResource);
  }

  /** R2: appends a resource; a FILE claims its uploaded file through the ticket. */
  async create(programId: string, input: ProgramResourceCreate): Promise<ProgramResource> {
    return this.db.knex.transaction(async (trx) => {
      await lockProgram(trx, programId);
      const count = await countResources(trx, programId);
      if (count >= MAX_RESOURCES_PER_PROGRAM) {
        throw new ValidationError(`A program holds at most ${MAX_RESOURCES_PER_PROGRAM} resources (positions 0–99); delete one first.`);
      }
      const now = this.clock.now();
      const row = {
        id: newId(),
        program_id: programId,
        type: input.type,
        title: input.title,
        description: input.description ?? null,
        category: input.category ?? null,
        ...NO_CONTENT,
        ...(await this.#content(trx, programId, input.type, input)),
        is_published: input.isPublished ?? false,
        position: count,
        created_at: now,
        updated_at: now,
      };
      await trx('program_resources').insert(row);
      return toResource(await trx('program_resources').where({ id: row.id }).first());
    });
  }

  /** R3: changes fields, replaces content (switching type needs the new content) and moves the resource. */
  async update(programId: string, resourceId: string, patch: ProgramResourceUpdate): Promise<ProgramResource> {
    let released: string | null = null;
    const result = await this.db.knex.transaction(async (trx) => {
      released = null; // set afresh when a PostgreSQL deadlock runs this again (server/db/retry.ts)
      await lockProgram(trx, programId);
      const current = await trx('program_resources').where({ id: resourceId, program_id: programId }).first();
      if (!current) throw new NotFoundError(`No resource ${resourceId} in program ${programId}.`);
      const type = patch.type ?? current.type;
      const groups = contentGroups(patch);
      if (groups.length && groups[0] !== type) {
        const field = groups[0] === 'LINK' ? 'url' : groups[0] === 'TEXT' ? 'text' : 'uploadTicket';
        throw new ValidationError(`This resource is ${type}; send type ${groups[0]} with the new content to switch.`, [
          { field, code: 'INVALID', message: `Only a ${groups[0]} resource has ${field}; this one is ${type}. Send type with the new content to switch.` },
        ]);
      }
      const now = this.clock.now();
      const changes: Row = { updated_at: now };
      if (patch.title !== undefined) changes.title = patch.title;
      if (patch.description !== undefined) changes.description = patch.description;
      if (patch.category !== undefined) changes.category = patch.category;
      if (patch.isPublished !== undefined) changes.is_published = patch.isPublished;
      if (groups.length) {
        Object.assign(changes, NO_CONTENT, { type }, await this.#content(trx, programId, type, patch));
        if (current.file_key && current.file_key !== changes.file_key) released = current.file_key;
      }
      await trx('program_resources').where({ id: resourceId }).update(changes);
      if (patch.position !== undefined) await this.#move(trx, programId, resourceId, patch.position);
      return toResource(await trx('program_resources').where({ id: resourceId }).first());
    });
    if (released) await this.#release([released]);
    return result;
  }

  /** R4: deletes a resource, closes the gap in the list, then deletes its file once nothing points at it. */
  async remove(programId: string, resourceId: string): Promise<{ id: string; success: true }> {
    const fileKey = await this.db.knex.transaction(async (trx) => {
      await lockProgram(trx, programId);
      const row = await trx('program_resources').where({ id: resourceId, program_id: programId }).first();
      if (!row) throw new NotFoundError(`No resource ${resourceId} in program ${programId}.`);
      await trx('program_resources').where({ id: resourceId }).delete();
      await trx('program_resources').where({ program_id: programId }).where('position', '>', row.position).decrement('position', 1);
      return (row.file_key as string | null) ?? null;
    });
    if (fileKey) await this.#release([fileKey]);
    return { id: resourceId, success: true };
  }

  /** R5: a one-time ticket (stored hashed) bound to this program and the declared name, type and size. */
  async createUploadTicket(programId: string, input: ProgramResourceUploadTicketCreate): Promise<ProgramResourceUploadTicket> {
    const ticket = newSecret(32);
    const now = this.clock.now();
    const id = newId();
    await this.db.knex.transaction(async (trx) => {
      await trx('resource_upload_tickets').insert({
        id,
        program_id: programId,
        ticket_hash: sha256(ticket),
        file_name: input.fileName,
        mime_type: input.mimeType,
        bytes: input.bytes,
        status: 'ISSUED',
        expires_at: now + UPLOAD_TICKET_TTL_SECONDS * 1000,
        created_at: now,
      });
      await this.jobs.enqueue(trx, EXPIRE_JOB, { ticketId: id }, { runAt: now + UNATTACHED_RETENTION_MS, uniqueKey: `${EXPIRE_JOB}:${id}` });
    });
    return {
      ticket,
      expiresIn: UPLOAD_TICKET_TTL_SECONDS,
      uploadUrl: `${this.config.publicUrl}/uploads/resource`,
      uploadParameters: { ticket },
    };
  }

  /**
   * Our upload endpoint's decision on a received file: the ticket must be known (400), unused and
   * unexpired (406), the size must equal the declared one and the bytes must be what the name says
   * (400). The ticket is used up only once the file is stored; on any failure the caller deletes the
   * temp file and the ticket stays usable.
   */
  async completeUpload(upload: ReceivedUpload): Promise<ProgramResourceUploadResult> {
    if (!upload.ticket) throw new ValidationError('Send the ticket from the upload parameters.', [{ field: 'ticket', code: 'REQUIRED', message: 'Required.' }]);
    const row = upload.ticket.length <= 200 ? await this.db.knex('resource_upload_tickets').where({ ticket_hash: sha256(upload.ticket) }).first() : undefined;
    if (!row) throw new ValidationError('Unknown upload ticket.', [{ field: 'ticket', code: 'INVALID', message: 'Unknown upload ticket.' }]);
    const now = this.clock.now();
    if (row.status !== 'ISSUED') throw new InvalidStateError('This upload ticket was already used; request a new one.');
    if (Number(row.expires_at) <= now) throw new InvalidStateError('This upload ticket has expired; request a new one.');
    if (upload.bytes !== Number(row.bytes)) {
      throw new ValidationError(`The file has ${upload.bytes} bytes; the ticket was issued for ${row.bytes}.`, [
        { field: 'file', code: 'INVALID', message: 'The file size differs from the bytes declared for the ticket.' },
      ]);
    }
    const ext = fileExtension(row.file_name);
    if (!upload.kind || upload.kind !== KIND_OF_EXTENSION[ext]) {
      throw new ValidationError(`The file content is not a .${ext} file.`, [
        { field: 'file', code: 'INVALID_FILE_TYPE', message: `The content does not match the .${ext} file the ticket was issued for.` },
      ]);
    }
    // A key per attempt: two uploads racing on one ticket never overwrite each other's file.
    const key = `resources/${row.program_id}/${newId()}`;
    const version = Math.max(1, Math.floor(now / 1000));
    const format = ext === 'jpeg' ? 'jpg' : ext;
    const resourceType = IMAGE_KINDS.has(upload.kind) ? 'image' : 'raw';
    const signature = this.#mac(`upload\n${row.id}\n${version}\n${upload.bytes}\n${format}`).toString('hex');
    await this.storage.putFile(key, upload.tempPath, row.mime_type);
    try {
      const claimed = await this.db
        .knex('resource_upload_tickets')
        .where({ id: row.id, status: 'ISSUED' })
        .where('expires_at', '>', now)
        .update({ status: 'UPLOADED', storage_key: key, format, resource_type: resourceType, version, signature, uploaded_at: now });
      if (claimed === 0) throw new InvalidStateError('This upload ticket was already used; request a new one.');
    } catch (err) {
      await this.storage.delete(key).catch(() => {});
      throw err;
    }
    return this.#uploadResult({ ...row, status: 'UPLOADED', storage_key: key, format, resource_type: resourceType, version, signature });
  }

  /** A short-lived signed link to a published FILE resource (the participant API hands these out). */
  async downloadUrl(programId: string, resourceId: string, ttlSeconds = DEFAULT_DOWNLOAD_TTL_SECONDS): Promise<{ url: string; expiresIn: number }> {
    const row = await this.db
      .knex('program_resources')
      .where({ id: resourceId, program_id: programId, type: 'FILE', is_published: true, file_moderation_status: 'APPROVED' })
      .first('id');
    if (!row) throw new NotFoundError(`No published file resource ${resourceId}.`);
    const exp = this.clock.now() + ttlSeconds * 1000;
    const sig = this.#downloadSignature(resourceId, exp);
    return { url: `${this.config.publicUrl}/files/resources/${encodeURIComponent(resourceId)}?exp=${exp}&sig=${sig}`, expiresIn: ttlSeconds };
  }

  /** Checks a download link's expiry (epoch ms) and signature. */
  verifyDownload(resourceId: string, exp: string, sig: string): boolean {
    if (!/^\d{1,16}$/.test(exp) || Number(exp) <= this.clock.now()) return false;
    return safeEqual(sig, this.#downloadSignature(resourceId, Number(exp)));
  }

  /** The stored file of a resource participants may download now, or null (unpublished, deleted, not a file). */
  async fileForDownload(resourceId: string): Promise<{ key: string; fileName: string; mimeType: string; bytes: number } | null> {
    if (resourceId.length > 64) return null;
    const row = await this.db
      .knex('program_resources as r')
      .join('programs as p', 'p.id', 'r.program_id')
      .where({ 'r.id': resourceId, 'r.type': 'FILE', 'r.is_published': true, 'r.file_moderation_status': 'APPROVED' })
      .whereNot('p.status', 'DELETED')
      .whereNotNull('r.file_key')
      .first('r.file_key', 'r.file_name', 'r.file_mime_type', 'r.file_bytes');
    if (!row) return null;
    return { key: row.file_key, fileName: row.file_name, mimeType: row.file_mime_type, bytes: Number(row.file_bytes) };
  }

  /** The content columns for `type`, claiming the uploaded file for FILE. */
  async #content(trx: Knex.Transaction, programId: string, type: string, body: ProgramResourceUpdate): Promise<Row> {
    if (type === 'LINK') return { url: body.url };
    if (type === 'TEXT') return { text: body.text };
    return this.#attach(trx, programId, body.uploadTicket!, body.uploadResult as Record<string, unknown>);
  }

  /**
   * Claims a ticket's uploaded file for a resource, once. The client's `uploadResult` must equal what
   * the upload endpoint answered, field by field, against our own record of it.
   */
  async #attach(trx: Knex.Transaction, programId: string, ticket: string, result: Record<string, unknown>): Promise<Row> {
    const row = await trx('resource_upload_tickets').where({ ticket_hash: sha256(ticket), program_id: programId }).forUpdate().first();
    if (!row) throw new ValidationError('Unknown upload ticket for this program.', [{ field: 'uploadTicket', code: 'INVALID', message: 'Unknown upload ticket for this program.' }]);
    if (row.status === 'ATTACHED') throw new InvalidStateError('This upload was already attached to a resource; upload the file again with a new ticket.');
    if (row.status === 'EXPIRED' || (row.status === 'ISSUED' && Number(row.expires_at) <= this.clock.now())) {
      throw new InvalidStateError('This upload ticket has expired; request a new one.');
    }
    if (row.status !== 'UPLOADED') throw new InvalidStateError('No file has been uploaded with this ticket yet.');
    const expected = this.#uploadResult(row) as Record<string, unknown>;
    const errors: FieldError[] = [];
    for (const k of ['public_id', 'version', 'signature', 'resource_type', 'type', 'bytes', 'secure_url', 'format']) {
      if (k === 'format' && result[k] === undefined) continue;
      if (result[k] !== expected[k]) errors.push({ field: `uploadResult.${k}`, code: 'INVALID', message: 'Does not match the upload this ticket was used for.' });
    }
    if (errors.length) throw new ValidationError('uploadResult does not match the upload of this ticket; send the upload reply unmodified.', errors);
    const claimed = await trx('resource_upload_tickets').where({ id: row.id, status: 'UPLOADED' }).update({ status: 'ATTACHED', attached_at: this.clock.now() });
    if (claimed === 0) throw new InvalidStateError('This upload was already attached to a resource.');
    return {
      file_key: row.storage_key,
      file_name: row.file_name,
      file_mime_type: row.mime_type,
      file_bytes: Number(row.bytes),
      file_format: row.format,
      // The bytes passed the content checks on upload; there is no later review step.
      file_moderation_status: 'APPROVED',
      upload_id: row.id,
    };
  }

  #uploadResult(row: Row): ProgramResourceUploadResult {
    return {
      public_id: row.id,
      version: Number(row.version),
      signature: row.signature,
      resource_type: row.resource_type,
      type: 'authenticated',
      bytes: Number(row.bytes),
      secure_url: `${this.config.publicUrl}/files/uploads/${row.id}`,
      format: row.format,
    };
  }

  /** Moves a resource to `position` (zero-based, within the list) and renumbers the others. */
  async #move(trx: Knex.Transaction, programId: string, resourceId: string, position: number): Promise<void> {
    const rows = await trx('program_resources').where({ program_id: programId }).orderBy([{ column: 'position' }, { column: 'created_at' }, { column: 'id' }]).select('id', 'position');
    if (position >= rows.length) {
      throw new ValidationError(`position must lie within the list (0–${rows.length - 1}).`, [
        { field: 'position', code: 'INVALID', message: `Must be between 0 and ${rows.length - 1}, the current list.` },
      ]);
    }
    const order = rows.filter((r) => r.id !== resourceId);
    order.splice(position, 0, rows.find((r) => r.id === resourceId)!);
    for (const [i, r] of order.entries()) {
      if (Number(r.position) !== i) await trx('program_resources').where({ id: r.id }).update({ position: i });
    }
  }

  /** Deletes stored files no resource points at any more (clones share files). Runs after the commit. */
  async #release(keys: string[]): Promise<void> {
    for (const key of keys) {
      try {
        const used = await this.db.knex('program_resources').where({ file_key: key }).first('id');
        if (!used) await this.storage.delete(key);
      } catch (err) {
        // The change is committed; an orphaned file is wasted space, not a wrong answer.
        this.log.warn('resource file not deleted', { key, error: String(err) });
      }
    }
  }

  /** Job: the ticket's time is over; an uploaded file no resource claimed is deleted. */
  async #expireUpload(ticketId: string): Promise<void> {
    const key = await this.db.knex.transaction(async (trx) => {
      const row = await trx('resource_upload_tickets').where({ id: ticketId }).forUpdate().first();
      if (!row || (row.status !== 'ISSUED' && row.status !== 'UPLOADED')) return null;
      await trx('resource_upload_tickets').where({ id: ticketId }).update({ status: 'EXPIRED', storage_key: null });
      return row.status === 'UPLOADED' ? (row.storage_key as string) : null;
    });
    if (key) await this.storage.delete(key);
  }

  /** Clone hook: the copy gets the same resources, sharing the stored files. */
  async #copyAll(trx: Knex.Transaction, sourceId: string, copyId: string): Promise<void> {
    const rows = await trx('program_resources').where({ program_id: sourceId }).orderBy('position');
    const now = this.clock.now();
    for (const r of rows) await trx('program_resources').insert({ ...r, id: newId(), program_id: copyId, created_at: now, updated_at: now });
  }

  #mac(data: string): Buffer {
    return crypto.createHmac('sha256', this.#key).update(data).digest();
  }

  #downloadSignature(resourceId: string, exp: number): string {
    return this.#mac(`download\n${resourceId}\n${exp}`).toString('base64url');
  }
}
