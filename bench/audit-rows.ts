// Rows (au1), (au2) (BENCH_ONLY=audit, issue #35): what the audit trail costs a referral trigger and
// an affiliate sale over HTTP. Each kind runs on one real app (bench/audit-server.ts, built as
// `refloop serve` builds it) on a fresh database (SQLite, or PostgreSQL with BENCH_DATABASE_URL):
// after the warm-up, blocks of one second alternate between the trail on and `deps.audit.append` a
// no-op in that bench process (SIGUSR2 switches; the order on, off, off, on, … so drift falls on
// both), each block's server CPU (and database backends' CPU on PostgreSQL) read from /proc. The
// rows sum each mode's blocks; the ratio is CPU per operation with ÷ without. Afterwards the entries
// stored are checked against the operations answered while the trail was on.
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { PG_URL, ROOT, SECONDS, TRIGGERS, WARMUP_REQUESTS } from './settings.ts';
import type { BenchRequest } from './load.ts';
import { baseEnv, benchPort, call, pgSchema, startChild, stopChild, tempDirs, verifiedKey, waitReady, WRITE_ROW_LIMITS, type Target } from './processes.ts';
import { cpuTicksOf, drive, usPerOp, warmUp, type LoadResult } from './load.ts';
import { rowOf, type Row } from './table.ts';

type Mode = 'on' | 'off';
type Kind = 'trigger' | 'sale';

/** The audit-server child on a fresh database: its target, its database's backends (PostgreSQL) and how to stop it and drop the database. */
async function startAuditServer(): Promise<{ t: Target; backends: () => Promise<number[]>; done: () => Promise<void> }> {
  const port = await benchPort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-bench-audit-'));
  tempDirs.push(dir);
  const schema = PG_URL ? await pgSchema() : null;
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(),
    NODE_ENV: 'production',
    ALLOW_HTTP_PUBLIC_URL: 'true',
    PUBLIC_URL: base,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dir,
    DATABASE_URL: schema?.url ?? path.join(dir, 'refloop.db'),
    LOG_LEVEL: 'silent',
    JOBS: 'false',
    ...WRITE_ROW_LIMITS,
  };
  const name = 'audit-server';
  const child = startChild(name, ['--import', 'tsx', path.join(ROOT, 'bench', 'audit-server.ts')], env);
  await waitReady(child, `${base}/healthz`, name);
  const { default: knexFactory } = await import('knex');
  const admin = schema ? knexFactory({ client: 'pg', connection: PG_URL!, pool: { min: 0, max: 1 } }) : null;
  return {
    t: { name, child, base, env },
    backends: async () => (admin ? ((await admin.raw('SELECT pid FROM pg_stat_activity WHERE application_name = ?', [schema!.tag])).rows as Array<{ pid: number }>).map((r) => r.pid) : []),
    done: async () => {
      await stopChild(child);
      await admin?.destroy();
      await schema?.drop();
    },
  };
}

/** Opens the server's database (SQLite file or PostgreSQL schema) for set-up and counting. */
async function serverDb(t: Target) {
  const { openDb } = await import('../server/db/connect.ts');
  const url = String(t.env.DATABASE_URL);
  return openDb(/^postgres/.test(url) ? { client: 'pg', url } : { client: 'better-sqlite3', filename: url });
}

/** What one mode's blocks added up to. */
interface ModeTotal {
  completed: number;
  ok: number;
  errors: number;
  seconds: number;
  latencies: number[];
  statuses: Map<number, number>;
  appTicks: number;
  dbTicks: number;
  blocks: number;
}

const BLOCK_MS = 1000;

