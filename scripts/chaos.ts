import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { freePort } from './free-port.ts';

// `npm run chaos` (issue #20): a real `refloop serve` child under a mixed write load over HTTP
// (referred visits, participant sign-ups, referral triggers, affiliate sales), killed with SIGKILL
// several times and restarted on the same database. Afterwards every acknowledged write is looked
// up and every derived count is compared with the facts it is derived from:
//
//   lost        a write the server acknowledged (200) that is not in the database
//   miscounted  a counter (participant impressions, unique impressions, referral counts, campaign
//               participant/impression/referral counts, VISIT activity rows, commissions) that
//               differs from the rows it counts
//
// Writes in flight when the process died may or may not have landed; they are reported as
// "unacknowledged, stored" and counted like any other fact. Exits 1 on any lost or miscounted item.
//
//   CHAOS_SECONDS   seconds of load (default 60), split evenly around the kills
//   CHAOS_KILLS     SIGKILLs during the run (default 3); the last restart is followed by the check
//   CHAOS_WORKERS   concurrent clients (default 24)
//   DATABASE_URL    postgres://… runs on that database (its own schema, dropped afterwards); else a fresh SQLite file

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'refloop.js');
const SECONDS = num(process.env.CHAOS_SECONDS, 60);
const KILLS = Math.floor(num(process.env.CHAOS_KILLS, 3));
const WORKERS = Math.floor(num(process.env.CHAOS_WORKERS, 24));
const PG_URL = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : null;
const PUBLIC_URL = 'http://refloop.test';
const REFERRERS = 12;
const AFFILIATES = 4;
const SESSIONS = 24;
const SALE_GROSS = 1000;
const TEN_PERCENT = { type: 'PERCENT', percent: 10, event: 'SALE', duration: 'FOREVER', holdDuration: 0 };

