// The bench's settings: BENCH_*, DATABASE_URL and the command line (`--json`) read here and
// nowhere else in the bench (listed in run.ts), timings and the raised rate limits its servers run with.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = path.join(ROOT, 'bin', 'refloop.js');
export const SECONDS = positive(process.env.BENCH_SECONDS, 5);
/**
 * BENCH_HEAVY_SECONDS: measured seconds of the heavy rows issue #26 names (referred sign-up, trigger,
 * visits, the reads at scale), default 20: long enough for a group commit, a WAL checkpoint and the
 * garbage collector to come round many times, and for a table to grow while it is measured.
 */
export const HEAVY_SECONDS = positive(process.env.BENCH_HEAVY_SECONDS, 20);
/**
 * BENCH_WARMUP_REQUESTS: requests every HTTP row sends before it is measured (default 2,000), a count
 * rather than a time so a slow route is as warm (JIT, statement caches, pages) as a fast one.
 */
export const WARMUP_REQUESTS = Math.floor(positive(process.env.BENCH_WARMUP_REQUESTS, 2000));
/** The longest a warm-up of WARMUP_REQUESTS may take before the row is measured anyway (a very slow route). */
export const WARMUP_CAP_MS = 60_000;
export const CONNECTIONS = Math.floor(positive(process.env.BENCH_CONNECTIONS, 50));
export const PARTICIPANTS = process.env.BENCH_PARTICIPANTS === '0' ? 0 : Math.floor(positive(process.env.BENCH_PARTICIPANTS, 1_000_000));
export const IN_PROCESS_CALLS = 1000;
export const TRIGGERS = process.env.BENCH_TRIGGERS === '0' ? 0 : Math.floor(positive(process.env.BENCH_TRIGGERS, 30_000));
export const ONLY = process.env.BENCH_ONLY ?? (process.env.BENCH_MOBILE_ONLY === '1' ? 'mobile' : process.env.BENCH_AFFILIATE_ONLY === '1' ? 'affiliate' : '');
if (!['', 'mobile', 'affiliate', 'trigger', 'cli', 'console', 'export', 'list', 'durability', 'reads', 'widget', 'cluster', 'import', 'cache', 'hosts', 'pg-floor', 'audit'].includes(ONLY)) throw new Error(`BENCH_ONLY must be mobile, affiliate, trigger, cli, console, export, list, durability, reads, widget, cluster, import, cache, hosts, pg-floor or audit, not ${JSON.stringify(ONLY)}`);
export const MOBILE_ONLY = ONLY === 'mobile';
export const AFFILIATE_ONLY = ONLY === 'affiliate';
export const TRIGGER_ONLY = ONLY === 'trigger';
/**
 * The PostgreSQL the bench makes its fresh schemas on: BENCH_DATABASE_URL, else a postgres:// DATABASE_URL
 * (the older spelling). Read before `baseEnv()` strips DATABASE_URL from the children's environment.
 */
export const PG_URL = pgUrl(process.env.BENCH_DATABASE_URL, process.env.DATABASE_URL);
/** `--json`: the table goes to stdout as JSON (same rows); everything else the bench prints goes to stderr. */
export const JSON_OUTPUT = process.argv.slice(2).includes('--json');
/** BENCH_PORT_BASE: the first port the bench's servers use (then the next free ones above it), so two benches do not collide; unset: any free port. */
export const PORT_BASE = process.env.BENCH_PORT_BASE ? Math.floor(positive(process.env.BENCH_PORT_BASE, 0)) : null;
if (PORT_BASE !== null && PORT_BASE > 65_000) throw new Error(`BENCH_PORT_BASE must be at most 65000, not ${PORT_BASE}`);
/** BENCH_CLUSTER_WORKERS: the worker counts BENCH_ONLY=cluster runs, comma-separated (default 1,2,4). */
/** BENCH_CLUSTER_REDIS=1: the cluster rows with REDIS_URL (a redis-server of the bench's own). */
export const CLUSTER_REDIS = process.env.BENCH_CLUSTER_REDIS === '1';
export const CLUSTER_WORKERS = (process.env.BENCH_CLUSTER_WORKERS ?? '1,2,4').split(',').map((n) => Math.floor(positive(n.trim(), 1)));
/** BENCH_CPU_PROF: a directory where every server process writes a V8 CPU profile when it stops. */
/** BENCH_ONLY=cache: where both runs keep the rate limits (`memory` isolates the caches; `database` is PostgreSQL's default without Redis). */
export const CACHE_LIMIT_STORE = process.env.BENCH_CACHE_LIMIT_STORE === 'database' ? 'database' : 'memory';
export const CPU_PROF_DIR = process.env.BENCH_CPU_PROF || null;
/** BENCH_FLOOR_TRIGGERS: triggers the floor row replays (trigger-floor.ts). */
export const FLOOR_TRIGGERS = Math.max(100, Math.floor(Number(process.env.BENCH_FLOOR_TRIGGERS ?? 2000)) || 2000);
/** bench/pg-statements.ts: participants seeded first (BENCH_PARTICIPANTS, default 100,000 there) and sign-ups measured (BENCH_SIGNUPS). */
export const PG_STATEMENTS = {
  participants: Number(process.env.BENCH_PARTICIPANTS ?? 100_000),
  signups: Number(process.env.BENCH_SIGNUPS ?? 1000),
};
/** The cluster rows' warm-up (cluster-rows.ts), in time. */
export const WARMUP_MS = 1000;
export const READY_TIMEOUT_MS = 30_000;
export const REQUEST_TIMEOUT_MS = 10_000;

/** Limits raised so row (a) measures the request path, not 429s. */
export const RAISED_LIMITS = {
  RATE_LIMIT_SECOND: '1000000000',
  RATE_LIMIT_MINUTE: '1000000000',
  RATE_LIMIT_HOUR: '1000000000',
  RATE_LIMIT_IP_PER_MINUTE: '1000000000',
  CONCURRENCY_PER_IP: '1000000',
};

function pgUrl(bench: string | undefined, fallback: string | undefined): string | null {
  const isPg = (u: string | undefined) => /^postgres(ql)?:\/\//.test(u ?? '');
  if (bench) {
    if (!isPg(bench)) throw new Error(`BENCH_DATABASE_URL must be postgres://…, not ${JSON.stringify(bench)}`);
    return bench;
  }
  return isPg(fallback) ? fallback! : null;
}

function positive(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`expected a positive number, got ${JSON.stringify(raw)}`);
  return n;
}
