import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { freePort } from './free-port.ts';
import { startLoopbackProxy, type LoopbackProxy } from './loopback-proxy.ts';
import { call as probe, redisAnswers, type Answer } from './probes.ts';
import { AuditLog } from '../server/domain/platform/audit.ts';
import type { Db } from '../server/db/connect.ts';

// `npm run chaos` (issues #20, #34): real `refloop serve` children under a mixed write load over
// HTTP (referred visits, participant sign-ups, referral triggers now and delayed, affiliate sales and
// refunds, payout runs, keyed program creations, webhook deliveries to a receiver this script runs),
// killed with SIGKILL several times and restarted on the same database. With CHAOS_HOSTS=2 two hosts
// (different ports, no shared memory) share one PostgreSQL schema and one Redis behind a loopback
// proxy (scripts/loopback-proxy.ts); the kills alternate between them while the other keeps serving.
// Afterwards every acknowledged write is looked up and every derived count is compared with the
// facts it is derived from:
//
//   lost        a write the server acknowledged (200) that is not in the database; a delayed trigger
//               not credited; an emitted webhook event not delivered; a job never run
//   miscounted  a counter (participant impressions, unique impressions, referral counts, campaign
//               participant/impression/referral counts, VISIT activity rows, commissions, commission
//               totals after refunds, payout sums) that differs from the rows it counts
//   doubled     a keyed write that made two resources or was answered differently on a retry; a
//               commission in two payouts; a job run twice or a webhook delivery received twice
//               although no kill cut its run (a run cut by a SIGKILL is at-least-once by design: the
//               job is claimed again when its lease lapses, and its delivery id repeats)
//
// Writes in flight when the process died may or may not have landed; they are reported as
// "unacknowledged, stored" and counted like any other fact. Exits 1 on any lost or miscounted item.
//
//   CHAOS_SECONDS   seconds of load (default 60), split evenly around the kills
//   CHAOS_KILLS     SIGKILLs during the run (default 3); the last restart is followed by the check
//   CHAOS_WORKERS   concurrent clients (default 24)
//   CHAOS_HOSTS     1 (default) or 2: two hosts behind the loopback proxy (PostgreSQL and Redis only)
//   CHAOS_REDIS_URL the Redis of CHAOS_HOSTS=2 (default redis://127.0.0.1:6379; a unique REDIS_PREFIX per run)
//   CHAOS_SERVER_LOG a file the hosts' output is appended to (LOG_LEVEL=error)
//   DATABASE_URL    postgres://… runs on that database (its own schema, dropped afterwards); else a fresh SQLite file

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'refloop.js');
const SECONDS = num(process.env.CHAOS_SECONDS, 60);
const KILLS = Math.floor(num(process.env.CHAOS_KILLS, 3));
const WORKERS = Math.floor(num(process.env.CHAOS_WORKERS, 24));
const HOSTS = Math.max(1, Math.floor(num(process.env.CHAOS_HOSTS, 1)));
const REDIS_URL = process.env.CHAOS_REDIS_URL || 'redis://127.0.0.1:6379';
const PG_URL = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : null;
const PUBLIC_URL = 'http://refloop.test';
const REFERRERS = 12;
const AFFILIATES = 4;
const SESSIONS = 24;
const SALE_GROSS = 1000;
const TEN_PERCENT = { type: 'PERCENT', percent: 10, event: 'SALE', duration: 'FOREVER', holdDuration: 0 };
/** The events the load makes a webhook for; every one emitted must reach the receiver. */
const HOOK_EVENTS = ['NEW_PARTICIPANT_ADDED', 'PARTICIPANT_REACHED_A_GOAL', 'NEW_COMMISSION_ADDED', 'COMMISSION_ADJUSTED', 'NEW_PAYOUT_ISSUED'];
/** Jobs of a dead host are claimed again when their lease lapses (server/domain/platform/jobs.ts LEASE_MS = 10 s). */
const SETTLE_MS = 45_000;

