// Rows (e)–(h), (m), (n) and (o): leaderboards and the participants list at scale in process, trigger referral and affiliate sale
// recording on `refloop serve`, and CLI start-up CPU.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, HEAVY_SECONDS, IN_PROCESS_CALLS, PARTICIPANTS, ROOT, SECONDS, TRIGGERS, WARMUP_REQUESTS } from './settings.ts';
import { baseEnv, call, startRefloop, stopChild, tempDirs, WRITE_ROW_LIMITS, triggerProgram, verifiedKey, withServerDb } from './processes.ts';
import { cpuTicks, loadOnce, loadPosts, warmUp, type LoadResult } from './load.ts';
import { measureCalls, rowOf, type Row } from './table.ts';
import { participantListRows } from './participant-list-rows.ts';

// --- in process: leaderboards at scale ----------------------------------------------------------

/**
 * Rows (e)–(g) and (o): one program with PARTICIPANTS participants on a temp SQLite file, seeded through
 * scripts/seed.ts (the bulk path: rows, histograms and counters as the API keeps them), then the
 * domain calls timed in this process with nothing else running.
 */
export async function leaderboardRows(): Promise<Row[]> {
  const { loadConfig } = await import('../server/config.ts');
  const { createDeps } = await import('../server/deps.ts');
  const { seedParticipants } = await import('../scripts/seed.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-bench-lb-'));
  tempDirs.push(dir);
  // Only these settings: nothing inherited from the environment.
  const deps = await createDeps(loadConfig({ DATABASE_URL: path.join(dir, 'refloop.db'), DATA_DIR: dir, LOG_LEVEL: 'silent', JOBS: 'false' }));
  try {
    await deps.accounts.create({ email: 'bench-leaderboard@acme-widgets.com', company: 'Bench Co' }, '127.0.0.1');
    const { team_id: teamId } = await deps.db.knex('memberships').first('team_id');
    const billing = { plan: 'UNLIMITED', hasPaymentMethod: true, trialEndsAt: null };
    const created = await deps.programs.create(teamId, billing, { type: 'REFERRAL' });
    const program = await deps.programs.forRequest(teamId, created.id, billing);
    let shown = 0;
    const seeded = await seedParticipants(deps.db, {
      programId: program.id,
      count: PARTICIPANTS,
      now: Date.now(),
      seed: 1,
      onProgress: (done) => {
        if (done - shown >= 250_000 || done === PARTICIPANTS) console.log(`  seeded ${done.toLocaleString('en')}`);
        shown = done;
      },
    });
    const seedNote = `${PARTICIPANTS.toLocaleString('en')} participants (${seeded.credited.toLocaleString('en')} credited referrals) seeded in ${(seeded.ms / 1000).toFixed(1)} s`;
    console.log(`  ${seedNote}`);
    const sample: string[] = (await deps.db.knex.raw('SELECT id FROM participants ORDER BY random() LIMIT ?', [IN_PROCESS_CALLS])).map((r: { id: string }) => r.id);
    const lb = deps.participants.leaderboard;
    const top = await measureCalls('(e) engine: leaderboard top 50, domain call', () => lb.ranked(deps.db.knex, program.id, 'ALL_TIME', Date.now(), 50));
    top.note = `ALL_TIME ids, scores and ranks, in process, SQLite: the engine under the HTTP rows (r1)–(r3); ${seedNote}`;
    const rank = await measureCalls('(f) engine: rank of one participant, domain call', (i) => lb.rankOfParticipant(program.id, sample[i % sample.length]!, 'ALL_TIME', Date.now()));
    rank.note = 'a random participant each call (most score 0: the longest histogram sum), in process';
    const page = await measureCalls('(g) engine: leaderboard page of 50, domain call', () => deps.participants.leaderboardPage(program, { leaderboardType: 'ALL_TIME', limit: 50, nextId: undefined }));
    page.note = 'the P2 response body before JSON: each participant with referrer, 100-id referral lists and three ranks';
    return [top, rank, page, ...(await participantListRows(deps, program, seedNote))];
  } finally {
    await deps.close();
  }
}

// --- trigger referral: rewards issued and webhooks queued -----------------------------------------

