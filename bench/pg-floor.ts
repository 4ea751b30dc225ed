// BENCH_ONLY=pg-floor (issue #34 goal 1): each write operation on PostgreSQL against its floor.
//
// One `refloop serve` host (PostgreSQL + Redis, WORKERS unset, limits raised) with BENCH_PARTICIPANTS
// participants seeded into a REFERRAL program (DOUBLE_SIDED reward, one webhook, as row h) and an
// AFFILIATE program (10 % commission, one webhook, 50 affiliates with 4 customers each).
// The real rows (pf1)–(pf3) drive referred sign-ups (P3), triggers of seeded pending referrals (P8)
// and affiliate sales over HTTP on 50 connections: app CPU is the server process's, database CPU the
// backends' serving the schema. Then the server runs BENCH_FLOOR_OPS more of each one at a time with
// bench/pg-capture.mjs recording every statement it sends (and turning each COMMIT into ROLLBACK, so
// the database stays as those operations found it). The floor writes exactly the rows each captured
// operation wrote, with the `pg` driver alone on one connection of this process, two ways:
//   (pfN-1rt) one round trip: the operation's INSERT/UPDATE/DELETE statements in one simple-protocol
//             query (an implicit transaction), values inlined as literals; no reads (the floor knows
//             the data), no locks, no knex;
//   (pfN-prep) the same statements as named prepared statements (planned once per connection) between
//             BEGIN and COMMIT: more round trips, no parsing or planning.
// Each replays half of the captured operations (alternating), after a warm-up of its own; the floor
// is the cheaper of the two in each column. The ratios printed under the table are real ÷ floor.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import pg from 'pg';
import { cpuTicks, cpuTicksOf, drive, usPerOp, type BenchRequest, type LoadResult } from './load.ts';
import { call, pgSchema, startRefloop, stopChild, verifiedKey, WRITE_ROW_LIMITS, type Target } from './processes.ts';
import { MOBILE_LIMITS } from './mobile-rows.ts';
import { startRedis } from './cache-rows.ts';
import { HEAVY_SECONDS, PARTICIPANTS, PG_URL, REQUEST_TIMEOUT_MS, ROOT, WARMUP_MS } from './settings.ts';
import { bareRow, rowOf, type Row } from './table.ts';

/** BENCH_FLOOR_OPS: operations of each kind captured for the floor (half replayed each way). */
const FLOOR_OPS = Math.max(200, Math.floor(Number(process.env.BENCH_FLOOR_OPS ?? 2000)) || 2000);
/** Captured operations each floor variant replays unmeasured first. */
const FLOOR_WARMUP = 50;
/** Connections the floor replays on at once, so its commits share WAL flushes as the server's 50 connections' do. */
const FLOOR_CONNECTIONS = 8;
/** Affiliates the sales rotate over, 4 customers each: as many as connections, so sales of one affiliate rarely wait on each other's row lock. */
const AFFILIATES = 50;
/** Referrers the sign-ups rotate over (one would make every sign-up wait on its row lock). */
const REFERRERS = 5000;

type Entry = [connection: number, text: string, values: unknown[]];
/** One captured operation: its write statements in order, and how many statements it sent in all. */
interface Op {
  writes: Array<{ text: string; values: unknown[] }>;
  sent: number;
  /** Every statement's text, in order (BENCH_SEQUENCE=1 prints the last operation's). */
  texts: string[];
}
/** BENCH_SEQUENCE=1: print each kind's last captured operation, statement by statement. */
const SEQUENCE = process.env.BENCH_SEQUENCE === '1';

const WRITE = /^\s*(INSERT|UPDATE|DELETE)\b/i;
const WITH_WRITE = /^\s*WITH\b[\s\S]*\b(INSERT\s+INTO|UPDATE\s+"?\w+"?\s+SET|DELETE\s+FROM)\b/i;
const BEGIN = /^\s*(BEGIN|START TRANSACTION)\b/i;
const END = /^\s*(COMMIT|END|ROLLBACK)\s*;?\s*$/i;


