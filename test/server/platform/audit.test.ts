import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../../server/http/routes.ts';
import { RAISED_LIMITS, runCli, startApp, verifiedAccount, onPostgres, type TestApp } from '../../helpers/app.ts';
import { consoleCall, consoleCsrf, signedInOwner, signIn } from '../../helpers/owner.ts';
import { connect } from '../../helpers/mcp.ts';

// Issue #35 part 1: the team audit trail.

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, CHROMIUM_PATH: '/nonexistent/chromium', WEBHOOK_ALLOW_PRIVATE: 'true' });
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const count = async (teamId: string) => Number((await app.deps.db.knex('audit_log').where({ team_id: teamId }).count({ n: '*' }).first())!.n);

describe('issue #35: every write operation of the routes table', () => {
  it('records exactly one entry with its operation id and member for each successful call, and none for a refused one', async () => {
    const owner = await signedInOwner(app);
    const csrf = await consoleCsrf(owner.b);
    const call = (method: string, path: string, body?: unknown, token = csrf) => consoleCall(owner.b, token, method, path, body);
    const ok = async (method: string, path: string, body?: unknown) => {
      const res = await call(method, path, body);
      if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const referral = (await ok('POST', '/campaigns', { type: 'REFERRAL', name: 'Audit referral' })).id as string;
    const affiliate = (await ok('POST', '/campaigns', { type: 'AFFILIATE', name: 'Audit affiliate' })).id as string;
    const referrer = (await ok('POST', `/campaign/${referral}/participant`, { email: 'referrer@example.com' })).id as string;
    const affiliateP = (await ok('POST', `/campaign/${affiliate}/participant`, { email: 'affiliate@example.com' })).id as string;
    let friends = 0;
    const friend = async () => (await ok('POST', `/campaign/${referral}/participant`, { email: `friend${++friends}@example.com`, referredBy: referrer })).id as string;
    let customers = 0;
    const customer = async () => (await ok('POST', `/campaign/${affiliate}/participant`, { email: `customer${++customers}@example.com`, referredBy: affiliateP })).id as string;
    // Bodies for the operations that need more than `{}` to succeed; every other one is called with `{}`.
    const bodies: Record<string, () => Promise<unknown>> = {
      C3: async () => ({ type: 'REFERRAL', name: 'Another' }),
      C4: async () => ({ name: 'Renamed' }),
      P3: async () => ({ email: `new${++friends}@example.com` }),
      P5: async () => ({ firstName: 'Ann' }),
      P7: async () => ({ participants: ['nobody@example.com'] }),
      P10: async () => ({ email: 'mobile@example.com' }),
      AF8: async () => ({ grossAmount: 1000, currency: 'USD', orderId: `o-${customers}` }),
      T2: async () => ({ name: 'Audited team' }),
      TM3: async () => ({ email: 'invitee@example.com', role: 'MEMBER' }),
      TK2: async () => ({ scopes: ['team:read'] }),
      W2: async () => ({ payloadUrl: 'http://127.0.0.1:9/hook' }),
      BI2: async () => ({ webhookSigningSecret: 'whsec_auditsecretvalue' }),
      W3: async () => ({ payloadUrl: 'http://127.0.0.1:9/other' }),
      AF5: async () => ({ email: 'invited-affiliate@example.com' }),
    };
    // Ids made by earlier calls (the routes table lists creations before the operations on them).
    const results: Record<string, any> = {};
    const paramsFor: Record<string, () => Promise<string | undefined>> = {
      invitationId: async () => results.TM3?.id,
      prefix: async () => results.TK2?.key?.prefix,
    };
    const writes = operations.filter((op) => op.method !== 'GET' && op.access !== 'public');
    // Operations that end what later ones need go last: deletions, then the session's own end.
    const rank = (id: string, method: string) => (id === 'OS1' ? 3 : /^(C5|P6|P7)$/.test(id) ? 2 : method === 'DELETE' ? 1 : 0);
    writes.sort((a, b) => rank(a.id, a.method) - rank(b.id, b.method));
    const succeeded: string[] = [];
    for (const op of writes) {
      const program = op.programType === 'AFFILIATE' ? affiliate : referral;
      const fill = async (name: string): Promise<string> => {
        if (name === op.programParam || name === 'id') return program;
        if (name === 'participantIdOrEmail') return op.programType === 'AFFILIATE' ? await customer() : op.id.startsWith('P8') ? await friend() : referrer;
        if (name === 'webhookId') return results.W2?.id ?? 'primary';
        return (await paramsFor[name]?.()) ?? 'nosuchid';
      };
      let path = op.path;
      for (const m of [...op.path.matchAll(/:([A-Za-z0-9_]+)/g)]) path = path.replace(m[0], encodeURIComponent(await fill(m[1]!)));
      // Whatever a call answers, it records one entry when it answered 200 and none otherwise.
      const checked = async (what: string, send: () => Promise<{ status: number; body: unknown }>) => {
        const before = await count(owner.teamId);
        const res = await send();
        const added = (await count(owner.teamId)) - before;
        expect(added, `${op.id} ${op.method} ${op.path} (${what}) answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(res.status === 200 ? 1 : 0);
        if (res.status === 200) {
          const last = await app.deps.db.knex('audit_log').where({ team_id: owner.teamId }).orderBy('seq', 'desc').first();
          expect(last).toMatchObject({ action: op.id, actor_type: 'MEMBER', actor_id: expect.any(String), actor_label: owner.email, ip: expect.any(String) });
        }
        return res;
      };
      // Refused: a write without the session's CSRF value (403), and one whose body is no object (400; DELETE bodies are not read).
      expect((await checked('no CSRF', () => call(op.method, path, {}, 'wrong'))).status).toBe(403);
      if (op.method !== 'DELETE') expect((await checked('array body', () => owner.b.json(op.method, `/console/api/v2${path}`, [1], { 'x-csrf-token': csrf }))).status, op.id).not.toBe(200);
      // A PATCH without a fixture body sends back one field of what its GET answers (a valid value by construction).
      const echo = async () => {
        if (op.method !== 'PATCH' || !operations.some((o) => o.method === 'GET' && o.path === op.path)) return {};
        const current = await call('GET', path);
        const field = Object.entries((current.body ?? {}) as Record<string, unknown>).find(([k, v]) => k !== 'id' && ['string', 'boolean'].includes(typeof v));
        return field ? { [field[0]]: field[1] } : {};
      };
      const res = await checked('fixture body', async () => call(op.method, path, (await bodies[op.id]?.()) ?? (await echo())));
      if (res.status === 200) {
        succeeded.push(op.id);
        results[op.id] = res.body;
      }
      else if (process.env.AUDIT_DEBUG) console.log(op.id, op.method, op.path, res.status, JSON.stringify(res.body).slice(0, 300));
    }
    // The fixture makes most writes succeed (the rest are refused for their own reasons, e.g. no Stripe connection).
    console.log(`audit property: ${succeeded.length}/${writes.length} writes succeeded: ${succeeded.join(' ')}; refused: ${writes.filter((o) => !succeeded.includes(o.id)).map((o) => o.id).join(' ')}`);
    expect(succeeded.length).toBeGreaterThan(writes.length / 3);
    for (const id of ['C3', 'C4', 'C5', 'CF2', 'CF6', 'CF8', 'P3', 'P5', 'P6', 'P8', 'AF8', 'TM3', 'TM4', 'TK2', 'TK3', 'BI2', 'W2', 'W3', 'OS1']) expect(succeeded, id).toContain(id);
    // Secrets never enter the trail: the Stripe signing secret is redacted, the new key's secret (an answer field) never recorded.
    const all = JSON.stringify(await app.deps.db.knex('audit_log').where({ team_id: owner.teamId }).select('changes'));
    expect(all).not.toContain('whsec_auditsecretvalue');
    expect(all).not.toContain(results.TK2.apiKey);
    expect(all).toContain('[redacted]');
    expect((await runCli(app, 'audit', 'verify', '--team', owner.teamId)).code).toBe(0);
  }, 120_000);
});

/** A verified team with an all-scopes key, a referral program with a referrer and an affiliate program with an affiliate. */
async function team() {
  const acct = await verifiedAccount(app);
  const req = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await app.request(method, path, { key: acct.key, body, headers });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const referral = (await req('POST', '/v2/campaigns', { type: 'REFERRAL', name: 'R' })).id as string;
  const affiliate = (await req('POST', '/v2/campaigns', { type: 'AFFILIATE', name: 'A' })).id as string;
  const referrer = (await req('POST', `/v2/campaign/${referral}/participant`, { email: 'ref@example.com' })).id as string;
  const aff = (await req('POST', `/v2/campaign/${affiliate}/participant`, { email: 'aff@example.com' })).id as string;
  return { ...acct, req, referral, affiliate, referrer, aff };
}

describe('issue #35: the hot write paths', () => {
  it('record a sign-up, a trigger and a sale with the API key prefix, once each, keyed or not', async () => {
    const t = await team();
    const friend = await t.req('POST', `/v2/campaign/${t.referral}/participant`, { email: 'friend@example.com', referredBy: t.referrer });
    await t.req('POST', `/v2/campaign/${t.referral}/participant/${friend.id}/ref`, {}, { 'idempotency-key': 'trigger-1' });
    // The same key again replays the answer and records nothing more.
    await t.req('POST', `/v2/campaign/${t.referral}/participant/${friend.id}/ref`, {}, { 'idempotency-key': 'trigger-1' });
    const customer = await t.req('POST', `/v2/campaign/${t.affiliate}/participant`, { email: 'customer@example.com', referredBy: t.aff });
    await t.req('POST', `/v2/campaign/${t.affiliate}/participant/${customer.id}/transaction`, { grossAmount: 2500, currency: 'USD', orderId: 'o-1' });
    // A duplicate sale answers 200 (success false) and records its own entry; a refused one records none.
    await t.req('POST', `/v2/campaign/${t.affiliate}/participant/${customer.id}/transaction`, { grossAmount: 2500, currency: 'USD', orderId: 'o-1' });
    expect((await app.request('POST', `/v2/campaign/${t.affiliate}/participant/${customer.id}/transaction`, { key: t.key, body: { grossAmount: -1, currency: 'USD', orderId: 'o-2' } })).status).toBe(400);
    const rows = await app.deps.db.knex('audit_log').where({ team_id: t.teamId }).orderBy('seq');
    expect(rows.map((r) => r.action)).toEqual(['A0', 'C3', 'C3', 'P3', 'P3', 'P3', 'P8', 'P3', 'AF8', 'AF8']);
    expect(rows.slice(1).every((r) => r.actor_type === 'API_KEY' && r.actor_label === t.key.slice(0, 11))).toBe(true);
    const signUp = rows[5]!;
    expect(signUp.resource_type).toBe('participants');
    expect(signUp.resource_id).toBe(friend.id);
    expect(JSON.parse(signUp.changes).fields).toMatchObject({ email: { after: 'friend@example.com' }, referredBy: { after: expect.anything() } });
    expect(rows[6]).toMatchObject({ resource_id: friend.id, resource_type: 'participants' });
    expect((await runCli(app, 'audit', 'verify', '--team', t.teamId)).code).toBe(0);
  });
});

describe('refloop audit verify', () => {
  it('finds an entry changed behind the triggers, names the team and entry, and exits 1', async () => {
    const t = await team();
    await t.req('PATCH', `/v2/campaign/${t.referral}`, { name: 'Before' });
    expect((await runCli(app, 'audit', 'verify')).code).toBe(0);
    const target = await app.deps.db.knex('audit_log').where({ team_id: t.teamId, action: 'C4' }).first();
    const k = app.deps.db.knex;
    // Tampering as someone with the database would: around the guard trigger.
    if (onPostgres) {
      await k.raw('ALTER TABLE audit_log DISABLE TRIGGER audit_log_guard');
      await k('audit_log').where({ team_id: t.teamId, seq: target.seq }).update({ changes: target.changes.replace('Before', 'After') });
      await k.raw('ALTER TABLE audit_log ENABLE TRIGGER audit_log_guard');
    } else {
      await k.raw('DROP TRIGGER audit_log_no_update');
      await k('audit_log').where({ team_id: t.teamId, seq: target.seq }).update({ changes: target.changes.replace('Before', 'After') });
      const { up } = await import('../../../server/db/migrations/038_audit_log.ts');
      await up(k);
    }
    const run = await runCli(app, 'audit', 'verify');
    expect(run.code).toBe(1);
    expect(run.err).toContain(`BROKEN team ${t.teamId} entry ${target.seq}: its content does not match its hash`);
  });

  it('finds an entry removed from the middle or the end of a chain', async () => {
    const t = await team();
    await t.req('PATCH', `/v2/campaign/${t.referral}`, { name: 'One' });
    await t.req('PATCH', `/v2/campaign/${t.referral}`, { name: 'Two' });
    const k = app.deps.db.knex;
    const last = await k('audit_log').where({ team_id: t.teamId }).max({ seq: 'seq' }).first();
    if (onPostgres) await k.raw('ALTER TABLE audit_log DISABLE TRIGGER audit_log_guard');
    else await k.raw('DROP TRIGGER audit_log_no_delete');
    await k('audit_log').where({ team_id: t.teamId, seq: Number(last!.seq) }).del();
    expect((await app.deps.audit.verify(t.teamId)).breaks[0]).toMatchObject({ teamId: t.teamId, seq: Number(last!.seq), problem: expect.stringContaining('were removed') });
    await k('audit_log').where({ team_id: t.teamId, seq: 2 }).del();
    if (onPostgres) await k.raw('ALTER TABLE audit_log ENABLE TRIGGER audit_log_guard');
    else await (await import('../../../server/db/migrations/038_audit_log.ts')).up(k);
    expect((await app.deps.audit.verify(t.teamId)).breaks[0]).toMatchObject({ seq: 2, problem: 'entry 2 is missing (the next stored entry is 3)' });
  });
});

describe('audit_log is append-only', () => {
  it('refuses UPDATE and DELETE of an entry, and of a prune record, in the database itself', async () => {
    const t = await team();
    const k = app.deps.db.knex;
    await expect(k('audit_log').where({ team_id: t.teamId }).update({ action: 'X' })).rejects.toThrow(/append-only/);
    await expect(k('audit_log').where({ team_id: t.teamId }).del()).rejects.toThrow(/append-only/);
    if (onPostgres) await expect(k.raw('TRUNCATE audit_log')).rejects.toThrow(/append-only/);
    // A prune record must name a stored entry by its real hash.
    await expect(k('audit_prunes').insert({ team_id: t.teamId, through_seq: 1, anchor_hash: 'f'.repeat(64), at: 0 })).rejects.toThrow(/anchor/);
    expect(await count(t.teamId)).toBeGreaterThan(3);
  });

  it('lets the retention prune remove old entries through a recorded anchor, and the chain still verifies', async () => {
    const t = await team();
    const n = await count(t.teamId);
    app.clock.advance(401 * 86_400_000);
    await t.req('PATCH', `/v2/campaign/${t.referral}`, { name: 'Later' });
    const pruned = await app.deps.maintenance.prune();
    expect(pruned.audit_log).toBeGreaterThanOrEqual(n);
    const rows = await app.deps.db.knex('audit_log').where({ team_id: t.teamId }).orderBy('seq');
    expect(rows.map((r) => r.action)).toEqual(['C4', 'audit.prune']);
    expect(rows[1]).toMatchObject({ actor_type: 'SYSTEM', actor_label: 'maintenance.prune' });
    expect(await app.deps.db.knex('audit_prunes').where({ team_id: t.teamId })).toMatchObject([{ through_seq: n }]);
    expect((await app.deps.audit.verify(t.teamId)).breaks).toEqual([]);
    const k = app.deps.db.knex;
    // Entries kept are still refused.
    await expect(k('audit_log').where({ team_id: t.teamId }).del()).rejects.toThrow(/append-only/);
  });
});

describe('GET /v2/team/audit-log', () => {
  it('pages newest first with nextCursor and filters by actor, resource, action and dates', async () => {
    const t = await team();
    for (let i = 0; i < 5; i++) await t.req('PATCH', `/v2/campaign/${t.referral}`, { name: `N${i}` });
    const first = await t.req('GET', '/v2/team/audit-log?limit=3');
    expect(first.entries.map((e: any) => e.seq)).toEqual([10, 9, 8]);
    expect(first.nextCursor).toBe('8');
    const second = await t.req('GET', `/v2/team/audit-log?limit=3&cursor=${first.nextCursor}`);
    expect(second.entries.map((e: any) => e.seq)).toEqual([7, 6, 5]);
    const all = await t.req('GET', '/v2/team/audit-log?limit=100');
    expect(all.entries).toHaveLength(10);
    expect(all.nextCursor).toBeNull();
    const byAction = await t.req('GET', '/v2/team/audit-log?action=C4');
    expect(byAction.entries).toHaveLength(5);
    expect(byAction.entries[0]).toMatchObject({ action: 'C4', actor: { type: 'API_KEY', label: t.key.slice(0, 11) }, resource: { type: 'campaigns', id: t.referral }, changes: { fields: { name: { before: 'N3', after: 'N4' } } } });
    expect((await t.req('GET', `/v2/team/audit-log?resourceType=participants&resourceId=${t.aff}`)).entries.map((e: any) => e.action)).toEqual(['P3']);
    expect((await t.req('GET', `/v2/team/audit-log?actor=${t.key.slice(0, 11)}`)).entries).toHaveLength(9);
    expect((await t.req('GET', '/v2/team/audit-log?actor=someone@else.example')).entries).toEqual([]);
    const now = app.clock.now();
    expect((await t.req('GET', `/v2/team/audit-log?from=${now + 1}`)).entries).toEqual([]);
    expect((await t.req('GET', `/v2/team/audit-log?to=${new Date(now + 1).toISOString()}`)).entries).toHaveLength(10);
    // Another team sees only its own.
    const other = await team();
    expect((await other.req('GET', '/v2/team/audit-log?limit=100')).entries.every((e: any) => e.resource.id !== t.referral)).toBe(true);
  });

  it('answers 400 for a bad filter and 403 without team:read', async () => {
    const t = await team();
    expect((await app.request('GET', '/v2/team/audit-log?limit=0', { key: t.key })).status).toBe(400);
    expect((await app.request('GET', '/v2/team/audit-log?from=yesterday', { key: t.key })).status).toBe(400);
    const key = await app.deps.keys.create(app.deps.db.knex, { teamId: t.teamId, scopes: ['participant:read'], programIds: null, origin: 'CLI' });
    expect((await app.request('GET', '/v2/team/audit-log', { key: key.secret })).status).toBe(403);
  });

  it('exports the filtered trail as CSV', async () => {
    const t = await team();
    await t.req('PATCH', `/v2/campaign/${t.referral}`, { name: 'Exported' });
    const res = await app.request('GET', '/v2/team/audit-log/export.csv?action=C4', { key: t.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('audit-log.csv');
    const lines = res.text.trim().split('\r\n');
    expect(lines[0]).toBe('"seq","at","actorType","actor","actorId","ip","userAgent","action","resourceType","resourceId","changes","hash"');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"C4"');
    expect(lines[1]).toContain('Exported');
  });
});

describe('audited exports', () => {
  it('record who took a copy of participants, referrals, rewards, commissions, payouts or the trail, with the filters, and a refused export records nothing', async () => {
    const t = await team();
    const exports: Array<[string, string]> = [
      ['DX1', `/v2/campaign/${t.referral}/export/participants.csv`],
      ['DX2', `/v2/campaign/${t.referral}/export/referrals.csv`],
      ['DX3', `/v2/campaign/${t.referral}/export/rewards.csv`],
      ['DX4', `/v2/campaign/${t.affiliate}/export/commissions.csv`],
      ['PO3', `/v2/campaign/${t.affiliate}/payouts/export.csv?format=paypal`],
      ['AU2', '/v2/team/audit-log/export.csv?action=P3'],
    ];
    const prefix = t.key.slice(0, 11);
    for (const [id, path] of exports) {
      const before = await count(t.teamId);
      const res = await app.request('GET', path, { key: t.key });
      expect(res.status, `${id} ${res.text.slice(0, 200)}`).toBe(200);
      const entries = await app.deps.db.knex('audit_log').where({ team_id: t.teamId }).where('seq', '>', 0).orderBy('seq', 'desc').limit((await count(t.teamId)) - before);
      expect(entries.map((e: { action: string }) => e.action), id).toEqual([id]);
      expect(entries[0].actor_label).toBe(prefix);
    }
    const payouts = await app.deps.db.knex('audit_log').where({ team_id: t.teamId, action: 'PO3' }).first();
    expect(JSON.parse(payouts.changes).fields.format).toEqual({ after: 'paypal' });
    // A referral program has no commissions: refused (422), and not recorded.
    const before = await count(t.teamId);
    expect((await app.request('GET', `/v2/campaign/${t.referral}/export/commissions.csv`, { key: t.key })).status).toBe(422);
    expect(await count(t.teamId)).toBe(before);
  });
});

describe('owner page access events', () => {
  it('records a sign-in, a failed sign-in by email (never the password), an invitation and a sign-out', async () => {
    const owner = await signedInOwner(app);
    const failed = await signIn(app, owner.email, 'wrong password here');
    expect(failed.res.status).toBe(400);
    await signIn(app, 'nobody-at-all@example.com', 'whatever password');
    const csrf = await owner.b.csrf('/team/members');
    expect((await owner.b.post('/team/members/invite', { csrf, email: 'mate@example.com', role: 'MEMBER' })).status).toBe(303);
    expect((await owner.b.post('/signout', { csrf })).status).toBe(303);
    const rows = await app.deps.db.knex('audit_log').where({ team_id: owner.teamId }).whereLike('action', 'access.%').orderBy('seq');
    expect(rows.map((r) => r.action)).toEqual(['access.signIn', 'access.signInFailed', 'access.memberInvite', 'access.signOut']);
    expect(rows[1]).toMatchObject({ actor_type: 'MEMBER', actor_label: owner.email, ip: expect.any(String) });
    expect(JSON.stringify(rows)).not.toContain('wrong password here');
    expect(await app.deps.db.knex('audit_log').whereLike('actor_label', 'nobody-at-all%').first()).toBeUndefined();
  });
});

describe('MCP tool writes', () => {
  it('are audited like REST writes, by the key prefix, and reads are not', async () => {
    const t = await team();
    const client = await connect(app, t.key);
    const before = await count(t.teamId);
    const created: any = await client.callTool({ name: 'growsurf_create_campaign', arguments: { type: 'REFERRAL', name: 'Through MCP' } });
    expect(created.isError).toBeFalsy();
    await client.callTool({ name: 'growsurf_get_campaign', arguments: { campaignId: t.referral } });
    await client.close();
    const rows = await app.deps.db.knex('audit_log').where({ team_id: t.teamId }).where('seq', '>', before).orderBy('seq');
    expect(rows).toMatchObject([{ action: 'C3', actor_type: 'API_KEY', actor_label: t.key.slice(0, 11) }]);
  });
});

describe('concurrent audited writes', () => {
  it('never fork a team chain: parallel sign-ups, triggers and updates leave one contiguous, verifiable chain', async () => {
    const t = await team();
    const friends = await Promise.all(Array.from({ length: 12 }, (_, i) => t.req('POST', `/v2/campaign/${t.referral}/participant`, { email: `par${i}@example.com`, referredBy: t.referrer })));
    await Promise.all([
      ...friends.map((f) => t.req('POST', `/v2/campaign/${t.referral}/participant/${f.id}/ref`, {})),
      ...Array.from({ length: 6 }, (_, i) => t.req('PATCH', `/v2/campaign/${t.affiliate}`, { name: `Par ${i}` })),
    ]);
    const seqs = (await app.deps.db.knex('audit_log').where({ team_id: t.teamId }).orderBy('seq').pluck('seq')).map(Number);
    expect(seqs).toEqual(Array.from({ length: 5 + 12 + 12 + 6 }, (_, i) => i + 1));
    expect((await app.deps.audit.verify(t.teamId)).breaks).toEqual([]);
  });
});

describe('a purged team', () => {
  it('keeps its trail until retention, then loses it whole through a recorded prune, and verify stays clean', async () => {
    const t = await team();
    const k = app.deps.db.knex;
    const n = await count(t.teamId);
    await k('teams').where({ id: t.teamId }).del();
    expect(await count(t.teamId)).toBe(n);
    app.clock.advance(401 * 86_400_000);
    await app.deps.maintenance.prune();
    expect(await count(t.teamId)).toBe(0);
    expect(await k('audit_prunes').where({ team_id: t.teamId }).first()).toMatchObject({ through_seq: n });
    expect((await app.deps.audit.verify(t.teamId)).breaks).toEqual([]);
  });
});