/** A load run's answers for a row's note: "N × 200", then other statuses and errors when there were any. */
function answers(r: LoadResult): string {
  const ok = r.statuses.get(200) ?? 0;
  const other = [...r.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
  return `${ok} × 200${other ? `, ${other} other` : ''}${r.errors ? `, ${r.errors} errors` : ''}`;
}

/** A row run again with other server settings (the durability rows): its label, extra environment and a note after "SQLite". */
export interface RowVariant {
  label?: string;
  env?: Record<string, string>;
  note?: string;
}

/**
 * Row (h): `POST /v2/campaign/{id}/participant/{p}/ref` on `refloop serve` (SQLite, limits raised),
 * each request crediting a different referred participant of one program with a DOUBLE_SIDED reward
 * and one webhook subscribed to PARTICIPANT_REACHED_A_GOAL: every trigger moves the referral, the
 * referrer's counts and ranks, issues two rewards and queues two webhook deliveries. The program is
 * set up over the API; its participants are seeded through scripts/seed.ts into the server's file
 * (every referral CREDIT_PENDING, referrers by preferential attachment); the stored rows are counted
 * afterwards to show the work was done.
 */
export async function triggerRow(variant: RowVariant = {}): Promise<Row> {
  const label = variant.label ?? '(h) trigger referral, DOUBLE_SIDED + 1 webhook';
  console.log(`\n${label}: POST …/participant/{p}/ref on \`refloop serve\`, SQLite, limits raised: trigger-referral throughput`);
  const t = await startRefloop('refloop (trigger referral)', { ...WRITE_ROW_LIMITS, ...variant.env });
  const { key, programId, seeded, paths } = await triggerProgram(t, TRIGGERS);
  console.log(`  seeded ${seeded.participants.toLocaleString('en')} participants (${seeded.referrals.toLocaleString('en')} pending referrals) in ${(seeded.ms / 1000).toFixed(1)} s; triggering ${paths.length.toLocaleString('en')} of them in random order`);
  const headers = { authorization: `Bearer ${key}` };
  // The warm-up: BENCH_WARMUP_REQUESTS triggers (at most a tenth of those prepared), then BENCH_HEAVY_SECONDS measured.
  const warmCount = Math.min(WARMUP_REQUESTS, Math.floor(paths.length / 10));
  const json = { ...headers, 'content-type': 'application/json' };
  const warm = await warmUp((i) => ({ url: t.base + paths[i]!, method: 'POST', headers: json, body: '{}' }), warmCount);
  const rest = paths.slice(warm.completed + warm.errors);
  const pid = t.child.pid!;
  const before = cpuTicks(pid);
  const r = await loadOnce(t.base, rest, headers, HEAVY_SECONDS * 1000);
  const after = cpuTicks(pid);
  await stopChild(t.child);
  const row = rowOf(label, r, after - before);
  await withServerDb(t, async (db) => {
    const count = async (table: string, where: Record<string, unknown>) => Number((await db(table).where(where).count({ n: '*' }).first())?.n ?? 0);
    const credited = await count('participants', { program_id: programId, referral_status: 'CREDIT_AWARDED' });
    const rewards = await count('participant_rewards', { program_id: programId });
    const deliveries = await count('webhook_deliveries', { program_id: programId });
    const ranOut = r.completed + r.errors >= rest.length ? '; ran out of prepared participants before the time was up' : '';
    row.note =
      `SQLite${variant.note ?? ''}, limits raised; ${answers(r)} in ${r.seconds.toFixed(2)} s${ranOut}; ` +
      `afterwards (warm-up included) ${credited.toLocaleString('en')} referrals credited, ${rewards.toLocaleString('en')} rewards issued, ${deliveries.toLocaleString('en')} webhook deliveries queued`;
  });
  console.log(`  ${row.label}: ${r.completed} responses → ${row.reqPerSec.toFixed(0)} triggers/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, server CPU ${row.cpuUsPerReq.toFixed(0)} µs/req`);
  console.log(`  ${row.note}`);
  return row;
}

// --- affiliate money: recording sales -----------------------------------------------------------

/**
 * Row (m): `POST /v2/campaign/{id}/participant/{p}/transaction` on `refloop serve` (SQLite, limits
 * raised): every request records a new sale (fresh orderId) of one of 100 customers referred by 10
 * affiliates, under a 10 % commission structure with one webhook subscribed to NEW_COMMISSION_ADDED:
 * the sale, its identifier, one commission, the affiliate's totals and board scores, and one queued
 * webhook delivery, in one transaction. Stored rows are counted afterwards to show the work was done.
 */
export async function transactionRow(variant: RowVariant = {}): Promise<Row> {
  const label = variant.label ?? '(m) record affiliate transaction, 10 % commission + 1 webhook';
  console.log(`\n${label}: POST …/participant/{p}/transaction on \`refloop serve\`, SQLite, limits raised: sale recording throughput`);
  const t = await startRefloop('refloop (record transaction)', { ...WRITE_ROW_LIMITS, ...variant.env });
  const key = await verifiedKey(t, 'bench-affiliate@acme-widgets.com');
  const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'AFFILIATE' });
  await call(t, 'PATCH', `/v2/campaign/${program.id}/reward-configs/${program.rewards[0].id}`, key, { commissionStructure: { type: 'PERCENT', percent: 10, event: 'SALE', duration: 'FOREVER', holdDuration: 0 } });
  await call(t, 'POST', `/v2/campaign/${program.id}/webhooks`, key, { payloadUrl: 'https://127.0.0.1:9/hook', events: ['NEW_COMMISSION_ADDED'] });
  const customers: string[] = [];
  for (let a = 0; a < 10; a++) {
    const affiliate = await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: `affiliate-${a}@example.com` });
    for (let c = 0; c < 10; c++) customers.push((await call(t, 'POST', `/v2/campaign/${program.id}/participant`, key, { email: `customer-${a}-${c}@example.com`, referredBy: affiliate.id })).id);
  }
  const headers = { authorization: `Bearer ${key}` };
  const make = (prefix: string) => (i: number) => ({
    pathname: `/v2/campaign/${program.id}/participant/${customers[i % customers.length]}/transaction`,
    body: JSON.stringify({ currency: 'USD', grossAmount: 1000 + (i % 9000), orderId: `${prefix}-${i}` }),
  });
  const warm = make('warm');
  await warmUp((i) => {
    const { pathname, body } = warm(i);
    return { url: t.base + pathname, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body };
  });
  const pid = t.child.pid!;
  const before = cpuTicks(pid);
  const r = await loadPosts(t.base, make('run'), headers, SECONDS * 1000);
  const after = cpuTicks(pid);
  await stopChild(t.child);
  const row = rowOf(label, r, after - before);
  await withServerDb(t, async (db) => {
    const count = async (table: string) => Number((await db(table).where({ program_id: program.id }).count({ n: '*' }).first())?.n ?? 0);
    row.note =
      `SQLite${variant.note ?? ''}, limits raised; ${answers(r)}; afterwards (warm-up included) ` +
      `${(await count('affiliate_transactions')).toLocaleString('en')} sales, ${(await count('commissions')).toLocaleString('en')} commissions, ${(await count('webhook_deliveries')).toLocaleString('en')} webhook deliveries queued`;
  });
  console.log(`  ${row.label}: ${r.completed} responses → ${row.reqPerSec.toFixed(0)} sales/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, server CPU ${row.cpuUsPerReq.toFixed(0)} µs/req`);
  console.log(`  ${row.note}`);
  return row;
}

