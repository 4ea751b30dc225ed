import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, onPostgres, startApp, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, addParticipant, mobile, mobileProgram, session, type MobileProgramFixture } from '../../helpers/mobile.ts';

// Issue #4 (program emails) over the participant API of issue #5: `referralLinkViewedFirstTime` goes to
// the referrer on the first visit of their link ever, once, through the program's template and switch.

const KIND = 'program.referralLinkViewedFirstTime';

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

const visit = (a: TestApp, s: { token: string }, code: string) =>
  mobile(a, 'POST', '/visits', s, { body: { visitId: crypto.randomUUID(), attribution: { referralCode: code, utm: {} } } });

async function program(a: TestApp, opts: { verified?: boolean; enabled?: boolean; type?: 'REFERRAL' | 'AFFILIATE' } = {}): Promise<MobileProgramFixture> {
  const p = await mobileProgram(a, { type: opts.type });
  if (opts.verified !== false) await a.deps.teams.approveVerification(p.teamId);
  if (opts.enabled !== false) {
    const res = await a.request('PATCH', `/v2/campaign/${p.pid}/emails`, { key: p.key, body: { referralLinkViewedFirstTime: { isEnabled: true } } });
    expect(res.status, res.text).toBe(200);
  }
  return p;
}

const sent = (a: TestApp, to: string) => a.deps.mailer.list({ to }).then((list) => list.filter((m) => m.kind === KIND));
const logged = (a: TestApp, participantId: string) =>
  a.deps.db
    .knex('activity_logs')
    .where({ participant_id: participantId, type: 'EMAIL' })
    .orderBy('seq')
    .then((rows) => rows.map((r) => ({ action: r.action, data: r.data ? JSON.parse(r.data) : null })));

describe('referralLinkViewedFirstTime (first visit of a referral link)', () => {
  it('emails the referrer once on the first visit, with the template, and never on later visits', async () => {
    const p = await program(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com', firstName: 'Ann' });
    const s = await session(app, p);
    expect((await visit(app, s, ann.id)).status).toBe(200);
    await app.deps.visits.flush();
    const [mail, ...more] = await sent(app, 'ann@example.com');
    expect(more).toEqual([]);
    expect(mail!.subject).toBe('Someone just opened your link');
    expect(mail!.html).toContain('Hi Ann,');
    expect(mail!.html).toContain(ann.shareUrl.replace(/&/g, '&amp;'));
    expect(await logged(app, ann.id)).toContainEqual({ action: 'email.sent', data: expect.objectContaining({ emailType: 'referralLinkViewedFirstTime' }) });

    // A second visitor, and the same visitor again: no more mail.
    expect((await visit(app, await session(app, p), ann.id)).status).toBe(200);
    expect((await visit(app, s, ann.id)).status).toBe(200);
    await app.deps.visits.flush();
    expect(await sent(app, 'ann@example.com')).toHaveLength(1);
  });

  it('sends exactly one email when many first visits arrive at once and are flushed together', async () => {
    const p = await program(app);
    const bob = await addParticipant(app, p, { email: 'bob@example.com' });
    const sessions = await Promise.all(Array.from({ length: 6 }, () => session(app, p)));
    const answers = await Promise.all(sessions.flatMap((s) => [visit(app, s, bob.id), visit(app, s, bob.id)]));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    await app.deps.visits.flush();
    expect(await sent(app, 'bob@example.com')).toHaveLength(1);
  });

  it('sends exactly one email when two processes flush first visits of the same link', async () => {
    const db = await freshDatabase();
    const first = await startApp(RAISED_LIMITS, { databaseUrl: db.url });
    const second = await startApp(RAISED_LIMITS, { databaseUrl: db.url });
    try {
      const p = await program(first);
      const cy = await addParticipant(first, p, { email: 'cy@example.com' });
      const [s1, s2] = [await session(first, p), await session(second, p)];
      expect((await visit(first, s1, cy.id)).status).toBe(200);
      expect((await visit(second, s2, cy.id)).status).toBe(200);
      // On PostgreSQL the two flushes race for the referrer's row lock. Both "processes" share this
      // Node thread, where better-sqlite3 waits for SQLite's write lock synchronously, so on SQLite
      // (which serialises writers anyway) they run one after the other.
      if (onPostgres) await Promise.all([first.deps.visits.flush(), second.deps.visits.flush()]);
      else for (const a of [first, second]) await a.deps.visits.flush();
      expect(await sent(first, 'cy@example.com')).toHaveLength(1);
      expect((await first.request('GET', `/v2/campaign/${p.pid}/participant/${cy.id}`, { key: p.key })).body.impressionCount).toBe(2);
    } finally {
      await first.close();
      await second.close();
      await db.cleanup();
    }
  });

  it('sends nothing while the template is disabled (the default), and not later once the first view has passed', async () => {
    const p = await program(app, { enabled: false });
    const dee = await addParticipant(app, p, { email: 'dee@example.com' });
    expect((await visit(app, await session(app, p), dee.id)).status).toBe(200);
    await app.deps.visits.flush();
    expect(await sent(app, 'dee@example.com')).toEqual([]);
    expect(await logged(app, dee.id)).not.toContainEqual(expect.objectContaining({ data: expect.objectContaining({ emailType: 'referralLinkViewedFirstTime' }) }));
    await app.request('PATCH', `/v2/campaign/${p.pid}/emails`, { key: p.key, body: { referralLinkViewedFirstTime: { isEnabled: true } } });
    expect((await visit(app, await session(app, p), dee.id)).status).toBe(200);
    await app.deps.visits.flush();
    expect(await sent(app, 'dee@example.com')).toEqual([]);
  });

  it('skips the email while the team is not VERIFIED and records the skip in the activity log', async () => {
    const p = await program(app, { verified: false });
    const eve = await addParticipant(app, p, { email: 'eve@example.com' });
    expect((await visit(app, await session(app, p), eve.id)).status).toBe(200);
    await app.deps.visits.flush();
    expect(await sent(app, 'eve@example.com')).toEqual([]);
    expect(await logged(app, eve.id)).toContainEqual({ action: 'email.skipped', data: { emailType: 'referralLinkViewedFirstTime', reason: 'TEAM_NOT_VERIFIED' } });
  });

  it('skips an unsubscribed referrer and records why', async () => {
    const p = await program(app);
    const fay = await addParticipant(app, p, { email: 'fay@example.com' });
    expect((await app.request('POST', `/v2/campaign/${p.pid}/participant/${fay.id}`, { key: p.key, body: { unsubscribed: true } })).status).toBe(200);
    expect((await visit(app, await session(app, p), fay.id)).status).toBe(200);
    await app.deps.visits.flush();
    expect(await sent(app, 'fay@example.com')).toEqual([]);
    expect(await logged(app, fay.id)).toContainEqual({ action: 'email.skipped', data: { emailType: 'referralLinkViewedFirstTime', reason: 'UNSUBSCRIBED' } });
  });

  it('emails an affiliate on the first visit of their affiliate link', async () => {
    const p = await program(app, { type: 'AFFILIATE' });
    const gus = await addParticipant(app, p, { email: 'gus@example.com', isAffiliate: true });
    expect((await visit(app, await session(app, p), gus.id)).status).toBe(200);
    await app.deps.visits.flush();
    expect(await sent(app, 'gus@example.com')).toHaveLength(1);
  });
});
