// BENCH_ONLY=hosts (issue #34 goal 4), rows (mh1)–(mh3): two `refloop serve` hosts as separate
// machines would run them (different ports, no shared memory, WORKERS unset) on one PostgreSQL
// schema and one Redis, behind the loopback proxy (scripts/loopback-proxy.ts, a process of its
// own), against one host alone. For each: referred sign-ups (P3), triggers of those sign-ups (P8),
// then a mix of visits, sign-ups and triggers, with throughput, app CPU per operation (both hosts'
// processes; the proxy's CPU apart in the note) and database CPU (the backends serving the schema).
// Jobs are off, as in the other HTTP rows. On one machine the two hosts share its cores, so the rows
// show what a second host costs and that the shared limits, caches and claims hold under load, not
// the speed-up of a second machine.
import crypto from 'node:crypto';
import path from 'node:path';
import { cpuTicksOf, drive, usPerOp, type BenchRequest, type LoadResult } from './load.ts';
import { benchPort, call, openSession, pendingReferrals, pgSchema, startChild, startRefloop, stopChild, verifiedKey, waitReady, type Target } from './processes.ts';
import { MOBILE_LIMITS, v7From } from './mobile-rows.ts';
import { startRedis } from './cache-rows.ts';
import { PG_URL, ROOT, SECONDS, WARMUP_MS } from './settings.ts';
import { bareRow, rowOf, type Row } from './table.ts';

/** Referrers the sign-ups rotate over (one referrer would make every sign-up wait on its row lock). */
const REFERRERS = 50;


