import crypto from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { seedParticipants } from '../../../scripts/seed.ts';

// Issue #26 goal 1's guard: every query of the hot paths, as the code sends it today, is planned by
// PostgreSQL without a sequential scan of a large table. The SQL is not copied here: the test calls
// the API (hot paths through their domain services), records every statement that reaches the
// database (knex's `query` event for the query builder and `Db.get/all`, and the named statements
// of `Db.batch`/`Db.statements` as they go to the pg client), and runs EXPLAIN (FORMAT JSON) on each
// with the values it was sent with. A new query, or a changed one, is checked without touching
// this file. Each statement is planned twice:
//   1. as the planner would choose in a program of 20,000 participants (with visits, rewards and
//      activity rows to match) after ANALYZE: no Seq Scan of a table that holds ≥ 10,000 rows;
//   2. with enable_seqscan off: a Seq Scan that remains means no index can serve the statement at
//      all, so on any large table (seeded here or not) it fails: at 1M rows that is a full scan.

/** Tables that grow with traffic: a hot-path statement must reach them through an index. */
const LARGE_TABLES = new Set([
  'participants',
  'participant_vanity_keys',
  'participant_metadata',
  'participant_rewards',
  'referral_triggers',
  'visits',
  'visit_uniques',
  'activity_logs',
  'commissions',
  'affiliate_transactions',
  'transaction_keys',
  'webhook_events',
  'webhook_deliveries',
  'jobs',
  'idempotency_records',
  'invites',
  'mail_outbox',
]);
const PARTICIPANTS = 20_000;
/** A table is "large" for plan 1 from this many rows (pg_class.reltuples after ANALYZE). */
const LARGE_ROWS = 10_000;

interface Captured {
  sql: string;
  values: unknown[];
  /** The hot path that sent it first. */
  step: string;
  /** A named statement (Db.batch / Db.statements): PostgreSQL may settle on a generic plan for it. */
  named: boolean;
}

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; Plans?: PlanNode[] };

function seqScans(node: PlanNode, out: string[] = []): string[] {
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name']) out.push(node['Relation Name']);
  for (const child of node.Plans ?? []) seqScans(child, out);
  return out;
}

