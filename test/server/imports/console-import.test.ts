import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { restOk } from '../../helpers/programs.ts';
import { parseCsv } from '../../../shared/csv.ts';

// Issue #33 part 5: moving a program in the console's way, over the REST extensions IM1–IM4: the
// source's programs listed with its key, the import started as a background job (JOBS=false here:
// the test runs the job's slices itself), its progress polled, its refusals as CSV, the webhook
// secrets it made answered once to whoever started it, and a run whose server stops mid-way
// finished by the next server on the same database with the same result.

const PEOPLE = 230;
const TARGET_ENV = { ...RAISED_LIMITS, WEBHOOK_ALLOW_PRIVATE: 'true' };

describe('console import (issue #33 part 5)', () => {
  let source: TestApp;
  let sourceKey = '';
  let pid = '';
  const targets: TestApp[] = [];

  /** A target refloop with one verified team; `databaseUrl` reuses an existing database. */
  async function target(env: Record<string, string> = TARGET_ENV) {
    const app = await startApp(env);
    targets.push(app);
    app.clock.current = source.clock.current;
    const acct = await verifiedAccount(app);
    await app.deps.teams.approveVerification(acct.teamId);
    app.deps.consoleImports.sliceMs = 0;
    return { app, key: acct.key as string, teamId: acct.teamId as string };
  }

  /** Runs due job slices, moving the clock past each slice's 1 ms pause, until the import has ended. */
  async function runToEnd(app: TestApp, key: string, id = pid) {
    for (let i = 0; i < 200; i++) {
      app.clock.current += 10;
      await app.deps.jobs.runDue();
      const p = await restOk(app, key, 'GET', `/imports/${id}`);
      if (p.status === 'DONE' || p.status === 'FAILED') return p;
    }
    throw new Error('the import did not end');
  }

  beforeAll(async () => {
    source = await startApp({ ...RAISED_LIMITS, WEBHOOK_ALLOW_PRIVATE: 'true' });
    source.clock.current = Date.now();
    const acct = await verifiedAccount(source);
    await source.deps.teams.approveVerification(acct.teamId);
    sourceKey = acct.key;
    const created = await restOk(source, sourceKey, 'POST', '/campaigns', { type: 'REFERRAL', name: 'Tea Circle' });
    pid = created.id;
    await restOk(source, sourceKey, 'POST', '/campaigns', { type: 'AFFILIATE', name: 'Tea Partners' });
    await restOk(source, sourceKey, 'POST', `/campaign/${pid}/webhooks`, { payloadUrl: 'http://127.0.0.1:9/tea-hook', events: ['NEW_PARTICIPANT_ADDED'], secret: 'source-secret-value' });
    const rows = ['email,firstName,referredBy'];
    for (let i = 0; i < PEOPLE; i++) rows.push(`t${i}@tea.example,T${i},${i > 0 && i % 3 ? `t${Math.floor(i / 2)}@tea.example` : ''}`);
    const imported = await source.request('POST', `/v2/campaign/${pid}/import/participants`, { key: sourceKey, raw: rows.join('\n'), headers: { 'content-type': 'text/csv' } });
    expect(imported.status, imported.text).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([source?.close(), ...targets.map((t) => t.close())]);
  });

  /** Every participant of the program as its list answers them. */
  async function people(app: TestApp, key: string) {
    const out: Array<Record<string, unknown>> = [];
    let nextId: string | null = null;
    do {
      const page: { participants: Array<Record<string, unknown>>; nextId: string | null } = await restOk(app, key, 'GET', `/campaign/${pid}/participants?limit=100${nextId ? `&nextId=${nextId}` : ''}`);
      out.push(...page.participants);
      nextId = page.nextId;
    } while (nextId);
    return out;
  }

  describe('POST /imports/growsurf/programs', () => {
    it('lists the source’s programs read with its key, each marked when its id is already here', async () => {
      const t = await target();
      const list = await restOk(t.app, t.key, 'POST', '/imports/growsurf/programs', { sourceUrl: source.url, apiKey: sourceKey });
      expect(list.programs.map((p: { name: string }) => p.name).sort()).toEqual(['Tea Circle', 'Tea Partners']);
      expect(list.programs.find((p: { id: string }) => p.id === pid)).toEqual({ id: pid, name: 'Tea Circle', type: 'REFERRAL', status: 'DRAFT', participantCount: PEOPLE, here: false });
    });

    it('answers 400 with a plain message on the field for a bad URL, a private address, a wrong key and a missing key', async () => {
      const t = await target();
      const bad = await t.app.request('POST', '/v2/imports/growsurf/programs', { key: t.key, body: { sourceUrl: 'not a url', apiKey: sourceKey } });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0]).toMatchObject({ field: 'sourceUrl', code: 'INVALID_URL' });
      const wrongKey = await t.app.request('POST', '/v2/imports/growsurf/programs', { key: t.key, body: { sourceUrl: source.url, apiKey: 'not-a-key' } });
      expect(wrongKey.status).toBe(400);
      expect(wrongKey.body.errors[0]).toEqual({ field: 'apiKey', code: 'REFUSED', message: 'The source refused this API key.' });
      const missing = await t.app.request('POST', '/v2/imports/growsurf/programs', { key: t.key, body: { sourceUrl: source.url, apiKey: '' } });
      expect(missing.status).toBe(400);
      expect(missing.body.errors[0]).toMatchObject({ field: 'apiKey' });
      // Without the test escape hatch, the loopback source is a private address.
      const guarded = await target(RAISED_LIMITS);
      const priv = await guarded.app.request('POST', '/v2/imports/growsurf/programs', { key: guarded.key, body: { sourceUrl: source.url, apiKey: sourceKey } });
      expect(priv.status).toBe(400);
      expect(priv.body.errors[0]).toEqual({ field: 'sourceUrl', code: 'PRIVATE_ADDRESS', message: 'This address is on a private network; the source must be reachable on the internet.' });
    });

    it('answers 403 to a key without program:read', async () => {
      const t = await target();
      const limited = await t.app.deps.keys.create(t.app.deps.db.knex, { teamId: t.teamId, scopes: ['participant:read'], origin: 'DASHBOARD' });
      const res = await t.app.request('POST', '/v2/imports/growsurf/programs', { key: limited.secret, body: { sourceUrl: source.url, apiKey: sourceKey } });
      expect(res.status).toBe(403);
    });
  });

  describe('POST /imports/growsurf', () => {
    it('checks in a dry run, then imports as a job: progress, counts, the refusals CSV, and the webhook secret once', async () => {
      const t = await target();
      // A participant of another program here holds one of the source's ids: refused.
      const clash = (await people(source, sourceKey))[7]!;
      const other = await restOk(t.app, t.key, 'POST', '/campaigns', { type: 'REFERRAL', name: 'Other' });
      await t.app.deps.db.knex('participants').insert({ id: clash.id, program_id: other.id, email: 'x@tea.example', email_key: 'x@tea.example', share_key: 'zzzzzzzzzz', referral_source: 'DIRECT', created_at: 1, updated_at: 1 });

      const dry = await restOk(t.app, t.key, 'POST', '/imports/growsurf', { sourceUrl: source.url, apiKey: sourceKey, programId: pid, dryRun: true });
      expect(dry).toMatchObject({ programId: pid, name: 'Tea Circle', dryRun: true, status: 'QUEUED', webhookSecrets: [] });
      const checked = await runToEnd(t.app, t.key);
      expect(checked.status).toBe('DONE');
      expect(checked.counts.participants).toEqual({ created: PEOPLE - 1, skipped: 0, refused: 1 });
      expect(checked.refusalCount).toBe(1);
      expect(await t.app.deps.db.knex('programs').where({ id: pid }).first()).toBeUndefined();

      const started = await restOk(t.app, t.key, 'POST', '/imports/growsurf', { sourceUrl: source.url, apiKey: sourceKey, programId: pid });
      expect(started).toMatchObject({ status: 'QUEUED', dryRun: false, stage: 'program', done: 0 });
      // The key is sealed, never stored or answered in the clear.
      const row = await t.app.deps.db.knex('console_imports').where({ program_id: pid }).first();
      expect(row.source_key_enc).not.toContain(sourceKey);
      expect(JSON.stringify(started)).not.toContain(sourceKey);
      // A second start while it runs is a 409.
      const twice = await t.app.request('POST', '/v2/imports/growsurf', { key: t.key, body: { sourceUrl: source.url, apiKey: sourceKey, programId: pid } });
      expect(twice.status).toBe(409);

      // One slice: the progress moves and the stage is named.
      t.app.clock.current += 10;
      await t.app.deps.jobs.runDue();
      const mid = await restOk(t.app, t.key, 'GET', `/imports/${pid}`);
      expect(mid.status).toBe('RUNNING');
      expect(mid.webhookSecrets).toEqual([]);

      // Read to the end by another key of the team: it never sees the secrets; the one who started it does, once.
      const teammate = await t.app.deps.keys.create(t.app.deps.db.knex, { teamId: t.teamId, scopes: ['program:read'], origin: 'DASHBOARD' });
      const seen = await runToEnd(t.app, teammate.secret);
      expect(seen).toMatchObject({ status: 'DONE', webhookSecrets: [] });
      const done = await restOk(t.app, t.key, 'GET', `/imports/${pid}`);
      expect(done).toMatchObject({ status: 'DONE', stage: 'done', dryRun: false, refusalCount: 1, message: null });
      expect(done.counts.participants).toEqual({ created: PEOPLE - 1, skipped: 0, refused: 1 });
      expect(done.counts.webhooks).toEqual({ created: 1, skipped: 0, refused: 0 });
      expect(done.requests).toBeGreaterThan(0);
      expect(done.webhookSecrets).toHaveLength(1);
      expect(done.webhookSecrets[0].secret).toMatch(/^whsec_/);
      // Once: the next read has none, and the key is gone.
      expect((await restOk(t.app, t.key, 'GET', `/imports/${pid}`)).webhookSecrets).toEqual([]);
      expect((await t.app.deps.db.knex('console_imports').where({ program_id: pid }).first()).source_key_enc).toBeNull();
      expect(await t.app.deps.db.knex('jobs').where({ type: 'import.growsurf' }).whereNot({ status: 'DONE' }).count({ n: '*' }).first()).toMatchObject({ n: 0 });

      const csv = await t.app.request('GET', `/v2/imports/${pid}/refusals.csv`, { key: t.key });
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
      expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="import-refusals-${pid}.csv"`);
      expect(parseCsv(csv.text).map((r) => r.cells)).toEqual([
        ['kind', 'sourceId', 'reason'],
        ['participants', String(clash.id), 'A participant of another program on this refloop has this id.'],
      ]);
      expect((await people(t.app, t.key)).length).toBe(PEOPLE - 1);

      // Moved in: a new start is a 409.
      const again = await t.app.request('POST', '/v2/imports/growsurf', { key: t.key, body: { sourceUrl: source.url, apiKey: sourceKey, programId: pid } });
      expect(again.status).toBe(409);
      expect(again.body.message).toBe(`Program ${pid} has already been imported here.`);
    }, 120_000);

    it('answers 409 for a program id already here, 400 for a program the source does not have, 403 without program:write', async () => {
      const t = await target();
      // A program of this team that has the source program's id (not made by an import).
      const mine = await restOk(t.app, t.key, 'POST', '/campaigns', { type: 'REFERRAL', name: 'Mine' });
      await t.app.deps.db.knex('programs').insert({ ...(await t.app.deps.db.knex('programs').where({ id: mine.id }).first()), id: pid });
      const here = await t.app.request('POST', '/v2/imports/growsurf', { key: t.key, body: { sourceUrl: source.url, apiKey: sourceKey, programId: pid } });
      expect(here.status, here.text).toBe(409);
      expect(here.body).toMatchObject({ code: 'CONFLICT_ERROR', message: `A program with the id ${pid} already exists here; nothing was written.` });
      const unknown = await t.app.request('POST', '/v2/imports/growsurf', { key: t.key, body: { sourceUrl: source.url, apiKey: sourceKey, programId: 'nope_nope' } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors[0]).toMatchObject({ field: 'programId', code: 'NOT_FOUND' });
      const reader = await t.app.deps.keys.create(t.app.deps.db.knex, { teamId: t.teamId, scopes: ['program:read'], origin: 'DASHBOARD' });
      const denied = await t.app.request('POST', '/v2/imports/growsurf', { key: reader.secret, body: { sourceUrl: source.url, apiKey: sourceKey, programId: pid } });
      expect(denied.status).toBe(403);
    });
  });

  describe('GET /imports/{programId}', () => {
    it('answers 404 for an import this team did not start', async () => {
      const t = await target();
      const res = await t.app.request('GET', `/v2/imports/${pid}`, { key: t.key });
      expect(res.status).toBe(404);
      expect((await t.app.request('GET', `/v2/imports/${pid}/refusals.csv`, { key: t.key })).status).toBe(404);
    });
  });

  describe('a restart mid-run', () => {
    it('resumes the run in the next server on the same database and finishes with the same result', async () => {
      const db = await freshDatabase();
      const first = await startApp(TARGET_ENV, { databaseUrl: db.url });
      first.clock.current = source.clock.current;
      const acct = await verifiedAccount(first);
      await first.deps.teams.approveVerification(acct.teamId);
      first.deps.consoleImports.sliceMs = 0;
      await restOk(first, acct.key, 'POST', '/imports/growsurf', { sourceUrl: source.url, apiKey: sourceKey, programId: pid });
      // Slices until the participants are half in, then the server stops.
      for (let i = 0; i < 50; i++) {
        first.clock.current += 10;
        await first.deps.jobs.runDue();
        const run = await first.deps.db.knex('import_runs').where({ program_id: pid }).first('stage', 'cursor');
        if (run?.stage === 'participants' && run.cursor) break;
      }
      const mid = await restOk(first, acct.key, 'GET', `/imports/${pid}`);
      expect(mid.status).toBe('RUNNING');
      expect(mid.counts.participants.created).toBeGreaterThan(0);
      expect(mid.counts.participants.created).toBeLessThan(PEOPLE);
      const clock = first.clock.current;
      await first.close();

      const second = await startApp(TARGET_ENV, { databaseUrl: db.url });
      targets.push(second);
      try {
        second.clock.current = clock;
        second.deps.consoleImports.sliceMs = 0;
        const done = await runToEnd(second, acct.key);
        expect(done).toMatchObject({ status: 'DONE', refusalCount: 0 });
        expect(done.counts.participants).toEqual({ created: PEOPLE, skipped: 0, refused: 0 });
        expect(done.webhookSecrets).toHaveLength(1);
        const mine = await people(second, acct.key);
        const theirs = await people(source, sourceKey);
        expect(mine).toEqual(theirs);
      } finally {
        await db.cleanup();
      }
    }, 120_000);
  });
});
