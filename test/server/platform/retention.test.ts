import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, addParticipant, mobile, mobileProgram, session } from '../../helpers/mobile.ts';
import { PRUNE_BATCH, VISIT_RETENTION_MS } from '../../../server/domain/platform/retention.ts';

// Issue #5: visits, unique-visitor pairs and superseded fraud decisions are pruned by the hourly
// maintenance after their retention (400 days, the longest cookie window), in short batches.

const DAY = 86_400_000;

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

const visit = (s: { token: string }, code: string | null) =>
  mobile(app, 'POST', '/visits', s, { body: { visitId: crypto.randomUUID(), attribution: code ? { referralCode: code, utm: {} } : null } });
const count = async (table: string, where: Record<string, unknown>) => Number((await app.deps.db.knex(table).where(where).count({ n: '*' }).first())!.n);

describe('maintenance prune: participant API retention', () => {
  it('deletes visits and visitor pairs older than 400 days and keeps younger ones, with the counters untouched', async () => {
    expect(VISIT_RETENTION_MS).toBe(400 * DAY);
    const p = await mobileProgram(app);
    const ann = await addParticipant(app, p, { email: 'ann@example.com' });
    const old = await session(app, p);
    for (let i = 0; i < 3; i++) expect((await visit(old, ann.id)).status).toBe(200);
    expect((await visit(old, null)).status).toBe(200);
    await app.deps.visits.flush();

    app.clock.advance(200 * DAY);
    const young = await session(app, p);
    expect((await visit(young, ann.id)).status).toBe(200);
    await app.deps.visits.flush();
    expect(await count('visits', { program_id: p.pid })).toBe(5);
    expect(await count('visit_uniques', { program_id: p.pid })).toBe(2);

    app.clock.advance(200 * DAY); // the first visits are exactly 400 days old: kept
    await app.deps.maintenance.prune();
    expect(await count('visits', { program_id: p.pid })).toBe(5);

    app.clock.advance(1);
    const pruned = await app.deps.maintenance.prune();
    expect(pruned).toMatchObject({ visits: 4, visit_uniques: 1 });
    expect(await count('visits', { program_id: p.pid })).toBe(1);
    expect(await count('visit_uniques', { program_id: p.pid })).toBe(1);
    const left = await app.deps.db.knex('visit_uniques').where({ program_id: p.pid }).first();
    expect(Number(left.first_at)).toBe(app.clock.now() - 200 * DAY - 1);
    // Counts on the participant are history, not pruned.
    const after = (await app.request('GET', `/v2/campaign/${p.pid}/participant/${ann.id}`, { key: p.key })).body;
    expect(after).toMatchObject({ impressionCount: 4, uniqueImpressionCount: 2 });

    // A visitor back after the retention counts as a unique visitor again.
    expect((await visit(await session(app, p, { instanceId: old.instanceId }), ann.id)).status).toBe(200);
    await app.deps.visits.flush();
    expect((await app.request('GET', `/v2/campaign/${p.pid}/participant/${ann.id}`, { key: p.key })).body.uniqueImpressionCount).toBe(3);
  });

  it('deletes a large backlog in batches of PRUNE_BATCH rows, never touching younger rows', async () => {
    const p = await mobileProgram(app);
    const { knex } = app.deps.db;
    const now = app.clock.now();
    const rows = (n: number, at: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({ program_id: p.pid, visit_id: `${tag}-${String(i).padStart(6, '0')}`, visitor_key: 'k'.repeat(32), created_at: at + i }));
    const oldRows = rows(PRUNE_BATCH * 2 + 345, now - 500 * DAY, 'old');
    for (let i = 0; i < oldRows.length; i += 400) await knex('visits').insert(oldRows.slice(i, i + 400));
    await knex('visits').insert(rows(50, now - 10 * DAY, 'young'));
    const deletes: string[] = [];
    const listener = (q: { sql: string }) => {
      if (/^delete from "?visits"?/i.test(q.sql)) deletes.push(q.sql);
    };
    knex.on('query', listener);
    try {
      const pruned = await app.deps.maintenance.prune();
      expect(pruned.visits).toBe(oldRows.length);
    } finally {
      knex.removeListener('query', listener);
    }
    expect(deletes.length).toBeGreaterThanOrEqual(3);
    expect(await count('visits', { program_id: p.pid })).toBe(50);
    expect(Number((await knex('visits').where({ program_id: p.pid }).andWhere('visit_id', 'like', 'old-%').count({ n: '*' }).first())!.n)).toBe(0);
    // Nothing old left: the next run deletes nothing.
    expect((await app.deps.maintenance.prune()).visits).toBe(0);
  });

  it('deletes superseded fraud decisions past retention and keeps each participant’s latest decision however old', async () => {
    const p = await mobileProgram(app);
    const [ann, bob, cy] = [
      await addParticipant(app, p, { email: 'ann@example.com' }),
      await addParticipant(app, p, { email: 'bob@example.com' }),
      await addParticipant(app, p, { email: 'cy@example.com' }),
    ];
    const { knex } = app.deps.db;
    await knex('fraud_decisions').where({ program_id: p.pid }).del();
    const now = app.clock.now();
    const decision = (participantId: string, ageDays: number, tag: string) => ({
      id: `fd_${tag}_${crypto.randomBytes(4).toString('hex')}`,
      program_id: p.pid,
      participant_id: participantId,
      risk_level: 'LOW',
      previous_risk_level: null,
      reason_code: tag,
      reasons: '[]',
      matches: '[]',
      source: 'AUTOMATIC',
      context: 'SIGNUP',
      actor: null,
      applied: true,
      created_at: now - ageDays * DAY,
    });
    for (const d of [decision(ann.id, 900, 'ann_first'), decision(bob.id, 800, 'bob_only'), decision(ann.id, 700, 'ann_latest'), decision(cy.id, 600, 'cy_old'), decision(cy.id, 5, 'cy_new')]) {
      await knex('fraud_decisions').insert(d);
    }
    const pruned = await app.deps.maintenance.prune();
    expect(pruned.fraud_decisions).toBe(2);
    const left = await knex('fraud_decisions').where({ program_id: p.pid }).orderBy('seq').pluck('reason_code');
    expect(left).toEqual(['bob_only', 'ann_latest', 'cy_new']);
  });
});