/** One setup (one host, or two behind the proxy): its sign-up and trigger rows. */
async function hostsRun(hosts: 1 | 2, redisUrl: string): Promise<Row[]> {
  const schema = await pgSchema();
  const { default: knexFactory } = await import('knex');
  const admin = knexFactory({ client: 'pg', connection: PG_URL!, pool: { min: 0, max: 1 } });
  const backends = async () => ((await admin.raw('SELECT pid FROM pg_stat_activity WHERE application_name = ?', [schema.tag])).rows as Array<{ pid: number }>).map((r) => r.pid);
  // What every host is given: one database, one Redis (this run's prefix), one SECRET_KEY, behind a balancer.
  const env = {
    ...MOBILE_LIMITS,
    WRITE_SLOWDOWN_AFTER: '1000000000',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `${schema.tag}:`,
    SECRET_KEY: crypto.randomBytes(32).toString('hex'),
    TRUST_PROXY: 'true',
  };
  const servers: Target[] = [];
  let proxy: ReturnType<typeof startChild> | null = null;
  try {
    servers.push(await startRefloop('refloop (host 1)', env, schema.url));
    if (hosts === 2) servers.push(await startRefloop('refloop (host 2)', env, schema.url));
    let base = servers[0]!.base;
    if (hosts === 2) {
      const port = await benchPort();
      proxy = startChild('loopback proxy', ['--import', 'tsx', path.join(ROOT, 'scripts/loopback-proxy.ts'), String(port), ...servers.map((s) => new URL(s.base).port)], process.env);
      base = `http://127.0.0.1:${port}`;
      await waitReady(proxy, `${base}/healthz`, 'loopback proxy');
    }
    const t0 = servers[0]!;
    const key = await verifiedKey(t0, `bench-hosts-${hosts}@acme-widgets.com`);
    const program = await call(t0, 'POST', '/v2/campaigns', key, { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] });
    const referrers: string[] = [];
    for (let i = 0; i < REFERRERS; i++) referrers.push((await call(t0, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: `referrer-${i}@example.com` })).id);
    const json = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const label = hosts === 2 ? 'two hosts behind the proxy' : 'one host';
    const rows: Row[] = [];
    const measured = async (name: string, warm: () => Promise<unknown>, run: () => Promise<LoadResult>) => {
      await warm();
      const pids = servers.map((s) => s.child.pid!);
      const db = await backends();
      const before = { app: cpuTicksOf(pids), proxy: proxy ? cpuTicksOf([proxy.pid!]) : 0, db: cpuTicksOf(db) };
      const r = await run();
      const dbAfter = [...new Set([...db, ...(await backends())])];
      const appTicks = cpuTicksOf(pids) - before.app;
      const proxyTicks = proxy ? cpuTicksOf([proxy.pid!]) - before.proxy : 0;
      const row = rowOf(`${name}, ${label}`, r, appTicks);
      row.dbCpuUsPerReq = usPerOp(cpuTicksOf(dbAfter) - before.db, r.completed);
      const codes = [...r.statuses].map(([s, n]) => `${n} × ${s}`).join(', ');
      row.note =
        `PostgreSQL + Redis, ${hosts === 2 ? 'two `refloop serve` processes (WORKERS unset) on one machine, app CPU = both' : 'one `refloop serve` process (WORKERS unset)'}; ${codes}${r.errors ? `, ${r.errors} errors` : ''}` +
        `${proxy ? `; proxy CPU ${usPerOp(proxyTicks, r.completed).toFixed(0)} µs/op apart` : ''}`;
      console.log(`  ${row.label}: ${row.reqPerSec.toFixed(0)}/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, app CPU ${row.cpuUsPerReq.toFixed(0)} µs/op, database CPU ${row.dbCpuUsPerReq.toFixed(0)} µs/op; ${row.note}`);
      rows.push(row);
    };
    let n = 0;
    const signUp = (): BenchRequest => {
      const i = n++;
      return { url: `${base}/v2/campaign/${program.id}/participant`, method: 'POST', headers: json, body: JSON.stringify({ email: `friend-${i}@example.com`, referredBy: referrers[i % REFERRERS], referralStatus: 'CREDIT_PENDING' }) };
    };
    await measured('(mh1) referred sign-up', () => drive(WARMUP_MS, signUp), () => drive(SECONDS * 1000, signUp));
    const friends = await pendingReferrals(schema.url, program.id);
    const warmCount = Math.min(Math.floor(friends.length / 5), 500);
    let f = 0;
    const trigger = (limit: number) => (): BenchRequest | null => (f < limit ? { url: `${base}/v2/campaign/${program.id}/participant/${friends[f++]}/ref`, method: 'POST', headers: json, body: '{}' } : null);
    await measured('(mh2) trigger referral', () => drive(WARMUP_MS, trigger(warmCount)), () => drive(SECONDS * 1000, trigger(friends.length)));

    // The mixed write load of `npm run chaos` without its rare operations: 60 % referred visits over
    // the participant API, 25 % referred sign-ups, 15 % triggers of the sign-ups still pending.
    const installation = await call(t0, 'PATCH', `/v2/campaign/${program.id}/installation`, key, { mobile: { isEnabled: true } });
    const code = new URL((await call(t0, 'GET', `/v2/campaign/${program.id}/participant/${referrers[0]}`, key, undefined)).shareUrl).searchParams.get('grsf')!;
    const sessions: string[] = [];
    for (let i = 0; i < 20; i++) sessions.push(await openSession(t0, program.id, installation.mobile.publicKey));
    const visit = (i: number): BenchRequest => ({
      url: `${base}/mobile/v2/visits`,
      method: 'POST',
      headers: { 'x-session-token': sessions[i % sessions.length]!, 'content-type': 'application/json' },
      body: JSON.stringify({ visitId: v7From(crypto.randomUUID()), attribution: { referralCode: code, utm: { utm_source: 'bench' } } }),
    });
    let m = 0;
    const mixed = (): BenchRequest | null => {
      const roll = Math.random();
      if (roll < 0.6) return visit(m++);
      if (roll < 0.85 || f >= friends.length) return signUp();
      return trigger(friends.length)();
    };
    await measured('(mh3) mixed writes (60 % visits, 25 % sign-ups, 15 % triggers)', () => drive(WARMUP_MS, mixed), () => drive(SECONDS * 1000, mixed));
    return rows;
  } finally {
    if (proxy) await stopChild(proxy);
    await Promise.all(servers.map((s) => stopChild(s.child)));
    await admin.destroy();
    await schema.drop();
  }
}

/** Rows (mh1)–(mh3) and bare Koa: sign-ups, triggers and the mix on one host, then on two behind the proxy. */
export async function hostsRows(): Promise<{ rows: Row[]; bare: Row }> {
  if (!PG_URL) throw new Error('BENCH_ONLY=hosts needs PostgreSQL: set BENCH_DATABASE_URL=postgres://…');
  const bare = await bareRow();
  const redis = await startRedis();
  try {
    console.log('\n(mh) one host, then two hosts behind the loopback proxy: PostgreSQL + Redis');
    const one = await hostsRun(1, redis.url);
    const two = await hostsRun(2, redis.url);
    return { rows: [bare, ...one, ...two], bare };
  } finally {
    redis.stop();
  }
}