/** `?` placeholders as `$n` (knex reports PostgreSQL queries with `$n` already; raw SQL may keep `?`). */
function positional(sql: string): string {
  if (/\$\d/.test(sql)) return sql;
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

describe.skipIf(!onPostgres)('hot-path query plans (PostgreSQL only: EXPLAIN is PostgreSQL’s, and SQLite plans by other rules; skipped on SQLite)', () => {
  let app: TestApp;
  const captured = new Map<string, Captured>();
  let step = 'setup';
  let capturing = false;
  const record = (sql: string, values: unknown[] | undefined, named = false) => {
    if (!capturing) return;
    const text = positional(sql.trim());
    if (!/^(select|insert|update|delete|with)\b/i.test(text)) return; // BEGIN, COMMIT, SAVEPOINT, SET…
    if (!captured.has(text)) captured.set(text, { sql: text, values: values ?? [], step, named });
  };
  // The named statements of Db.batch / Db.statements go to the pg client directly, past knex's events.
  const query = pg.Client.prototype.query;
  /** A query on `conn` through the unpatched method (not recorded). */
  const send = (conn: pg.Client, q: string | { text: string; values: unknown[] }) => (query as (q: unknown) => Promise<pg.QueryResult>).call(conn, q);

  let program: { pid: string; key: string; publicKey: string };
  let pending: string[] = [];
  let someone: { id: string; email: string; share_key: string };

  beforeAll(async () => {
    app = await startApp({ ...RAISED_LIMITS, WEBHOOK_ALLOW_PRIVATE: 'true' });
    const acct = await verifiedAccount(app);
    const created = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] } });
    expect(created.status).toBe(200);
    const pid = created.body.id as string;
    const installed = await app.request('PATCH', `/v2/campaign/${pid}/installation`, { key: acct.key, body: { mobile: { isEnabled: true } } });
    expect(installed.status).toBe(200);
    const hook = await app.request('POST', `/v2/campaign/${pid}/webhooks`, { key: acct.key, body: { payloadUrl: 'https://127.0.0.1:9/hook', events: ['PARTICIPANT_REACHED_A_GOAL', 'NEW_PARTICIPANT_ADDED'] } });
    expect(hook.status).toBe(200);
    program = { pid, key: acct.key, publicKey: installed.body.mobile.publicKey };

    // 20,000 participants (half the referrals still pending, so triggers have work), then visits,
    // rewards and activity rows in proportion, each in one multi-row INSERT … SELECT.
    const db = app.deps.db;
    await seedParticipants(db, { programId: pid, count: PARTICIPANTS, now: Date.now(), referredShare: 0.7, pendingShare: 0.5, seed: 26 });
    const rewardConfig = (await db.knex('reward_configs').where({ program_id: pid }).first('id'))!.id as string;
    await db.knex.raw(
      // txid 1: below the impression fold's watermark, as if folded long ago (folding 60,000 visits is not under test).
      `INSERT INTO visits (program_id, visit_id, visitor_key, created_at, referrer_id, first_referrer_id, first_visit_at, referral_code, txid)
       SELECT program_id, 'seed-' || id || '-' || g, 'vk-' || id || '-' || g, created_at + g, id, id, created_at, share_key, '1'::xid8
       FROM participants, generate_series(1, 3) AS g WHERE program_id = ?`,
      [pid],
    );
    await db.knex.raw(
      `INSERT INTO activity_logs (program_id, participant_id, type, action, text, created_at)
       SELECT program_id, id, 'PARTICIPANT', 'SEEDED', 'Seeded for the plan test', created_at + g FROM participants, generate_series(1, 2) AS g WHERE program_id = ?`,
      [pid],
    );
    await db.knex.raw(
      `INSERT INTO participant_rewards (id, program_id, participant_id, reward_config_id, issue_key, status, approved, is_available, is_referrer, referrer_id, referred_id, created_at)
       SELECT 'seedrw' || id || s.r, program_id, CASE WHEN s.r THEN referred_by ELSE id END, ?, 'seed:' || id || ':' || s.r, 'PENDING', false, true, s.r, referred_by, id, credited_at
       FROM participants, (VALUES (true), (false)) AS s(r) WHERE program_id = ? AND referral_status = 'CREDIT_AWARDED'`,
      [rewardConfig, pid],
    );
    await db.knex.raw('ANALYZE');
    pending = await db.knex('participants').where({ program_id: pid, referral_status: 'CREDIT_PENDING' }).orderBy('id').limit(5).pluck('id');
    someone = await db.knex('participants').where({ program_id: pid }).whereNotNull('referred_by').orderBy('id').first('id', 'email', 'share_key');
    expect(pending).toHaveLength(5);

    db.knex.on('query', (q: { sql: string; bindings?: unknown[] }) => record(q.sql, q.bindings));
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as { name?: string; text?: string; values?: unknown[] };
      if (q && typeof q === 'object' && q.name && q.text) record(q.text, q.values, true);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
  }, 180_000);

  afterAll(async () => {
    pg.Client.prototype.query = query;
    await app?.close();
  }, 60_000);

  /** Runs `fn` with every statement it sends recorded under `name`. */
  async function hotPath(name: string, fn: () => Promise<void>): Promise<void> {
    step = name;
    capturing = true;
    try {
      await fn();
    } finally {
      capturing = false;
    }
  }

  async function withConnection(fn: (conn: pg.Client) => Promise<void>): Promise<void> {
    const client = app.deps.db.knex.client as { acquireConnection(): Promise<pg.Client>; releaseConnection(c: pg.Client): Promise<void> };
    const conn = await client.acquireConnection();
    try {
      await fn(conn);
    } finally {
      await client.releaseConnection(conn);
    }
  }

  async function tableSizes(conn: pg.Client): Promise<Map<string, number>> {
    const res = await send(conn, `SELECT relname, reltuples FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace`);
    return new Map(res.rows.map((r: { relname: string; reltuples: number }) => [r.relname, Number(r.reltuples)]));
  }

  /**
   * What is wrong with the plans of one statement: the planner's own choice for the values it was
   * sent with (a custom plan, as knex's unnamed statements get), the generic plan a named statement
   * of Db.batch/Db.statements settles on after five runs (PREPARE + EXPLAIN EXECUTE under
   * plan_cache_mode force_generic_plan: it does not know which program a $1 names), and the plan
   * with sequential scans disabled (does any index serve it at all).
   */
  async function planProblems(conn: pg.Client, sizes: Map<string, number>, c: Captured): Promise<string[]> {
    const scans = async (text: string, values: unknown[]) => {
      const res = await send(conn, { text, values });
      return seqScans((res.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
    };
    const big = (t: string) => LARGE_TABLES.has(t) && (sizes.get(t) ?? 0) >= LARGE_ROWS;
    const custom = (await scans(`EXPLAIN (FORMAT JSON) ${c.sql}`, c.values)).filter(big);
    let generic: string[] = [];
    // knex sends unnamed statements, planned afresh with their values every time: only named ones go generic.
    if (c.named) {
      await send(conn, `PREPARE plan_probe AS ${c.sql}`);
      try {
        await send(conn, 'SET plan_cache_mode = force_generic_plan');
        // EXECUTE takes its arguments as SQL (it cannot refer to bound parameters): literals of the sent values.
        const literal = (v: unknown): string =>
          v === null || v === undefined ? 'NULL' : typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' ? String(v) : conn.escapeLiteral(typeof v === 'string' ? v : JSON.stringify(v));
        const args = c.values.map(literal).join(', ');
        generic = (await scans(`EXPLAIN (FORMAT JSON) EXECUTE plan_probe${args ? `(${args})` : ''}`, [])).filter(big);
      } finally {
        await send(conn, 'RESET plan_cache_mode');
        await send(conn, 'DEALLOCATE plan_probe');
      }
    }
    await send(conn, 'SET enable_seqscan = off');
    let forced: string[];
    try {
      forced = (await scans(`EXPLAIN (FORMAT JSON) ${c.sql}`, c.values)).filter((t) => LARGE_TABLES.has(t));
    } finally {
      await send(conn, 'RESET enable_seqscan');
    }
    const oneLine = c.sql.replace(/\s+/g, ' ').slice(0, 400);
    const at = `at ${PARTICIPANTS.toLocaleString('en')} participants`;
    return [
      ...(custom.length ? [`[${c.step}] the planner chose Seq Scan on ${custom.join(', ')} ${at}: ${oneLine}`] : []),
      ...(generic.length ? [`[${c.step}] the generic plan (a named statement after five runs) has Seq Scan on ${generic.join(', ')} ${at}: ${oneLine}`] : []),
      ...(forced.length ? [`[${c.step}] no index serves ${forced.join(', ')} (Seq Scan with enable_seqscan off): ${oneLine}`] : []),
    ];
  }

  it('catches statements that scan a large table (the check itself)', async () => {
    await withConnection(async (conn) => {
      const sizes = await tableSizes(conn);
      const check = async (sql: string, values: unknown[]) => (await planProblems(conn, sizes, { sql, values, step: 'control', named: true })).map((p) => p.split(':')[0]);
      // No index can serve it at all: every pass says so.
      expect(await check('SELECT id FROM participants WHERE length(email) = $1', [30])).toEqual([
        '[control] the planner chose Seq Scan on participants at 20,000 participants',
        '[control] the generic plan (a named statement after five runs) has Seq Scan on participants at 20,000 participants',
        '[control] no index serves participants (Seq Scan with enable_seqscan off)',
      ]);
      // An index on program_id exists, but every row is in this program: the planner scans the table.
      expect(await check('SELECT id FROM participants WHERE program_id = $1 AND length(email) = $2', [program.pid, 30])).toEqual([
        '[control] the planner chose Seq Scan on participants at 20,000 participants',
        '[control] the generic plan (a named statement after five runs) has Seq Scan on participants at 20,000 participants',
      ]);
      // The generic plan alone: the shape PG_BEHIND (impressions.ts) had before it was ordered by txid.
      expect(await check('SELECT 1 AS x FROM visits WHERE txid >= $1::text::xid8 LIMIT 1', ['1000000'])).toEqual([
        '[control] the generic plan (a named statement after five runs) has Seq Scan on visits at 20,000 participants',
      ]);
      expect(await check('SELECT id FROM participants WHERE id = $1', ['x'])).toEqual([]);
    });
  });

  it('plans every hot-path statement without a sequential scan of a large table', async () => {
    const { pid, key } = program;
    const ok = (res: { status: number; text: string }) => expect(res.status, res.text).toBe(200);
    const tag = crypto.randomBytes(4).toString('hex');

    // A vanity key names a referrer too (set here, outside the captured paths).
    ok(await app.request('POST', `/v2/campaign/${pid}/participant/${someone.id}`, { key, body: { vanityKeys: [`plan-${tag}`] } }));
    await hotPath('referred sign-up (by id, share key, vanity key and email)', async () => {
      ok(await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: `friend-a-${tag}@example.com`, referredBy: someone.id } }));
      ok(await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: `friend-v-${tag}@example.com`, referredBy: `PLAN-${tag}` } }));
      ok(await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: `friend-b-${tag}@example.com`, referredBy: someone.share_key } }));
      ok(await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: `friend-c-${tag}@example.com`, referredBy: someone.email } }));
      // An existing email answers the stored participant.
      ok(await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: someone.email } }));
    });

    await hotPath('visit ingestion', async () => {
      const headers = { 'x-program-id': pid, 'x-public-key': program.publicKey };
      const session = await app.request('POST', '/mobile/v2/sessions', { headers, body: { instanceId: crypto.randomUUID() } });
      ok(session);
      const token = session.body.sessionToken as string;
      const before = (await app.request('GET', `/v2/campaign/${pid}/participant/${someone.id}`, { key })).body.impressionCount as number;
      for (let i = 0; i < 3; i++) {
        const visit = await app.request('POST', '/mobile/v2/visits', {
          headers: { 'x-session-token': token },
          body: { visitId: `plan-${tag}-${i}`, attribution: { referralCode: someone.share_key } },
        });
        ok(visit);
        expect(visit.body.status).toBe('RECORDED');
      }
      // A repeat answers from the stored row.
      ok(await app.request('POST', '/mobile/v2/visits', { headers: { 'x-session-token': token }, body: { visitId: `plan-${tag}-0`, attribution: { referralCode: someone.share_key } } }));
      // The impression counters are folded from the visits table (within a second, or now): its statements too.
      await app.deps.visits.flush();
      expect((await app.request('GET', `/v2/campaign/${pid}/participant/${someone.id}`, { key })).body.impressionCount).toBeGreaterThan(before);
    });

    await hotPath('referral trigger', async () => {
      for (const id of pending) ok(await app.request('POST', `/v2/campaign/${pid}/participant/${id}/ref`, { key, body: {} }));
    });

    await hotPath('participant read by id, email and share key', async () => {
      ok(await app.request('GET', `/v2/campaign/${pid}/participant/${someone.id}`, { key }));
      ok(await app.request('GET', `/v2/campaign/${pid}/participant/${encodeURIComponent(someone.email)}`, { key }));
      // A share key names a participant wherever a referrer is named (sign-up above, visits).
      ok(await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: `friend-d-${tag}@example.com`, referredBy: someone.share_key.toUpperCase() } }));
    });

    await hotPath('leaderboard top-N and rank', async () => {
      for (const type of ['ALL_TIME', 'CURRENT_MONTH']) {
        const board = await app.request('GET', `/v2/campaign/${pid}/leaderboard?limit=50&leaderboardType=${type}`, { key });
        ok(board);
        expect(board.body.participants).toHaveLength(50);
        ok(await app.request('GET', `/v2/campaign/${pid}/leaderboard?limit=50&leaderboardType=${type}&nextId=${board.body.nextId}`, { key }));
      }
      const read = await app.request('GET', `/v2/campaign/${pid}/participant/${pending[0]}`, { key });
      ok(read);
      expect(read.body.rank).toEqual(expect.any(Number));
    });

    await hotPath('participants list (P1): first page, search, cursor', async () => {
      const first = await app.request('GET', `/v2/campaign/${pid}/participants?limit=50`, { key });
      ok(first);
      expect(first.body.participants).toHaveLength(50);
      ok(await app.request('GET', `/v2/campaign/${pid}/participants?limit=50&nextId=${first.body.nextId}`, { key }));
      const found = await app.request('GET', `/v2/campaign/${pid}/participants?limit=50&search=${encodeURIComponent(someone.email.slice(0, 12))}`, { key });
      ok(found);
      expect(found.body.participants.map((p: { id: string }) => p.id)).toContain(someone.id);
    });

    expect(captured.size).toBeGreaterThan(20);
    const failures: string[] = [];
    await withConnection(async (conn) => {
      const sizes = await tableSizes(conn);
      expect(sizes.get('participants')).toBeGreaterThanOrEqual(PARTICIPANTS);
      for (const c of captured.values()) failures.push(...(await planProblems(conn, sizes, c)));
    });
    if (process.env.PLAN_DEBUG) for (const c of captured.values()) console.log(`[${c.step}] ${c.sql.replace(/\s+/g, ' ').slice(0, 300)}`);
    expect(failures, `${failures.length} plan(s) scan a large table sequentially:\n${failures.join('\n')}`).toEqual([]);
  }, 180_000);
});