/** Sets a program up for `kind` on `t` and answers the request maker of the load (a fresh operation each call) and what to count afterwards. */
async function setUp(t: Target, kind: Kind, key: string): Promise<{ next: () => BenchRequest | null; programId: string; left: () => number }> {
  const json = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  if (kind === 'trigger') {
    // Row (h)'s program: DOUBLE_SIDED reward, one webhook; pending referrals seeded into the server's database.
    const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] });
    await call(t, 'POST', `/v2/campaign/${program.id}/webhooks`, key, { payloadUrl: 'https://127.0.0.1:9/hook', events: ['PARTICIPANT_REACHED_A_GOAL'] });
    const { seedParticipants } = await import('../scripts/seed.ts');
    const db = await serverDb(t);
    let ids: string[];
    try {
      await seedParticipants(db, { programId: program.id, count: Math.ceil(TRIGGERS / 0.9) + 10, now: Date.now(), referredShare: 0.95, pendingShare: 1, seed: 2 });
      ids = await db.knex('participants').where({ program_id: program.id, referral_status: 'CREDIT_PENDING' }).orderByRaw('random()').limit(TRIGGERS).pluck('id');
    } finally {
      await db.close();
    }
    let n = 0;
    return {
      programId: program.id,
      next: () => (n < ids.length ? { url: `${t.base}/v2/campaign/${program.id}/participant/${ids[n++]}/ref`, method: 'POST', headers: json, body: '{}' } : null),
      left: () => ids.length - n,
    };
  }
  // Row (m)'s program: a 10 % commission, one webhook, 100 customers of 10 affiliates, a fresh order each request.
  const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'AFFILIATE' });
  await call(t, 'PATCH', `/v2/campaign/${program.id}/reward-configs/${program.rewards[0].id}`, key, { commissionStructure: { type: 'PERCENT', percent: 10, event: 'SALE', duration: 'FOREVER', holdDuration: 0 } });
  await call(t, 'POST', `/v2/campaign/${program.id}/webhooks`, key, { payloadUrl: 'https://127.0.0.1:9/hook', events: ['NEW_COMMISSION_ADDED'] });
  const customers: string[] = [];
  for (let a = 0; a < 10; a++) {
    const affiliate = await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: `affiliate-${a}@example.com` });
    for (let c = 0; c < 10; c++) customers.push((await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: `customer-${a}-${c}@example.com`, referredBy: affiliate.id })).id);
  }
  let n = 0;
  return {
    programId: program.id,
    next: () => {
      const i = n++;
      return { url: `${t.base}/v2/campaign/${program.id}/participant/${customers[i % customers.length]}/transaction`, method: 'POST', headers: json, body: JSON.stringify({ currency: 'USD', grossAmount: 1000 + (i % 9000), orderId: `o-${i}` }) };
    },
    left: () => Infinity,
  };
}

/** One kind on one server: warm-up (trail on), then alternating blocks; answers each mode's totals and the stored-entries check. */
async function runKind(kind: Kind): Promise<{ on: ModeTotal; off: ModeTotal; check: string }> {
  const s = await startAuditServer();
  const { t } = s;
  try {
    const key = await verifiedKey(t, `bench-audit-${kind}@acme-widgets.com`);
    const { next, programId, left } = await setUp(t, kind, key);
    const warm = await warmUp(() => next(), kind === 'trigger' ? Math.min(WARMUP_REQUESTS, Math.floor(TRIGGERS / 10)) : WARMUP_REQUESTS);
    const empty = (): ModeTotal => ({ completed: 0, ok: 0, errors: 0, seconds: 0, latencies: [], statuses: new Map(), appTicks: 0, dbTicks: 0, blocks: 0 });
    const totals = { on: empty(), off: empty() };
    let mode: Mode = 'on';
    const blocks = Math.max(2, Math.round((2 * SECONDS * 1000) / BLOCK_MS));
    // on, off, off, on, on, off, …: each pair of blocks in turn starts with the mode the last one ended with.
    for (let b = 0; b < blocks && left() > 0; b++) {
      const want: Mode = b % 4 === 0 || b % 4 === 3 ? 'on' : 'off';
      if (want !== mode) {
        t.child.kill('SIGUSR2');
        mode = want;
        await new Promise((r) => setTimeout(r, 100));
      }
      const db0 = await s.backends();
      const before = { app: cpuTicksOf([t.child.pid!]), db: cpuTicksOf(db0) };
      const r: LoadResult = await drive(BLOCK_MS, () => next());
      const dbPids = [...new Set([...db0, ...(await s.backends())])];
      const m = totals[mode];
      m.appTicks += cpuTicksOf([t.child.pid!]) - before.app;
      m.dbTicks += cpuTicksOf(dbPids) - before.db;
      m.completed += r.completed;
      m.ok += r.statuses.get(200) ?? 0;
      m.errors += r.errors;
      m.seconds += r.seconds;
      m.latencies.push(...r.latencies);
      for (const [st, c] of r.statuses) m.statuses.set(st, (m.statuses.get(st) ?? 0) + c);
      m.blocks++;
    }
    await stopChild(t.child);
    const db = await serverDb(t);
    try {
      const entries = Number((await db.knex('audit_log').whereIn('action', ['P8', 'AF8']).count({ n: '*' }).first())?.n ?? 0);
      const expected = (warm.statuses.get(200) ?? 0) + totals.on.ok;
      const stored = kind === 'trigger'
        ? Number((await db.knex('participants').where({ program_id: programId, referral_status: 'CREDIT_AWARDED' }).count({ n: '*' }).first())?.n ?? 0)
        : Number((await db.knex('affiliate_transactions').where({ program_id: programId }).count({ n: '*' }).first())?.n ?? 0);
      const ranOut = totals.on.blocks + totals.off.blocks < blocks ? `; ran out of prepared referrals after ${totals.on.blocks + totals.off.blocks} of ${blocks} blocks (raise BENCH_TRIGGERS)` : '';
      const check = `${entries.toLocaleString('en')} entries stored for ${expected.toLocaleString('en')} operations answered with the trail on (warm-up included) and ${stored.toLocaleString('en')} stored in all${entries === expected ? '' : ' — MISMATCH'}${ranOut}`;
      return { ...totals, check };
    } finally {
      await db.close();
    }
  } finally {
    await s.done();
  }
}

