// Row (h-floor), issue #26 goal 4: what SQLite alone charges for the statements of a referral
// trigger, beside row (h), the real trigger over HTTP.
//
// A `refloop serve` child set up like row (h) (DOUBLE_SIDED reward, one webhook, seeded pending
// referrals) runs with bench/trigger-capture.mjs preloaded. After a warm-up the bench copies the
// database (SQLite's online backup: the same pages), then captures every statement the server runs
// on its database, in order, with its bound values, while BENCH_FLOOR_TRIGGERS triggers arrive
// over 50 connections (so the group commit batches them as in row h). The floor replays that log
// with better-sqlite3 alone on the copy, with the server's pragmas and each SQL text prepared once:
// the same rows written in the same transactions and savepoints, reads included, and nothing else
// (no HTTP, no knex, no JSON built), twice on copies of their own (the cheaper counts). Another
// copy replays it statement by statement with a timer (where the floor's time goes). (The program's
// counters live on their own narrow row since migration 034, so the floor writes them there too.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import Database from 'better-sqlite3';
import { FLOOR_TRIGGERS, ROOT } from './settings.ts';
import { startRefloop, stopChild, WRITE_ROW_LIMITS, triggerProgram } from './processes.ts';
import { loadOnce } from './load.ts';
import type { Row } from './table.ts';

/** Triggers run before the captured ones (FLOOR_TRIGGERS, settings.ts). */
const WARMUP_TRIGGERS = 300;

type Entry = [method: 'run' | 'get' | 'all' | 'iterate' | 'exec', sql: string, args: unknown[]];

/** The server's connection pragmas (server/db/sqlite.ts), with its SQLITE_SYNCHRONOUS when set. */
async function serverPragmas(env: NodeJS.ProcessEnv): Promise<string[]> {
  const { PRAGMAS } = await import('../server/db/sqlite.ts');
  const sync = env.SQLITE_SYNCHRONOUS;
  return PRAGMAS.map((p: string) => (sync && p.startsWith('synchronous') ? `synchronous = ${sync}` : p));
}

function open(file: string, pragmas: string[]): Database.Database {
  const db = new Database(file);
  for (const p of pragmas) db.pragma(p);
  return db;
}

/** One statement of the log, run as the server ran it; an error is what the server met too (a savepoint it rolled back). */
function replayOne(db: Database.Database, cache: Map<string, Database.Statement>, [method, sql, args]: Entry): boolean {
  try {
    if (method === 'exec') {
      db.exec(sql);
      return true;
    }
    let st = cache.get(sql);
    if (!st) cache.set(sql, (st = db.prepare(sql)));
    if (method === 'iterate') for (const _ of st.iterate(...args)) void _;
    else (st[method] as (...a: unknown[]) => unknown)(...args);
    return true;
  } catch {
    return false;
  }
}

/**
 * Replays the whole log, then checkpoints what it wrote into the database file (the server's
 * checkpointer thread does that work in the same process, so its CPU is in row h's); CPU (µs) and
 * wall time (ms) of this process for both, the checkpoint's share, and the statements that failed.
 */
function replay(file: string, pragmas: string[], log: Entry[]): { cpuUs: number; checkpointUs: number; ms: number; failed: number } {
  const db = open(file, pragmas);
  try {
    const cache = new Map<string, Database.Statement>();
    let failed = 0;
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    for (const e of log) if (!replayOne(db, cache, e)) failed++;
    const before = process.cpuUsage(cpu);
    db.pragma('wal_checkpoint(PASSIVE)');
    const ms = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    return { cpuUs: used.user + used.system, checkpointUs: used.user + used.system - before.user - before.system, ms, failed };
  } finally {
    db.close();
  }
}

/** Replays the log timing each statement: µs per trigger and runs per trigger by SQL text (first 110 characters). */
function replayTimed(file: string, pragmas: string[], log: Entry[]): Map<string, { us: number; n: number; write: boolean }> {
  const db = open(file, pragmas);
  const by = new Map<string, { us: number; n: number; write: boolean }>();
  try {
    const cache = new Map<string, Database.Statement>();
    for (const e of log) {
      const t0 = process.hrtime.bigint();
      replayOne(db, cache, e);
      const us = Number(process.hrtime.bigint() - t0) / 1000;
      const key = e[1].replace(/\s+/g, ' ').slice(0, 110);
      const s = by.get(key) ?? { us: 0, n: 0, write: !/^\s*(SELECT|WITH)\b/i.test(e[1]) };
      s.us += us;
      s.n++;
      by.set(key, s);
    }
    return by;
  } finally {
    db.close();
  }
}

/**
 * Row (h-floor), with the statement profile of the floor printed before it. `env`: extra server settings (SQLITE_SYNCHRONOUS), as row (h) got.
 */
