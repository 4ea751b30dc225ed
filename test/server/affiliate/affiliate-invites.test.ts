import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';

// Affiliate invites (rest-v2 §2.33, §3.12 AF4–AF7) and the accept link page (issue #6).

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

const DAY = 86_400_000;

async function setup(opts: { type?: 'AFFILIATE' | 'REFERRAL'; verified?: boolean } = {}) {
  const acct = await verifiedAccount(app);
  if (opts.verified !== false) await app.deps.teams.approveVerification(acct.teamId);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: opts.type ?? 'AFFILIATE', companyName: 'Acme' } });
  expect(res.status, res.text).toBe(200);
  return { key: acct.key, teamId: acct.teamId, pid: res.body.id as string };
}
type Fixture = Awaited<ReturnType<typeof setup>>;

const invite = (p: Fixture, body: unknown, key = p.key) => app.request('POST', `/v2/campaign/${p.pid}/affiliate-invites`, { key, body });
const mails = (to: string) => app.deps.mailer.list({ to }).then((l) => l.filter((m) => m.kind === 'affiliate.invite'));
/** The accept link of the newest invite email to `to`, on this server. */
const acceptLink = async (to: string) => app.local((await mails(to))[0]!.links.find((l) => l.includes('/affiliate-invite?token='))!);
const accept = (link: string) => fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });

async function limitedKey(teamId: string, scopes: string[]) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds: null, origin: 'CLI' })).secret;
}

describe('POST /campaign/{id}/affiliate-invites', () => {
  it('records a pending invite and emails a single-use accept link, storing only its hash', async () => {
    const p = await setup();
    const res = await invite(p, { email: 'erlich@aviato.com', firstName: 'Erlich', lastName: 'Bachman' });
    expect(res.status, res.text).toBe(200);
    const now = app.clock.now();
    expect(res.body).toEqual({ id: expect.any(String), email: 'erlich@aviato.com', firstName: 'Erlich', lastName: 'Bachman', status: 'PENDING', createdAt: now, expiresAt: now + 14 * DAY, lastSentAt: now, acceptedAt: null, revokedAt: null });
    const [mail] = await mails('erlich@aviato.com');
    expect(mail!.subject).toBe('You are invited to the Acme affiliate program');
    expect(mail!.text).toContain('Hello Erlich,');
    const token = new URL(await acceptLink('erlich@aviato.com')).searchParams.get('token')!;
    const row = await app.deps.db.knex('affiliate_invites').where({ id: res.body.id }).first();
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('allows one active invite per email (409), again once the first expired', async () => {
    const p = await setup();
    expect((await invite(p, { email: 'dup@example.com' })).status).toBe(200);
    const second = await invite(p, { email: 'DUP@example.com' });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('CONFLICT_ERROR');
    app.clock.advance(14 * DAY);
    expect((await invite(p, { email: 'dup@example.com' })).status).toBe(200);
    const list = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-invites`, { key: p.key });
    expect(list.body.invites.map((i: { status: string }) => i.status)).toEqual(['PENDING', 'EXPIRED']);
  });

  it('keeps one active invite when two are made at once', async () => {
    const p = await setup();
    const both = await Promise.all([invite(p, { email: 'race@example.com' }), invite(p, { email: 'race@example.com' })]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await mails('race@example.com')).toHaveLength(1);
  });

  it('refuses an address that already belongs to an affiliate (409)', async () => {
    const p = await setup();
    await app.request('POST', `/v2/campaign/${p.pid}/participant`, { key: p.key, body: { email: 'already@example.com' } });
    expect((await invite(p, { email: 'already@example.com' })).status).toBe(409);
  });

  it('answers 403 TEAM_NOT_VERIFIED_ERROR and sends nothing while the team is not verified', async () => {
    const p = await setup({ verified: false });
    const res = await invite(p, { email: 'unverified@example.com' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('TEAM_NOT_VERIFIED_ERROR');
    expect(await mails('unverified@example.com')).toHaveLength(0);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/affiliate-invites`, { key: p.key })).body.total).toBe(0);
  });

  it('validates the body (400), needs participant:write (403) and an affiliate program (422)', async () => {
    const p = await setup();
    for (const body of [{}, { email: 'not-an-email' }, { email: 'a@example.com', firstName: 'x'.repeat(256) }, { email: 'a@example.com', extra: 1 }]) {
      expect((await invite(p, body)).status, JSON.stringify(body)).toBe(400);
    }
    const readOnly = await limitedKey(p.teamId, ['participant:read']);
    expect((await invite(p, { email: 'a@example.com' }, readOnly)).status).toBe(403);
    expect((await app.request('POST', `/v2/campaign/${p.pid}/affiliate-invites/x/resend`, { key: readOnly })).status).toBe(403);
    expect((await app.request('DELETE', `/v2/campaign/${p.pid}/affiliate-invites/x`, { key: readOnly })).status).toBe(403);
    const r = await setup({ type: 'REFERRAL' });
    expect((await invite(r, { email: 'a@example.com' })).status).toBe(422);
    expect((await app.request('GET', `/v2/campaign/${r.pid}/affiliate-invites`, { key: r.key })).status).toBe(422);
    expect((await app.request('DELETE', `/v2/campaign/${r.pid}/affiliate-invites/x`, { key: r.key })).status).toBe(422);
    expect((await app.request('POST', `/v2/campaign/${r.pid}/affiliate-invites/x/resend`, { key: r.key })).status).toBe(422);
  });
});