function num(v: string | undefined, d: number): number {
  const n = Number(v);
  return v && Number.isFinite(n) && n >= 0 ? n : d;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// --- the server child -------------------------------------------------------------------------

interface Server {
  proc: ChildProcess;
  exited: Promise<void>;
}

async function startServer(env: Record<string, string>, base: string): Promise<Server> {
  const proc = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (c: Buffer) => (tail = (tail + c.toString()).slice(-8000));
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`refloop serve did not start:\n${tail}`);
    try {
      const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return { proc, exited };
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
}

async function kill9(s: Server): Promise<void> {
  s.proc.kill('SIGKILL');
  await s.exited;
}

async function stop(s: Server): Promise<void> {
  s.proc.kill('SIGTERM');
  await Promise.race([s.exited, sleep(30_000).then(() => kill9(s))]);
}

// --- HTTP ---------------------------------------------------------------------------------------

interface Answer {
  status: number;
  body: any;
}

async function call(base: string, method: string, p: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + p, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

async function must(base: string, method: string, p: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<any> {
  const r = await call(base, method, p, opts);
  if (r.status !== 200) throw new Error(`${method} ${p} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

// --- what was acknowledged ------------------------------------------------------------------------

interface Fixture {
  key: string;
  referral: { pid: string; publicKey: string; referrers: string[]; sessions: string[] };
  affiliate: { pid: string; affiliates: string[] };
}

const acked = {
  visits: [] as Array<{ visitId: string; referrerId: string }>,
  participants: [] as Array<{ pid: string; id: string }>,
  /** Referred participants whose trigger has not been acknowledged yet (retried until it is). */
  pendingReferrals: [] as string[],
  referrals: [] as string[],
  customers: [] as Array<{ id: string; affiliateId: string }>,
  sales: [] as Array<{ customerId: string; orderId: string }>,
};
let attempts = 0;
let failures = 0;

async function setup(base: string): Promise<Fixture> {
  const email = `chaos-${crypto.randomBytes(4).toString('hex')}@acme-widgets.com`;
  const created = await must(base, 'POST', '/v2/accounts', { body: { email } });
  const outbox = await must(base, 'GET', '/_dev/mail', { headers: { accept: 'application/json' } });
  const message = outbox.messages.find((m: { to: string }) => String(m.to).includes(email)) ?? outbox.messages[0];
  const verify = (message.links as string[]).find((l) => l.includes('/verify?'))!.replace(PUBLIC_URL, base);
  if (!(await fetch(verify)).ok) throw new Error('could not verify the chaos account');
  const key = created.apiKey as string;

  const referral = await must(base, 'POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Chaos referral' } });
  const installation = await must(base, 'PATCH', `/v2/campaign/${referral.id}/installation`, { key, body: { mobile: { isEnabled: true } } });
  const referrers: string[] = [];
  for (let i = 0; i < REFERRERS; i++) {
    const p = await must(base, 'POST', `/v2/campaign/${referral.id}/participant`, { key, body: { email: `referrer-${i}@chaos.example` } });
    referrers.push(p.id);
    acked.participants.push({ pid: referral.id, id: p.id });
  }
  const sessions: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const s = await must(base, 'POST', '/mobile/v2/sessions', { headers: { 'x-program-id': referral.id, 'x-public-key': installation.mobile.publicKey }, body: { instanceId: crypto.randomUUID() } });
    sessions.push(s.sessionToken);
  }

  const affiliate = await must(base, 'POST', '/v2/campaigns', { key, body: { type: 'AFFILIATE', name: 'Chaos affiliate' } });
  const configId = affiliate.rewards[0].id as string;
  await must(base, 'PATCH', `/v2/campaign/${affiliate.id}/reward-configs/${configId}`, { key, body: { commissionStructure: TEN_PERCENT } });
  const affiliates: string[] = [];
  for (let i = 0; i < AFFILIATES; i++) {
    const p = await must(base, 'POST', `/v2/campaign/${affiliate.id}/participant`, { key, body: { email: `affiliate-${i}@chaos.example` } });
    affiliates.push(p.id);
    acked.participants.push({ pid: affiliate.id, id: p.id });
  }
  return { key, referral: { pid: referral.id, publicKey: installation.mobile.publicKey, referrers, sessions }, affiliate: { pid: affiliate.id, affiliates } };
}

const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)]!;

/** One write of the mix; acknowledged writes are remembered, anything else is only counted. */
async function oneWrite(base: string, f: Fixture, n: number): Promise<void> {
  const roll = Math.random();
  attempts++;
  try {
    if (roll < 0.6) {
      const referrerId = pick(f.referral.referrers);
      const visitId = crypto.randomUUID();
      const r = await call(base, 'POST', '/mobile/v2/visits', {
        headers: { 'x-session-token': pick(f.referral.sessions) },
        body: { visitId, attribution: { referralCode: referrerId, utm: { utm_source: 'chaos' } } },
      });
      if (r.status === 200 && r.body?.status === 'RECORDED') acked.visits.push({ visitId, referrerId });
      else failures++;
    } else if (roll < 0.75) {
      const referredBy = Math.random() < 0.7 ? pick(f.referral.referrers) : undefined;
      const r = await call(base, 'POST', `/v2/campaign/${f.referral.pid}/participant`, { key: f.key, body: { email: `p-${n}-${crypto.randomBytes(3).toString('hex')}@chaos.example`, ...(referredBy ? { referredBy } : {}) } });
      if (r.status !== 200) return void failures++;
      acked.participants.push({ pid: f.referral.pid, id: r.body.id });
      if (referredBy) acked.pendingReferrals.push(r.body.id);
    } else if (roll < 0.85 && acked.pendingReferrals.length) {
      const id = acked.pendingReferrals.shift()!;
      const r = await call(base, 'POST', `/v2/campaign/${f.referral.pid}/participant/${id}/ref`, { key: f.key, body: {} });
      if (r.status === 200 && r.body?.success) acked.referrals.push(id);
      else {
        // Unknown outcome (killed mid-request): try again later; a second trigger is answered "already awarded".
        acked.pendingReferrals.push(id);
        failures++;
      }
    } else if (roll < 0.9 || !acked.customers.length) {
      const affiliateId = pick(f.affiliate.affiliates);
      const r = await call(base, 'POST', `/v2/campaign/${f.affiliate.pid}/participant`, { key: f.key, body: { email: `c-${n}-${crypto.randomBytes(3).toString('hex')}@chaos.example`, referredBy: affiliateId } });
      if (r.status !== 200) return void failures++;
      acked.participants.push({ pid: f.affiliate.pid, id: r.body.id });
      acked.customers.push({ id: r.body.id, affiliateId });
    } else {
      const customer = pick(acked.customers);
      const orderId = `o-${n}-${crypto.randomBytes(4).toString('hex')}`;
      const r = await call(base, 'POST', `/v2/campaign/${f.affiliate.pid}/participant/${customer.id}/transaction`, { key: f.key, body: { currency: 'USD', grossAmount: SALE_GROSS, orderId } });
      if (r.status === 200 && r.body?.success) acked.sales.push({ customerId: customer.id, orderId });
      else failures++;
    }
  } catch {
    failures++;
  }
}

/** Drives the mix from `WORKERS` clients until `until`. */
async function load(base: string, f: Fixture, until: number): Promise<void> {
  let n = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (Date.now() < until) {
        await oneWrite(base, f, n++);
        if (failures && attempts % 50 === 0) await sleep(1);
      }
    }),
  );
}

// --- the check ----------------------------------------------------------------------------------

interface Report {
  acknowledged: Record<string, number>;
  lost: Record<string, number>;
  miscounted: string[];
  unacknowledgedStored: Record<string, number>;
}

async function check(base: string, f: Fixture, knex: Knex): Promise<Report> {
  const lost: Record<string, number> = { visits: 0, participants: 0, referrals: 0, sales: 0 };
  const miscounted: string[] = [];
  const ids = async (sql: Knex.QueryBuilder, col: string) => new Set((await sql).map((r: Record<string, string>) => r[col]));
  const count = (v: unknown) => Number(v ?? 0);

  // Acknowledged writes are all there.
  const storedVisits = await ids(knex('visits').where({ program_id: f.referral.pid }).select('visit_id'), 'visit_id');
  for (const v of acked.visits) if (!storedVisits.has(v.visitId)) lost.visits!++;
  const storedParticipants = await ids(knex('participants').whereIn('program_id', [f.referral.pid, f.affiliate.pid]).select('id'), 'id');
  for (const p of acked.participants) if (!storedParticipants.has(p.id)) lost.participants!++;
  const awarded = await ids(knex('participants').where({ program_id: f.referral.pid, referral_status: 'CREDIT_AWARDED' }).select('id'), 'id');
  for (const id of acked.referrals) if (!awarded.has(id)) lost.referrals!++;
  const salesByCustomer = new Map<string, number>();
  for (const r of await knex('affiliate_transactions').where({ program_id: f.affiliate.pid }).groupBy('customer_id').select('customer_id', knex.raw('count(*) as n'))) salesByCustomer.set(r.customer_id, count(r.n));
  const ackedByCustomer = new Map<string, number>();
  for (const s of acked.sales) ackedByCustomer.set(s.customerId, (ackedByCustomer.get(s.customerId) ?? 0) + 1);
  for (const [customer, n] of ackedByCustomer) lost.sales! += Math.max(0, n - (salesByCustomer.get(customer) ?? 0));

  // Derived counts equal the facts they count, as the REST API reports them.
  const get = (p: string) => must(base, 'GET', p, { key: f.key });
  let programImpressions = 0;
  for (const id of f.referral.referrers) {
    const p = await get(`/v2/campaign/${f.referral.pid}/participant/${id}`);
    const visits = count((await knex('visits').where({ program_id: f.referral.pid, referrer_id: id }).count({ n: '*' }))[0]!.n);
    const uniques = count((await knex('visits').where({ program_id: f.referral.pid, referrer_id: id }).countDistinct({ n: 'visitor_key' }))[0]!.n);
    const visitRows = count((await knex('activity_logs').where({ program_id: f.referral.pid, participant_id: id, type: 'VISIT' }).count({ n: '*' }))[0]!.n);
    const referrals = count((await knex('participants').where({ program_id: f.referral.pid, referred_by: id, referral_status: 'CREDIT_AWARDED' }).count({ n: '*' }))[0]!.n);
    programImpressions += visits;
    if (p.impressionCount !== visits) miscounted.push(`referrer ${id}: impressionCount ${p.impressionCount}, visits stored ${visits}`);
    if (p.uniqueImpressionCount !== uniques) miscounted.push(`referrer ${id}: uniqueImpressionCount ${p.uniqueImpressionCount}, distinct visitors ${uniques}`);
    if (visitRows !== visits) miscounted.push(`referrer ${id}: ${visitRows} VISIT activity rows, visits stored ${visits}`);
    if (p.referralCount !== referrals) miscounted.push(`referrer ${id}: referralCount ${p.referralCount}, credited referrals stored ${referrals}`);
  }
  const campaign = await get(`/v2/campaign/${f.referral.pid}`);
  const participants = count((await knex('participants').where({ program_id: f.referral.pid }).count({ n: '*' }))[0]!.n);
  if (campaign.impressionCount !== programImpressions) miscounted.push(`referral campaign: impressionCount ${campaign.impressionCount}, visits stored ${programImpressions}`);
  if (campaign.participantCount !== participants) miscounted.push(`referral campaign: participantCount ${campaign.participantCount}, participants stored ${participants}`);
  if (campaign.referralCount !== awarded.size) miscounted.push(`referral campaign: referralCount ${campaign.referralCount}, credited referrals stored ${awarded.size}`);
  const affiliateCampaign = await get(`/v2/campaign/${f.affiliate.pid}`);
  const affiliateParticipants = count((await knex('participants').where({ program_id: f.affiliate.pid }).count({ n: '*' }))[0]!.n);
  if (affiliateCampaign.participantCount !== affiliateParticipants) miscounted.push(`affiliate campaign: participantCount ${affiliateCampaign.participantCount}, participants stored ${affiliateParticipants}`);
  for (const id of f.affiliate.affiliates) {
    const sales = await knex('affiliate_transactions').where({ program_id: f.affiliate.pid, referrer_id: id }).select('id', 'commissionable_amount');
    const commissions = await knex('commissions').where({ program_id: f.affiliate.pid, referrer_id: id, event: 'SALE' }).select('transaction_id', 'original_amount');
    const want = sales.reduce((s, r) => s + Math.round(count(r.commissionable_amount) / 10), 0);
    const got = commissions.reduce((s, r) => s + count(r.original_amount), 0);
    if (commissions.length !== sales.length) miscounted.push(`affiliate ${id}: ${commissions.length} sale commissions, ${sales.length} sales stored`);
    if (got !== want) miscounted.push(`affiliate ${id}: commissions total ${got}, 10 % of the sales stored ${want}`);
  }
  return {
    acknowledged: { visits: acked.visits.length, participants: acked.participants.length, referrals: acked.referrals.length, sales: acked.sales.length },
    lost,
    miscounted,
    unacknowledgedStored: {
      visits: storedVisits.size - acked.visits.length + lost.visits!,
      participants: storedParticipants.size - acked.participants.length + lost.participants!,
      referrals: awarded.size - acked.referrals.length + lost.referrals!,
      sales: [...salesByCustomer.values()].reduce((a, b) => a + b, 0) - acked.sales.length + lost.sales!,
    },
  };
}

// --- main -----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-chaos-'));
  const schema = PG_URL ? `chaos_${crypto.randomBytes(5).toString('hex')}` : null;
  let databaseUrl = path.join(dir, 'refloop.db');
  if (PG_URL && schema) {
    const admin = knexFactory({ client: 'pg', connection: PG_URL });
    await admin.raw(`CREATE SCHEMA "${schema}"`);
    await admin.destroy();
    databaseUrl = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  }
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    PUBLIC_URL,
    JOBS: 'true',
    ACCOUNT_CREATION_PER_HOUR: '10000',
    RATE_LIMIT_SECOND: '1000000',
    RATE_LIMIT_MINUTE: '1000000',
    RATE_LIMIT_HOUR: '1000000',
    RATE_LIMIT_IP_PER_MINUTE: '1000000',
    CONCURRENCY_PER_IP: '1000',
    WRITE_SLOWDOWN_AFTER: '1000000',
    MOBILE_RATE_LIMIT_PER_MINUTE: '1000000000',
    MOBILE_SESSIONS_PER_IP_PER_MINUTE: '1000000000',
    MOBILE_PROGRAM_RATE_LIMIT_PER_MINUTE: '1000000000',
    MOBILE_PROGRAM_VISITS_PER_MINUTE: '1000000000',
  };
  const knex = PG_URL ? knexFactory({ client: 'pg', connection: databaseUrl }) : null;
  let server: Server | null = null;
  let failed = true;
  const started = Date.now();
  try {
    console.log(`chaos: ${SECONDS} s of load, ${KILLS} × SIGKILL, ${WORKERS} clients, ${PG_URL ? `PostgreSQL (schema ${schema})` : `SQLite (${databaseUrl})`}`);
    server = await startServer(env, base);
    const fixture = await setup(base);
    const slice = (SECONDS * 1000) / (KILLS + 1);
    for (let round = 0; round <= KILLS; round++) {
      await load(base, fixture, Date.now() + slice);
      if (round < KILLS) {
        // Killed while the load is still arriving: requests in flight die with it.
        const inFlight = load(base, fixture, Date.now() + 200);
        await sleep(100);
        await kill9(server);
        await inFlight;
        console.log(`  round ${round + 1}: SIGKILL after ${acked.visits.length} visits, ${acked.participants.length} participants, ${acked.referrals.length} referrals, ${acked.sales.length} sales acknowledged; restarting`);
        server = await startServer(env, base);
      }
    }
    // The last kill comes after the load, so nothing is flushed at shutdown; then a restart and the check.
    await kill9(server);
    server = await startServer(env, base);
    // Acknowledged referral triggers were retried across kills; finish the ones still pending.
    for (const id of acked.pendingReferrals.splice(0)) {
      const r = await call(base, 'POST', `/v2/campaign/${fixture.referral.pid}/participant/${id}/ref`, { key: fixture.key, body: {} });
      if (r.status === 200 && r.body?.success) acked.referrals.push(id);
    }
    const db = knex ?? knexFactory({ client: 'better-sqlite3', connection: { filename: databaseUrl }, useNullAsDefault: true });
    let report: Report | null = null;
    try {
      // Counters derived in the background converge within a few seconds of the restart.
      const deadline = Date.now() + 30_000;
      for (;;) {
        report = await check(base, fixture, db);
        if (!report.miscounted.length || Date.now() > deadline) break;
        await sleep(500);
      }
    } finally {
      if (!knex) await db.destroy();
    }
    const lost = Object.values(report!.lost).reduce((a, b) => a + b, 0);
    console.log(`\nchaos result after ${((Date.now() - started) / 1000).toFixed(0)} s (${attempts} writes attempted, ${failures} unanswered or refused):`);
    console.log(`  acknowledged          ${fmt(report!.acknowledged)}`);
    console.log(`  lost                  ${fmt(report!.lost)}`);
    console.log(`  miscounted            ${report!.miscounted.length}`);
    for (const m of report!.miscounted.slice(0, 40)) console.log(`    ${m}`);
    console.log(`  unacknowledged stored ${fmt(report!.unacknowledgedStored)}`);
    failed = lost > 0 || report!.miscounted.length > 0;
    console.log(failed ? 'chaos: FAILED' : 'chaos: OK');
  } finally {
    if (server) await stop(server);
    await knex?.destroy();
    if (PG_URL && schema) {
      const admin = knexFactory({ client: 'pg', connection: PG_URL });
      await admin.raw(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.destroy();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

function fmt(r: Record<string, number>): string {
  return Object.entries(r)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

main().catch((err) => {
  console.error('chaos: error', err);
  process.exit(2);
});
