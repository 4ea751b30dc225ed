import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { sha256 } from '../../../server/crypto.ts';
import { LocalDiskStorage } from '../../../server/storage.ts';
import { ContentInspector, sniffFileKind } from '../../../server/domain/programs/resource-files.ts';
import { MAX_RESOURCE_FILE_BYTES } from '../../../shared/schemas/resource.ts';
import type { Scope } from '../../../shared/scopes.ts';

let app: TestApp;
let dataDir: string;
let uploadsDir: string;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-uploads-'));
  uploadsDir = path.join(dataDir, 'uploads');
  app = await startApp({ DATA_DIR: dataDir });
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

// ---- file fixtures, built here so the tests need no binary files ----

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
/** A real 2×2 RGB PNG. */
function pngBytes(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(2, 0);
  ihdr.writeUInt32BE(2, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const rows = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

/** Every file under the uploads folder (temp files included), relative to it. */
function filesOnDisk(): string[] {
  if (!fs.existsSync(uploadsDir)) return [];
  return (fs.readdirSync(uploadsDir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(uploadsDir, f)).isFile()).sort();
}
function fileOfKey(key: string): string {
  return new LocalDiskStorage(uploadsDir).pathOf(key);
}

// ---- API helpers ----

async function setup() {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } });
  expect(res.status, res.text).toBe(200);
  return { ...acct, programId: res.body.id as string };
}
async function keyWith(teamId: string, scopes: Scope[], programIds: string[] | null = null) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes, programIds, origin: 'CLI' })).secret;
}
async function ticketFor(key: string, programId: string, fileName: string, mimeType: string, bytes: number) {
  const res = await app.request('POST', `/v2/campaign/${programId}/resource-upload-tickets`, { key, body: { fileName, mimeType, bytes } });
  expect(res.status, res.text).toBe(200);
  return res.body as { ticket: string; expiresIn: number; uploadUrl: string; uploadParameters: Record<string, string> };
}
/** Posts a file the way MCP+ does: every upload parameter as a text field, then the file as `file`. */
async function uploadTo(t: { uploadUrl: string; uploadParameters: Record<string, string> }, bytes: Buffer, fileName: string, type: string) {
  const form = new FormData();
  for (const [k, v] of Object.entries(t.uploadParameters)) form.append(k, String(v));
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), fileName);
  const res = await fetch(app.local(t.uploadUrl), { method: 'POST', body: form });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}
