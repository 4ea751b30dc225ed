import os from 'node:os';
import { AFFILIATE_ONLY, CONNECTIONS, HEAVY_SECONDS, JSON_OUTPUT, MOBILE_ONLY, ONLY, PARTICIPANTS, RAISED_LIMITS, SECONDS, TRIGGER_ONLY, TRIGGERS, WARMUP_REQUESTS } from './settings.ts';
import { killAll, startRefloop, stopChild, verifiedKey } from './processes.ts';
import { CLK_TCK } from './load.ts';
import { bareRow, measure, printTable, writeJson, type Row } from './table.ts';
import { clusterRows } from './cluster-rows.ts';
import { cacheRows } from './cache-rows.ts';
import { hostsRows } from './hosts-rows.ts';
import { cliRows, durabilityRows, leaderboardRows, transactionRow, triggerRow } from './rows.ts';
import { mobileRows } from './mobile-rows.ts';
import { consoleBytesRow } from './console-bytes.ts';
import { widgetBytesRow } from './widget-bytes.ts';
import { exportRow } from './export-rows.ts';
import { importRow } from './import-rows.ts';
import { floorRatios, triggerFloorRows } from './trigger-floor.ts';
import { readRows } from './read-rows.ts';
import { pgFloorRows } from './pg-floor.ts';
import { auditRows } from './audit-rows.ts';