/** Rows (au1) and (au2), each with its baseline, and the with ÷ without lines. */
export async function auditRows(): Promise<{ rows: Row[]; lines: string[] }> {
  const where = PG_URL ? 'PostgreSQL' : 'SQLite';
  const rows: Row[] = [];
  const lines: string[] = [];
  const kinds: Array<{ kind: Kind; label: string; what: string }> = [
    ...(TRIGGERS > 0 ? [{ kind: 'trigger' as const, label: '(au1) trigger referral, DOUBLE_SIDED + 1 webhook', what: 'triggers' }] : []),
    { kind: 'sale', label: '(au2) record affiliate sale, 10 % commission + 1 webhook', what: 'sales' },
  ];
  for (const { kind, label, what } of kinds) {
    console.log(`\n${label}: the audit trail on, and deps.audit.append a no-op in the bench's server process, ${where}, alternating 1 s blocks (${SECONDS} s of each)`);
    const { on, off, check } = await runKind(kind);
    const cpu = { on: { app: 0, db: 0 }, off: { app: 0, db: 0 } };
    for (const [mode, m] of [['on', on], ['off', off]] as const) {
      const row = rowOf(`${label}, ${mode === 'on' ? 'audit trail on' : 'baseline: append a no-op (bench only)'}`, { completed: m.completed, errors: m.errors, statuses: m.statuses, seconds: m.seconds, latencies: m.latencies, outcomes: new Map() }, m.appTicks);
      if (PG_URL) row.dbCpuUsPerReq = usPerOp(m.dbTicks, m.completed);
      row.note = `${where}, one bench/audit-server.ts process, ${m.blocks} blocks of 1 s; ${m.ok} × 200${m.completed - m.ok ? `, ${m.completed - m.ok} other` : ''}${m.errors ? `, ${m.errors} errors` : ''}`;
      cpu[mode] = { app: row.cpuUsPerReq, db: row.dbCpuUsPerReq ?? 0 };
      rows.push(row);
      console.log(`  ${mode}: ${m.completed} ${what} in ${m.seconds.toFixed(1)} s, app CPU ${row.cpuUsPerReq.toFixed(0)} µs/op${PG_URL ? `, database CPU ${row.dbCpuUsPerReq!.toFixed(0)} µs/op` : ''}`);
    }
    console.log(`  ${check}`);
    const line =
      `  ${what}: with ÷ without the audit append, app CPU per op ${(cpu.on.app / cpu.off.app).toFixed(3)} (${cpu.on.app.toFixed(0)} vs ${cpu.off.app.toFixed(0)} µs)` +
      (PG_URL ? `, database CPU ${(cpu.on.db / cpu.off.db).toFixed(3)} (${cpu.on.db.toFixed(0)} vs ${cpu.off.db.toFixed(0)} µs), app + database ${((cpu.on.app + cpu.on.db) / (cpu.off.app + cpu.off.db)).toFixed(3)}` : '') +
      `; ${check}`;
    lines.push(line);
  }
  return { rows, lines };
}
