import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';

// FR1 `GET /campaign/{id}/fraud-reviews` (issue #23, a refloop extension): the participants the
// anti-fraud checks flagged, with why, and the owner's verdict through P5 `fraudRiskLevel`.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

/** A referral program that keeps flagged sign-ups for review instead of refusing them. */
async function program(type: 'REFERRAL' | 'AFFILIATE' = 'REFERRAL') {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type } });
  expect(res.status, res.text).toBe(200);
  const pid = res.body.id as string;
  const patched = await app.request('PATCH', `/v2/campaign/${pid}/options`, { key: acct.key, body: { requireManualFraudApproval: true } });
  expect(patched.status, patched.text).toBe(200);
  return { key: acct.key, teamId: acct.teamId, pid };
}

async function add(key: string, pid: string, body: Record<string, unknown>) {
  const res = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; email: string; fraudRiskLevel: string };
}

/** A referrer, a clean friend, a self-referral (HIGH) and a same-IP friend (MEDIUM). */
async function flagged(key: string, pid: string) {
  const ann = await add(key, pid, { email: 'ann@example.com', ipAddress: '203.0.113.7' });
  app.clock.advance(1000);
  const clean = await add(key, pid, { email: 'bo@example.org', referredBy: ann.id, ipAddress: '198.51.100.1' });
  app.clock.advance(1000);
  const self = await add(key, pid, { email: 'ann+2@example.com', referredBy: ann.id, ipAddress: '198.51.100.2' });
  app.clock.advance(1000);
  const sameIp = await add(key, pid, { email: 'cy@example.net', referredBy: ann.id, ipAddress: '203.0.113.7' });
  app.clock.advance(1000);
  return { ann, clean, self, sameIp };
}

const reviews = (key: string, pid: string, query = '') => app.request('GET', `/v2/campaign/${pid}/fraud-reviews${query}`, { key });

async function limitedKey(teamId: string, scopes: string[], programIds: string[] | null = null) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds, origin: 'CLI' })).secret;
}