// `npm run bench`: throughput, latency and server CPU per request of the real server (a child
// process running `refloop serve`) against a bare Koa app, with the load generated here over
// keep-alive connections to 127.0.0.1. Node built-ins only.
//
//   BENCH_SECONDS       measured seconds per light row (default 5)
//   BENCH_HEAVY_SECONDS measured seconds of the heavy rows: trigger (h, h-normal), visits (i–k), the reads at
//                       scale (r1–r3) and the referred sign-up (s) (default 20)
//   BENCH_WARMUP_REQUESTS  requests each HTTP row sends before it is measured (default 2,000; the cluster rows warm up 1 s)
//   BENCH_CONNECTIONS   concurrent keep-alive connections (default 50)
//   BENCH_PARTICIPANTS  participants seeded in one program for the in-process leaderboard and participants-list rows and for the
//                       HTTP rows at scale: reads (r1–r3, r3 the authenticated read) and referred sign-ups (s) (default 1,000,000; 0 skips them)
//   BENCH_TRIGGERS      referred participants seeded for the trigger-referral row (default 30,000; 0 skips it)
//   BENCH_ONLY          one group of rows beside a bare-Koa row: `mobile` (b2, i0–l: the participant API, i0 the visit floor),
//                       `affiliate` (b, m: sale recording) or `trigger` (b, h: trigger referral, with h-floor: the
//                       same statements replayed by better-sqlite3 alone, see trigger-floor.ts)
//                       or `cli` (start-up CPU of each CLI command, compiled and through tsx)
//                       or `console` (u: the owner console's first-load bytes from dist/console/sizes.json)
//                       or `widget` (v: every widget entry and chunk from dist/widget/sizes.json, with the budgets)
//                       or `export` (x: the streamed participants CSV export at BENCH_PARTICIPANTS, default 100,000 when 0)
//                       or `import` (y: `refloop import growsurf` from a loopback source at its default rate limits, BENCH_PARTICIPANTS, default 100,000 when 0)
//                       or `list` (b, e–g, o: leaderboards and the participants list at BENCH_PARTICIPANTS)
//                       or `durability` (b, h-full/h-normal, m-full/m-normal: triggers and sales with SQLite's
//                       synchronous FULL, the default, against the SQLITE_SYNCHRONOUS=NORMAL opt-in, two rounds
//                       in the order FULL, NORMAL, NORMAL, FULL, in one run)
//                       or `reads` (b-r, r0–r3, s: the REST floor, ML1, P2 and P4 through HTTP, then referred sign-ups, at BENCH_PARTICIPANTS, default 100,000 when 0)
//                       or `cluster` (b, c1–c4 for each worker count: `refloop serve` with WORKERS=N on one PostgreSQL
//                       behind one port; visit, referred sign-up, trigger, authenticated read, with app CPU = primary +
//                       workers and database CPU = the backends serving it, per operation; then a per-IP limit hit
//                       from one address across the workers; needs BENCH_DATABASE_URL; see cluster-rows.ts)
//                       or `cache` (b, z: GET /v2/team and GET /v2/campaign/{id} on PostgreSQL without and with REDIS_URL,
//                       the key and program caches of issue #34; needs BENCH_DATABASE_URL and redis-server; see cache-rows.ts)
//                       or `pg-floor` (b, pf1–pf3: a referred sign-up, a trigger and an affiliate sale on one `refloop serve` host
//                       on PostgreSQL + Redis at BENCH_PARTICIPANTS, each beside its floor: the rows it wrote, written again by
//                       the pg driver alone in one round trip and as prepared statements; issue #34 goal 1; BENCH_FLOOR_OPS
//                       operations captured per kind, default 2,000; needs BENCH_DATABASE_URL and redis-server; see pg-floor.ts)
//                       or `hosts` (b, mh1–mh3: referred sign-ups, triggers and a mix with visits on one `refloop serve` host, then on two hosts
//                       sharing one PostgreSQL and one Redis behind the loopback proxy, issue #34; needs BENCH_DATABASE_URL
//                       and redis-server; see hosts-rows.ts)
//                       or `audit` (au1, au2: a trigger and an affiliate sale over HTTP with the audit trail, and with
//                       `deps.audit.append` a no-op in the bench's own server process, bench/audit-server.ts; runs
//                       on, off, off, on on fresh databases, prints both and their ratio; SQLite, or PostgreSQL with
//                       BENCH_DATABASE_URL, whose database CPU is measured too; BENCH_TRIGGERS referrals seeded; see audit-rows.ts)
//   BENCH_CLUSTER_WORKERS  the worker counts of BENCH_ONLY=cluster (default 1,2,4)
//   BENCH_MOBILE_ONLY=1 / BENCH_AFFILIATE_ONLY=1  the same as BENCH_ONLY=mobile / affiliate
//   BENCH_CPU_PROF      a directory: each server process writes a V8 CPU profile (.cpuprofile) there when it stops
//   BENCH_PORT_BASE     the first port the bench's servers listen on (then the next free ones), so two benches do not collide
//   BENCH_DATABASE_URL  postgres://… the PostgreSQL the bench makes fresh schemas on: adds row (k), visit ingestion on
//                       PostgreSQL, and is what BENCH_ONLY=cluster uses; every other row uses SQLite. A postgres://
//                       DATABASE_URL is taken when BENCH_DATABASE_URL is unset
//   --json              (npm run bench -- --json) the table's rows as one JSON document on stdout; everything else on stderr
//
// The entry: main() below. The settings are read in settings.ts; servers in processes.ts, the load
// generator in load.ts, measuring and the table in table.ts, the rows in rows.ts and mobile-rows.ts.

// --- main ---------------------------------------------------------------------------------------

