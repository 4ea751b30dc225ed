// Rows (b2) and (i)–(l), the participant API on `refloop serve`: visit ingestion (SQLite, random
// ids, PostgreSQL) and the signed-in window payload.
import { CONNECTIONS, HEAVY_SECONDS, PG_URL, RAISED_LIMITS, ROOT, WARMUP_REQUESTS } from './settings.ts';
import path from 'node:path';
import { benchPort, call, openSession, pgSchema, startChild, startRefloop, stopChild, verifiedKey, waitReady } from './processes.ts';
import { cpuSplit, cpuTicks, drive, splitNote, warmUp, CLK_TCK, type BenchRequest, type LoadResult } from './load.ts';
import { bareRow, measure, outcomesNote, rowOf, type Row } from './table.ts';

// --- visit ingestion: the participant API's hottest path -----------------------------------------

/** A UUIDv7 made of a random UUIDv4: the current millisecond in the first 48 bits, version 7 (the variant bits stay). */
export function v7From(v4: string): string {
  const ms = Date.now().toString(16).padStart(12, '0');
  return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${v4.slice(15)}`;
}

/** A visit POST with a fresh id, on connection `i`'s client session. */
function visitRequests(base: string, sessions: string[], code: string, ids: () => string): (i: number) => BenchRequest {
  const url = `${base}/mobile/v2/visits`;
  const headers = sessions.map((token) => ({ 'x-session-token': token, 'content-type': 'application/json' }));
  return (i) => ({
    url,
    method: 'POST',
    headers: headers[i % headers.length]!,
    body: JSON.stringify({
      visitId: ids(),
      attribution: { referralCode: code, utm: { utm_source: 'bench', utm_medium: 'share' }, destination: 'https://shop.example.com/landing' },
    }),
  });
}

/**
 * What MV1 answered: `RECORDED` (durable, with receipts), `PROCESSING` (the commit took longer than
 * the wait; the client retries the same id), else the HTTP status.
 */
export const visitOutcome = (status: number, body: string): string => {
  if (status !== 200) return `HTTP ${status}`;
  if (body.startsWith('{"status":"RECORDED"')) return 'RECORDED';
  try {
    return String((JSON.parse(body) as { status?: unknown }).status ?? 'no status');
  } catch {
    return 'unparseable';
  }
};

/** POST visits with fresh ids until the deadline, each connection with its own client session; answers counted RECORDED / PROCESSING. */
export function loadVisits(base: string, sessions: string[], code: string, ms: number, ids: () => string): Promise<LoadResult> {
  return drive(ms, visitRequests(base, sessions, code, ids), CONNECTIONS, visitOutcome);
}

/** The warm-up of a visit row: BENCH_WARMUP_REQUESTS visits. */
export function warmVisits(base: string, sessions: string[], code: string, ids: () => string): Promise<LoadResult> {
  const make = visitRequests(base, sessions, code, ids);
  return warmUp((i) => make(i % CONNECTIONS));
}

/**
 * Rows (i) and (j): `POST /mobile/v2/visits` on `refloop serve` (SQLite, limits raised), every
 * request a new visit id carrying a participant's share key and UTM values, one client session per
 * connection: each visit is durable (group commit) before its 200, with signed receipts;
 * impressions and VISIT activity rows are flushed in the background. (i) sends time-ordered ids
 * (UUIDv7, what our clients generate), (j) random UUIDv4 ids (a client that ignores the advice).
 * The stored visits and impression counts are read back afterwards.
 */
async function visitRow(ids: 'v7' | 'v4', database: 'sqlite' | 'pg' = 'sqlite'): Promise<Row> {
  // v7 ids as the widget makes them (shared/attribution.ts newVisitId), but from Node's pooled
  // randomUUID: a CSPRNG call per id made the load generator, not the server, the bottleneck.
  const makeId = ids === 'v7' ? () => v7From(crypto.randomUUID()) : () => crypto.randomUUID();
  const schema = database === 'pg' ? await pgSchema() : null;
  const t = await startRefloop(`refloop (visit ingestion, ${ids}, ${database})`, MOBILE_LIMITS, schema?.url);
  const key = await verifiedKey(t, 'bench-visits@acme-widgets.com');
  const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL' });
  const installation = await call(t, 'PATCH', `/v2/campaign/${program.id}/installation`, key, { mobile: { isEnabled: true } });
  const referrer = await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: 'bench-referrer@example.com' });
  const code = new URL(referrer.shareUrl).searchParams.get('grsf')!;
  const sessions: string[] = [];
  for (let i = 0; i < CONNECTIONS; i++) sessions.push(await openSession(t, program.id, installation.mobile.publicKey));
  await warmVisits(t.base, sessions, code, makeId);
  const pid = t.child.pid!;
  // PostgreSQL: the backends serving this server (application_name = the schema's tag) are charged too.
  const { default: knexFactory } = await import('knex');
  const admin = schema ? knexFactory({ client: 'pg', connection: PG_URL!, pool: { min: 0, max: 1 } }) : null;
  const backends = async () => (admin ? ((await admin.raw('SELECT pid FROM pg_stat_activity WHERE application_name = ?', [schema!.tag])).rows as Array<{ pid: number }>).map((b) => b.pid) : []);
  const dbTicks = (pids: number[]) =>
    pids.reduce((n, p) => {
      try {
        return n + cpuTicks(p);
      } catch {
        return n; // a backend that ended: its ticks are lost (the figure is a floor)
      }
    }, 0);
  const dbPids = await backends();
  const dbBefore = dbTicks(dbPids);
  const before = cpuSplit(pid);
  const r = await loadVisits(t.base, sessions, code, HEAVY_SECONDS * 1000, makeId);
  const after = cpuSplit(pid);
  const dbAfter = dbTicks(dbPids);
  await admin?.destroy();
  // The counters are flushed at most a second later; SIGTERM writes whatever is left.
  await stopChild(t.child);
  const row = rowOf(database === 'pg' ? '(k) visit ingestion on PostgreSQL' : ids === 'v7' ? '(i) visit ingestion, POST /mobile/v2/visits' : '(j) visit ingestion, random v4 visit ids', r, after[0] + after[1] - before[0] - before[1]);
  if (schema) row.dbCpuUsPerReq = r.completed ? (((dbAfter - dbBefore) / CLK_TCK) * 1e6) / r.completed : NaN;
  const db = schema
    ? knexFactory({ client: 'pg', connection: schema.url })
    : knexFactory({ client: 'better-sqlite3', connection: { filename: String(t.env.DATABASE_URL) }, useNullAsDefault: true });
  try {
    const visits = Number((await db('visits').where({ program_id: program.id }).count({ n: '*' }).first())?.n ?? 0);
    const counted = await db('participants').where({ id: referrer.id }).first('impression_count', 'unique_impression_count');
    const ok = r.statuses.get(200) ?? 0;
    const other = [...r.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
    row.note =
      `${schema ? `PostgreSQL (database CPU of ${dbPids.length} backends)` : 'SQLite'}, limits raised, ${CONNECTIONS} client sessions, ${r.seconds.toFixed(1)} s after ${WARMUP_REQUESTS.toLocaleString('en')} warm-up visits, server CPU ${splitNote(before, after, r.completed)} per visit, ${ids === 'v7' ? 'time-ordered (v7)' : 'random (v4)'} visit ids; ${ok} × 200 (${outcomesNote(r.outcomes)})${other ? `, ${other} other` : ''}${r.errors ? `, ${r.errors} errors` : ''}; ` +
      `afterwards (warm-up included) ${visits.toLocaleString('en')} visits stored, referrer impressions ${Number(counted?.impression_count ?? 0).toLocaleString('en')} (unique ${Number(counted?.unique_impression_count ?? 0)})`;
  } finally {
    await db.destroy();
    await schema?.drop();
  }
  console.log(
    `  ${row.label}: ${r.completed} responses → ${row.reqPerSec.toFixed(0)} req/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, server CPU ${row.cpuUsPerReq.toFixed(0)} µs/req`,
  );
  console.log(`  ${row.note}`);
  return row;
}

/**
 * Row (i0), the visit floor: bench/bare-visit.ts, a bare node:http server that reads the same visit
 * bodies, parses them and answers an MV1-sized RECORDED JSON, with no Koa, session, limit, receipt
 * or database: what any server pays for the HTTP and JSON of a visit on this machine.
 */
async function visitFloorRow(): Promise<Row> {
  const port = await benchPort();
  const base = `http://127.0.0.1:${port}`;
  const child = startChild('bare visit', ['--import', 'tsx', path.join(ROOT, 'bench', 'bare-visit.ts'), String(port)], { ...process.env });
  try {
    await waitReady(child, `${base}/ok`, 'bare visit');
    const sessions = Array.from({ length: CONNECTIONS }, (_, i) => `floor-session-${i}`);
    const makeId = () => v7From(crypto.randomUUID());
    await warmVisits(base, sessions, 'floor-code', makeId);
    const before = cpuSplit(child.pid!);
    const r = await loadVisits(base, sessions, 'floor-code', HEAVY_SECONDS * 1000, makeId);
    const after = cpuSplit(child.pid!);
    const row = rowOf('(i0) visit floor: bare node:http reading and parsing the same bodies', r, after[0] + after[1] - before[0] - before[1]);
    row.note = `no Koa, session, limits, receipts or database; server CPU ${splitNote(before, after, r.completed)} per visit; ${outcomesNote(r.outcomes)}${r.errors ? `, ${r.errors} errors` : ''}`;
    console.log(`  ${row.label}: ${row.reqPerSec.toFixed(0)} req/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, server CPU ${row.cpuUsPerReq.toFixed(0)} µs/req; ${row.note}`);
    return row;
  } finally {
    await stopChild(child);
  }
}