export async function triggerFloorRows(env: Record<string, string> = {}): Promise<Row[]> {
  console.log(`\n(h-floor) the statements of ${FLOOR_TRIGGERS.toLocaleString('en')} triggers captured from \`refloop serve\` (as row h), replayed by better-sqlite3 alone`);
  const captureFile = path.join(ROOT, 'bench', 'trigger-capture.mjs');
  const logFile = path.join(os.tmpdir(), `refloop-bench-capture-${process.pid}-${Date.now()}.bin`);
  const t = await startRefloop('refloop (trigger capture)', {
    ...WRITE_ROW_LIMITS,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${captureFile}`.trim(),
    BENCH_CAPTURE_FILE: logFile,
    ...env,
  });
  const dir = path.dirname(String(t.env.DATABASE_URL));
  const copies = ['floor', 'timed', 'floor-2'].map((n) => path.join(dir, `${n}.db`));
  let log: Entry[];
  let triggers: number;
  try {
    const { key, paths } = await triggerProgram(t, FLOOR_TRIGGERS + WARMUP_TRIGGERS);
    const headers = { authorization: `Bearer ${key}` };
    const warm = await loadOnce(t.base, paths.slice(0, WARMUP_TRIGGERS), headers, 60_000);
    // The server is idle: copy its database as the captured statements will find it.
    const src = new Database(String(t.env.DATABASE_URL), { readonly: true });
    try {
      for (const c of copies) await src.backup(c);
    } finally {
      src.close();
    }
    process.kill(t.child.pid!, 'SIGUSR2');
    const r = await loadOnce(t.base, paths.slice(warm.completed + warm.errors), headers, 120_000);
    process.kill(t.child.pid!, 'SIGUSR2');
    for (let i = 0; i < 600 && !fs.existsSync(`${logFile}.done`); i++) await new Promise((res) => setTimeout(res, 100));
    if (!fs.existsSync(`${logFile}.done`)) throw new Error('the capture log was not written');
    log = v8.deserialize(fs.readFileSync(logFile)) as Entry[];
    triggers = r.statuses.get(200) ?? 0;
    const other = r.completed - triggers + r.errors;
    if (other) throw new Error(`${other} of the captured trigger requests did not answer 200`);
  } finally {
    await stopChild(t.child);
    fs.rmSync(logFile, { force: true });
    fs.rmSync(`${logFile}.done`, { force: true });
  }
  const pragmas = await serverPragmas(t.env);
  const perTrigger = (log.length / triggers).toFixed(1);

  // Where the floor's time goes, by statement (its own copy, so the measured replay below is untimed).
  const timed = replayTimed(copies[1]!, pragmas, log);
  const total = [...timed.values()].reduce((s, v) => s + v.us, 0);
  const writes = [...timed.values()].filter((v) => v.write).reduce((s, v) => s + v.us, 0);
  console.log(`  captured ${log.length.toLocaleString('en')} statements for ${triggers.toLocaleString('en')} triggers (${perTrigger} per trigger); timed replay ${(total / triggers).toFixed(0)} µs per trigger, of which writes and transaction control ${(writes / triggers).toFixed(0)} µs:`);
  for (const [sql, v] of [...timed].sort((a, b) => b[1].us - a[1].us).slice(0, 20)) {
    console.log(`  ${(v.us / triggers).toFixed(1).padStart(7)} µs ${(v.n / triggers).toFixed(2).padStart(5)}×  ${sql}`);
  }

  // Each replayed twice, alternating, on copies of their own; the cheaper run of each counts (the
  // machine's other work only ever adds CPU).
  const cheaper = (a: ReturnType<typeof replay>, b: ReturnType<typeof replay>) => (a.cpuUs <= b.cpuUs ? a : b);
  const floor = cheaper(replay(copies[0]!, pragmas, log), replay(copies[2]!, pragmas, log));
  const rowOfReplay = (label: string, run: ReturnType<typeof replay>, note: string): Row => {
    const row: Row = {
      label,
      inProcess: true,
      reqPerSec: (triggers * 1000) / run.ms,
      p50: NaN,
      p99: NaN,
      cpuUsPerReq: run.cpuUs / triggers,
      note,
      statuses: new Map(),
      errors: run.failed,
    };
    console.log(`  ${label}: ${row.reqPerSec.toFixed(0)} triggers/s, CPU ${row.cpuUsPerReq.toFixed(0)} µs per trigger (checkpoint ${(run.checkpointUs / triggers).toFixed(0)} µs)${run.failed ? ` (${run.failed} statements failed, as in the server)` : ''}`);
    return row;
  };
  const sync = pragmas.find((p) => p.startsWith('synchronous'))!;
  const rows = [
    rowOfReplay(
      '(h-floor) trigger floor: better-sqlite3 alone',
      floor,
      `the ${perTrigger} statements per trigger (reads, writes, savepoints, commits) captured from row (h)'s server, replayed in one process on a copy of its database, ${sync}, each SQL text prepared once, then one PASSIVE checkpoint (${(floor.checkpointUs / triggers).toFixed(0)} µs per trigger); CPU of the replaying process (the cheaper of two replays)`,
    ),
  ];
  return rows;
}

/** The line printed under the table: the real trigger's CPU per trigger against its floor's. */
export function floorRatios(real: Row, floor: Row[]): string {
  const [f] = floor;
  if (!f) return '';
  return (
    `  trigger vs its floor (ratios within this run): server CPU per trigger ${(real.cpuUsPerReq / f.cpuUsPerReq).toFixed(2)}× the floor's ` +
    `(${real.cpuUsPerReq.toFixed(0)} against ${f.cpuUsPerReq.toFixed(0)} µs; goal ≤ 1.3×), ${real.reqPerSec.toFixed(0)} triggers/s over HTTP (goal ≥ 1,000)`
  );
}