describe('GET /campaign/:id/fraud-reviews (FR1)', () => {
  it('lists flagged participants newest first with their level, reason and decisions', async () => {
    const { key, pid } = await program();
    const { ann, self, sameIp } = await flagged(key, pid);
    const res = await reviews(key, pid);
    expect(res.status, res.text).toBe(200);
    expect(res.body.nextId).toBeNull();
    expect(res.body.participants.map((p: { email: string }) => p.email)).toEqual(['cy@example.net', 'ann+2@example.com']);
    const [medium, high] = res.body.participants;
    expect(high).toMatchObject({
      id: self.id,
      referrerId: ann.id,
      referralStatus: 'CREDIT_PENDING',
      fraudRiskLevel: 'HIGH',
      fraudReasonCode: 'DUPLICATE_EMAIL',
      allMatchingFraudsters: [{ id: ann.id, email: 'ann@example.com' }],
    });
    expect(high.decisions).toEqual([
      {
        id: expect.any(String),
        riskLevel: 'HIGH',
        previousRiskLevel: null,
        reasonCode: 'DUPLICATE_EMAIL',
        reasons: expect.arrayContaining(['The email address reaches the same mailbox as the referrer’s (dots and +tags removed).']),
        matches: [ann.id],
        source: 'AUTOMATIC',
        context: 'SIGNUP',
        applied: true,
        createdAt: expect.any(Number),
      },
    ]);
    expect(medium).toMatchObject({ id: sameIp.id, fraudRiskLevel: 'MEDIUM', fraudReasonCode: 'SAME_IP' });
  });

  it('moves a participant to DECIDED when the owner sets the level with P5, keeping the history', async () => {
    const { key, pid } = await program();
    const { self, sameIp } = await flagged(key, pid);
    const safe = await app.request('POST', `/v2/campaign/${pid}/participant/${sameIp.id}`, { key, body: { fraudRiskLevel: 'LOW' } });
    expect(safe.status, safe.text).toBe(200);
    const keep = await app.request('POST', `/v2/campaign/${pid}/participant/${self.id}`, { key, body: { fraudRiskLevel: 'HIGH' } });
    expect(keep.status, keep.text).toBe(200);
    expect((await reviews(key, pid)).body.participants).toEqual([]);
    const decided = (await reviews(key, pid, '?state=DECIDED')).body.participants;
    expect(decided.map((p: { id: string; fraudRiskLevel: string; fraudReasonCode: string }) => [p.id, p.fraudRiskLevel, p.fraudReasonCode])).toEqual([
      [sameIp.id, 'LOW', 'MANUAL_UPDATE'],
      [self.id, 'HIGH', 'MANUAL_UPDATE'],
    ]);
    expect(decided[0].decisions.map((d: { source: string; riskLevel: string; previousRiskLevel: string }) => [d.source, d.riskLevel, d.previousRiskLevel])).toEqual([
      ['MANUAL', 'LOW', 'MEDIUM'],
      ['AUTOMATIC', 'MEDIUM', null],
    ]);
    expect((await reviews(key, pid, '?state=ALL')).body.participants).toHaveLength(2);
  });

  it('pages with limit and nextId', async () => {
    const { key, pid } = await program();
    const ann = await add(key, pid, { email: 'ann@example.com', ipAddress: '203.0.113.9' });
    for (let i = 0; i < 5; i++) {
      app.clock.advance(11 * 60_000); // past the per-IP sign-up windows (2 and 10 minutes)
      await add(key, pid, { email: `f${i}@example.net`, referredBy: ann.id, ipAddress: '203.0.113.9' });
    }
    const emails: string[] = [];
    let nextId: string | null = null;
    do {
      const page: { body: { participants: Array<{ email: string }>; nextId: string | null } } = await reviews(key, pid, `?limit=2${nextId ? `&nextId=${nextId}` : ''}`);
      emails.push(...page.body.participants.map((p) => p.email));
      nextId = page.body.nextId;
    } while (nextId);
    expect(emails).toEqual(['f4@example.net', 'f3@example.net', 'f2@example.net', 'f1@example.net', 'f0@example.net']);
  });

  it('answers 400 for an unknown state or a cursor from another program', async () => {
    const { key, pid } = await program();
    const other = await program();
    const stranger = await add(other.key, other.pid, { email: 'x@example.com' });
    const bad = await reviews(key, pid, '?state=FLAGGED');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain('query.state');
    const cursor = await reviews(key, pid, `?nextId=${stranger.id}`);
    expect(cursor.status).toBe(400);
    expect(cursor.body.errors).toEqual([{ field: 'query.nextId', code: 'INVALID', message: 'Not a participant of this program.' }]);
  });

  it('answers 403 without participant:read or outside the key’s programs', async () => {
    const { key, teamId, pid } = await program();
    const other = await program();
    expect((await reviews(await limitedKey(teamId, ['reward:read']), pid)).status).toBe(403);
    expect((await reviews(await limitedKey(teamId, ['participant:read'], [pid]), other.pid)).status).toBe(403);
    expect((await reviews(key, other.pid)).status).toBe(403);
    expect((await reviews(await limitedKey(teamId, ['participant:read'], [pid]), pid)).status).toBe(200);
  });

  it('reads through the partial review index on SQLite', async () => {
    if (app.deps.db.dialect !== 'sqlite') return;
    const { key, pid } = await program();
    await flagged(key, pid);
    const seen: Array<{ sql: string; bindings: unknown[] }> = [];
    const listen = (q: { sql: string; bindings: unknown[] }) => /from [`"]participants[`"]/.test(q.sql) && q.sql.includes('fraud_risk_level') && seen.push(q);
    app.deps.db.knex.on('query', listen);
    try {
      for (const s of ['OPEN', 'DECIDED', 'ALL']) expect((await reviews(key, pid, `?state=${s}`)).status).toBe(200);
    } finally {
      app.deps.db.knex.off('query', listen);
    }
    expect(seen).toHaveLength(3);
    for (const q of seen) {
      const plan = JSON.stringify(await app.deps.db.knex.raw(`EXPLAIN QUERY PLAN ${q.sql}`, q.bindings as never));
      expect(plan).toContain('participants_fraud_review');
      expect(plan).not.toContain('TEMP B-TREE');
    }
  });
});

// Issue #32 (counts per state): FR2 counts the very rows FR1 lists.
describe('GET /campaign/:id/fraud-reviews/counts (FR2)', () => {
  const counts = (key: string, pid: string, query = '') => app.request('GET', `/v2/campaign/${pid}/fraud-reviews/counts${query}`, { key });
  /** Every participant FR1 lists in `state`, paged two at a time. */
  const listed = async (key: string, pid: string, state: string) => {
    let n = 0;
    let nextId: string | null = null;
    do {
      const page: { status: number; text: string; body: { participants: unknown[]; nextId: string | null } } = await reviews(key, pid, `?state=${state}&limit=2${nextId ? `&nextId=${nextId}` : ''}`);
      expect(page.status, page.text).toBe(200);
      n += page.body.participants.length;
      nextId = page.body.nextId;
    } while (nextId);
    return n;
  };
  const decide = async (key: string, pid: string, id: string, fraudRiskLevel: string) => {
    const res = await app.request('POST', `/v2/campaign/${pid}/participant/${id}`, { key, body: { fraudRiskLevel } });
    expect(res.status, res.text).toBe(200);
  };

  it('counts the participants in each state and ALL, each equal to the rows FR1 lists', async () => {
    const { key, pid } = await program();
    const { ann, clean, self, sameIp } = await flagged(key, pid);
    const again = await add(key, pid, { email: 'ann+3@example.com', referredBy: ann.id, ipAddress: '198.51.100.3' });
    expect(again.fraudRiskLevel).toBe('HIGH');
    const third = await add(key, pid, { email: 'ann+4@example.com', referredBy: ann.id, ipAddress: '198.51.100.4' });
    // Decided: a flagged one cleared, and one the checks never flagged that the owner marked HIGH.
    await decide(key, pid, sameIp.id, 'LOW');
    await decide(key, pid, clean.id, 'HIGH');
    // Another program's flagged participants are not counted.
    const other = await program();
    await flagged(other.key, other.pid);

    const res = await counts(key, pid);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ OPEN: 3, DECIDED: 2, ALL: 5 });
    for (const s of ['OPEN', 'DECIDED', 'ALL']) expect(res.body[s], s).toBe(await listed(key, pid, s));
    expect([self.id, again.id, third.id]).toHaveLength(3);
  });

  it('answers zeros without flagged participants, also on affiliate programs (FR1 serves both types), 400 for a query parameter', async () => {
    const { key, pid } = await program();
    await add(key, pid, { email: 'plain@example.com' });
    expect((await counts(key, pid)).body).toEqual({ OPEN: 0, DECIDED: 0, ALL: 0 });
    expect((await counts(key, pid, '?state=OPEN')).status).toBe(400);
    const affiliate = await program('AFFILIATE');
    expect((await reviews(affiliate.key, affiliate.pid)).status).toBe(200);
    const res = await counts(affiliate.key, affiliate.pid);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ OPEN: 0, DECIDED: 0, ALL: 0 });
  });

  it('answers 403 without participant:read or outside the key’s programs, as FR1 does', async () => {
    const { teamId, pid } = await program();
    const other = await program();
    const denied = await counts(await limitedKey(teamId, ['reward:read']), pid);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('NOT_AUTHORIZED_ERROR');
    expect((await counts(await limitedKey(teamId, ['participant:read'], [pid]), other.pid)).status).toBe(403);
    expect((await counts(await limitedKey(teamId, ['participant:read'], [pid]), pid)).status).toBe(200);
  });

  it('reads through the partial review index on SQLite', async () => {
    if (app.deps.db.dialect !== 'sqlite') return;
    const { key, pid } = await program();
    await flagged(key, pid);
    const seen: Array<{ sql: string; bindings: unknown[] }> = [];
    const listen = (q: { sql: string; bindings: unknown[] }) => /from [`"]participants[`"]/.test(q.sql) && q.sql.includes('fraud_risk_level') && seen.push(q);
    app.deps.db.knex.on('query', listen);
    try {
      expect((await counts(key, pid)).status).toBe(200);
    } finally {
      app.deps.db.knex.off('query', listen);
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]!.sql).toMatch(/group by/i);
    expect(JSON.stringify(await app.deps.db.knex.raw(`EXPLAIN QUERY PLAN ${seen[0]!.sql}`, seen[0]!.bindings as never))).toContain('participants_fraud_review');
  });
});