// --- CLI start-up (issue #21) --------------------------------------------------------------------

/** CLI calls measured by `cliRows`, each as a person types it. */
const CLI_COMMANDS = [[], ['--help'], ['keys', 'create', '--help'], ['migrate'], ['team', 'list'], ['mail', 'list']];
const CLI_RUNS = 5;

/** User + system CPU (ms) and wall time of one call: dash's `times` reports its waited-for children. */
function cliCall(argv: string[], env: NodeJS.ProcessEnv): { cpuMs: number; wallMs: number } {
  const quoted = argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  const started = performance.now();
  const out = execFileSync('/bin/sh', ['-c', `${quoted} >/dev/null 2>&1; times`], { cwd: ROOT, env, encoding: 'utf8' });
  const wallMs = performance.now() - started;
  const children = out.trim().split('\n').at(-1)!.match(/(\d+)m([\d.]+)s/g)!;
  const cpuMs = children.map((t) => { const [, m, sec] = /(\d+)m([\d.]+)s/.exec(t)!; return (Number(m) * 60 + Number(sec)) * 1000; }).reduce((a, b) => a + b, 0);
  return { cpuMs, wallMs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Start-up CPU per CLI command: the compiled bundle bin/refloop.js runs, and the sources through tsx. */
export function cliRows(): void {
  console.log(`\n(n) CLI start-up: median of ${CLI_RUNS} calls per command on a fresh SQLite file, CPU = user + system of the process`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-bench-cli-'));
  tempDirs.push(dir);
  const env = { ...baseEnv(), DATA_DIR: dir };
  // The sources through tsx, as bin/refloop.js runs them when no build can be made.
  const tsx = `import('tsx/esm/api').then(({ register }) => { register(); return import('./server/cli.ts'); }).then(async (m) => { process.exitCode = await m.main(process.argv.slice(1)); })`;
  cliCall([process.execPath, BIN, 'migrate'], env); // builds the bundle if stale and creates the database
  console.log('\n| Command | compiled: CPU ms | compiled: wall ms | sources through tsx: CPU ms |');
  console.log('|---|---:|---:|---:|');
  for (const argv of CLI_COMMANDS) {
    const compiled = Array.from({ length: CLI_RUNS }, () => cliCall([process.execPath, BIN, ...argv], env));
    const viaTsx = Array.from({ length: CLI_RUNS }, () => cliCall([process.execPath, '-e', tsx, '--', ...argv], env));
    const name = `\`refloop${argv.length ? ' ' + argv.join(' ') : ''}\``;
    console.log(`| ${name} | ${median(compiled.map((r) => r.cpuMs)).toFixed(0)} | ${median(compiled.map((r) => r.wallMs)).toFixed(0)} | ${median(viaTsx.map((r) => r.cpuMs)).toFixed(0)} |`);
  }
}

// --- durability: synchronous FULL (the default) against the NORMAL opt-in (issue #26 goal 5) -------

/**
 * Rows (h-full), (h-normal), (m-full), (m-normal): the trigger and sale rows with SQLite's
 * `synchronous` FULL (the default: every COMMIT syncs the WAL, so an acknowledged write survives a
 * power cut) and with SQLITE_SYNCHRONOUS=NORMAL (the opt-in: the sync waits for a checkpoint),
 * alternated in one run so the machine's load drifts across both. Triggers go through the group
 * commit (one sync per shared transaction); a sale is a transaction of its own (one sync each).
 * The database files are in the OS temp directory: the sync costs what that disk charges.
 */
export async function durabilityRows(opts: { plainLabels?: boolean; rounds?: number } = {}): Promise<Row[]> {
  // In the full run the FULL rows are rows (h) and (m) themselves, under their usual labels.
  const full = (label: string): RowVariant => ({ label: opts.plainLabels ? undefined : label, env: { SQLITE_SYNCHRONOUS: 'FULL' }, note: ' synchronous FULL (default)' });
  const normal = (label: string): RowVariant => ({ label, env: { SQLITE_SYNCHRONOUS: 'NORMAL' }, note: ' synchronous NORMAL (opt-in)' });
  const rows: Row[] = [];
  const pairs: Array<{ what: string; full: Row[]; normal: Row[] }> = [];
  const pair = async (what: string, run: (v: RowVariant) => Promise<Row>, fullLabel: string, normalLabel: string) => {
    const p = { what, full: [] as Row[], normal: [] as Row[] };
    // Rounds alternate FULL, NORMAL, then NORMAL, FULL (ABBA), so a drift in the machine's load falls on both.
    for (let i = 0; i < (opts.rounds ?? 1); i++) {
      const suffix = (opts.rounds ?? 1) > 1 ? ` #${i + 1}` : '';
      const order = i % 2 ? (['normal', 'full'] as const) : (['full', 'normal'] as const);
      for (const which of order) {
        const row = await run(which === 'full' ? full(fullLabel + suffix) : normal(normalLabel + suffix));
        p[which].push(row);
        rows.push(row);
      }
    }
    pairs.push(p);
  };
  if (TRIGGERS > 0) await pair('triggers (group commit)', triggerRow, '(h-full) trigger referral, synchronous FULL', '(h-normal) trigger referral, synchronous NORMAL');
  await pair('sales (group commit)', transactionRow, '(m-full) record affiliate transaction, synchronous FULL', '(m-normal) record affiliate transaction, synchronous NORMAL');
  const sum = (rs: Row[], f: (r: Row) => number) => rs.reduce((a, r) => a + f(r), 0);
  for (const p of pairs) {
    const tput = sum(p.full, (r) => r.reqPerSec) / sum(p.normal, (r) => r.reqPerSec);
    const cpu = sum(p.full, (r) => r.cpuUsPerReq) / sum(p.normal, (r) => r.cpuUsPerReq);
    const p99 = sum(p.full, (r) => r.p99) / sum(p.normal, (r) => r.p99);
    console.log(`  ${p.what}: FULL/NORMAL throughput ${tput.toFixed(2)}×, server CPU per request ${cpu.toFixed(2)}×, p99 ${p99.toFixed(2)}× (${p.full.length} row(s) each, ratios within this run)`);
  }
  return rows;
}
