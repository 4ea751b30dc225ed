// Rows (au1), (au2) (BENCH_ONLY=audit, issue #35): what the audit trail costs a referral trigger and
// an affiliate sale over HTTP. Each runs on the real app (bench/audit-server.ts, built as `refloop
// serve` builds it) with the trail, and on the same app whose `deps.audit.append` that bench process
// replaced with a no-op (the baseline: everything else of the write still runs), in the order on,
// off, off, on, on a fresh database each time (SQLite, or PostgreSQL with BENCH_DATABASE_URL); the
// rows sum both runs of each, and the ratio is server CPU per operation with ÷ without.
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { PG_URL, ROOT, SECONDS, TRIGGERS, WARMUP_REQUESTS } from './settings.ts';
import { baseEnv, benchPort, call, pgSchema, startChild, stopChild, tempDirs, verifiedKey, waitReady, WRITE_ROW_LIMITS, type Target } from './processes.ts';
import { cpuTicksOf, loadOnce, loadPosts, usPerOp, warmUp, type LoadResult } from './load.ts';
import { rowOf, type Row } from './table.ts';

type Mode = 'on' | 'off';
type Kind = 'trigger' | 'sale';

/** One audit-server child on a fresh database: its target, its database's backends (PostgreSQL) and how to drop the database. */
async function startAuditServer(mode: Mode): Promise<{ t: Target; backends: () => Promise<number[]>; done: () => Promise<void> }> {
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
  const name = `audit-server (${mode})`;
  const child = startChild(name, ['--import', 'tsx', path.join(ROOT, 'bench', 'audit-server.ts'), mode], env);
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

/** One measured run of `kind` on a server with the trail `mode`: the load, the server's and the database's CPU ticks, the entries written. */
async function runOnce(kind: Kind, mode: Mode): Promise<{ r: LoadResult; appTicks: number; dbTicks: number; entries: number; changes: number }> {
  const s = await startAuditServer(mode);
  const { t } = s;
  try {
    const key = await verifiedKey(t, `bench-audit-${kind}@acme-widgets.com`);
    const headers = { authorization: `Bearer ${key}` };
    const json = { ...headers, 'content-type': 'application/json' };
    let measure: () => Promise<LoadResult>;
    let programId: string;
    if (kind === 'trigger') {
      // Row (h)'s program: DOUBLE_SIDED reward, one webhook; pending referrals seeded into the server's database.
      const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] });
      programId = program.id;
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
      const paths = ids.map((id) => `/v2/campaign/${program.id}/participant/${id}/ref`);
      const warm = await warmUp((i) => ({ url: t.base + paths[i]!, method: 'POST', headers: json, body: '{}' }), Math.min(WARMUP_REQUESTS, Math.floor(paths.length / 10)));
      const rest = paths.slice(warm.completed + warm.errors);
      measure = () => loadOnce(t.base, rest, headers, SECONDS * 1000);
    } else {
      // Row (m)'s program: a 10 % commission, one webhook, 100 customers of 10 affiliates, a fresh order each request.
      const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'AFFILIATE' });
      programId = program.id;
      await call(t, 'PATCH', `/v2/campaign/${program.id}/reward-configs/${program.rewards[0].id}`, key, { commissionStructure: { type: 'PERCENT', percent: 10, event: 'SALE', duration: 'FOREVER', holdDuration: 0 } });
      await call(t, 'POST', `/v2/campaign/${program.id}/webhooks`, key, { payloadUrl: 'https://127.0.0.1:9/hook', events: ['NEW_COMMISSION_ADDED'] });
      const customers: string[] = [];
      for (let a = 0; a < 10; a++) {
        const affiliate = await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: `affiliate-${a}@example.com` });
        for (let c = 0; c < 10; c++) customers.push((await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: `customer-${a}-${c}@example.com`, referredBy: affiliate.id })).id);
      }
      const make = (prefix: string) => (i: number) => ({ pathname: `/v2/campaign/${program.id}/participant/${customers[i % customers.length]}/transaction`, body: JSON.stringify({ currency: 'USD', grossAmount: 1000 + (i % 9000), orderId: `${prefix}-${i}` }) });
      const warm = make('warm');
      await warmUp((i) => ({ url: t.base + warm(i).pathname, method: 'POST', headers: json, body: warm(i).body }));
      measure = () => loadPosts(t.base, make('run'), headers, SECONDS * 1000);
    }
    const db0 = await s.backends();
    const before = { app: cpuTicksOf([t.child.pid!]), db: cpuTicksOf(db0) };
    const r = await measure();
    const dbPids = [...new Set([...db0, ...(await s.backends())])];
    const appTicks = cpuTicksOf([t.child.pid!]) - before.app;
    const dbTicks = cpuTicksOf(dbPids) - before.db;
    await stopChild(t.child);
    const db = await serverDb(t);
    try {
      const n = async (q: ReturnType<typeof db.knex>) => Number((await q.count({ n: '*' }).first())?.n ?? 0);
      const entries = await n(db.knex('audit_log').whereIn('action', ['P8', 'AF8']));
      const changes = kind === 'trigger' ? await n(db.knex('participants').where({ program_id: programId, referral_status: 'CREDIT_AWARDED' })) : await n(db.knex('affiliate_transactions').where({ program_id: programId }));
      return { r, appTicks, dbTicks, entries, changes };
    } finally {
      await db.close();
    }
  } finally {
    await s.done();
  }
}