describe('GET /campaign/{id}/affiliate-invites', () => {
  it('pages newest first with the filter’s total; needs participant:read', async () => {
    const p = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push((await invite(p, { email: `i${i}@example.com` })).body.id);
      app.clock.advance(1000);
    }
    await app.request('DELETE', `/v2/campaign/${p.pid}/affiliate-invites/${ids[1]}`, { key: p.key });
    const page = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-invites?status=PENDING&limit=2&offset=1`, { key: p.key });
    expect(page.status, page.text).toBe(200);
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.body.invites.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[0]]);
    const revoked = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-invites?status=REVOKED`, { key: p.key });
    expect(revoked.body.invites.map((i: { id: string }) => i.id)).toEqual([ids[1]]);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/affiliate-invites?limit=101`, { key: p.key })).status).toBe(400);
    const writeOnly = await limitedKey(p.teamId, ['participant:write']);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/affiliate-invites`, { key: writeOnly })).status).toBe(403);
  });
});

describe('accepting an invite', () => {
  it('enrolls the invitee as an APPROVED affiliate with source INVITE; the link works once', async () => {
    const p = await setup();
    const created = await invite(p, { email: 'accept@example.com', firstName: 'Ann' });
    const link = await acceptLink('accept@example.com');
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(await page.text()).toContain('Join the Acme affiliate program');
    // GET alone (a mail scanner) changes nothing.
    expect((await app.deps.db.knex('affiliate_invites').where({ id: created.body.id }).first()).status).toBe('PENDING');
    const done = await accept(link);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Your affiliate link');
    const participant = await app.request('GET', `/v2/campaign/${p.pid}/participant/accept@example.com`, { key: p.key });
    expect(participant.body).toMatchObject({ firstName: 'Ann', isAffiliate: true, affiliateStatus: 'APPROVED', affiliateEnrollmentSource: 'INVITE' });
    const list = await app.request('GET', `/v2/campaign/${p.pid}/affiliate-invites`, { key: p.key });
    expect(list.body.invites[0]).toMatchObject({ id: created.body.id, status: 'ACCEPTED', acceptedAt: app.clock.now() });
    expect((await accept(link)).status).toBe(400);
    expect((await fetch(link)).status).toBe(400);
    // Accepted invites are no longer pending.
    expect((await app.request('DELETE', `/v2/campaign/${p.pid}/affiliate-invites/${created.body.id}`, { key: p.key })).status).toBe(406);
  });

  it('upgrades an existing non-affiliate with the invited address', async () => {
    const p = await setup();
    const aff = await app.request('POST', `/v2/campaign/${p.pid}/participant`, { key: p.key, body: { email: 'boss@example.com' } });
    const customer = await app.request('POST', `/v2/campaign/${p.pid}/participant`, { key: p.key, body: { email: 'buyer@example.com', referredBy: aff.body.id } });
    await invite(p, { email: 'buyer@example.com' });
    expect((await accept(await acceptLink('buyer@example.com'))).status).toBe(200);
    const after = await app.request('GET', `/v2/campaign/${p.pid}/participant/${customer.body.id}`, { key: p.key });
    expect(after.body).toMatchObject({ isAffiliate: true, affiliateStatus: 'APPROVED', affiliateEnrollmentSource: 'INVITE' });
  });

  it('answers a fraud block on acceptance with an HTML page, enrolling nobody and keeping the invite pending', async () => {
    const p = await setup();
    const created = await invite(p, { email: 'blocked@example.com' });
    const opts = await app.request('PATCH', `/v2/campaign/${p.pid}/options`, { key: p.key, body: { fraud: { blockedEmails: ['blocked@example.com'] } } });
    expect(opts.status, opts.text).toBe(200);
    const res = await accept(await acceptLink('blocked@example.com'));
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('blocked');
    expect((await app.request('GET', `/v2/campaign/${p.pid}/participants`, { key: p.key })).body.participants).toHaveLength(0);
    expect((await app.deps.db.knex('affiliate_invites').where({ id: created.body.id }).first()).status).toBe('PENDING');
  });

  it('refuses an expired link (410) and marks the invite EXPIRED', async () => {
    const p = await setup();
    const created = await invite(p, { email: 'late@example.com' });
    const link = await acceptLink('late@example.com');
    app.clock.advance(14 * DAY + 1);
    expect((await fetch(link)).status).toBe(410);
    expect((await accept(link)).status).toBe(410);
    const row = await app.deps.db.knex('affiliate_invites').where({ id: created.body.id }).first();
    expect(row).toMatchObject({ status: 'EXPIRED', token_hash: null });
    expect((await app.request('GET', `/v2/campaign/${p.pid}/participants`, { key: p.key })).body.participants).toHaveLength(0);
  });
});