async function main(): Promise<void> {
  // --json: stdout carries the JSON document alone, so every line meant for a person goes to stderr.
  if (JSON_OUTPUT) console.log = console.error;
  console.log(
    `refloop bench: ${SECONDS} s per row, ${HEAVY_SECONDS} s per heavy row (sign-up, trigger, visits, reads at scale), each after ${WARMUP_REQUESTS.toLocaleString('en')} warm-up requests, ${CONNECTIONS} keep-alive connections, load generated from this process`,
  );
  console.log(`machine: ${os.cpus().length} CPU(s), ${os.cpus()[0]?.model ?? 'unknown'}, Node ${process.version}, CLK_TCK ${CLK_TCK}; the load generator shares these CPUs with the server`);
  console.log(
    'NOTE: row (a) runs with the rate limits raised through configuration ' +
      '(RATE_LIMIT_SECOND/MINUTE/HOUR=1e9, RATE_LIMIT_IP_PER_MINUTE=1e9, CONCURRENCY_PER_IP=1e6), ' +
      'so it measures the full request path (limiter still charged in the database) instead of 429s. Row (c) keeps the default team limits.',
  );
  const rows: Row[] = [];
  if (ONLY === 'cluster') {
    const cluster = await clusterRows();
    printTable(cluster.rows, cluster.bare.reqPerSec);
    console.log(`\nshared limits:\n  ${cluster.limits.join('\n  ')}`);
    console.log('This machine has ' + os.cpus().length + ' CPUs shared by the load generator, every worker and PostgreSQL: the rows show the cost per operation and that N workers serve correctly, not how throughput scales with N.');
    return;
  }
  if (ONLY === 'hosts') {
    const hosts = await hostsRows();
    printTable(hosts.rows, hosts.bare.reqPerSec);
    return;
  }
  if (ONLY === 'pg-floor') {
    const floor = await pgFloorRows();
    printTable(floor.rows, floor.bare.reqPerSec);
    console.log(`\nreal ÷ floor (ratios within this run):\n${floor.lines.join('\n')}`);
    return;
  }
  if (ONLY === 'audit') {
    const audit = await auditRows();
    printTable(audit.rows, NaN);
    console.log(`\nthe audit trail's cost (ratios within this run; issue #35's bound is 1.10):\n${audit.lines.join('\n')}`);
    return;
  }
  if (ONLY === 'cache') {
    const cache = await cacheRows();
    printTable(cache.rows, cache.bare.reqPerSec);
    return;
  }
  if (ONLY === 'cli') {
    cliRows();
    return;
  }
  if (ONLY === 'console') {
    await consoleBytesRow();
    return;
  }
  if (ONLY === 'widget') {
    await widgetBytesRow();
    return;
  }
  if (ONLY === 'export') {
    await exportRow();
    return;
  }
  if (ONLY === 'import') {
    await importRow();
    return;
  }
  if (ONLY === 'list') {
    const rowBare = await bareRow();
    console.log(`\n(e)–(g), (o) leaderboards and the participants list with ${PARTICIPANTS.toLocaleString('en')} participants in one program, in process, SQLite`);
    printTable([rowBare, ...(await leaderboardRows())], rowBare.reqPerSec);
    return;
  }
  if (ONLY === 'reads') {
    const reads = await readRows();
    printTable(reads.rows, reads.bare.reqPerSec);
    return;
  }
  if (ONLY === 'durability') {
    const rowBare = await bareRow();
    printTable([rowBare, ...(await durabilityRows({ rounds: 2 }))], rowBare.reqPerSec);
    return;
  }
  if (TRIGGER_ONLY) {
    const rowBare = await bareRow();
    const real = await triggerRow();
    const floor = await triggerFloorRows();
    printTable([rowBare, real, ...floor], rowBare.reqPerSec);
    console.log(floorRatios(real, floor));
    return;
  }
  if (AFFILIATE_ONLY) {
    const rowBare = await bareRow();
    printTable([rowBare, await transactionRow()], rowBare.reqPerSec);
    return;
  }
  if (MOBILE_ONLY) {
    const mobile = await mobileRows();
    printTable(mobile.rows, mobile.bare.reqPerSec);
    return;
  }

  console.log('\n(a) GET /v2/team on `refloop serve`, SQLite, limits raised');
  const a = await startRefloop('refloop (limits raised)', { ...RAISED_LIMITS });
  const keyA = await verifiedKey(a);
  const rowA = await measure('(a) GET /v2/team, limits raised', a, '/v2/team', { authorization: `Bearer ${keyA}` });
  const non200 = [...rowA.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
  rowA.note = `SQLite, in-memory limiter store (the SQLite default)${non200 || rowA.errors ? `; ${non200} non-200, ${rowA.errors} errors` : '; all 200'}`;
  rows.push(rowA);
  await stopChild(a.child);

  const rowB = await bareRow();
  rows.push(rowB);

  console.log('\n(c) GET /v2/team on `refloop serve`, SQLite, default team limits');
  const c = await startRefloop('refloop (default limits)', {
    RATE_LIMIT_IP_PER_MINUTE: RAISED_LIMITS.RATE_LIMIT_IP_PER_MINUTE,
    CONCURRENCY_PER_IP: RAISED_LIMITS.CONCURRENCY_PER_IP,
  });
  // The warm-up uses a second team, so the measured team starts with its whole budget.
  const keyC = await verifiedKey(c);
  const warmC = await verifiedKey(c, 'bench-warmup@acme-widgets.com');
  const rowC = await measure('(c) GET /v2/team, default limits', c, '/v2/team', { authorization: `Bearer ${keyC}` }, { authorization: `Bearer ${warmC}` });
  const ok = rowC.statuses.get(200) ?? 0;
  const limited = rowC.statuses.get(429) ?? 0;
  const other = [...rowC.statuses].filter(([s]) => s !== 200 && s !== 429).reduce((n, [, cnt]) => n + cnt, 0);
  rowC.note = `default team limits, default store: ${ok} × 200, ${limited} × 429${other ? `, ${other} other` : ''}${rowC.errors ? `, ${rowC.errors} errors` : ''}; req/s counts all responses`;
  rows.push(rowC);
  await stopChild(c.child);

  console.log('\n(d) GET /v2/team on `refloop serve`, SQLite, limits raised, database limiter store');
  const d = await startRefloop('refloop (database limiter store)', { RATE_LIMIT_STORE: 'database', ...RAISED_LIMITS });
  const keyD = await verifiedKey(d);
  const rowD = await measure('(d) GET /v2/team, database limiter', d, '/v2/team', { authorization: `Bearer ${keyD}` });
  rowD.note = 'RATE_LIMIT_STORE=database on SQLite (what several processes sharing one file need): four counter writes per request';
  rows.push(rowD);
  await stopChild(d.child);

  if (PARTICIPANTS > 0) {
    console.log(`\n(e)–(g), (o) leaderboards and the participants list with ${PARTICIPANTS.toLocaleString('en')} participants in one program, in process, SQLite`);
    rows.push(...(await leaderboardRows()));
    // (r0)–(r3): reads through HTTP on `refloop serve` at the same scale, beside bare Koa measured the same way.
    rows.push(...(await readRows()).rows);
  }

  // (h), (m) with the default synchronous FULL, each followed by the same row with the NORMAL opt-in.
  rows.push(...(await durabilityRows({ plainLabels: true })));
  // (h-floor) beside (h): the same statements replayed by better-sqlite3 alone (trigger-floor.ts).
  const rowH = rows.find((r) => r.label.startsWith('(h) '));
  let floorLine = '';
  if (rowH) {
    const floor = await triggerFloorRows();
    rows.push(...floor);
    floorLine = floorRatios(rowH, floor);
  }

  const mobile = await mobileRows();
  rows.push(...mobile.rows);
  const visits = mobile.rows.find((r) => r.label.startsWith('(i) '));
  if (visits) console.log(`  visits vs row b: ${(visits.reqPerSec / rowB.reqPerSec).toFixed(2)} × bare Koa req/s`);

  printTable(rows, rowB.reqPerSec);
  if (floorLine) console.log(floorLine);
  cliRows();
  await consoleBytesRow();
  await widgetBytesRow();
  await exportRow();
}

main().then(
  () => {
    writeJson();
    killAll();
    process.exit(0);
  },
  (err: unknown) => {
    console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    killAll();
    process.exit(1);
  },
);