/** Participant-API budgets raised (per client, per program), so the mobile rows measure the path, not 429s. */
export const MOBILE_LIMITS = {
  ...RAISED_LIMITS,
  MOBILE_RATE_LIMIT_PER_MINUTE: '1000000000',
  MOBILE_SESSIONS_PER_IP_PER_MINUTE: '1000000000',
  MOBILE_PROGRAM_RATE_LIMIT_PER_MINUTE: '1000000000',
  MOBILE_PROGRAM_VISITS_PER_MINUTE: '1000000000',
};

/**
 * Row (l): `GET /mobile/v2/window` signed in (session token + a participant token minted by REST
 * P10) on `refloop serve` (SQLite, limits raised): the whole window payload (participant, share
 * URLs, rewards, leaderboard, traffic report) for one participant, every connection the same caller.
 */
async function windowRow(): Promise<Row> {
  const t = await startRefloop('refloop (window payload)', MOBILE_LIMITS);
  const key = await verifiedKey(t, 'bench-window@acme-widgets.com');
  const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL' });
  const installation = await call(t, 'PATCH', `/v2/campaign/${program.id}/installation`, key, { mobile: { isEnabled: true } });
  const minted = await call(t, 'POST', `/v2/campaign/${program.id}/mobile-participant-token`, key, { email: 'bench-window@example.com', firstName: 'Ann' });
  for (let i = 0; i < 20; i++) await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: `friend-${i}@example.com`, referredBy: minted.participant.id });
  const row = await measure('(l) window payload, GET /mobile/v2/window (signed in)', t, '/mobile/v2/window', {
    'x-session-token': await openSession(t, program.id, installation.mobile.publicKey),
    authorization: `Bearer ${minted.participantToken}`,
  });
  const non200 = [...row.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
  row.note = `SQLite, limits raised; a signed-in participant with 20 referrals in a program of 21; participant token verified and the participant read on every call${non200 || row.errors ? `; ${non200} non-200, ${row.errors} errors` : '; all 200'}`;
  await stopChild(t.child);
  return row;
}