/** The captured log cut into operations: one transaction each (writes outside a transaction join the next one on their connection). */
function operations(log: Entry[]): { ops: Op[]; outside: number } {
  const open = new Map<number, Op>();
  const loose = new Map<number, Op>();
  const ops: Op[] = [];
  let outside = 0;
  for (const [conn, text, values] of log) {
    const isWrite = WRITE.test(text) || WITH_WRITE.test(text);
    let op = open.get(conn);
    if (BEGIN.test(text)) {
      op = loose.get(conn) ?? { writes: [], sent: 0, texts: [] };
      loose.delete(conn);
      op.sent++;
      op.texts.push(text);
      open.set(conn, op);
      continue;
    }
    if (!op) {
      // Outside a transaction: reads are the request's own (key, program); writes are counted and kept.
      const l = loose.get(conn) ?? { writes: [], sent: 0, texts: [] };
      l.sent++;
      l.texts.push(text);
      if (isWrite) {
        l.writes.push({ text, values });
        outside++;
      }
      loose.set(conn, l);
      continue;
    }
    op.sent++;
    op.texts.push(text);
    if (END.test(text)) {
      open.delete(conn);
      ops.push(op);
      continue;
    }
    if (isWrite) op.writes.push({ text, values });
  }
  return { ops, outside };
}

/** `$n` placeholders replaced by literals, as the server's values would reach the column. */
function inline(text: string, values: unknown[], client: pg.Client): string {
  const prepare = (pg as unknown as { utils?: { prepareValue(v: unknown): unknown } }).utils?.prepareValue ?? ((v: unknown) => v);
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const v = prepare(values[Number(n) - 1]);
    if (v === null || v === undefined) return 'NULL';
    return client.escapeLiteral(Buffer.isBuffer(v) ? `\\x${v.toString('hex')}` : String(v));
  });
}

/** A captured write with `?` placeholders (knex's raw texts) numbered as pg wants them. */
function numbered(text: string): string {
  if (/\$\d/.test(text)) return text;
  let i = 0;
  return text.replace(/\?/g, () => `$${++i}`);
}

async function captureWindow(t: Target, file: string, run: () => Promise<void>): Promise<Entry[]> {
  process.kill(t.child.pid!, 'SIGUSR2');
  await run();
  process.kill(t.child.pid!, 'SIGUSR2');
  for (let i = 0; i < 600 && !fs.existsSync(`${file}.done`); i++) await new Promise((res) => setTimeout(res, 100));
  if (!fs.existsSync(`${file}.done`)) throw new Error('the capture log was not written');
  const log = v8.deserialize(fs.readFileSync(file)) as Entry[];
  fs.rmSync(file, { force: true });
  fs.rmSync(`${file}.done`, { force: true });
  return log;
}

