import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { addParticipant, mobile, mobileProgram, session, type MobileProgramFixture } from '../../helpers/mobile.ts';
import { sha256 } from '../../../server/crypto.ts';

// One-time email sign-in for returning participants (web-sdk.md §5): POST /mobile/v2/participant/login-link
// mails the transactional loginLink template; POST …/login-link/redeem exchanges its token once.

let app: TestApp;
beforeAll(async () => {
  // TRUST_PROXY so each test can be its own address (X-Forwarded-For) for the per-IP budget.
  app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '0', TRUST_PROXY: 'true' });
});
afterAll(async () => {
  await app.close();
});

const MINUTE = 60_000;
const SITE = 'https://shop.example.com';

async function setup(opts: { verified?: boolean; installation?: Record<string, unknown> } = {}): Promise<MobileProgramFixture> {
  const p = await mobileProgram(app, { installation: opts.installation ?? { shareUrl: `${SITE}/refer`, allowedDomains: ['shop.example.com'] } });
  if (opts.verified !== false) await app.deps.teams.approveVerification(p.teamId);
  return p;
}

const uniqueEmail = (name: string) => `${name}.${crypto.randomBytes(4).toString('hex')}@example.com`;
let nextIp = 0;
/** A fresh client address per call, so only the per-IP test meets the per-IP budget. */
const ipHeaders = () => ({ 'x-forwarded-for': `198.51.${100 + Math.floor(++nextIp / 250)}.${nextIp % 250}`, origin: SITE });
/** MA2, then the queued job that decides and sends (JOBS=false here, so it runs when told). */
async function requestLink(s: { token: string }, body: unknown, headers = ipHeaders()) {
  const res = await mobile(app, 'POST', '/participant/login-link', s, { body, headers });
  await app.deps.jobs.runDue();
  return res;
}
const redeem = (s: { token: string }, token: string) => mobile(app, 'POST', '/participant/login-link/redeem', s, { body: { token }, headers: { origin: SITE } });
/** The sign-in links mailed to `to`, newest first. */
const loginLinks = async (to: string) => (await app.deps.mailer.list({ to })).filter((m) => m.kind === 'program.loginLink').flatMap((m) => m.links.filter((l) => l.includes('grsfLogin=')));
const tokenOf = (link: string) => new URL(link).searchParams.get('grsfLogin')!;