/** R5 + upload of a PNG: the ticket and the upload reply, ready for R2/R3. */
async function uploadedPng(key: string, programId: string, bytes = pngBytes()) {
  const t = await ticketFor(key, programId, 'logo.png', 'image/png', bytes.length);
  const up = await uploadTo(t, bytes, 'logo.png', 'image/png');
  expect(up.status, up.text).toBe(200);
  return { ticket: t.ticket, result: up.body as Record<string, unknown>, bytes };
}
async function createResource(key: string, programId: string, body: Record<string, unknown>) {
  const res = await app.request('POST', `/v2/campaign/${programId}/resources`, { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body;
}
const link = (title: string, extra: Record<string, unknown> = {}) => ({ type: 'LINK', title, url: 'https://example.com/kit', ...extra });

describe('POST /campaign/{id}/resource-upload-tickets', () => {
  it('issues a one-time ticket for 600 seconds with our upload URL, storing only its hash', async () => {
    const s = await setup();
    const t = await ticketFor(s.key, s.programId, 'Brand kit.pdf', 'application/pdf', 1234);
    expect(t).toEqual({
      ticket: expect.any(String),
      expiresIn: 600,
      uploadUrl: 'http://refloop.test/uploads/resource',
      uploadParameters: { ticket: t.ticket },
    });
    expect(t.ticket.length).toBeGreaterThanOrEqual(20);
    expect(Object.keys(t)).not.toContain('cloudName');
    const row = await app.deps.db.knex('resource_upload_tickets').where({ program_id: s.programId }).first();
    expect(row.ticket_hash).toBe(sha256(t.ticket));
    expect(JSON.stringify(row)).not.toContain(t.ticket);
  });

  it('rejects a file over 10 MiB, a MIME type the extension does not allow, a path, an unlisted extension and missing fields with 400', async () => {
    const s = await setup();
    const post = (body: unknown) => app.request('POST', `/v2/campaign/${s.programId}/resource-upload-tickets`, { key: s.key, body });
    const big = await post({ fileName: 'a.pdf', mimeType: 'application/pdf', bytes: MAX_RESOURCE_FILE_BYTES + 1 });
    expect(big.status).toBe(400);
    expect(big.body.errors[0].field).toBe('bytes');
    const mime = await post({ fileName: 'a.png', mimeType: 'application/pdf', bytes: 10 });
    expect(mime.status).toBe(400);
    expect(mime.body.errors[0].field).toBe('mimeType');
    expect((await post({ fileName: '../a.png', mimeType: 'image/png', bytes: 10 })).body.errors[0].field).toBe('fileName');
    expect((await post({ fileName: 'setup.exe', mimeType: 'application/octet-stream', bytes: 10 })).status).toBe(400);
    expect((await post({ fileName: 'x'.repeat(118) + '.pdf', mimeType: 'application/pdf', bytes: 10 })).status).toBe(400);
    const missing = await post({});
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['bytes', 'fileName', 'mimeType']);
  });

  it('is refused without program:write and for a program outside the key’s grant (403)', async () => {
    const s = await setup();
    const body = { fileName: 'a.png', mimeType: 'image/png', bytes: 10 };
    const readOnly = await keyWith(s.teamId, ['program:read']);
    expect((await app.request('POST', `/v2/campaign/${s.programId}/resource-upload-tickets`, { key: readOnly, body })).status).toBe(403);
    const other = await app.request('POST', '/v2/campaigns', { key: s.key, body: { type: 'REFERRAL' } });
    const limited = await keyWith(s.teamId, ['program:read', 'program:write'], [other.body.id]);
    const denied = await app.request('POST', `/v2/campaign/${s.programId}/resource-upload-tickets`, { key: limited, body });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('NOT_AUTHORIZED_ERROR');
  });

  it('answers 404 for an unknown program', async () => {
    const s = await setup();
    const res = await app.request('POST', '/v2/campaign/nosuchprogram/resource-upload-tickets', { key: s.key, body: { fileName: 'a.png', mimeType: 'image/png', bytes: 10 } });
    expect(res.status).toBe(404);
  });
});

describe('FILE resource flow over HTTP', () => {
  it('uploads a PNG with a ticket, attaches it, lists it, downloads the same bytes through a signed link and deletes the file with the resource', async () => {
    const s = await setup();
    const png = pngBytes();
    const t = await ticketFor(s.key, s.programId, 'Logo pack.png', 'image/png', png.length);
    const up = await uploadTo(t, png, 'Logo pack.png', 'image/png');
    expect(up.status, up.text).toBe(200);
    expect(up.body).toEqual({
      public_id: expect.any(String),
      version: Math.floor(app.clock.now() / 1000),
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
      resource_type: 'image',
      type: 'authenticated',
      bytes: png.length,
      secure_url: `http://refloop.test/files/uploads/${up.body.public_id}`,
      format: 'png',
    });
    // The upload's own URL is private.
    expect((await fetch(app.local(up.body.secure_url))).status).toBe(403);

    const created = await createResource(s.key, s.programId, { type: 'FILE', title: 'Logo pack', category: 'Brand', isPublished: true, uploadTicket: t.ticket, uploadResult: up.body });
    expect(created).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{20}$/),
      type: 'FILE',
      title: 'Logo pack',
      description: null,
      category: 'Brand',
      url: null,
      text: null,
      file: { fileName: 'Logo pack.png', mimeType: 'image/png', bytes: png.length, format: 'png', moderationStatus: 'APPROVED' },
      isPublished: true,
      position: 0,
      createdAt: app.clock.now(),
      updatedAt: app.clock.now(),
    });
    const list = await app.request('GET', `/v2/campaign/${s.programId}/resources`, { key: s.key });
    expect(list.body).toEqual({ resources: [created] });

    const row = await app.deps.db.knex('program_resources').where({ id: created.id }).first();
    const onDisk = fileOfKey(row.file_key);
    expect(fs.readFileSync(onDisk).equals(png)).toBe(true);

    const link = await app.deps.resources.downloadUrl(s.programId, created.id);
    expect(link.expiresIn).toBe(300);
    expect(link.url).toMatch(new RegExp(`^http://refloop\\.test/files/resources/${created.id}\\?exp=\\d+&sig=`));
    const dl = await fetch(app.local(link.url));
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toBe('image/png');
    expect(dl.headers.get('content-disposition')).toBe(`attachment; filename="Logo pack.png"; filename*=UTF-8''Logo%20pack.png`);
    expect(Buffer.from(await dl.arrayBuffer()).equals(png)).toBe(true);

    const del = await app.request('DELETE', `/v2/campaign/${s.programId}/resources/${created.id}`, { key: s.key });
    expect(del.body).toEqual({ id: created.id, success: true });
    expect(fs.existsSync(onDisk)).toBe(false);
    expect((await fetch(app.local(link.url))).status).toBe(404);
  });

  it('rejects an upload over 10 MiB with 400 and leaves no file in the uploads folder', async () => {
    const s = await setup();
    const before = filesOnDisk();
    const t = await ticketFor(s.key, s.programId, 'big.pdf', 'application/pdf', MAX_RESOURCE_FILE_BYTES);
    const big = Buffer.alloc(MAX_RESOURCE_FILE_BYTES + 1000, 0x20);
    PDF.copy(big);
    const res = await uploadTo(t, big, 'big.pdf', 'application/pdf');
    expect(res.status, res.text).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ field: 'file', code: 'TOO_LARGE' });
    expect(filesOnDisk()).toEqual(before);
    // The ticket was not used up by the failure.
    const row = await app.deps.db.knex('resource_upload_tickets').where({ ticket_hash: sha256(t.ticket) }).first();
    expect(row.status).toBe('ISSUED');
  });

  it('rejects PDF bytes under a .png name with 400 and keeps the ticket usable for the real file', async () => {
    const s = await setup();
    const png = pngBytes();
    const padded = Buffer.concat([PDF, Buffer.alloc(png.length - PDF.length > 0 ? png.length - PDF.length : 0, 0x20)]).subarray(0, png.length);
    const t = await ticketFor(s.key, s.programId, 'photo.png', 'image/png', png.length);
    const before = filesOnDisk();
    const wrong = await uploadTo(t, padded, 'photo.png', 'image/png');
    expect(wrong.status, wrong.text).toBe(400);
    expect(wrong.body.errors[0]).toMatchObject({ field: 'file', code: 'INVALID_FILE_TYPE' });
    expect(filesOnDisk()).toEqual(before);
    const right = await uploadTo(t, png, 'photo.png', 'image/png');
    expect(right.status, right.text).toBe(200);
  });

  it('accepts a CSV only when it is UTF-8 text, and office files by their container header', async () => {
    const s = await setup();
    const csv = Buffer.from('name,email\nÅsa,asa@example.com\n');
    const okCsv = await uploadTo(await ticketFor(s.key, s.programId, 'list.csv', 'text/csv', csv.length), csv, 'list.csv', 'text/csv');
    expect(okCsv.status, okCsv.text).toBe(200);
    expect(okCsv.body).toMatchObject({ resource_type: 'raw', format: 'csv' });
    const binary = Buffer.from([0x61, 0x2c, 0x62, 0x0a, 0x00, 0xff]);
    expect((await uploadTo(await ticketFor(s.key, s.programId, 'bad.csv', 'text/csv', binary.length), binary, 'bad.csv', 'text/csv')).status).toBe(400);
    const docx = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(60, 1)]);
    const docxMime = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    expect((await uploadTo(await ticketFor(s.key, s.programId, 'guide.docx', docxMime, docx.length), docx, 'guide.docx', docxMime)).status).toBe(200);
    // An old .doc must be an OLE compound file, not a ZIP.
    expect((await uploadTo(await ticketFor(s.key, s.programId, 'guide.doc', 'application/msword', docx.length), docx, 'guide.doc', 'application/msword')).status).toBe(400);
  });

  it('answers 406 for a ticket used twice and for an expired ticket, 400 for an unknown one and for a size that differs from the ticket', async () => {
    const s = await setup();
    const png = pngBytes();
    const t = await ticketFor(s.key, s.programId, 'a.png', 'image/png', png.length);
    expect((await uploadTo(t, png, 'a.png', 'image/png')).status).toBe(200);
    const again = await uploadTo(t, png, 'a.png', 'image/png');
    expect(again.status).toBe(406);
    expect(again.body).toMatchObject({ name: 'InvalidStateError', code: 'INVALID_STATE_ERROR', status: 406 });

    const late = await ticketFor(s.key, s.programId, 'b.png', 'image/png', png.length);
    app.clock.advance(600_001);
    const expired = await uploadTo(late, png, 'b.png', 'image/png');
    expect(expired.status).toBe(406);
    expect(expired.body.message).toMatch(/expired/);

    const unknown = await uploadTo({ uploadUrl: t.uploadUrl, uploadParameters: { ticket: 'x'.repeat(43) } }, png, 'a.png', 'image/png');
    expect(unknown.status).toBe(400);
    const none = await uploadTo({ uploadUrl: t.uploadUrl, uploadParameters: {} }, png, 'a.png', 'image/png');
    expect(none.status).toBe(400);
    expect(none.body.errors[0]).toMatchObject({ field: 'ticket', code: 'REQUIRED' });

    const sized = await ticketFor(s.key, s.programId, 'c.png', 'image/png', png.length + 1);
    const mismatch = await uploadTo(sized, png, 'c.png', 'image/png');
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.message).toMatch(/bytes/);
  });

  it('answers 400 to a body that is not multipart and 404 to other methods', async () => {
    const res = await fetch(`${app.url}/uploads/resource`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"ticket":"x"}' });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('BAD_REQUEST_ERROR');
    expect((await fetch(`${app.url}/uploads/resource`)).status).toBe(404);
  });

  it('deletes an upload that no resource claimed a day later; attaching it then answers 406', async () => {
    const s = await setup();
    const up = await uploadedPng(s.key, s.programId);
    const row = await app.deps.db.knex('resource_upload_tickets').where({ id: up.result.public_id }).first();
    expect(fs.existsSync(fileOfKey(row.storage_key))).toBe(true);
    app.clock.advance(24 * 3600 * 1000 + 1);
    await app.deps.jobs.runDue();
    expect(fs.existsSync(fileOfKey(row.storage_key))).toBe(false);
    const res = await app.request('POST', `/v2/campaign/${s.programId}/resources`, { key: s.key, body: { type: 'FILE', title: 'Late', uploadTicket: up.ticket, uploadResult: up.result } });
    expect(res.status).toBe(406);
  });
});