/** One request that must answer 200. */
async function send(r: BenchRequest): Promise<void> {
  const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${r.method} ${r.url} answered ${res.status}: ${text.slice(0, 300)}`);
}

/** The floor of one kind: its captured operations replayed both ways, FLOOR_CONNECTIONS at a time; one row each. */
async function floorRows(label: string, ops: Op[], schemaUrl: string, tag: string): Promise<Row[]> {
  const clients: pg.Client[] = [];
  try {
    for (let c = 0; c < FLOOR_CONNECTIONS; c++) {
      const client = new pg.Client({ connectionString: schemaUrl.replace(`application_name=${tag}`, `application_name=${tag}_floor`) });
      await client.connect();
      clients.push(client);
    }
    const pids = await Promise.all(clients.map(async (c) => Number((await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid)));
    const halves: [Op[], Op[]] = [ops.filter((_, i) => i % 2 === 0), ops.filter((_, i) => i % 2 === 1)];
    // Built before the clock starts: the floor pays only for sending and for the database's work.
    const oneTrip = halves[0].map((op) => op.writes.map((w) => inline(numbered(w.text), w.values, clients[0]!)).join(';\n'));
    const prepared = halves[1].map((op) =>
      op.writes.map((w) => {
        const text = numbered(w.text);
        return { name: `pf_${crypto.createHash('sha1').update(text).digest('hex').slice(0, 24)}`, text, values: w.values };
      }),
    );
    let failed = 0;
    const runOne = async (client: pg.Client, i: number) => {
      try {
        await client.query(oneTrip[i]!);
      } catch {
        failed++;
      }
    };
    const runPrepared = async (client: pg.Client, i: number) => {
      await client.query('BEGIN');
      try {
        for (const q of prepared[i]!) await client.query(q);
        await client.query('COMMIT');
      } catch {
        failed++;
        await client.query('ROLLBACK');
      }
    };
    /** Operations `from`..`to` over every connection, each taking the next one when it is free. */
    const spread = async (from: number, to: number, run: (client: pg.Client, i: number) => Promise<void>) => {
      let next = from;
      await Promise.all(clients.map(async (client) => {
        while (next < to) await run(client, next++);
      }));
    };
    const measureVariant = async (name: string, n: number, run: (client: pg.Client, i: number) => Promise<void>, note: string): Promise<Row> => {
      const warm = Math.min(FLOOR_WARMUP, n);
      await spread(0, warm, run);
      failed = 0;
      const measured = n - warm;
      const db0 = cpuTicksOf(pids);
      const app0 = process.cpuUsage();
      const t0 = performance.now();
      await spread(warm, n, run);
      const ms = performance.now() - t0;
      const app = process.cpuUsage(app0);
      const row: Row = {
        label: name,
        inProcess: true,
        reqPerSec: (measured * 1000) / ms,
        p50: NaN,
        p99: NaN,
        cpuUsPerReq: (app.user + app.system) / measured,
        dbCpuUsPerReq: usPerOp(cpuTicksOf(pids) - db0, measured),
        note: `${note}${failed ? `; ${failed} operations failed` : ''}`,
        statuses: new Map(),
        errors: failed,
      };
      console.log(`  ${row.label}: ${row.reqPerSec.toFixed(0)}/s, app CPU ${row.cpuUsPerReq.toFixed(0)} µs/op, database CPU ${row.dbCpuUsPerReq!.toFixed(0)} µs/op${failed ? `, ${failed} failed` : ''}`);
      return row;
    };
    const writes = (ops.reduce((n, op) => n + op.writes.length, 0) / ops.length).toFixed(1);
    return [
      await measureVariant(`${label}-1rt floor: one round trip`, oneTrip.length, runOne, `the ${writes} write statements per operation captured from the real row's server, in one simple-protocol query (values inlined), pg alone on ${FLOOR_CONNECTIONS} connections; CPU of this process and of their backends`),
      await measureVariant(`${label}-prep floor: prepared`, prepared.length, runPrepared, `the same ${writes} writes as named prepared statements between BEGIN and COMMIT (${(Number(writes) + 2).toFixed(1)} round trips), pg alone on ${FLOOR_CONNECTIONS} connections`),
    ];
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

/** pg_stat_statements since its last reset, per operation: calls, planning and execution time, costliest first. */
async function statementCosts(admin: pg.Client, label: string, ops: number): Promise<string[]> {
  const { rows } = await admin.query(
    `SELECT calls, total_plan_time AS plan, total_exec_time AS exec, query FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat%' AND query NOT LIKE '%pg_backend_pid%' AND query NOT LIKE '%pg_stat_activity%'
      ORDER BY total_plan_time + total_exec_time DESC`,
  );
  const per = (x: number) => (x / ops).toFixed(3);
  const calls = rows.reduce((n, r) => n + Number(r.calls), 0);
  const plan = rows.reduce((n, r) => n + r.plan, 0);
  const exec = rows.reduce((n, r) => n + r.exec, 0);
  return [
    `\n  pg_stat_statements, ${label}: ${(calls / ops).toFixed(1)} statements, ${per(plan)} ms planning + ${per(exec)} ms executing per operation`,
    '  | calls/op | plan ms/op | exec ms/op | statement |',
    '  |---:|---:|---:|---|',
    ...rows.slice(0, 25).map((r) => `  | ${(Number(r.calls) / ops).toFixed(2)} | ${per(r.plan)} | ${per(r.exec)} | \`${String(r.query).replace(/\s+/g, ' ').slice(0, 150)}\` |`),
  ];
}