describe('POST /mobile/v2/participant/login-link', () => {
  it('mails the loginLink template with a link back to the page, carrying a token that is stored only hashed', async () => {
    const p = await setup();
    const email = uniqueEmail('ann');
    await addParticipant(app, p, { email });
    const s = await session(app, p, { origin: SITE });
    const res = await requestLink(s, { email: email.toUpperCase(), returnUrl: `${SITE}/account?tab=1&grsfLogin=stale#top` });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ sent: true });
    const mails = (await app.deps.mailer.list({ to: email })).filter((m) => m.kind === 'program.loginLink');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Your sign-in link');
    const [link] = await loginLinks(email);
    const url = new URL(link!);
    expect(url.origin + url.pathname).toBe(`${SITE}/account`);
    expect(url.searchParams.get('tab')).toBe('1');
    expect(url.searchParams.getAll('grsfLogin')).toHaveLength(1);
    expect(url.hash).toBe('#top');
    const token = tokenOf(link!);
    expect(token).not.toBe('stale');
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
    const rows = await app.deps.db.knex('participant_login_tokens').where({ program_id: p.pid });
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(sha256(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(Number(rows[0].expires_at) - Number(rows[0].created_at)).toBe(15 * MINUTE);
  });

  it('does the same work in the request for a known and an unknown email: one queued job, the address sealed', async () => {
    const p = await setup();
    const known = uniqueEmail('known');
    const unknown = uniqueEmail('unknown');
    await addParticipant(app, p, { email: known });
    const s = await session(app, p, { origin: SITE });
    const knex = app.deps.db.knex;
    const jobsBefore = Number((await knex('jobs').count({ n: '*' }).first())?.n);
    for (const email of [known, unknown]) {
      const res = await mobile(app, 'POST', '/participant/login-link', s, { body: { email }, headers: ipHeaders() });
      expect(res.body).toEqual({ sent: true });
    }
    const queued = await knex('jobs').where({ type: 'login-link.send', status: 'QUEUED' });
    expect(queued).toHaveLength(2);
    expect(Number((await knex('jobs').count({ n: '*' }).first())?.n)).toBe(jobsBefore + 2);
    expect(JSON.stringify(queued)).not.toContain(known);
    expect(JSON.stringify(queued)).not.toContain(unknown);
    expect(await knex('participant_login_tokens').where({ program_id: p.pid })).toHaveLength(0);
    await app.deps.jobs.runDue();
    expect(await loginLinks(known)).toHaveLength(1);
    expect(await app.deps.mailer.list({ to: unknown })).toHaveLength(0);
  });

  it('answers the same 200 for an unknown email and mails nothing', async () => {
    const p = await setup();
    const email = uniqueEmail('nobody');
    const s = await session(app, p, { origin: SITE });
    const res = await requestLink(s, { email, returnUrl: `${SITE}/page` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sent: true });
    expect(await app.deps.mailer.list({ to: email })).toHaveLength(0);
    expect(await app.deps.db.knex('participant_login_tokens').where({ program_id: p.pid })).toHaveLength(0);
  });

  it('falls back to the installation shareUrl for a returnUrl outside the program’s sites, or none', async () => {
    const p = await setup();
    const email = uniqueEmail('cat');
    await addParticipant(app, p, { email });
    const s = await session(app, p, { origin: SITE });
    expect((await requestLink(s, { email, returnUrl: 'https://evil.example.net/steal' })).status).toBe(200);
    expect((await requestLink(s, { email, returnUrl: 'javascript:alert(1)' })).status).toBe(200);
    expect((await requestLink(s, { email })).status).toBe(200);
    const links = await loginLinks(email);
    expect(links).toHaveLength(3);
    for (const l of links) expect(l.startsWith(`${SITE}/refer?grsfLogin=`)).toBe(true);
  });

  it('accepts only the shareUrl’s own host when the program allows any site', async () => {
    const p = await setup({ installation: { shareUrl: `${SITE}/refer` } });
    const email = uniqueEmail('dan');
    await addParticipant(app, p, { email });
    const s = await session(app, p, { origin: SITE });
    await requestLink(s, { email, returnUrl: 'https://elsewhere.example.org/x' });
    await requestLink(s, { email, returnUrl: `${SITE}/deep/page` });
    const links = await loginLinks(email);
    expect(links.map((l) => new URL(l).pathname).sort()).toEqual(['/deep/page', '/refer']);
  });

  it('sends to a participant who unsubscribed from program emails: the link was asked for', async () => {
    const p = await setup();
    const email = uniqueEmail('unsub');
    const added = await addParticipant(app, p, { email });
    await app.deps.db.knex('participants').where({ id: added.id }).update({ unsubscribed: true });
    const s = await session(app, p, { origin: SITE });
    await requestLink(s, { email });
    expect(await loginLinks(email)).toHaveLength(1);
  });

  it('sends nothing while the team is not VERIFIED, records the skip in the activity log and still answers sent: true', async () => {
    const p = await setup({ verified: false });
    const email = uniqueEmail('early');
    const added = await addParticipant(app, p, { email });
    const s = await session(app, p, { origin: SITE });
    const res = await requestLink(s, { email });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sent: true });
    expect(await loginLinks(email)).toHaveLength(0);
    expect(await app.deps.db.knex('participant_login_tokens').where({ program_id: p.pid })).toHaveLength(0);
    const rows = await app.deps.db.knex('activity_logs').where({ program_id: p.pid, participant_id: added.id, action: 'email.skipped' });
    // (The welcome email of the sign-up is skipped too.)
    const skipped = rows.map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data)).filter((d) => d.emailType === 'loginLink');
    expect(skipped).toEqual([expect.objectContaining({ emailType: 'loginLink', reason: 'TEAM_NOT_VERIFIED' })]);
  });

  it('answers 429 with the participant API’s error object and headers past the per-email budget, for members and strangers alike', async () => {
    const p = await setup();
    const member = uniqueEmail('busy');
    await addParticipant(app, p, { email: member });
    const stranger = uniqueEmail('ghost');
    const s = await session(app, p, { origin: SITE });
    for (const email of [member, stranger]) {
      for (let i = 0; i < 3; i++) expect((await requestLink(s, { email })).status).toBe(200);
      const res = await requestLink(s, { email });
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ code: 'RATE_LIMIT', policyName: 'LOGIN_LINK_EMAIL' });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.headers.get('ratelimit-policy')).toContain('"login-email";q=3;w=900');
    }
    expect(await loginLinks(member)).toHaveLength(3);
  });

  it('answers 429 past the per-IP budget', async () => {
    const p = await setup();
    const s = await session(app, p, { origin: SITE });
    const headers = { 'x-forwarded-for': '192.0.2.77', origin: SITE };
    for (let i = 0; i < 20; i++) expect((await requestLink(s, { email: uniqueEmail(`n${i}`) }, headers)).status).toBe(200);
    const res = await requestLink(s, { email: uniqueEmail('last') }, headers);
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ code: 'RATE_LIMIT', policyName: 'LOGIN_LINK_IP' });
  });

  it('answers 400 for an invalid body', async () => {
    const p = await setup();
    const s = await session(app, p, { origin: SITE });
    const res = await requestLink(s, { email: 'not-an-email', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST_ERROR');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('email');
  });

  it('answers 403 without a session token', async () => {
    const p = await setup();
    const res = await app.request('POST', '/mobile/v2/participant/login-link', { headers: { 'x-program-id': p.pid, origin: SITE }, body: { email: 'a@example.com' } });
    expect(res.status).toBe(403);
  });
});