describe('GET /files/resources/{resourceId}', () => {
  it('answers 403 for a bad or expired signature and 404 once the resource is unpublished', async () => {
    const s = await setup();
    const up = await uploadedPng(s.key, s.programId);
    const r = await createResource(s.key, s.programId, { type: 'FILE', title: 'Kit', isPublished: true, uploadTicket: up.ticket, uploadResult: up.result });
    const { url } = await app.deps.resources.downloadUrl(s.programId, r.id, 60);
    const tampered = url.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A'));
    expect((await fetch(app.local(tampered))).status).toBe(403);
    expect((await fetch(app.local(url.replace(/&sig=.*/, '')))).status).toBe(403);
    const other = await createResource(s.key, s.programId, link('Other', { isPublished: true }));
    expect((await fetch(app.local(url.replace(r.id, other.id)))).status).toBe(403);
    expect((await fetch(app.local(url))).status).toBe(200);
    app.clock.advance(60_001);
    const expired = await fetch(app.local(url));
    expect(expired.status).toBe(403);
    expect((await expired.json()).code).toBe('NOT_AUTHORIZED_ERROR');

    const fresh = await app.deps.resources.downloadUrl(s.programId, r.id);
    await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${r.id}`, { key: s.key, body: { isPublished: false } });
    expect((await fetch(app.local(fresh.url))).status).toBe(404);
  });

  it('issues links only for published FILE resources of the program', async () => {
    const s = await setup();
    const up = await uploadedPng(s.key, s.programId);
    const draft = await createResource(s.key, s.programId, { type: 'FILE', title: 'Draft', uploadTicket: up.ticket, uploadResult: up.result });
    expect(draft.isPublished).toBe(false);
    await expect(app.deps.resources.downloadUrl(s.programId, draft.id)).rejects.toMatchObject({ status: 404 });
    const l = await createResource(s.key, s.programId, link('A link', { isPublished: true }));
    await expect(app.deps.resources.downloadUrl(s.programId, l.id)).rejects.toMatchObject({ status: 404 });
    await expect(app.deps.resources.downloadUrl('otherprogram', draft.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe('POST /campaign/{id}/resources', () => {
  it('creates LINK and TEXT resources, unpublished by default, appended in order', async () => {
    const s = await setup();
    const a = await createResource(s.key, s.programId, link('Brand guide', { description: 'Logos and colours' }));
    expect(a).toEqual({
      id: expect.any(String),
      type: 'LINK',
      title: 'Brand guide',
      description: 'Logos and colours',
      category: null,
      url: 'https://example.com/kit',
      text: null,
      file: null,
      isPublished: false,
      position: 0,
      createdAt: app.clock.now(),
      updatedAt: app.clock.now(),
    });
    const b = await createResource(s.key, s.programId, { type: 'TEXT', title: 'Pitch', text: 'Tell friends about us.', isPublished: true, category: '' });
    expect(b).toMatchObject({ type: 'TEXT', text: 'Tell friends about us.', url: null, file: null, isPublished: true, position: 1, category: null });
  });

  it('rejects http links, text over 5000 characters, and content that is missing, doubled or of another type with 400 field errors', async () => {
    const s = await setup();
    const post = (body: unknown) => app.request('POST', `/v2/campaign/${s.programId}/resources`, { key: s.key, body });
    const http = await post(link('x', { url: 'http://example.com' }));
    expect(http.status).toBe(400);
    expect(http.body.errors[0]).toMatchObject({ field: 'url' });
    const long = await post({ type: 'TEXT', title: 'x', text: 'a'.repeat(5001) });
    expect(long.status).toBe(400);
    expect(long.body.errors[0]).toMatchObject({ field: 'text', code: 'TOO_LONG', maximum: 5000, origin: 'string' });
    expect((await post({ type: 'TEXT', title: 'x', text: 'a'.repeat(5000) })).status).toBe(200);
    const missing = await post({ type: 'LINK', title: 'x' });
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'url', code: 'REQUIRED' })]);
    const mismatched = await post({ type: 'LINK', title: 'x', text: 'hello' });
    expect(mismatched.status).toBe(400);
    expect(mismatched.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['text', 'url']);
    const doubled = await post(link('x', { text: 'hello' }));
    expect(doubled.status).toBe(400);
    expect(doubled.body.errors[0].field).toBe('text');
    const half = await post({ type: 'FILE', title: 'x', uploadTicket: 'y'.repeat(43) });
    expect(half.body.errors).toEqual([expect.objectContaining({ field: 'uploadResult', code: 'REQUIRED' })]);
    expect((await post(link('t'.repeat(121)))).body.errors[0]).toMatchObject({ field: 'title', code: 'TOO_LONG' });
    expect((await post(link('x', { description: 'd'.repeat(501) }))).body.errors[0].field).toBe('description');
    expect((await post(link('x', { category: 'c'.repeat(61) }))).body.errors[0].field).toBe('category');
    expect((await post({ type: 'VIDEO', title: 'x' })).body.errors[0].field).toBe('type');
    expect((await post(link('x', { position: 0 }))).body.errors[0]).toMatchObject({ field: 'position', code: 'UNKNOWN_FIELD' });
  });

  it('attaches an upload only with its unmodified reply, only to its own program and only once', async () => {
    const s = await setup();
    const up = await uploadedPng(s.key, s.programId);
    const post = (programId: string, body: unknown) => app.request('POST', `/v2/campaign/${programId}/resources`, { key: s.key, body });
    const file = (extra: Record<string, unknown> = {}) => ({ type: 'FILE', title: 'Logo', uploadTicket: up.ticket, uploadResult: { ...up.result, ...extra } });
    const forged = await post(s.programId, file({ public_id: 'someoneelse' }));
    expect(forged.status).toBe(400);
    expect(forged.body.errors[0].field).toBe('uploadResult.public_id');
    expect((await post(s.programId, file({ bytes: 1 }))).body.errors[0].field).toBe('uploadResult.bytes');
    const other = await app.request('POST', '/v2/campaigns', { key: s.key, body: { type: 'REFERRAL' } });
    const foreign = await post(other.body.id, file());
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors[0].field).toBe('uploadTicket');
    // Extra provider keys pass through.
    expect((await post(s.programId, file({ etag: 'abc', tags: [] }))).status).toBe(200);
    const twice = await post(s.programId, file());
    expect(twice.status).toBe(406);
    expect(twice.body.code).toBe('INVALID_STATE_ERROR');
    const pending = await ticketFor(s.key, s.programId, 'later.png', 'image/png', 10);
    const notUploaded = await post(s.programId, { type: 'FILE', title: 'x', uploadTicket: pending.ticket, uploadResult: up.result });
    expect(notUploaded.status).toBe(406);
  });

  it('refuses a 101st resource with 400', async () => {
    const s = await setup();
    const now = app.clock.now();
    const rows = Array.from({ length: 100 }, (_, i) => ({ id: `bulk${String(i).padStart(3, '0')}${s.programId.slice(0, 10)}`, program_id: s.programId, type: 'TEXT', title: `T${i}`, text: 't', is_published: false, position: i, created_at: now, updated_at: now }));
    await app.deps.db.knex.batchInsert('program_resources', rows, 50);
    const res = await app.request('POST', `/v2/campaign/${s.programId}/resources`, { key: s.key, body: link('One too many') });
    expect(res.status).toBe(400);
  });

  it('is refused without program:write and for a program outside the key’s grant (403)', async () => {
    const s = await setup();
    const readOnly = await keyWith(s.teamId, ['program:read']);
    expect((await app.request('POST', `/v2/campaign/${s.programId}/resources`, { key: readOnly, body: link('x') })).status).toBe(403);
    const limited = await keyWith(s.teamId, ['program:read', 'program:write'], ['someotherprogram']);
    expect((await app.request('POST', `/v2/campaign/${s.programId}/resources`, { key: limited, body: link('x') })).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const s = await setup();
    expect((await app.request('POST', '/v2/campaign/nosuchprogram/resources', { key: s.key, body: link('x') })).status).toBe(404);
  });
});

describe('GET /campaign/{id}/resources', () => {
  it('lists resources by position, and an empty list for a program without any', async () => {
    const s = await setup();
    expect((await app.request('GET', `/v2/campaign/${s.programId}/resources`, { key: s.key })).body).toEqual({ resources: [] });
    const a = await createResource(s.key, s.programId, link('A'));
    const b = await createResource(s.key, s.programId, link('B'));
    await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${b.id}`, { key: s.key, body: { position: 0 } });
    const list = await app.request('GET', `/v2/campaign/${s.programId}/resources`, { key: s.key });
    expect(list.body.resources.map((r: { id: string; position: number }) => [r.id, r.position])).toEqual([
      [b.id, 0],
      [a.id, 1],
    ]);
  });

  it('refuses a key without program:read or outside its grant (403)', async () => {
    const s = await setup();
    const noScope = await keyWith(s.teamId, ['participant:read']);
    expect((await app.request('GET', `/v2/campaign/${s.programId}/resources`, { key: noScope })).status).toBe(403);
    const limited = await keyWith(s.teamId, ['program:read'], ['someotherprogram']);
    expect((await app.request('GET', `/v2/campaign/${s.programId}/resources`, { key: limited })).status).toBe(403);
  });

  it('answers 404 for an unknown program and 403 for another team’s program', async () => {
    const s = await setup();
    const t = await setup();
    expect((await app.request('GET', '/v2/campaign/nosuchprogram/resources', { key: s.key })).status).toBe(404);
    expect((await app.request('GET', `/v2/campaign/${t.programId}/resources`, { key: s.key })).status).toBe(403);
  });
});