describe('DELETE /campaign/{id}/affiliate-invites/{inviteId}', () => {
  it('revokes a pending invite and its link stops working at once', async () => {
    const p = await setup();
    const created = await invite(p, { email: 'revoke@example.com' });
    const link = await acceptLink('revoke@example.com');
    const res = await app.request('DELETE', `/v2/campaign/${p.pid}/affiliate-invites/${created.body.id}`, { key: p.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: created.body.id, status: 'REVOKED', revokedAt: app.clock.now() });
    expect((await accept(link)).status).toBe(400);
    expect((await app.request('DELETE', `/v2/campaign/${p.pid}/affiliate-invites/${created.body.id}`, { key: p.key })).status).toBe(406);
    expect((await app.request('DELETE', `/v2/campaign/${p.pid}/affiliate-invites/unknown`, { key: p.key })).status).toBe(404);
    // A new invite to the same address is allowed once the old one is revoked.
    expect((await invite(p, { email: 'revoke@example.com' })).status).toBe(200);
  });
});

describe('POST /campaign/{id}/affiliate-invites/{inviteId}/resend', () => {
  it('sends a fresh link (the old one stops working), limited per invite with 429', async () => {
    const p = await setup();
    const created = await invite(p, { email: 'resend@example.com' });
    const oldLink = await acceptLink('resend@example.com');
    const tooSoon = await app.request('POST', `/v2/campaign/${p.pid}/affiliate-invites/${created.body.id}/resend`, { key: p.key });
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.body).toMatchObject({ name: 'RateLimit', code: 'RATE_LIMIT', status: 429, policyName: 'AFFILIATE_INVITE_RESEND', level: 'error', timestamp: expect.any(String), message: expect.any(String) });
    expect(tooSoon.headers.get('retry-after')).toBe('300');
    // Another invite is not affected by this one's limit.
    const other = await invite(p, { email: 'other@example.com' });
    expect(other.status).toBe(200);
    app.clock.advance(5 * 60_000);
    const res = await app.request('POST', `/v2/campaign/${p.pid}/affiliate-invites/${created.body.id}/resend`, { key: p.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'PENDING', lastSentAt: app.clock.now(), expiresAt: app.clock.now() + 14 * DAY, createdAt: created.body.createdAt });
    expect(await mails('resend@example.com')).toHaveLength(2);
    const newLink = await acceptLink('resend@example.com');
    expect(newLink).not.toBe(oldLink);
    expect((await accept(oldLink)).status).toBe(400);
    expect((await accept(newLink)).status).toBe(200);
    expect((await app.request('POST', `/v2/campaign/${p.pid}/affiliate-invites/${created.body.id}/resend`, { key: p.key })).status).toBe(406);
    expect((await app.request('POST', `/v2/campaign/${p.pid}/affiliate-invites/unknown/resend`, { key: p.key })).status).toBe(404);
  });

  it('answers 403 when the team is no longer verified, sending nothing', async () => {
    const p = await setup();
    const created = await invite(p, { email: 'unv@example.com' });
    await app.deps.db.knex('teams').where({ id: p.teamId }).update({ verification_status: 'REQUESTED' });
    app.clock.advance(10 * 60_000);
    const res = await app.request('POST', `/v2/campaign/${p.pid}/affiliate-invites/${created.body.id}/resend`, { key: p.key });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('TEAM_NOT_VERIFIED_ERROR');
    expect(await mails('unv@example.com')).toHaveLength(1);
  });
});