describe('POST /mobile/v2/participant/login-link/redeem', () => {
  async function linkFor(p: MobileProgramFixture, name: string) {
    const email = uniqueEmail(name);
    const added = await addParticipant(app, p, { email, firstName: 'Ann' });
    const s = await session(app, p, { origin: SITE });
    await requestLink(s, { email, returnUrl: `${SITE}/account` });
    const [link] = await loginLinks(email);
    return { s, email, id: added.id, token: tokenOf(link!) };
  }

  it('exchanges the token once for a participant token that opens participant-scoped calls', async () => {
    const p = await setup();
    const { s, email, id, token } = await linkFor(p, 'redeem');
    const res = await redeem(s, token);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ participantToken: expect.any(String), expiresIn: 2592000, participant: expect.objectContaining({ id, email, firstName: 'Ann' }) });
    const own = await mobile(app, 'GET', '/participant', s, { participantToken: res.body.participantToken, headers: { origin: SITE } });
    expect(own.status, own.text).toBe(200);
    expect(own.body.id).toBe(id);
    const row = await app.deps.db.knex('participant_login_tokens').where({ token_hash: sha256(token) }).first();
    expect(Number(row.used_at)).toBe(app.clock.now());

    const again = await redeem(s, token);
    expect(again.status).toBe(403);
    expect(again.body).toMatchObject({ code: 'NOT_AUTHORIZED_ERROR', message: 'This sign-in link is invalid, expired or already used. Ask for a new one.' });
  });

  it('refuses an expired token with the same 403', async () => {
    const p = await setup();
    const { s, token } = await linkFor(p, 'late');
    app.clock.advance(15 * MINUTE);
    const res = await redeem(s, token);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('This sign-in link is invalid, expired or already used. Ask for a new one.');
  });

  it('refuses another program’s token and an unknown token with the same 403', async () => {
    const p = await setup();
    const { token } = await linkFor(p, 'other');
    const q = await setup();
    const sq = await session(app, q, { origin: SITE });
    for (const t of [token, 'x'.repeat(32)]) {
      const res = await redeem(sq, t);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('This sign-in link is invalid, expired or already used. Ask for a new one.');
    }
    // Not spent by the failed attempt elsewhere.
    const sp = await session(app, p, { origin: SITE });
    expect((await redeem(sp, token)).status).toBe(200);
  });

  it('answers 400 for a missing token', async () => {
    const p = await setup();
    const s = await session(app, p, { origin: SITE });
    const res = await mobile(app, 'POST', '/participant/login-link/redeem', s, { body: {}, headers: { origin: SITE } });
    expect(res.status).toBe(400);
  });

  it('is pruned by the hourly maintenance once expired', async () => {
    const p = await setup();
    await linkFor(p, 'prune');
    const before = await app.deps.db.knex('participant_login_tokens').where({ program_id: p.pid });
    expect(before).toHaveLength(1);
    app.clock.advance(16 * MINUTE);
    const pruned = await app.deps.maintenance.prune();
    expect(pruned.participant_login_tokens).toBeGreaterThanOrEqual(1);
    expect(await app.deps.db.knex('participant_login_tokens').where({ program_id: p.pid })).toHaveLength(0);
  });
});