describe('PATCH /campaign/{id}/resources/{resourceId}', () => {
  it('changes fields, publishes, and switches type when the new content comes with it', async () => {
    const s = await setup();
    const r = await createResource(s.key, s.programId, link('Guide', { description: 'old' }));
    app.clock.advance(1000);
    const patched = await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${r.id}`, { key: s.key, body: { title: 'New guide', description: null, isPublished: true, url: 'https://example.com/v2' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ title: 'New guide', description: null, isPublished: true, url: 'https://example.com/v2', createdAt: r.createdAt, updatedAt: r.createdAt + 1000 });
    const text = await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${r.id}`, { key: s.key, body: { type: 'TEXT', text: 'Now a text.' } });
    expect(text.body).toMatchObject({ type: 'TEXT', text: 'Now a text.', url: null, file: null, title: 'New guide' });
  });

  it('moves a resource to a position within the list and shifts the others', async () => {
    const s = await setup();
    const [a, b, c] = [await createResource(s.key, s.programId, link('A')), await createResource(s.key, s.programId, link('B')), await createResource(s.key, s.programId, link('C'))];
    const order = async () => (await app.request('GET', `/v2/campaign/${s.programId}/resources`, { key: s.key })).body.resources.map((r: { title: string; position: number }) => `${r.position}${r.title}`);
    const moved = await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${c.id}`, { key: s.key, body: { position: 0 } });
    expect(moved.body.position).toBe(0);
    expect(await order()).toEqual(['0C', '1A', '2B']);
    await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${c.id}`, { key: s.key, body: { position: 1 } });
    expect(await order()).toEqual(['0A', '1C', '2B']);
    await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${a.id}`, { key: s.key, body: { position: 2 } });
    expect(await order()).toEqual(['0C', '1B', '2A']);
    const outside = await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${b.id}`, { key: s.key, body: { position: 3 } });
    expect(outside.status).toBe(400);
    expect(outside.body.errors[0].field).toBe('position');
    expect((await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${b.id}`, { key: s.key, body: { position: 100 } })).status).toBe(400);
    expect(await order()).toEqual(['0C', '1B', '2A']);
  });

  it('rejects type without its content, content of another type, and an empty body with 400', async () => {
    const s = await setup();
    const r = await createResource(s.key, s.programId, link('Guide'));
    const patch = (body: unknown) => app.request('PATCH', `/v2/campaign/${s.programId}/resources/${r.id}`, { key: s.key, body });
    const typeOnly = await patch({ type: 'TEXT' });
    expect(typeOnly.status).toBe(400);
    expect(typeOnly.body.errors[0]).toMatchObject({ field: 'text', code: 'REQUIRED' });
    expect((await patch({ type: 'LINK' })).status).toBe(400);
    const wrongKind = await patch({ text: 'hello' });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.errors[0].field).toBe('text');
    expect((await patch({})).status).toBe(400);
    expect((await patch({ url: 'http://example.com' })).status).toBe(400);
  });

  it('replaces a FILE with uploadTicket and uploadResult alone and deletes the old file', async () => {
    const s = await setup();
    const first = await uploadedPng(s.key, s.programId);
    const r = await createResource(s.key, s.programId, { type: 'FILE', title: 'Logo', uploadTicket: first.ticket, uploadResult: first.result });
    const oldKey = (await app.deps.db.knex('program_resources').where({ id: r.id }).first()).file_key;
    const second = await uploadedPng(s.key, s.programId);
    const res = await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${r.id}`, { key: s.key, body: { uploadTicket: second.ticket, uploadResult: second.result } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.file).toMatchObject({ fileName: 'logo.png', format: 'png' });
    const newKey = (await app.deps.db.knex('program_resources').where({ id: r.id }).first()).file_key;
    expect(newKey).not.toBe(oldKey);
    expect(fs.existsSync(fileOfKey(oldKey))).toBe(false);
    expect(fs.existsSync(fileOfKey(newKey))).toBe(true);
    // Switching to a link releases the file too.
    await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${r.id}`, { key: s.key, body: { type: 'LINK', url: 'https://example.com' } });
    expect(fs.existsSync(fileOfKey(newKey))).toBe(false);
  });

  it('is refused without program:write and for a program outside the key’s grant (403)', async () => {
    const s = await setup();
    const r = await createResource(s.key, s.programId, link('Guide'));
    const readOnly = await keyWith(s.teamId, ['program:read']);
    expect((await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${r.id}`, { key: readOnly, body: { title: 'x' } })).status).toBe(403);
    const limited = await keyWith(s.teamId, ['program:read', 'program:write'], ['someotherprogram']);
    expect((await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${r.id}`, { key: limited, body: { title: 'x' } })).status).toBe(403);
  });

  it('answers 404 for an unknown resource and for a resource of another program', async () => {
    const s = await setup();
    const other = await app.request('POST', '/v2/campaigns', { key: s.key, body: { type: 'AFFILIATE' } });
    const r = await createResource(s.key, other.body.id, link('Elsewhere'));
    expect((await app.request('PATCH', `/v2/campaign/${s.programId}/resources/nosuchresource`, { key: s.key, body: { title: 'x' } })).status).toBe(404);
    expect((await app.request('PATCH', `/v2/campaign/${s.programId}/resources/${r.id}`, { key: s.key, body: { title: 'x' } })).status).toBe(404);
  });
});

describe('DELETE /campaign/{id}/resources/{resourceId}', () => {
  it('deletes a resource and closes the gap in positions', async () => {
    const s = await setup();
    const a = await createResource(s.key, s.programId, link('A'));
    const b = await createResource(s.key, s.programId, link('B'));
    const c = await createResource(s.key, s.programId, link('C'));
    const res = await app.request('DELETE', `/v2/campaign/${s.programId}/resources/${b.id}`, { key: s.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: b.id, success: true });
    const list = await app.request('GET', `/v2/campaign/${s.programId}/resources`, { key: s.key });
    expect(list.body.resources.map((r: { id: string; position: number }) => [r.id, r.position])).toEqual([
      [a.id, 0],
      [c.id, 1],
    ]);
  });

  // R4 takes no input, so there is nothing to reject: DELETE bodies are never parsed.
  it('takes no input: the empty JSON body the Python client sends is accepted', async () => {
    const s = await setup();
    const a = await createResource(s.key, s.programId, link('A'));
    const res = await app.request('DELETE', `/v2/campaign/${s.programId}/resources/${a.id}`, { key: s.key, raw: '', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
  });

  it('is refused without program:write and for a program outside the key’s grant (403)', async () => {
    const s = await setup();
    const a = await createResource(s.key, s.programId, link('A'));
    const readOnly = await keyWith(s.teamId, ['program:read']);
    expect((await app.request('DELETE', `/v2/campaign/${s.programId}/resources/${a.id}`, { key: readOnly })).status).toBe(403);
    const limited = await keyWith(s.teamId, ['program:write'], ['someotherprogram']);
    expect((await app.request('DELETE', `/v2/campaign/${s.programId}/resources/${a.id}`, { key: limited })).status).toBe(403);
  });

  it('answers 404 for an unknown or already deleted resource', async () => {
    const s = await setup();
    const a = await createResource(s.key, s.programId, link('A'));
    expect((await app.request('DELETE', `/v2/campaign/${s.programId}/resources/${a.id}`, { key: s.key })).status).toBe(200);
    expect((await app.request('DELETE', `/v2/campaign/${s.programId}/resources/${a.id}`, { key: s.key })).status).toBe(404);
  });
});

describe('POST /campaign/{id}/clone with resources', () => {
  it('copies the resources; the copy keeps its file when the original deletes its resource', async () => {
    const s = await setup();
    const up = await uploadedPng(s.key, s.programId);
    const r = await createResource(s.key, s.programId, { type: 'FILE', title: 'Logo', isPublished: true, uploadTicket: up.ticket, uploadResult: up.result });
    await createResource(s.key, s.programId, link('Guide'));
    const clone = await app.request('POST', `/v2/campaign/${s.programId}/clone`, { key: s.key });
    expect(clone.status, clone.text).toBe(200);
    const copied = (await app.request('GET', `/v2/campaign/${clone.body.id}/resources`, { key: s.key })).body.resources;
    expect(copied.map((c: { title: string; position: number }) => `${c.position}${c.title}`)).toEqual(['0Logo', '1Guide']);
    const key = (await app.deps.db.knex('program_resources').where({ id: r.id }).first()).file_key;
    await app.request('DELETE', `/v2/campaign/${s.programId}/resources/${r.id}`, { key: s.key });
    expect(fs.existsSync(fileOfKey(key))).toBe(true);
    const dl = await fetch(app.local((await app.deps.resources.downloadUrl(clone.body.id, copied[0].id)).url));
    expect(Buffer.from(await dl.arrayBuffer()).equals(up.bytes)).toBe(true);
    await app.request('DELETE', `/v2/campaign/${clone.body.id}/resources/${copied[0].id}`, { key: s.key });
    expect(fs.existsSync(fileOfKey(key))).toBe(false);
  });
});

describe('sniffFileKind', () => {
  it('names each allowlisted format by its magic number and never by a text look-alike', () => {
    const kind = (bytes: number[] | string, text = false) => sniffFileKind(Buffer.from(bytes as never), text);
    expect(kind([0xff, 0xd8, 0xff, 0xe0])).toBe('jpeg');
    expect(kind([...pngBytes().subarray(0, 8)])).toBe('png');
    expect(kind('GIF89a')).toBe('gif');
    expect(kind('RIFF\x00\x00\x00\x00WEBPVP8 ')).toBe('webp');
    expect(kind('%PDF-1.7')).toBe('pdf');
    expect(kind([0x50, 0x4b, 0x03, 0x04])).toBe('zip');
    expect(kind([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])).toBe('ole');
    expect(kind('a,b\n', true)).toBe('text');
    expect(kind('a,b\n', false)).toBe(null);
  });

  it('tells UTF-8 text from binary across chunk boundaries', () => {
    const text = new ContentInspector();
    const euro = Buffer.from('€'); // three bytes, split across chunks
    text.push(Buffer.concat([Buffer.from('a,'), euro.subarray(0, 1)]));
    text.push(euro.subarray(1));
    expect(text.finish()).toBe('text');
    const cut = new ContentInspector();
    cut.push(Buffer.concat([Buffer.from('a,'), euro.subarray(0, 2)]));
    expect(cut.finish()).toBe(null);
    const nul = new ContentInspector();
    nul.push(Buffer.from('a\u0000b'));
    expect(nul.finish()).toBe(null);
  });
});
