// The rows of the bench's table: measuring one over HTTP or in process, the bare-Koa baseline row,
// and printing the summary table.
import { cpuSplit, load, splitNote, warmUp, CLK_TCK, type LoadResult } from './load.ts';
import { startBareKoa, stopChild, type Target } from './processes.ts';
import os from 'node:os';
import { CONNECTIONS, HEAVY_SECONDS, IN_PROCESS_CALLS, JSON_OUTPUT, ONLY, PG_URL, SECONDS, WARMUP_REQUESTS } from './settings.ts';

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export interface Row {
  label: string;
  /** Measured by calling domain code in this process (no HTTP); no bare-Koa ratio. */
  inProcess?: boolean;
  reqPerSec: number;
  p50: number;
  p99: number;
  cpuUsPerReq: number;
  /** PostgreSQL rows: the database backends' CPU per request (their utime + stime from /proc). */
  dbCpuUsPerReq?: number;
  note: string;
  statuses: Map<number, number>;
  /** What the answers said, counted by name (the visit rows: RECORDED and PROCESSING apart); empty when not classified. */
  outcomes?: Map<string, number>;
  errors: number;
}

/** "12,000 RECORDED, 3 PROCESSING": a row's classified answers, most first. */
export function outcomesNote(outcomes: Map<string, number>): string {
  return [...outcomes].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n.toLocaleString('en')} ${k}`).join(', ');
}

/** A table row from one measured load: throughput, latency percentiles and server CPU per request (`ticks` of the server process). */
export function rowOf(label: string, r: LoadResult, ticks: number): Row {
  const sorted = r.latencies.sort((a, b) => a - b);
  return {
    label,
    reqPerSec: r.completed / r.seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuUsPerReq: r.completed ? ((ticks / CLK_TCK) * 1e6) / r.completed : NaN,
    note: '',
    statuses: r.statuses,
    outcomes: r.outcomes,
    errors: r.errors,
  };
}

/** Warms up with BENCH_WARMUP_REQUESTS requests (with `warmupHeaders`, by default the same), then measures for BENCH_SECONDS. */
export async function measure(label: string, t: Target, pathname: string, headers: Record<string, string>, warmupHeaders = headers): Promise<Row> {
  await warmUp(() => ({ url: t.base + pathname, method: 'GET', headers: warmupHeaders }));
  const pid = t.child.pid!;
  const before = cpuSplit(pid);
  const client = process.cpuUsage();
  const r = await load(t.base + pathname, headers, SECONDS * 1000);
  const after = cpuSplit(pid);
  const clientCpu = process.cpuUsage(client);
  const row = rowOf(label, r, after[0] + after[1] - before[0] - before[1]);
  const codes = [...r.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${n} × ${s}`).join(', ');
  console.log(
    `  ${label}: ${r.completed} responses in ${r.seconds.toFixed(2)} s (${codes || 'none'}${r.errors ? `, ${r.errors} errors` : ''}) → ` +
      `${row.reqPerSec.toFixed(0)} req/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, server CPU ${row.cpuUsPerReq.toFixed(0)} µs/req (${splitNote(before, after, r.completed)}) ` +
      `(load generator ${r.completed ? ((clientCpu.user + clientCpu.system) / r.completed).toFixed(0) : 'n/a'} µs/req)`,
  );
  return row;
}

/** Calls `fn` 100 times to warm up, then IN_PROCESS_CALLS times one after another, timing each call. */
export async function measureCalls(label: string, fn: (i: number) => Promise<unknown>): Promise<Row> {
  for (let i = 0; i < 100; i++) await fn(i);
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < IN_PROCESS_CALLS; i++) {
    const t0 = performance.now();
    await fn(i);
    latencies.push(performance.now() - t0);
  }
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const sorted = latencies.sort((a, b) => a - b);
  const row: Row = {
    label,
    inProcess: true,
    reqPerSec: IN_PROCESS_CALLS / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuUsPerReq: (used.user + used.system) / IN_PROCESS_CALLS,
    note: '',
    statuses: new Map(),
    errors: 0,
  };
  console.log(`  ${label}: ${IN_PROCESS_CALLS} calls in ${seconds.toFixed(2)} s → p50 ${row.p50.toFixed(3)} ms, p99 ${row.p99.toFixed(3)} ms, CPU ${row.cpuUsPerReq.toFixed(0)} µs/call`);
  return row;
}

/** A bare Koa app answering {ok:true}: the baseline every group of rows is judged against. */
export async function bareRow(label = '(b) bare Koa GET /ok', note = 'new Koa() answering {ok:true}; the baseline'): Promise<Row> {
  console.log(`\n${label}: bare Koa, one JSON route`);
  const bare = await startBareKoa();
  const row = await measure(label, bare, '/ok', {});
  row.note = note;
  await stopChild(bare.child);
  return row;
}

/** Every table printed in this run, in order: what `--json` writes. */
const printed: Array<{ bareReqPerSec: number; rows: Row[] }> = [];

/** The summary table; ratios against `bare` req/s. A database CPU column appears when a row has one. */
export function printTable(rows: Row[], bare: number): void {
  printed.push({ bareReqPerSec: bare, rows });
  const f = (n: number | undefined, d: number) => (n !== undefined && Number.isFinite(n) ? n.toFixed(d) : 'n/a');
  const db = rows.some((r) => r.dbCpuUsPerReq !== undefined);
  console.log(`\n| Row | req/s | p50 ms | p99 ms | server CPU µs/req |${db ? ' database CPU µs/req |' : ''} ratio vs bare Koa | Note |`);
  console.log(`|---|---:|---:|---:|---:|${db ? '---:|' : ''}---:|---|`);
  for (const r of rows) {
    const digits = r.inProcess ? 3 : 2;
    console.log(
      `| ${r.label} | ${f(r.reqPerSec, 0)} | ${f(r.p50, digits)} | ${f(r.p99, digits)} | ${f(r.cpuUsPerReq, 0)} |${db ? ` ${f(r.dbCpuUsPerReq, 0)} |` : ''} ${r.inProcess ? 'n/a' : f(r.reqPerSec / bare, 2)} | ${r.note} |`,
    );
  }
}

/** `--json`: the rows of every table printed, with the machine and settings, as one JSON document on stdout. */
export function writeJson(): void {
  if (!JSON_OUTPUT) return;
  const num = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n : null);
  const doc = {
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.release()}` },
    settings: { only: ONLY || null, seconds: SECONDS, heavySeconds: HEAVY_SECONDS, warmupRequests: WARMUP_REQUESTS, connections: CONNECTIONS, postgres: PG_URL !== null },
    tables: printed.map((t) => ({
      bareReqPerSec: num(t.bareReqPerSec),
      rows: t.rows.map((r) => ({
        label: r.label,
        inProcess: r.inProcess ?? false,
        reqPerSec: num(r.reqPerSec),
        p50Ms: num(r.p50),
        p99Ms: num(r.p99),
        serverCpuUsPerReq: num(r.cpuUsPerReq),
        databaseCpuUsPerReq: num(r.dbCpuUsPerReq),
        ratioVsBare: r.inProcess ? null : num(r.reqPerSec / t.bareReqPerSec),
        statuses: Object.fromEntries([...r.statuses].sort(([a], [b]) => a - b)),
        outcomes: Object.fromEntries(r.outcomes ?? []),
        errors: r.errors,
        note: r.note,
      })),
    })),
  };
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
}
