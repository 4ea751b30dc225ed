// The trigger-referral path (bench row h) without HTTP, for finding where its time goes:
//   node --import tsx bench/trigger-profile.ts
// Env: N triggers (default 3,000), CONC concurrent callers (default 50), SEED participants seeded
// (default N / 0.9 + 10), STMT=1 to time every SQLite statement (µs per trigger by SQL text),
// PROF=<dir> to write a V8 CPU profile of the measured triggers only (read it with bench/cpuprofile.mjs).
// Prints CPU per trigger and triggers/s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import inspector from 'node:inspector/promises';
import Database from 'better-sqlite3';
import { loadConfig } from '../server/config.ts';
import { createDeps } from '../server/deps.ts';
import { seedParticipants } from '../scripts/seed.ts';

const N = Number(process.env.N ?? 3000);
const CONC = Number(process.env.CONC ?? 50);
const SEED = Number(process.env.SEED ?? Math.ceil(N / 0.9) + 10);
const STMT = process.env.STMT === '1';
const PROF = process.env.PROF;

const stmtUs = new Map<string, { us: number; n: number }>();
if (STMT) {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  probe.close();
  for (const m of ['run', 'get', 'all', 'iterate']) {
    const orig = proto[m]!;
    proto[m] = function (this: { source: string }, ...args: unknown[]) {
      const t0 = process.hrtime.bigint();
      try {
        return orig.apply(this, args);
      } finally {
        const us = Number(process.hrtime.bigint() - t0) / 1000;
        const key = this.source.replace(/\s+/g, ' ').slice(0, 140);
        const e = stmtUs.get(key) ?? { us: 0, n: 0 };
        e.us += us;
        e.n++;
        stmtUs.set(key, e);
      }
    };
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-trigger-'));
const deps = await createDeps(loadConfig({ DATABASE_URL: path.join(dir, 'refloop.db'), DATA_DIR: dir, LOG_LEVEL: 'silent', JOBS: 'false', WEBHOOK_ALLOW_PRIVATE: 'true' }));
try {
  await deps.accounts.create({ email: 'bench-trigger@acme-widgets.com', company: 'Bench Co' }, '127.0.0.1');
  const { team_id: teamId } = await deps.db.knex('memberships').first('team_id');
  await deps.db.knex('teams').where({ id: teamId }).update({ verification_status: 'VERIFIED' });
  const billing = { plan: 'UNLIMITED', hasPaymentMethod: true, trialEndsAt: null };
  const created = await deps.programs.create(teamId, billing, { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Give $10, get $10' }] } as never);
  let program = await deps.programs.forRequest(teamId, created.id, billing);
  // Experiments: NOHOOK=1 leaves the webhook out, NOEMAIL=1 switches off the two templates a trigger sends.
  if (process.env.NOHOOK !== '1') await deps.webhooks.create(program, { payloadUrl: 'https://127.0.0.1:9/hook', events: ['PARTICIPANT_REACHED_A_GOAL'] } as never);
  if (process.env.NOEMAIL === '1') await deps.programConfig.update(program, 'emails', { referralLinkUsed: { isEnabled: false }, goalAchieved: { isEnabled: false } } as never);
  program = await deps.programs.forRequest(teamId, created.id, billing);
  await seedParticipants(deps.db, { programId: program.id, count: SEED, now: Date.now(), referredShare: 0.95, pendingShare: 1, seed: 2 });
  const ids: string[] = await deps.db.knex('participants').where({ program_id: program.id, referral_status: 'CREDIT_PENDING' }).orderByRaw('random()').limit(N).pluck('id');
  const warm = ids.splice(0, Math.min(200, Math.floor(ids.length / 10)));
  for (const id of warm) await deps.referralTriggers.trigger(program, id, undefined);
  stmtUs.clear();
  // TIME=1: inclusive wall time of the main steps (group commit runs callers one after another, so
  // an awaited step's wall time is its CPU time plus SQLite's).
  const timed = new Map<string, number>();
  if (process.env.TIME === '1') {
    const d = deps as unknown as Record<string, Record<string, unknown>>;
    const wrap = (label: string, obj: Record<string, unknown>, name: string) => {
      const orig = obj[name] as (...a: unknown[]) => unknown;
      if (typeof orig !== 'function') throw new Error(`no method ${label}`);
      obj[name] = function (this: unknown, ...args: unknown[]) {
        const t0 = performance.now();
        const out = orig.apply(this, args);
        const done = () => timed.set(label, (timed.get(label) ?? 0) + performance.now() - t0);
        if (out instanceof Promise) out.then(done, done);
        else done();
        return out;
      };
    };
    const issuer = (d.rewards as unknown as { issuer: Record<string, unknown> }).issuer;
    for (const [label, obj, name] of [
      ['setReferralStatus', d.participants, 'setReferralStatus'],
      ['issue', issuer, 'issue'],
      ['announce', issuer, 'announce'],
      ['forEvents', d.participants, 'forEvents'],
      ['toCampaign', d.programs, 'toCampaign'],
      ['emitMany', d.webhooks, 'emitMany'],
      ['sendProgramEmail', d.programEmails, 'sendProgramEmail'],
      ['compose', d.programEmails, 'compose'],
      ['mailer.send', d.mailer, 'send'],
      ['activity.record', d.activity, 'record'],
    ] as const) wrap(label, obj as Record<string, unknown>, name);
  }
  const session = PROF ? new inspector.Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      while (next < ids.length) {
        const r = await deps.referralTriggers.trigger(program, ids[next++]!, undefined);
        if (!r.success) throw new Error(`trigger failed: ${JSON.stringify(r)}`);
      }
    }),
  );
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(PROF!, { recursive: true });
    const file = path.join(PROF!, `trigger-${Date.now()}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    console.log(`profile: ${file}`);
    session.disconnect();
  }
  const n = ids.length;
  console.log(`${n} triggers in ${ms.toFixed(0)} ms → ${((n * 1000) / ms).toFixed(0)}/s; CPU ${((cpu.user + cpu.system) / n).toFixed(0)} µs per trigger (user ${(cpu.user / n).toFixed(0)}, system ${(cpu.system / n).toFixed(0)})`);
  if (timed.size) console.log([...timed].map(([k, v]) => `${k} ${((v * 1000) / n).toFixed(0)} µs`).join(', '));
  if ((globalThis as any).__T) console.log(Object.entries((globalThis as any).__T).map(([k, v]) => `${k} ${((v as number) * 1000 / n).toFixed(0)} µs`).join(', '));
  const size = async (sql: string) => Math.round(Number((await deps.db.knex.raw(sql))[0]?.n ?? 0));
  console.log(
    `stored per trigger: webhook payload ${await size('SELECT avg(length(payload)) AS n FROM webhook_events')} B × 2, ` +
      `email ${await size('SELECT avg(length(html) + length(text)) AS n FROM mail_outbox')} B × ${(Number((await deps.db.knex('mail_outbox').count({ n: '*' }))[0]!.n) / (n + warm.length)).toFixed(1)}`,
  );
  if (process.env.SHAPE === '1') {
    // Mean bytes of each part of the last 200 payloads (`data.x`, and `participant.x` one level down), largest first.
    const rows: Array<{ payload: string }> = await deps.db.knex('webhook_events').orderBy('created_at', 'desc').limit(200).select('payload');
    const bytes = new Map<string, number>();
    const add = (k: string, v: unknown) => bytes.set(k, (bytes.get(k) ?? 0) + JSON.stringify(v ?? null).length / rows.length);
    for (const { payload } of rows) {
      const d = JSON.parse(payload).data as Record<string, unknown>;
      for (const [k, v] of Object.entries(d)) add(k, v);
      for (const [k, v] of Object.entries((d.participant ?? {}) as Record<string, unknown>)) add(`participant.${k}`, v);
    }
    console.log(`payload parts: ${[...bytes].sort((x, y) => y[1] - x[1]).slice(0, 12).map(([k, v]) => `${k} ${v.toFixed(0)} B`).join(', ')}`);
  }
  if (STMT) {
    const rows = [...stmtUs].sort((a, b) => b[1].us - a[1].us);
    const total = rows.reduce((s, [, v]) => s + v.us, 0);
    console.log(`SQLite statements: ${(total / n).toFixed(0)} µs per trigger`);
    for (const [sql, v] of rows.slice(0, 30)) console.log(`${(v.us / n).toFixed(1).padStart(7)} µs  ${(v.n / n).toFixed(2).padStart(5)}×  ${sql}`);
  }
} finally {
  await deps.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
