import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, mobile, mobileProgram, session, type MobileProgramFixture } from '../../helpers/mobile.ts';

// Issue #7: the participant resource list (MRS2) the widget's Resources panel draws from.

let app: TestApp;
let dataDir: string;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-mobile-resources-'));
  app = await startApp({ ...RAISED_LIMITS, DATA_DIR: dataDir });
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

async function tokenFor(p: MobileProgramFixture, email: string) {
  const res = await app.request('POST', `/v2/campaign/${p.pid}/mobile-participant-token`, { key: p.key, body: { email } });
  expect(res.status, res.text).toBe(200);
  return res.body.participantToken as string;
}

async function createResource(p: MobileProgramFixture, body: Record<string, unknown>) {
  const res = await app.request('POST', `/v2/campaign/${p.pid}/resources`, { key: p.key, body });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; file: { moderationStatus: string } | null };
}

/** A FILE resource through the real path: R5 ticket, the upload endpoint, then R2. */
async function fileResource(p: MobileProgramFixture, title: string, isPublished = true) {
  const t = await app.request('POST', `/v2/campaign/${p.pid}/resource-upload-tickets`, { key: p.key, body: { fileName: 'kit.pdf', mimeType: 'application/pdf', bytes: PDF.length } });
  expect(t.status, t.text).toBe(200);
  const form = new FormData();
  for (const [k, v] of Object.entries(t.body.uploadParameters as Record<string, string>)) form.append(k, String(v));
  form.append('file', new Blob([new Uint8Array(PDF)], { type: 'application/pdf' }), 'kit.pdf');
  const up = await fetch(app.local(t.body.uploadUrl), { method: 'POST', body: form });
  expect(up.status).toBe(200);
  return createResource(p, { type: 'FILE', title, isPublished, uploadTicket: t.body.ticket, uploadResult: await up.json() });
}

describe('GET /mobile/v2/resources', () => {
  it('lists the published resources in order as participants see them: LINK with url, TEXT with text, FILE without a link', async () => {
    const p = await mobileProgram(app);
    const link = await createResource(p, { type: 'LINK', title: 'Brand guide', description: 'Logos and colours', category: 'Brand', url: 'https://example.com/brand', isPublished: true });
    const text = await createResource(p, { type: 'TEXT', title: 'Sample post', text: 'I love this shop!', isPublished: true });
    const file = await fileResource(p, 'Media kit');
    expect(file.file?.moderationStatus).toBe('APPROVED');
    const s = await session(app, p);
    const participantToken = await tokenFor(p, 'ann@example.com');

    const res = await mobile(app, 'GET', '/resources', s, { participantToken });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      resources: [
        { id: link.id, type: 'LINK', title: 'Brand guide', description: 'Logos and colours', category: 'Brand', url: 'https://example.com/brand', text: null, file: null },
        { id: text.id, type: 'TEXT', title: 'Sample post', description: null, category: null, url: null, text: 'I love this shop!', file: null },
        { id: file.id, type: 'FILE', title: 'Media kit', description: null, category: null, url: null, text: null, file: { fileName: 'kit.pdf', mimeType: 'application/pdf', bytes: PDF.length } },
      ],
    });
    // Nothing private: no storage key, publishing or moderation data anywhere in the answer.
    expect(res.text).not.toMatch(/file_key|fileKey|isPublished|moderationStatus|\/files\/resources/);

    // The listed FILE opens through MRS1, with a fresh link that serves the bytes.
    const dl = await mobile(app, 'POST', `/resources/${file.id}/download-url`, s, { participantToken, body: {} });
    expect(dl.status, dl.text).toBe(200);
    const got = await fetch(app.local(dl.body.url));
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(PDF)).toBe(true);
  });

  it('leaves out unpublished resources, files not approved, and other programs’ resources', async () => {
    const p = await mobileProgram(app);
    const other = await mobileProgram(app);
    const shown = await createResource(p, { type: 'LINK', title: 'Shown', url: 'https://example.com/a', isPublished: true });
    await createResource(p, { type: 'TEXT', title: 'Draft', text: 'Not yet' });
    await fileResource(p, 'Draft file', false);
    const pending = await fileResource(p, 'Pending file');
    // A file the moderation has not approved (yet) is as good as unpublished for participants.
    await app.deps.db.knex('program_resources').where({ id: pending.id }).update({ file_moderation_status: 'PENDING' });
    await createResource(other, { type: 'LINK', title: 'Elsewhere', url: 'https://example.com/b', isPublished: true });
    const s = await session(app, p);
    const participantToken = await tokenFor(p, 'ann@example.com');

    const list = async () => (await mobile(app, 'GET', '/resources', s, { participantToken })).body.resources.map((r: { title: string }) => r.title);
    expect(await list()).toEqual(['Shown']);
    // Unpublishing over REST (R3) takes it off the participants' list at once.
    const patched = await app.request('PATCH', `/v2/campaign/${p.pid}/resources/${shown.id}`, { key: p.key, body: { isPublished: false } });
    expect(patched.status, patched.text).toBe(200);
    expect(await list()).toEqual([]);
  });

  it('answers 403 to a visitor who is not signed in and to a token of another program', async () => {
    const p = await mobileProgram(app);
    const other = await mobileProgram(app);
    await createResource(p, { type: 'LINK', title: 'Brand guide', url: 'https://example.com/brand', isPublished: true });
    const s = await session(app, p);

    const anonymous = await mobile(app, 'GET', '/resources', s);
    expect(anonymous.status).toBe(403);
    expect(anonymous.body.errors).toEqual([expect.objectContaining({ field: 'Authorization', code: 'MISSING' })]);
    expect(anonymous.text).not.toContain('Brand guide');

    const foreign = await mobile(app, 'GET', '/resources', s, { participantToken: await tokenFor(other, 'ann@example.com') });
    expect(foreign.status).toBe(403);
    expect(foreign.body.errors).toEqual([expect.objectContaining({ field: 'Authorization', code: 'INVALID' })]);
  });

  it('is in the participant API’s OpenAPI document with its answer schema', async () => {
    const res = await app.request('GET', '/openapi/mobile-v2.json');
    expect(res.status).toBe(200);
    const op = res.body.paths['/resources']?.get;
    expect(op, Object.keys(res.body.paths).join(' ')).toBeDefined();
    expect(JSON.stringify(op.responses['200'])).toContain('MobileResourceList');
    expect(res.body.components.schemas.MobileResource.properties).toHaveProperty('file');
  });
});