/** Rows (au1)/(au1-off) and (au2)/(au2-off), and the with ÷ without lines. */
export async function auditRows(): Promise<{ rows: Row[]; lines: string[] }> {
  const where = PG_URL ? 'PostgreSQL' : 'SQLite';
  const rows: Row[] = [];
  const lines: string[] = [];
  const kinds: Array<{ kind: Kind; label: string; what: string }> = [
    ...(TRIGGERS > 0 ? [{ kind: 'trigger' as const, label: '(au1) trigger referral', what: 'triggers' }] : []),
    { kind: 'sale', label: '(au2) record affiliate sale', what: 'sales' },
  ];
  for (const { kind, label, what } of kinds) {
    console.log(`\n${label} with the audit trail and with deps.audit.append a no-op in the bench's server process, ${where}, ${SECONDS} s per run, order on, off, off, on`);
    const sums: Record<Mode, { runs: Awaited<ReturnType<typeof runOnce>>[] }> = { on: { runs: [] }, off: { runs: [] } };
    for (const mode of ['on', 'off', 'off', 'on'] as const) {
      const run = await runOnce(kind, mode);
      sums[mode].runs.push(run);
      console.log(`  ${mode}: ${run.r.completed} ${what} in ${run.r.seconds.toFixed(1)} s, app CPU ${usPerOp(run.appTicks, run.r.completed).toFixed(0)} µs/op${PG_URL ? `, database CPU ${usPerOp(run.dbTicks, run.r.completed).toFixed(0)} µs/op` : ''}; ${run.entries.toLocaleString('en')} audit entries for ${run.changes.toLocaleString('en')} ${what} stored (warm-up included)`);
    }
    const cpu: Record<Mode, { app: number; db: number }> = { on: { app: 0, db: 0 }, off: { app: 0, db: 0 } };
    for (const mode of ['on', 'off'] as const) {
      const runs = sums[mode].runs;
      const merged: LoadResult = { completed: 0, errors: 0, statuses: new Map(), seconds: 0, latencies: [], outcomes: new Map() };
      for (const x of runs) {
        merged.completed += x.r.completed;
        merged.errors += x.r.errors;
        merged.seconds += x.r.seconds;
        merged.latencies.push(...x.r.latencies);
        for (const [s, c] of x.r.statuses) merged.statuses.set(s, (merged.statuses.get(s) ?? 0) + c);
      }
      const appTicks = runs.reduce((a, x) => a + x.appTicks, 0);
      const dbTicks = runs.reduce((a, x) => a + x.dbTicks, 0);
      const row = rowOf(`${label}, audit trail ${mode === 'on' ? 'on' : 'append a no-op (bench only)'}${mode === 'off' ? ' [baseline]' : ''}`, merged, appTicks);
      if (PG_URL) row.dbCpuUsPerReq = usPerOp(dbTicks, merged.completed);
      const ok = merged.statuses.get(200) ?? 0;
      row.note = `${where}, bench/audit-server.ts, 2 runs of ${SECONDS} s; ${ok} × 200${merged.completed - ok ? `, ${merged.completed - ok} other` : ''}${merged.errors ? `, ${merged.errors} errors` : ''}; ${runs.reduce((a, x) => a + x.entries, 0).toLocaleString('en')} entries stored`;
      cpu[mode] = { app: row.cpuUsPerReq, db: row.dbCpuUsPerReq ?? 0 };
      rows.push(row);
    }
    const line = `  ${what}: with ÷ without the audit append, app CPU per op ${(cpu.on.app / cpu.off.app).toFixed(3)} (${cpu.on.app.toFixed(0)} vs ${cpu.off.app.toFixed(0)} µs)` +
      (PG_URL ? `, database CPU ${(cpu.on.db / cpu.off.db).toFixed(3)} (${cpu.on.db.toFixed(0)} vs ${cpu.off.db.toFixed(0)} µs), app + database ${((cpu.on.app + cpu.on.db) / (cpu.off.app + cpu.off.db)).toFixed(3)}` : '');
    console.log(line);
    lines.push(line);
  }
  return { rows, lines };
}
