// Rows (r0)–(r3), reads through the API at scale (issue #26 goal 3): the participant API's
// leaderboard (ML1), REST's leaderboard page (P2) and one participant (P4), on `refloop serve` with
// BENCH_PARTICIPANTS participants in one program, beside a bare-Koa row of the same run.
import { CONNECTIONS, HEAVY_SECONDS, PARTICIPANTS, REQUEST_TIMEOUT_MS, SECONDS, WARMUP_REQUESTS } from './settings.ts';
import { call, openSession, startRefloop, stopChild, verifiedKey, type Target } from './processes.ts';
import { cpuSplit, drive, splitNote, warmUp, type BenchRequest } from './load.ts';
import { percentile, rowOf, type Row } from './table.ts';
import { MOBILE_LIMITS } from './mobile-rows.ts';
/** Random participants P4 asks for (one per request, in turn). */
const SAMPLE = 10_000;

/**
 * One read row: a warm-up of BENCH_WARMUP_REQUESTS, then `seconds` (BENCH_SECONDS, or
 * BENCH_HEAVY_SECONDS for the rows at scale) at CONNECTIONS connections for throughput and server
 * CPU per request, then BENCH_SECONDS at one connection for latency: p50 and p99 are what a single
 * caller sees (at 50 connections a one-threaded server's latency is 50 × its service time, whatever
 * the route). The note adds the p99 under load, the answer's size and statuses.
 */