/** Rows (pf1)–(pf3) with their floors, and the ratio lines. */
export async function pgFloorRows(): Promise<{ rows: Row[]; bare: Row; lines: string[] }> {
  if (!PG_URL) throw new Error('BENCH_ONLY=pg-floor needs PostgreSQL: set BENCH_DATABASE_URL=postgres://…');
  const bare = await bareRow();
  const redis = await startRedis();
  const schema = await pgSchema();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const backends = async () => ((await admin.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [schema.tag])).rows as Array<{ pid: number }>).map((r) => r.pid);
  const captureFile = path.join(os.tmpdir(), `refloop-bench-pgcapture-${process.pid}-${Date.now()}.bin`);
  const env = {
    ...WRITE_ROW_LIMITS,
    ...MOBILE_LIMITS,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `${schema.tag}:`,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${path.join(ROOT, 'bench', 'pg-capture.mjs')}`.trim(),
    BENCH_CAPTURE_FILE: captureFile,
  };
  let t: Target | null = null;
  const rows: Row[] = [];
  const lines: string[] = [];
  try {
    console.log(`\n(pf) PostgreSQL writes against their floor: one \`refloop serve\` host, PostgreSQL + Redis, ${PARTICIPANTS.toLocaleString('en')} participants`);
    t = await startRefloop('refloop (pg floor)', env, schema.url);
    const key = await verifiedKey(t, 'bench-pg-floor@acme-widgets.com');
    const referral = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] });
    await call(t, 'POST', `/v2/campaign/${referral.id}/webhooks`, key, { payloadUrl: 'https://127.0.0.1:9/hook', events: ['PARTICIPANT_REACHED_A_GOAL'] });
    const affiliate = await call(t, 'POST', '/v2/campaigns', key, { type: 'AFFILIATE' });
    await call(t, 'PATCH', `/v2/campaign/${affiliate.id}/reward-configs/${affiliate.rewards[0].id}`, key, { commissionStructure: { type: 'PERCENT', percent: 10, event: 'SALE', duration: 'FOREVER', holdDuration: 0 } });
    await call(t, 'POST', `/v2/campaign/${affiliate.id}/webhooks`, key, { payloadUrl: 'https://127.0.0.1:9/hook', events: ['NEW_COMMISSION_ADDED'] });
    const customers: string[] = [];
    for (let a = 0; a < AFFILIATES; a++) {
      const aff = await call(t, 'POST', `/v2/campaign/${affiliate.id}/participant`, key, { email: `affiliate-${a}@example.com` });
      for (let c = 0; c < 4; c++) customers.push((await call(t, 'POST', `/v2/campaign/${affiliate.id}/participant`, key, { email: `customer-${a}-${c}@example.com`, referredBy: aff.id })).id);
    }
    // The referral program's participants, written behind the server (scripts/seed.ts), then analysed.
    const { openDb } = await import('../server/db/connect.ts');
    const { seedParticipants } = await import('../scripts/seed.ts');
    const seedDb = openDb({ client: 'pg', url: schema.url } as never);
    let referrers: string[];
    let pending: string[];
    try {
      const seeded = await seedParticipants(seedDb, { programId: referral.id, count: PARTICIPANTS, now: Date.now(), pendingShare: 0.3, seed: 26 });
      await seedDb.knex.raw('ANALYZE');
      console.log(`  seeded ${seeded.participants.toLocaleString('en')} participants (${seeded.referrals.toLocaleString('en')} referrals) in ${(seeded.ms / 1000).toFixed(1)} s`);
      referrers = await seedDb.knex('participants').where({ program_id: referral.id }).orderByRaw('random()').limit(REFERRERS).pluck('id');
      pending = await seedDb.knex('participants').where({ program_id: referral.id, referral_status: 'CREDIT_PENDING' }).orderByRaw('random()').pluck('id');
    } finally {
      await seedDb.close();
    }
    const json = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    let s = 0;
    const signUp = (): BenchRequest => {
      const i = s++;
      return { url: `${t!.base}/v2/campaign/${referral.id}/participant`, method: 'POST', headers: json, body: JSON.stringify({ email: `friend-${i}@example.com`, referredBy: referrers[i % REFERRERS] }) };
    };
    let f = 0;
    const trigger = (): BenchRequest | null => (f < pending.length ? { url: `${t!.base}/v2/campaign/${referral.id}/participant/${pending[f++]}/ref`, method: 'POST', headers: json, body: '{}' } : null);
    let m = 0;
    const sale = (): BenchRequest => {
      const i = m++;
      return { url: `${t!.base}/v2/campaign/${affiliate.id}/participant/${customers[i % customers.length]}/transaction`, method: 'POST', headers: json, body: JSON.stringify({ currency: 'USD', grossAmount: 1000 + (i % 9000), orderId: `order-${i}` }) };
    };
    const kinds: Array<{ label: string; name: string; next: () => BenchRequest | null }> = [
      { label: '(pf1)', name: 'referred sign-up', next: signUp },
      { label: '(pf2)', name: 'trigger referral', next: trigger },
      { label: '(pf3)', name: 'affiliate sale, 10 % commission + 1 webhook', next: sale },
    ];
    // pg_stat_statements, when the server has it loaded (shared_preload_libraries): what each row's statements cost the database.
    const statStatements = await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').then(
      () => admin.query('SELECT pg_stat_statements_reset()').then(() => true, () => false),
      () => false,
    );
    const real = new Map<string, Row>();
    for (const k of kinds) {
      await drive(WARMUP_MS, k.next);
      if (statStatements) await admin.query('SELECT pg_stat_statements_reset()');
      const pid = t.child.pid!;
      const db = await backends();
      const before = { app: cpuTicks(pid), db: cpuTicksOf(db) };
      const r: LoadResult = await drive(HEAVY_SECONDS * 1000, k.next);
      const dbAll = [...new Set([...db, ...(await backends())])];
      const row = rowOf(`${k.label} ${k.name}, real over HTTP`, r, cpuTicks(pid) - before.app);
      row.dbCpuUsPerReq = usPerOp(cpuTicksOf(dbAll) - before.db, r.completed);
      const codes = [...r.statuses].map(([c, n]) => `${n} × ${c}`).join(', ');
      row.note = `one \`refloop serve\` (WORKERS unset), PostgreSQL + Redis, ${PARTICIPANTS.toLocaleString('en')} participants, 50 connections; ${codes}${r.errors ? `, ${r.errors} errors` : ''}`;
      console.log(`  ${row.label}: ${row.reqPerSec.toFixed(0)}/s, p50 ${row.p50.toFixed(2)} ms, app CPU ${row.cpuUsPerReq.toFixed(0)} µs/op, database CPU ${row.dbCpuUsPerReq.toFixed(0)} µs/op; ${codes}`);
      real.set(k.label, row);
      if (statStatements) lines.push(...(await statementCosts(admin, `${k.label} ${k.name}`, r.completed)));
    }
    // The capture: one operation at a time, every COMMIT turned into ROLLBACK by the preload.
    const captured = new Map<string, { ops: Op[]; outside: number }>();
    for (const k of kinds) {
      const log = await captureWindow(t, captureFile, async () => {
        for (let i = 0; i < FLOOR_OPS; i++) {
          const r = k.next();
          if (!r) throw new Error(`${k.name}: nothing left to capture`);
          await send(r);
        }
      });
      const cut = operations(log);
      if (cut.ops.length < FLOOR_OPS) throw new Error(`${k.name}: ${cut.ops.length} transactions captured for ${FLOOR_OPS} operations`);
      captured.set(k.label, cut);
    }
    await stopChild(t.child);
    t = null;
    for (const k of kinds) {
      const { ops, outside } = captured.get(k.label)!;
      const sent = ops.reduce((n, op) => n + op.sent, 0) / ops.length;
      const writes = ops.reduce((n, op) => n + op.writes.length, 0) / ops.length;
      console.log(`  ${k.label} captured ${ops.length} operations: ${sent.toFixed(1)} statements sent per operation in its transaction, ${writes.toFixed(1)} of them writes${outside ? `; ${outside} writes outside a transaction` : ''}`);
      if (SEQUENCE) console.log(ops.at(-1)!.texts.map((x, i) => `    ${String(i + 1).padStart(3)}. ${x.replace(/\s+/g, ' ').slice(0, 190)}`).join('\n'));
      const floor = await floorRows(k.label, ops, schema.url, schema.tag);
      const r = real.get(k.label)!;
      rows.push(r, ...floor);
      const app = Math.min(...floor.map((x) => x.cpuUsPerReq));
      const db = Math.min(...floor.map((x) => x.dbCpuUsPerReq!));
      lines.push(
        `  ${k.label} ${k.name}: app ${(r.cpuUsPerReq / 1000).toFixed(2)} ms = ${(r.cpuUsPerReq / app).toFixed(1)}× the floor's ${(app / 1000).toFixed(3)} ms; ` +
          `database ${(r.dbCpuUsPerReq! / 1000).toFixed(2)} ms = ${(r.dbCpuUsPerReq! / db).toFixed(2)}× the floor's ${(db / 1000).toFixed(3)} ms; ` +
          `${sent.toFixed(1)} statements per operation against the floor's ${writes.toFixed(1)} writes in one round trip (goals: ≤ 1.5× the floor; ≤ 1.5 ms app + 1.5 ms database for P3 and P8)`,
      );
    }
    return { rows: [bare, ...rows], bare, lines };
  } finally {
    if (t) await stopChild(t.child);
    fs.rmSync(captureFile, { force: true });
    fs.rmSync(`${captureFile}.done`, { force: true });
    await admin.end();
    await schema.drop();
    redis.stop();
  }
}