/** The participant-API rows: bare Koa again (b2), the visit floor (i0), visits (i, j, and k on PostgreSQL when BENCH_DATABASE_URL is set), the window payload (l). */
export async function mobileRows(): Promise<{ rows: Row[]; bare: Row }> {
  console.log('\n(i)–(l) participant API on `refloop serve`, limits raised: visit ingestion and the window payload, with bare Koa measured again right before');
  // The machine's load drifts over a run; the visit targets are judged against a bare Koa row taken next to them.
  const rowB2 = await bareRow('(b2) bare Koa GET /ok, beside (i)', 'the baseline again, measured just before the participant-API rows');
  const rowI = await visitRow('v7');
  const rows = [rowB2, await visitFloorRow(), rowI, await visitRow('v4')];
  if (PG_URL) rows.push(await visitRow('v7', 'pg'));
  rows.push(await windowRow());
  console.log(
    `  targets (issue #26 goal 6): server CPU per visit ≤ 2 × bare Koa's (${(rowI.cpuUsPerReq / rowB2.cpuUsPerReq).toFixed(2)} ×: ${rowI.cpuUsPerReq.toFixed(0)} against ${rowB2.cpuUsPerReq.toFixed(0)} µs), ` +
      `≥ 0.6 × bare Koa req/s (${(rowI.reqPerSec / rowB2.reqPerSec).toFixed(2)} × row b2), p99 ≤ 20 ms at ${CONNECTIONS} connections (${rowI.p99.toFixed(2)} ms; bare Koa ${rowB2.p99.toFixed(2)} ms)`,
  );
  return { rows, bare: rowB2 };
}