async function readRow(label: string, t: Target, next: (i: number) => BenchRequest, seconds = SECONDS): Promise<Row> {
  await warmUp(next);
  const sample = next(0);
  const res = await fetch(sample.url, { headers: sample.headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const bytes = (await res.arrayBuffer()).byteLength;
  if (res.status !== 200) throw new Error(`${label}: ${sample.url} answered ${res.status}`);
  let n = 0;
  const pid = t.child.pid!;
  const before = cpuSplit(pid);
  const loaded = await drive(seconds * 1000, () => next(n++));
  const after = cpuSplit(pid);
  const single = await drive(SECONDS * 1000, () => next(n++), 1);
  const row = rowOf(label, loaded, after[0] + after[1] - before[0] - before[1]);
  const underLoad = { p50: row.p50, p99: row.p99 };
  const sorted = single.latencies.sort((a, b) => a - b);
  row.p50 = percentile(sorted, 50);
  row.p99 = percentile(sorted, 99);
  const statuses = new Map(loaded.statuses);
  for (const [s, c] of single.statuses) statuses.set(s, (statuses.get(s) ?? 0) + c);
  row.statuses = statuses;
  row.errors = loaded.errors + single.errors;
  const non200 = [...statuses].filter(([s]) => s !== 200).reduce((a, [, c]) => a + c, 0);
  row.note =
    `p50/p99 at 1 connection (${single.completed} requests); ${loaded.seconds.toFixed(1)} s at ${CONNECTIONS} after ${WARMUP_REQUESTS.toLocaleString('en')} warm-up requests: p50 ${underLoad.p50.toFixed(2)} ms, p99 ${underLoad.p99.toFixed(2)} ms, ` +
    `server CPU ${splitNote(before, after, loaded.completed)}; ${bytes.toLocaleString('en')} B answer; ${non200 || row.errors ? `${non200} non-200, ${row.errors} errors` : 'all 200'}`;
  console.log(`  ${label}: ${row.reqPerSec.toFixed(0)} req/s, server CPU ${row.cpuUsPerReq.toFixed(0)} µs/req, 1 connection p50 ${row.p50.toFixed(2)} ms p99 ${row.p99.toFixed(2)} ms; ${row.note}`);
  return row;
}

/** The bare-Koa baseline measured the same way as the read rows (throughput at CONNECTIONS, latency at one). */
async function bareReadRow(): Promise<Row & { shaped: Row }> {
  const { startBareKoa } = await import('./processes.ts');
  console.log('\n(b-r) bare Koa, one JSON route, measured like the read rows');
  const bare = await startBareKoa();
  const row = await readRow('(b-r) bare Koa GET /ok, measured like the read rows', bare, () => ({ url: `${bare.base}/ok`, method: 'GET', headers: {} }));
  row.note = `new Koa() answering {ok:true}; the baseline; ${row.note}`;
  const shaped = await readRow('(b-h) bare Koa answering like r0 (its 22 headers, a 113 B body)', bare, () => ({ url: `${bare.base}/team-shaped`, method: 'GET', headers: {} }));
  shaped.note = `what the wire contract alone costs r0; ${shaped.note}`;
  await stopChild(bare.child);
  return { ...row, shaped } as Row & { shaped: Row };
}

/**
 * Row (s): referred sign-ups (P3 `POST /v2/campaign/{id}/participant` with `referredBy`) into the
 * program of the read rows, each a new email referred by one of the sampled participants in turn:
 * BENCH_WARMUP_REQUESTS, then BENCH_HEAVY_SECONDS at CONNECTIONS connections.
 */
async function signUpRow(t: Target, programId: string, referrers: string[], auth: Record<string, string>, seedNote: string): Promise<Row> {
  const headers = { ...auth, 'content-type': 'application/json' };
  const make = (prefix: string) => (i: number): BenchRequest => ({
    url: `${t.base}/v2/campaign/${programId}/participant`,
    method: 'POST',
    headers,
    body: JSON.stringify({ email: `${prefix}-${i}@example.com`, referredBy: referrers[i % referrers.length] }),
  });
  const warm = make('bench-warm');
  await warmUp(warm);
  let n = 0;
  const run = make('bench-signup');
  const pid = t.child.pid!;
  const before = cpuSplit(pid);
  const r = await drive(HEAVY_SECONDS * 1000, () => run(n++));
  const after = cpuSplit(pid);
  const row = rowOf('(s) referred sign-up, P3 POST /v2/campaign/{id}/participant', r, after[0] + after[1] - before[0] - before[1]);
  const ok = r.statuses.get(200) ?? 0;
  const other = [...r.statuses].filter(([s]) => s !== 200);
  row.note =
    `SQLite, limits raised, ${r.seconds.toFixed(1)} s at ${CONNECTIONS} connections after ${WARMUP_REQUESTS.toLocaleString('en')} warm-up sign-ups, each referred by a random seeded participant; ` +
    `server CPU ${splitNote(before, after, r.completed)}; ${ok} × 200${other.length ? `, ${other.map(([s, c]) => `${c} × ${s}`).join(', ')}` : ''}${r.errors ? `, ${r.errors} errors` : ''}; ${seedNote}`;
  console.log(`  ${row.label}: ${row.reqPerSec.toFixed(0)} sign-ups/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, server CPU ${row.cpuUsPerReq.toFixed(0)} µs/req; ${row.note}`);
  return row;
}

/**
 * The read rows: one `refloop serve` (SQLite, limits raised) whose program is filled with
 * BENCH_PARTICIPANTS participants through scripts/seed.ts (into the server's file, as the trigger row
 * does), then GET /v2/team (the REST pipeline's floor), ML1 top 10 and top 50 (session token, ALL_TIME), P2 `limit=50` and P4 of a random
 * participant each request (most score 0: the longest rank sum), each beside the bare-Koa row.
 */
export async function readRows(): Promise<{ rows: Row[]; bare: Row }> {
  const count = PARTICIPANTS || 100_000;
  console.log(`\n(r0)–(r3) reads through the API on \`refloop serve\`, SQLite, limits raised, ${count.toLocaleString('en')} participants in one program`);
  const bare = await bareReadRow();
  const t = await startRefloop('refloop (reads and sign-ups)', { ...MOBILE_LIMITS, WRITE_SLOWDOWN_AFTER: '1000000000' });
  try {
    const key = await verifiedKey(t, 'bench-reads@acme-widgets.com');
    const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL' });
    const installation = await call(t, 'PATCH', `/v2/campaign/${program.id}/installation`, key, { mobile: { isEnabled: true } });
    const { openDb } = await import('../server/db/connect.ts');
    const { seedParticipants } = await import('../scripts/seed.ts');
    const seedDb = openDb({ client: 'better-sqlite3', filename: String(t.env.DATABASE_URL) });
    let seedNote: string;
    let sample: string[];
    try {
      let shown = 0;
      const seeded = await seedParticipants(seedDb, {
        programId: program.id,
        count,
        now: Date.now(),
        seed: 3,
        onProgress: (done) => {
          if (done - shown >= 250_000 || done === count) console.log(`  seeded ${done.toLocaleString('en')}`);
          shown = done;
        },
      });
      seedNote = `${count.toLocaleString('en')} participants (${seeded.credited.toLocaleString('en')} credited referrals) seeded in ${(seeded.ms / 1000).toFixed(1)} s`;
      console.log(`  ${seedNote}`);
      sample = await seedDb.knex('participants').where({ program_id: program.id }).orderByRaw('random()').limit(SAMPLE).pluck('id');
    } finally {
      await seedDb.close();
    }
    const mobile = { 'x-session-token': await openSession(t, program.id, installation.mobile.publicKey) };
    const rest = { authorization: `Bearer ${key}` };
    const get = (pathname: string, headers: Record<string, string>) => (): BenchRequest => ({ url: t.base + pathname, method: 'GET', headers });

    const { shaped, ...bareRow } = bare;
    const rows: Row[] = [bareRow, shaped];
    // The REST pipeline alone (key lookup, team budget and its headers, a one-row handler): the floor every REST read stands on.
    const team = await readRow('(r0) GET /v2/team, the REST floor', t, get('/v2/team', rest));
    rows.push(team);
    // The rows at scale are heavy: BENCH_HEAVY_SECONDS each under load.
    const ml10 = await readRow('(r1) ML1 leaderboard top 10, GET /mobile/v2/leaderboard', t, get('/mobile/v2/leaderboard?limit=10', mobile), HEAVY_SECONDS);
    const ml50 = await readRow('(r1) ML1 leaderboard top 50', t, get('/mobile/v2/leaderboard?limit=50', mobile), HEAVY_SECONDS);
    const p2 = await readRow('(r2) P2 GET /v2/campaign/{id}/leaderboard?limit=50', t, get(`/v2/campaign/${program.id}/leaderboard?limit=50`, rest), HEAVY_SECONDS);
    const p4 = await readRow(
      '(r3) authenticated read, P4 GET /v2/campaign/{id}/participant/{id}',
      t,
      (i) => ({ url: `${t.base}/v2/campaign/${program.id}/participant/${sample[i % sample.length]}`, method: 'GET', headers: rest }),
      HEAVY_SECONDS,
    );
    p4.note = `a random participant each request (its rank: most score 0, the longest histogram sum); ${p4.note}`;
    for (const r of [ml10, ml50, p2, p4]) r.note = `${r.note}; ${seedNote}`;
    rows.push(ml10, ml50, p2, p4);
    // Last, since it adds participants: referred sign-ups into the same program.
    rows.push(await signUpRow(t, program.id, sample, rest, seedNote));
    const ratio = (r: Row) => (r.cpuUsPerReq / bare.cpuUsPerReq).toFixed(1);
    console.log(`  REST floor (r0): ${ratio(team)} × bare Koa's CPU per request (bare Koa with r0's headers and body: ${ratio(shaped)} ×)`);
    console.log(
      `  targets: ML1 p99 ≤ 2 ms (top 10 ${ml10.p99.toFixed(2)}, top 50 ${ml50.p99.toFixed(2)}), P2 p99 ≤ 10 ms (${p2.p99.toFixed(2)}), P4 p99 ≤ 3 ms (${p4.p99.toFixed(2)}), ` +
        `P4 CPU ≤ 3 × bare Koa (${ratio(p4)} ×; ML1 ${ratio(ml10)} ×, ${ratio(ml50)} ×, P2 ${ratio(p2)} ×)`,
    );
    return { rows, bare: bareRow };
  } finally {
    await stopChild(t.child);
  }
}