function num(v: string | undefined, d: number): number {
  const n = Number(v);
  return v && Number.isFinite(n) && n >= 0 ? n : d;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// --- the server children ----------------------------------------------------------------------

interface Server {
  proc: ChildProcess;
  exited: Promise<void>;
}

async function startServer(env: Record<string, string>, base: string): Promise<Server> {
  const proc = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const log = process.env.CHAOS_SERVER_LOG;
  const keep = (c: Buffer) => {
    tail = (tail + c.toString()).slice(-8000);
    if (log) fs.appendFileSync(log, c);
  };
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

/** One HTTP call; a connection that died (a killed host, a 502 from the proxy's side) answers status 0 or 502. */
const call = (base: string, method: string, p: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> => probe(base, method, p, { ...opts, timeoutMs: 15_000 });

async function must(base: string, method: string, p: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<any> {
  const r = await call(base, method, p, opts);
  if (r.status !== 200) throw new Error(`${method} ${p} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** No answer at all: the host died under the request (or the proxy found it gone). */
const unanswered = (a: Answer) => a.status === 0 || a.status === 502 || a.status === 503;

// --- the webhook receiver -------------------------------------------------------------------------

/** Every delivery the receiver got: delivery id → arrival times (ms). */
const received = new Map<string, number[]>();

async function startReceiver(): Promise<{ url: string; close: () => Promise<void> }> {
  const port = await freePort();
  const server = http.createServer((req, res) => {
    const id = String(req.headers['growsurf-delivery-id'] ?? '');
    req.resume();
    req.on('end', () => {
      if (id) {
        const at = received.get(id) ?? [];
        at.push(Date.now());
        received.set(id, at);
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

// --- what was acknowledged ------------------------------------------------------------------------

interface Fixture {
  key: string;
  referral: { pid: string; publicKey: string; referrers: string[]; sessions: string[] };
  affiliate: { pid: string; affiliates: string[] };
}

/** A program creation sent with an Idempotency-Key, and the first 200 answer it got. */
interface KeyedWrite {
  idem: string;
  name: string;
  first: any | null;
  /** Retries answered differently from the first answer (or refused). */
  mismatches: string[];
  /**
   * A request with this key is on its way: another worker must not send it again meanwhile, as an
   * integrator retries only an unanswered request (two at once are answered original and replay, in
   * either order, which the multi-process idempotency tests cover).
   */
  inFlight?: boolean;
}

const acked = {
  visits: [] as Array<{ visitId: string; referrerId: string }>,
  participants: [] as Array<{ pid: string; id: string }>,
  /** Referred participants whose trigger has not been acknowledged yet (retried until it is). */
  pendingReferrals: [] as string[],
  referrals: [] as string[],
  /** Referred participants whose trigger was sent with a delay and not acknowledged yet. */
  pendingDelayed: [] as string[],
  delayed: [] as string[],
  customers: [] as Array<{ id: string; affiliateId: string }>,
  sales: [] as Array<{ customerId: string; orderId: string }>,
  /** Sales to refund whose refund has not been acknowledged yet (a full refund twice changes nothing more). */
  pendingRefunds: [] as Array<{ customerId: string; orderId: string }>,
  refunds: [] as Array<{ customerId: string; orderId: string }>,
  payouts: [] as string[],
  keyed: [] as KeyedWrite[],
};
/** Keyed writes still unanswered (no 200) after every retry: counted lost. */
const neverAnswered: string[] = [];
/** Participants created by the load (after the webhooks were set up): each must have its NEW_PARTICIPANT_ADDED event. */
const loadParticipants = new Set<string>();
let attempts = 0;
let failures = 0;
/** Answers other than 200 by status (0: no answer). */
const statuses = new Map<number, number>();
const tag = crypto.randomBytes(3).toString('hex');

async function setup(base: string, hookUrl: string): Promise<Fixture> {
  const email = `chaos-${crypto.randomBytes(4).toString('hex')}@acme-widgets.com`;
  const created = await must(base, 'POST', '/v2/accounts', { body: { email } });
  const outbox = await must(base, 'GET', '/_dev/mail', { headers: { accept: 'application/json' } });
  const message = outbox.messages.find((m: { to: string }) => String(m.to).includes(email)) ?? outbox.messages[0];
  const verify = (message.links as string[]).find((l) => l.includes('/verify?'))!.replace(PUBLIC_URL, base);
  if (!(await fetch(verify)).ok) throw new Error('could not verify the chaos account');
  const key = created.apiKey as string;

  const referral = await must(base, 'POST', '/v2/campaigns', { key, body: { type: 'REFERRAL', name: 'Chaos referral' } });
  const installation = await must(base, 'PATCH', `/v2/campaign/${referral.id}/installation`, { key, body: { referralTrigger: 'CUSTOM', mobile: { isEnabled: true } } });
  const affiliate = await must(base, 'POST', '/v2/campaigns', { key, body: { type: 'AFFILIATE', name: 'Chaos affiliate' } });
  const configId = affiliate.rewards[0].id as string;
  await must(base, 'PATCH', `/v2/campaign/${affiliate.id}/reward-configs/${configId}`, { key, body: { commissionStructure: TEN_PERCENT } });
  for (const pid of [referral.id, affiliate.id]) await must(base, 'POST', `/v2/campaign/${pid}/webhooks`, { key, body: { payloadUrl: hookUrl, events: HOOK_EVENTS } });

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
  const affiliates: string[] = [];
  for (let i = 0; i < AFFILIATES; i++) {
    const p = await must(base, 'POST', `/v2/campaign/${affiliate.id}/participant`, { key, body: { email: `affiliate-${i}@chaos.example` } });
    affiliates.push(p.id);
    acked.participants.push({ pid: affiliate.id, id: p.id });
  }
  return { key, referral: { pid: referral.id, publicKey: installation.mobile.publicKey, referrers, sessions }, affiliate: { pid: affiliate.id, affiliates } };
}

const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)]!;

/** Sends (or resends) one keyed program creation and compares the answer with the first one. */
async function keyedCreate(base: string, f: Fixture, w: KeyedWrite): Promise<Answer> {
  w.inFlight = true;
  const a = await call(base, 'POST', '/v2/campaigns', { key: f.key, headers: { 'idempotency-key': w.idem }, body: { type: 'REFERRAL', name: w.name } }).finally(() => {
    w.inFlight = false;
  });
  if (a.status === 200) {
    if (w.first === null) w.first = a.body;
    else if (JSON.stringify(a.body) !== JSON.stringify(w.first)) w.mismatches.push(`${w.idem}: a retry answered program ${a.body?.id}, the first answer was ${w.first.id}`);
    else if (a.headers.get('idempotent-replayed') !== 'true') w.mismatches.push(`${w.idem}: a retry was not marked Idempotent-Replayed`);
  } else if (a.status === 400 || a.status === 422) w.mismatches.push(`${w.idem}: a retry was refused ${a.status} ${a.body?.code}`);
  return a;
}

/** One write of the mix; acknowledged writes are remembered, anything else is only counted. */
async function oneWrite(base: string, f: Fixture, n: number): Promise<void> {
  const roll = Math.random();
  attempts++;
  let answer: Answer | null = null;
  if (roll < 0.5) {
    const referrerId = pick(f.referral.referrers);
    const visitId = crypto.randomUUID();
    answer = await call(base, 'POST', '/mobile/v2/visits', {
      headers: { 'x-session-token': pick(f.referral.sessions) },
      body: { visitId, attribution: { referralCode: referrerId, utm: { utm_source: 'chaos' } } },
    });
    if (answer.status === 200 && answer.body?.status === 'RECORDED') acked.visits.push({ visitId, referrerId });
    else failures++;
  } else if (roll < 0.64) {
    const referredBy = Math.random() < 0.7 ? pick(f.referral.referrers) : undefined;
    answer = await call(base, 'POST', `/v2/campaign/${f.referral.pid}/participant`, { key: f.key, body: { email: `p-${n}-${crypto.randomBytes(3).toString('hex')}@chaos.example`, ...(referredBy ? { referredBy } : {}) } });
    if (answer.status !== 200) failures++;
    else {
      acked.participants.push({ pid: f.referral.pid, id: answer.body.id });
      loadParticipants.add(answer.body.id);
      // One referred sign-up in five is credited with a delay (rest-v2 P8 `delayInDays`).
      if (referredBy) (Math.random() < 0.2 ? acked.pendingDelayed : acked.pendingReferrals).push(answer.body.id);
    }
  } else if (roll < 0.72 && (acked.pendingReferrals.length || acked.pendingDelayed.length)) {
    const delayed = acked.pendingDelayed.length > 0 && (Math.random() < 0.3 || !acked.pendingReferrals.length);
    const queue = delayed ? acked.pendingDelayed : acked.pendingReferrals;
    const id = queue.shift()!;
    answer = await call(base, 'POST', `/v2/campaign/${f.referral.pid}/participant/${id}/ref`, { key: f.key, body: delayed ? { delayInDays: 1 } : {} });
    if (answer.status === 200 && answer.body?.success) (delayed ? acked.delayed : acked.referrals).push(id);
    else {
      // Unknown outcome (killed mid-request): try again later; a second trigger is answered "already pending" or "already awarded".
      queue.push(id);
      failures++;
    }
  } else if (roll < 0.8 || !acked.customers.length) {
    const affiliateId = pick(f.affiliate.affiliates);
    answer = await call(base, 'POST', `/v2/campaign/${f.affiliate.pid}/participant`, { key: f.key, body: { email: `c-${n}-${crypto.randomBytes(3).toString('hex')}@chaos.example`, referredBy: affiliateId } });
    if (answer.status !== 200) failures++;
    else {
      acked.participants.push({ pid: f.affiliate.pid, id: answer.body.id });
      loadParticipants.add(answer.body.id);
      acked.customers.push({ id: answer.body.id, affiliateId });
    }
  } else if (roll < 0.9) {
    const customer = pick(acked.customers);
    const orderId = `o-${n}-${crypto.randomBytes(4).toString('hex')}`;
    answer = await call(base, 'POST', `/v2/campaign/${f.affiliate.pid}/participant/${customer.id}/transaction`, { key: f.key, body: { currency: 'USD', grossAmount: SALE_GROSS, orderId } });
    if (answer.status === 200 && answer.body?.success) {
      acked.sales.push({ customerId: customer.id, orderId });
      // One acknowledged sale in six is refunded in full later.
      if (Math.random() < 1 / 6) acked.pendingRefunds.push({ customerId: customer.id, orderId });
    } else failures++;
  } else if (roll < 0.97 && acked.pendingRefunds.length) {
    const sale = acked.pendingRefunds.shift()!;
    answer = await call(base, 'POST', `/v2/campaign/${f.affiliate.pid}/participant/${sale.customerId}/transaction/refund`, { key: f.key, body: { orderId: sale.orderId, amendmentType: 'REFUND' } });
    if (answer.status === 200 && answer.body?.success) acked.refunds.push(sale);
    else {
      acked.pendingRefunds.push(sale);
      failures++;
    }
  } else {
    // A keyed write: a new program, or the retry of one whose first try went unanswered.
    const waiting = acked.keyed.find((w) => w.first === null && !w.mismatches.length && !w.inFlight);
    const w = waiting && Math.random() < 0.5 ? waiting : { idem: `chaos-${tag}-${n}`, name: `Keyed ${tag} ${n}`, first: null, mismatches: [] };
    if (w !== waiting) acked.keyed.push(w);
    answer = await keyedCreate(base, f, w);
    if (answer.status !== 200) failures++;
  }
  if (answer && answer.status !== 200) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  // A dead host answers at once; do not spin on it.
  if (answer && unanswered(answer)) await sleep(100);
}

/** Drives the mix from `WORKERS` clients until `until`. */
async function load(base: string, f: Fixture, until: number): Promise<void> {
  let n = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (Date.now() < until) await oneWrite(base, f, n++);
    }),
  );
}

/**
 * Payout runs while the load goes on: every `everyMs` a run on each host at once (through the proxy,
 * one after the other host), then every payout it made is reported ISSUED. Two runs at once must
 * never put one commission in two payouts.
 */
async function payoutRuns(base: string, f: Fixture, until: number, everyMs: number): Promise<void> {
  while (Date.now() < until) {
    await sleep(everyMs);
    const runs = await Promise.all(Array.from({ length: Math.max(2, HOSTS) }, () => call(base, 'POST', `/v2/campaign/${f.affiliate.pid}/payouts/run`, { key: f.key, body: {} })));
    for (const r of runs) {
      if (r.status !== 200) continue;
      for (const p of r.body.payouts as Array<{ id: string }>) {
        acked.payouts.push(p.id);
        await call(base, 'POST', `/v2/campaign/${f.affiliate.pid}/payouts/${p.id}/status`, { key: f.key, body: { status: 'ISSUED' } });
      }
    }
  }
}

/**
 * The clock of delayed triggers: a trigger is due `delayInDays` from now, so this brings every
 * queued `referral.trigger` job forward to now, and the hosts' job runners credit it as they would a
 * day later. On PostgreSQL once a second while the load runs; a SQLite file has one writer process,
 * so there only while its host is down (`bringTriggersForward` between a kill and the restart).
 */
async function bringTriggersForward(db: Knex): Promise<number> {
  return db('jobs').where({ type: 'referral.trigger', status: 'QUEUED' }).where('run_at', '>', Date.now()).update({ run_at: Date.now() });
}

async function fastForward(db: Knex, until: () => boolean): Promise<void> {
  if (!PG_URL) return;
  while (!until()) {
    await bringTriggersForward(db).catch(() => undefined);
    await sleep(1000);
  }
}

// --- the check ----------------------------------------------------------------------------------

interface Report {
  acknowledged: Record<string, number>;
  lost: Record<string, number>;
  doubled: Record<string, number>;
  miscounted: string[];
  problems: string[];
  unacknowledgedStored: Record<string, number>;
  delivered: Record<string, number>;
}

/** Job ids whose run a SIGKILL cut (RUNNING under the killed process when it died), with their payloads. */
const interrupted = new Map<string, { type: string; cuts: number; deliveryId?: string }>();

async function noteInterrupted(db: Knex, pid: number): Promise<number> {
  const rows: Array<{ id: string; type: string; payload: string }> = await db('jobs').where({ status: 'RUNNING' }).where('locked_by', 'like', `%:${pid}:%`).select('id', 'type', 'payload');
  for (const r of rows) interrupted.set(r.id, { type: r.type, cuts: (interrupted.get(r.id)?.cuts ?? 0) + 1, deliveryId: r.type === 'webhook.deliver' ? JSON.parse(r.payload)?.deliveryId : undefined });
  return rows.length;
}

async function check(base: string, f: Fixture, knex: Knex): Promise<Report> {
  const lost: Record<string, number> = { visits: 0, participants: 0, referrals: 0, delayedTriggers: 0, sales: 0, refunds: 0, payouts: 0, keyedWrites: 0, webhookEvents: 0, webhookDeliveries: 0, jobs: 0 };
  const doubled: Record<string, number> = { keyedWrites: 0, delayedTriggers: 0, payoutCommissions: 0, jobs: 0, webhookDeliveries: 0 };
  const miscounted: string[] = [];
  const problems: string[] = [];
  const ids = async (sql: Knex.QueryBuilder, col: string) => new Set((await sql).map((r: Record<string, string>) => r[col]));
  const count = (v: unknown) => Number(v ?? 0);
  const programs = [f.referral.pid, f.affiliate.pid];

  // Acknowledged writes are all there.
  const storedVisits = await ids(knex('visits').where({ program_id: f.referral.pid }).select('visit_id'), 'visit_id');
  for (const v of acked.visits) if (!storedVisits.has(v.visitId)) lost.visits!++;
  const storedParticipants = await ids(knex('participants').whereIn('program_id', programs).select('id'), 'id');
  for (const p of acked.participants) if (!storedParticipants.has(p.id)) lost.participants!++;
  const awarded = await ids(knex('participants').where({ program_id: f.referral.pid, referral_status: 'CREDIT_AWARDED' }).select('id'), 'id');
  for (const id of acked.referrals) if (!awarded.has(id)) lost.referrals!++;
  for (const id of acked.delayed) if (!awarded.has(id)) lost.delayedTriggers!++;
  // One delayed trigger per participant, however often it was asked for.
  for (const r of await knex('referral_triggers').where({ program_id: f.referral.pid }).groupBy('participant_id').having(knex.raw('count(*) > 1')).select('participant_id')) {
    doubled.delayedTriggers!++;
    problems.push(`participant ${r.participant_id}: more than one delayed trigger`);
  }
  const salesByCustomer = new Map<string, number>();
  for (const r of await knex('affiliate_transactions').where({ program_id: f.affiliate.pid }).groupBy('customer_id').select('customer_id', knex.raw('count(*) as n'))) salesByCustomer.set(r.customer_id, count(r.n));
  const ackedByCustomer = new Map<string, number>();
  for (const s of acked.sales) ackedByCustomer.set(s.customerId, (ackedByCustomer.get(s.customerId) ?? 0) + 1);
  for (const [customer, n] of ackedByCustomer) lost.sales! += Math.max(0, n - (salesByCustomer.get(customer) ?? 0));

  // Refunds: the sale's commission is reversed (or, once in a payout, an adjustment takes it back).
  const saleCommission = new Map<string, any>();
  for (const c of await knex('commissions as c').join('transaction_keys as k', 'k.transaction_id', 'c.transaction_id').where({ 'c.program_id': f.affiliate.pid, 'k.kind': 'orderId' }).select({ order_id: 'k.value' }, 'c.id', 'c.status', 'c.amount', 'c.paid_amount', 'c.payout_id')) saleCommission.set(c.order_id, c);
  const adjustments = new Map<string, number>();
  for (const a of await knex('commission_adjustments').where({ program_id: f.affiliate.pid }).select('commission_id', 'amount')) adjustments.set(a.commission_id, (adjustments.get(a.commission_id) ?? 0) + count(a.amount));
  for (const s of acked.refunds) {
    const c = saleCommission.get(s.orderId);
    if (!c) continue;
    const reversed = count(c.amount) === 0 && (c.payout_id == null ? ['REVERSED', 'DELETED'].includes(c.status) : count(c.paid_amount) + (adjustments.get(c.id) ?? 0) === 0);
    if (!reversed) lost.refunds!++;
  }

  // The audit trail (issue #35): every participant the REST API stored has its P3 entry, every P3
  // entry names a stored participant (a kill never leaves a change without its entry, or an entry
  // without its change, acknowledged or not), and the team's chain verifies.
  const teamId = (await knex('programs').where({ id: f.referral.pid }).first('team_id')).team_id as string;
  const signUpEntries: string[] = await knex('audit_log').where({ team_id: teamId, action: 'P3' }).pluck('resource_id');
  const withEntry = new Set(signUpEntries);
  const everyParticipant: string[] = await knex('participants').whereIn('program_id', programs).pluck('id');
  const storedIds = new Set(everyParticipant);
  lost.auditEntries = everyParticipant.filter((id) => !withEntry.has(id)).length;
  const orphans = signUpEntries.filter((id) => !storedIds.has(id));
  if (orphans.length) problems.push(`${orphans.length} P3 audit entries name no stored participant (an entry without its change), e.g. ${orphans[0]}`);
  const chain = await new AuditLog({ knex, dialect: knex.client.config.client === 'pg' ? 'pg' : 'sqlite' } as unknown as Db, { now: () => Date.now() } as never).verify(teamId);
  for (const b of chain.breaks) problems.push(`audit chain of team ${b.teamId} broken at entry ${b.seq}: ${b.problem}`);

  // Keyed writes: one program per key; every retry answered with the first answer (replayed now once
  // more); one never answered 200 after every retry counts lost.
  for (const idem of neverAnswered.slice(0, 5)) problems.push(`${idem}: never answered 200`);
  const keyedNames = new Map<string, number>();
  for (const r of await knex('programs').where('name', 'like', `Keyed ${tag} %`).select('name')) keyedNames.set(r.name, (keyedNames.get(r.name) ?? 0) + 1);
  for (const w of acked.keyed) {
    const made = keyedNames.get(w.name) ?? 0;
    if (made > 1) doubled.keyedWrites!++;
    if ((w.first && made === 0) || neverAnswered.includes(w.idem)) lost.keyedWrites!++;
    if (w.mismatches.length) {
      doubled.keyedWrites!++;
      problems.push(...w.mismatches.slice(0, 3));
    }
  }

  // Payouts: every acknowledged one stored; a commission in one live payout at most; sums match.
  const payouts = await knex('payouts').where({ program_id: f.affiliate.pid }).select('id', 'status', 'amount', 'commission_ids');
  const payoutIds = new Set(payouts.map((p) => p.id));
  for (const id of acked.payouts) if (!payoutIds.has(id)) lost.payouts!++;
  const inPayout = new Map<string, string>();
  const commissionRows = new Map<string, any>();
  for (const c of await knex('commissions').where({ program_id: f.affiliate.pid }).select('id', 'status', 'payout_id', 'paid_amount')) commissionRows.set(c.id, c);
  const adjustmentsByPayout = new Map<string, number>();
  for (const a of await knex('commission_adjustments').where({ program_id: f.affiliate.pid }).whereNotNull('payout_id').select('payout_id', 'amount')) adjustmentsByPayout.set(a.payout_id, (adjustmentsByPayout.get(a.payout_id) ?? 0) + count(a.amount));
  for (const p of payouts) {
    if (p.status === 'FAILED' || p.status === 'REVERSED') continue;
    let sum = adjustmentsByPayout.get(p.id) ?? 0;
    for (const cid of JSON.parse(p.commission_ids) as string[]) {
      if (inPayout.has(cid)) {
        doubled.payoutCommissions!++;
        problems.push(`commission ${cid} in payouts ${inPayout.get(cid)} and ${p.id}`);
      }
      inPayout.set(cid, p.id);
      const c = commissionRows.get(cid);
      if (c?.payout_id !== p.id) problems.push(`commission ${cid} listed in payout ${p.id} but points at ${c?.payout_id}`);
      if (p.status === 'ISSUED' && c?.status !== 'PAID') miscounted.push(`commission ${cid} of ISSUED payout ${p.id} is ${c?.status}`);
      sum += count(c?.paid_amount);
    }
    if (sum !== count(p.amount)) miscounted.push(`payout ${p.id}: amount ${p.amount}, its commissions and adjustments ${sum}`);
  }

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
    const commissions = await knex('commissions').where({ program_id: f.affiliate.pid, referrer_id: id, event: 'SALE' }).select('transaction_id', 'original_amount', 'amount_in_campaign_currency', 'status');
    const want = sales.reduce((s, r) => s + Math.round(count(r.commissionable_amount) / 10), 0);
    const got = commissions.reduce((s, r) => s + count(r.original_amount), 0);
    if (commissions.length !== sales.length) miscounted.push(`affiliate ${id}: ${commissions.length} sale commissions, ${sales.length} sales stored`);
    if (got !== want) miscounted.push(`affiliate ${id}: commissions total ${got}, 10 % of the sales stored ${want}`);
    // After refunds: the affiliate's commission total counts what is still owed (server/domain/affiliate/commissions.ts `counts`).
    const owed = commissions.filter((c) => ['PENDING', 'APPROVED', 'PAID'].includes(c.status)).reduce((s, c) => s + count(c.amount_in_campaign_currency), 0);
    const row = await knex('participants').where({ id }).first('commission_total');
    if (count(row?.commission_total) !== owed) miscounted.push(`affiliate ${id}: commission_total ${row?.commission_total}, commissions still owed ${owed}`);
  }

  // Webhooks: every event the database says was emitted is delivered and received; no delivery
  // id is received twice unless a SIGKILL cut the run that sent it.
  const events = await knex('webhook_events').whereIn('program_id', programs).where({ is_test: false }).select('id', 'event', 'payload');
  const addedFor = new Set<string>();
  for (const e of events) if (e.event === 'NEW_PARTICIPANT_ADDED') addedFor.add(JSON.parse(e.payload).data?.id);
  for (const id of loadParticipants) if (storedParticipants.has(id) && !addedFor.has(id)) lost.webhookEvents!++;
  const deliveries = await knex('webhook_deliveries').whereIn('program_id', programs).where({ is_test: false }).select('id', 'event_id', 'status', 'completed_at');
  const deliveredEvents = new Set(deliveries.map((d) => d.event_id));
  for (const e of events) if (!deliveredEvents.has(e.id)) lost.webhookEvents!++;
  const cutDeliveries = new Map<string, number>();
  for (const j of interrupted.values()) if (j.deliveryId) cutDeliveries.set(j.deliveryId, (cutDeliveries.get(j.deliveryId) ?? 0) + j.cuts);
  let receivedOnce = 0;
  let receivedAgainAfterKill = 0;
  for (const d of deliveries) {
    const at = received.get(d.id) ?? [];
    if (d.status !== 'SUCCEEDED' || at.length === 0) {
      lost.webhookDeliveries!++;
      if (problems.length < 40) problems.push(`delivery ${d.id}: ${d.status}, received ${at.length} time(s)`);
      continue;
    }
    if (at.length === 1) receivedOnce++;
    else if (at.length <= 1 + (cutDeliveries.get(d.id) ?? 0)) receivedAgainAfterKill++;
    else {
      doubled.webhookDeliveries!++;
      if (problems.length < 40) problems.push(`delivery ${d.id}: received ${at.length} times${cutDeliveries.has(d.id) ? ' (one run cut by a kill)' : ''}`);
    }
    // Received after the attempt that succeeded was recorded: sent again after success.
    if (at.some((t) => t > count(d.completed_at) + 1000)) {
      doubled.webhookDeliveries!++;
      if (problems.length < 40) problems.push(`delivery ${d.id}: received after it was recorded SUCCEEDED`);
    }
  }

  // Jobs: every due job ran; none ran twice unless a SIGKILL cut its run or it failed and was retried.
  const now = Date.now();
  for (const j of await knex('jobs').whereNot({ status: 'DONE' }).select('id', 'type', 'status', 'run_at', 'attempts', 'last_error')) {
    if (j.status === 'FAILED' || (j.status === 'QUEUED' && count(j.run_at) <= now) || j.status === 'RUNNING') {
      lost.jobs!++;
      if (problems.length < 40) problems.push(`job ${j.id} (${j.type}): ${j.status} after ${j.attempts} attempt(s)${j.last_error ? `: ${j.last_error}` : ''}`);
    }
  }
  for (const j of await knex('jobs').where('attempts', '>', 1).select('id', 'type', 'attempts', 'last_error')) {
    if (count(j.attempts) <= 1 + (interrupted.get(j.id)?.cuts ?? 0)) continue;
    if (j.last_error) continue;
    doubled.jobs!++;
    if (problems.length < 40) problems.push(`job ${j.id} (${j.type}) ran ${j.attempts} times with no failure recorded and ${interrupted.has(j.id) ? 'one' : 'no'} kill`);
  }

  return {
    acknowledged: {
      visits: acked.visits.length,
      participants: acked.participants.length,
      referrals: acked.referrals.length,
      delayedTriggers: acked.delayed.length,
      sales: acked.sales.length,
      refunds: acked.refunds.length,
      payouts: acked.payouts.length,
      keyedWrites: acked.keyed.filter((w) => w.first).length,
    },
    lost,
    doubled,
    miscounted,
    problems,
    delivered: { delayedTriggersRun: count((await knex('referral_triggers').where({ program_id: f.referral.pid, status: 'DONE' }).count({ n: '*' }))[0]!.n), events: events.length, deliveries: deliveries.length, receivedOnce, receivedAgainAfterKill, jobsCutByKills: interrupted.size },
    unacknowledgedStored: {
      visits: storedVisits.size - acked.visits.length + lost.visits!,
      participants: storedParticipants.size - acked.participants.length + lost.participants!,
      referrals: awarded.size - acked.referrals.length - acked.delayed.length + lost.referrals! + lost.delayedTriggers!,
      sales: [...salesByCustomer.values()].reduce((a, b) => a + b, 0) - acked.sales.length + lost.sales!,
    },
  };
}

/** True once nothing is left to run: no job due or running, no delivery pending. */
async function settled(knex: Knex, programs: string[]): Promise<boolean> {
  const now = Date.now();
  const busy = await knex('jobs')
    .where((w) => w.where({ status: 'RUNNING' }).orWhere((q) => q.where({ status: 'QUEUED' }).where('run_at', '<=', now)))
    .first('id');
  const pending = await knex('webhook_deliveries').whereIn('program_id', programs).where({ status: 'PENDING' }).first('id');
  return !busy && !pending;
}

// --- main -----------------------------------------------------------------------------------------


async function main(): Promise<void> {
  if (HOSTS > 1 && !PG_URL) throw new Error(`CHAOS_HOSTS=${HOSTS} needs PostgreSQL (DATABASE_URL=postgres://…): hosts share one database`);
  if (HOSTS > 1 && !(await redisAnswers(REDIS_URL))) throw new Error(`CHAOS_HOSTS=${HOSTS} needs Redis: nothing answers PING at ${REDIS_URL} (set CHAOS_REDIS_URL)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-chaos-'));
  const schema = PG_URL ? `chaos_${crypto.randomBytes(5).toString('hex')}` : null;
  let databaseUrl = path.join(dir, 'refloop.db');
  if (PG_URL && schema) {
    const admin = knexFactory({ client: 'pg', connection: PG_URL });
    await admin.raw(`CREATE SCHEMA "${schema}"`);
    await admin.destroy();
    databaseUrl = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  }
  const ports = await Promise.all(Array.from({ length: HOSTS }, () => freePort()));
  const receiver = await startReceiver();
  const common: Record<string, string> = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    PUBLIC_URL,
    JOBS: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
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
  if (HOSTS > 1) {
    // As separate machines would run: one database, one Redis, one SECRET_KEY, behind a balancer; WORKERS unset.
    Object.assign(common, { REDIS_URL, REDIS_PREFIX: `chaos-${tag}:`, SECRET_KEY: crypto.randomBytes(32).toString('hex'), TRUST_PROXY: 'true' });
    delete process.env.WORKERS;
  }
  const envOf = (i: number) => ({ ...common, PORT: String(ports[i]) });
  const hostBase = (i: number) => `http://127.0.0.1:${ports[i]}`;
  const servers: Array<Server | null> = ports.map(() => null);
  let proxy: LoopbackProxy | null = null;
  let knex: Knex | null = null;
  let failed = true;
  const started = Date.now();
  try {
    console.log(
      `chaos: ${SECONDS} s of load, ${KILLS} × SIGKILL, ${WORKERS} clients, ${HOSTS} host${HOSTS > 1 ? `s behind a loopback proxy (Redis ${REDIS_URL})` : ''}, ${PG_URL ? `PostgreSQL (schema ${schema})` : `SQLite (${databaseUrl})`}`,
    );
    // The first host migrates the database; the others start on the migrated one.
    servers[0] = await startServer(envOf(0), hostBase(0));
    for (let i = 1; i < HOSTS; i++) servers[i] = await startServer(envOf(i), hostBase(i));
    if (HOSTS > 1) proxy = await startLoopbackProxy(ports);
    const base = proxy ? proxy.base : hostBase(0);
    knex = PG_URL ? knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 4 } }) : knexFactory({ client: 'better-sqlite3', connection: { filename: databaseUrl }, useNullAsDefault: true });
    const db = knex;
    const fixture = await setup(base, receiver.url);
    const slice = (SECONDS * 1000) / (KILLS + 1);
    let loadOver = false;
    const loadStart = Date.now();
    const until = loadStart + SECONDS * 1000;
    const payouts = payoutRuns(base, fixture, until, Math.max(1000, slice / 2));
    const clock = fastForward(db, () => loadOver);
    const kills = (async () => {
      for (let round = 0; round < KILLS; round++) {
        await sleep(Math.max(0, loadStart + (round + 1) * slice - Date.now()));
        // Killed while the load is still arriving: requests in flight die with it.
        const victim = round % HOSTS;
        const pid = servers[victim]!.proc.pid!;
        await kill9(servers[victim]!);
        const cut = await noteInterrupted(db, pid);
        if (!PG_URL) await bringTriggersForward(db);
        console.log(
          `  round ${round + 1}: SIGKILL of host ${victim + 1} (${cut} job run(s) cut) after ${acked.visits.length} visits, ${acked.participants.length} participants, ${acked.referrals.length + acked.delayed.length} referrals, ${acked.sales.length} sales, ${acked.refunds.length} refunds, ${acked.payouts.length} payouts acknowledged; restarting`,
        );
        const t0 = Date.now();
        servers[victim] = await startServer(envOf(victim), hostBase(victim));
        console.log(`           host ${victim + 1} answers again after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      }
    })();
    await load(base, fixture, until);
    await Promise.all([kills, payouts]);
    // The last kill comes after the load, so nothing is flushed at shutdown; then a restart and the check.
    const last = KILLS % HOSTS;
    const pid = servers[last]!.proc.pid!;
    await kill9(servers[last]!);
    await noteInterrupted(db, pid);
    if (!PG_URL) await bringTriggersForward(db);
    servers[last] = await startServer(envOf(last), hostBase(last));
    // Writes still unanswered are retried now: triggers, refunds, and keyed writes with their own key
    // (a claim the dead host held in Redis answers 409 until it lapses, 15 s after the kill).
    const retryUntil = Date.now() + 25_000;
    while (Date.now() < retryUntil && (acked.pendingReferrals.length || acked.pendingDelayed.length || acked.pendingRefunds.length || acked.keyed.some((w) => !w.first && !w.mismatches.length))) {
      for (const id of acked.pendingReferrals.splice(0)) {
        const r = await call(base, 'POST', `/v2/campaign/${fixture.referral.pid}/participant/${id}/ref`, { key: fixture.key, body: {} });
        (r.status === 200 && r.body?.success ? acked.referrals : acked.pendingReferrals).push(id);
      }
      for (const id of acked.pendingDelayed.splice(0)) {
        const r = await call(base, 'POST', `/v2/campaign/${fixture.referral.pid}/participant/${id}/ref`, { key: fixture.key, body: { delayInDays: 1 } });
        (r.status === 200 && r.body?.success ? acked.delayed : acked.pendingDelayed).push(id);
      }
      for (const s of acked.pendingRefunds.splice(0)) {
        const r = await call(base, 'POST', `/v2/campaign/${fixture.affiliate.pid}/participant/${s.customerId}/transaction/refund`, { key: fixture.key, body: { orderId: s.orderId, amendmentType: 'REFUND' } });
        (r.status === 200 && r.body?.success ? acked.refunds : acked.pendingRefunds).push(s);
      }
      for (const w of acked.keyed) if (!w.first && !w.mismatches.length) await keyedCreate(base, fixture, w);
      if (acked.keyed.some((w) => !w.first && !w.mismatches.length)) await sleep(500);
    }
    // Every keyed write once more: each must be replayed with its first answer.
    for (const w of acked.keyed) if (w.first) await keyedCreate(base, fixture, w);
    for (const w of acked.keyed) if (!w.first && !w.mismatches.length) neverAnswered.push(w.idem);
    // The delayed triggers acknowledged since are due now too (on SQLite with its host stopped, then
    // started again); then every job and delivery runs out.
    if (!PG_URL && (await db('jobs').where({ type: 'referral.trigger', status: 'QUEUED' }).where('run_at', '>', Date.now()).first('id'))) {
      await stop(servers[0]!);
      await bringTriggersForward(db);
      servers[0] = await startServer(envOf(0), hostBase(0));
    }
    const settleBy = Date.now() + SETTLE_MS;
    for (;;) {
      if (PG_URL) await bringTriggersForward(db);
      if ((await settled(db, [fixture.referral.pid, fixture.affiliate.pid])) || Date.now() > settleBy) break;
      await sleep(500);
    }
    loadOver = true;
    await clock;
    let report: Report | null = null;
    // Counters derived in the background converge within a few seconds of the restart.
    const deadline = Date.now() + 30_000;
    for (;;) {
      report = await check(base, fixture, db);
      if (!report.miscounted.length || Date.now() > deadline) break;
      await sleep(500);
    }
    const lost = Object.values(report!.lost).reduce((a, b) => a + b, 0);
    const doubled = Object.values(report!.doubled).reduce((a, b) => a + b, 0);
    console.log(`\nchaos result after ${((Date.now() - started) / 1000).toFixed(0)} s (${attempts} writes attempted, ${failures} unanswered or refused${proxy ? `; proxy: ${[...proxy.forwarded.values()].join(' + ')} requests, ${proxy.badGateway()} answered 502` : ''}):`);
    console.log(`  not 200, by status    ${[...statuses].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}: ${v}`).join(', ') || 'none'}`);
    console.log(`  acknowledged          ${fmt(report!.acknowledged)}`);
    console.log(`  lost                  ${fmt(report!.lost)}`);
    console.log(`  doubled               ${fmt(report!.doubled)}`);
    console.log(`  miscounted            ${report!.miscounted.length}`);
    for (const m of report!.miscounted.slice(0, 40)) console.log(`    ${m}`);
    console.log(`  jobs and webhooks     ${fmt(report!.delivered)}`);
    console.log(`  unacknowledged stored ${fmt(report!.unacknowledgedStored)}`);
    for (const m of report!.problems.slice(0, 40)) console.log(`    ${m}`);
    failed = lost > 0 || doubled > 0 || report!.miscounted.length > 0;
    console.log(failed ? 'chaos: FAILED' : 'chaos: OK');
  } finally {
    await proxy?.close();
    await Promise.all(servers.map((s) => (s ? stop(s) : undefined)));
    await receiver.close();
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
