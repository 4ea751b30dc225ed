// BENCH_ONLY=cache (issue #34 part 2): what the key and program caches save per REST request on
// PostgreSQL. The same `refloop serve` on a fresh schema twice, without REDIS_URL (key and program
// read from the database on every request) and with it (both cached, invalidated over pub/sub),
// the rate limits kept in the same store both times (BENCH_CACHE_LIMIT_STORE: `memory` by default,
// so that the row measures the caches alone; `database` as PostgreSQL runs without Redis). App CPU is the server process; database CPU the backends serving it.
import { spawn } from 'node:child_process';
import { CLK_TCK, cpuSplit, drive, warmUp, type BenchRequest, type LoadResult } from './load.ts';
import { call, pgSchema, startRefloop, stopChild, verifiedKey, benchPort } from './processes.ts';
import { CACHE_LIMIT_STORE, PG_URL, RAISED_LIMITS, SECONDS } from './settings.ts';
import { bareRow, rowOf, type Row } from './table.ts';

/** A redis-server of the bench's own on a free port, stopped with the bench (also BENCH_ONLY=hosts). */
export async function startRedis(): Promise<{ url: string; stop: () => void }> {
  const port = await benchPort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] });
  process.on('exit', () => child.kill('SIGKILL'));
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', () => reject(new Error('redis-server exited')));
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

async function cacheRun(label: string, redisUrl: string | null): Promise<Row[]> {
  const schema = await pgSchema();
  const { default: knexFactory } = await import('knex');
  const admin = knexFactory({ client: 'pg', connection: PG_URL!, pool: { min: 0, max: 1 } });
  const backends = async () => ((await admin.raw('SELECT pid FROM pg_stat_activity WHERE application_name = ?', [schema.tag])).rows as Array<{ pid: number }>).map((r) => r.pid);
  const ticksOf = (pids: number[]) => pids.reduce((n, pid) => {
    try {
      const [u, s] = cpuSplit(pid);
      return n + u + s;
    } catch {
      return n;
    }
  }, 0);
  const t = await startRefloop(`refloop (${label})`, { ...RAISED_LIMITS, RATE_LIMIT_STORE: CACHE_LIMIT_STORE, ...(redisUrl ? { REDIS_URL: redisUrl, REDIS_PREFIX: `${schema.tag}:` } : {}) }, schema.url);
  try {
    const key = await verifiedKey(t, `bench-cache-${schema.tag}@acme-widgets.com`);
    const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] });
    const headers = { authorization: `Bearer ${key}` };
    const rows: Row[] = [];
    for (const [name, pathname] of [['GET /v2/team', '/v2/team'], ['GET /v2/campaign/{id}', `/v2/campaign/${program.id}`]] as const) {
      const request = (): BenchRequest => ({ url: t.base + pathname, method: 'GET', headers });
      await warmUp(request);
      const pids = await backends();
      const before = cpuSplit(t.child.pid!);
      const dbBefore = ticksOf(pids);
      const r: LoadResult = await drive(SECONDS * 1000, request);
      const after = cpuSplit(t.child.pid!);
      const dbTicks = ticksOf(pids) - dbBefore;
      const row = rowOf(`${name}, ${label}`, r, after[0] + after[1] - before[0] - before[1]);
      row.dbCpuUsPerReq = r.completed ? ((dbTicks / CLK_TCK) * 1e6) / r.completed : NaN;
      const codes = [...r.statuses].map(([s, n]) => `${n} × ${s}`).join(', ');
      row.note = `${codes}${r.errors ? `, ${r.errors} errors` : ''}`;
      console.log(`  ${row.label}: ${row.reqPerSec.toFixed(0)} req/s, app CPU ${row.cpuUsPerReq.toFixed(0)} µs/req, database CPU ${row.dbCpuUsPerReq.toFixed(0)} µs/req (${codes})`);
      rows.push(row);
    }
    return rows;
  } finally {
    await stopChild(t.child);
    await admin.destroy();
    await schema.drop();
  }
}

/** Rows z1–z4 (and bare Koa): GET /v2/team and GET /v2/campaign/{id} without and with the caches. */
export async function cacheRows(): Promise<{ rows: Row[]; bare: Row }> {
  if (!PG_URL) throw new Error('BENCH_ONLY=cache needs BENCH_DATABASE_URL=postgres://…');
  const bare = await bareRow();
  const redis = await startRedis();
  try {
    const without = await cacheRun('no REDIS_URL: read every time', null);
    const withCache = await cacheRun('REDIS_URL: cached', redis.url);
    return { rows: [bare, ...without, ...withCache], bare };
  } finally {
    redis.stop();
  }
}
