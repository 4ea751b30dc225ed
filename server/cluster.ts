import cluster, { type Worker } from 'node:cluster';
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';
import type { Config } from './config.ts';
import { createLogger, logFormat, type Logger } from './log.ts';
import { runForever, type Lifecycle } from './main.ts';

// `refloop serve` with WORKERS > 1 (PostgreSQL only; config.ts refuses it on SQLite): Node's cluster
// module. The primary migrates the database once, holds the per-caller rate-limit counters the
// workers share over IPC (rate-limiter-flexible's cluster master), forks the workers, replaces one
// that dies, and on SIGTERM/SIGINT passes the signal on and waits for every worker to drain. Each
// worker is an ordinary server (`runForever`): the workers share the listening socket, and the
// primary hands each new connection to the next worker in turn (the cluster's round-robin).

/** A worker that dies this soon after its start is not replaced (it would only die again): the primary stops. */
const CRASH_LOOP_MS = 5_000;

/** Runs `refloop serve` as a primary with `config.workers` workers, or, in a worker, as one of them. */
export async function runCluster(config: Config, lifecycle: Lifecycle = {}): Promise<void> {
  // A worker's primary is its parent: when it goes (SIGKILL), the worker drains and exits too.
  if (cluster.isWorker) return runForever(config, {}, undefined, { stopWithParent: true });
  const log = createLogger(config.logLevel, undefined, logFormat(config.logFormat, process.stdout.isTTY));
  await migrateOnce(config);
  new RateLimiterClusterMaster();
  await runPrimary(config, log, lifecycle);
}

/** Migrations run here once, before any worker starts, so N workers never race for knex's migration lock. */
async function migrateOnce(config: Config): Promise<void> {
  const { openDb, migrate } = await import('./db/connect.ts');
  const db = openDb(config.database);
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
}

async function runPrimary(config: Config, log: Logger, lifecycle: Lifecycle): Promise<void> {
  let stopping = false;
  let failed: string | null = null;
  let wake!: () => void;
  const stopped = new Promise<void>((resolve) => (wake = resolve));
  const started = new Map<Worker, number>();
  let listening = 0;

  const fork = () => {
    const worker = cluster.fork();
    started.set(worker, Date.now());
    // A rate-limit answer sent to a worker that has just died fails on the closed channel: not our crash.
    worker.on('error', (err) => log.warn('worker channel error', { pid: worker.process.pid, error: err.message }));
    worker.once('listening', () => {
      if (++listening === config.workers) log.info('workers listening', { workers: config.workers, port: config.port, pid: process.pid });
    });
  };
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down workers', { reason, workers: Object.keys(cluster.workers ?? {}).length });
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    if (Object.keys(cluster.workers ?? {}).length === 0) wake();
  };
  cluster.on('exit', (worker, code, signal) => {
    const since = started.get(worker) ?? 0;
    started.delete(worker);
    if (!stopping) {
      log.error('worker exited', { pid: worker.process.pid, code, signal });
      if (Date.now() - since < CRASH_LOOP_MS) {
        failed = `a worker exited ${Math.round((Date.now() - since) / 1000)} s after its start (code ${code ?? signal})`;
        stop(failed);
      } else fork();
    }
    if (stopping && Object.keys(cluster.workers ?? {}).length === 0) wake();
  });

  const onTerm = () => stop('SIGTERM');
  const onInt = () => stop('SIGINT');
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  const parent = process.ppid;
  const watch = lifecycle.stopWithParent ? setInterval(() => process.ppid !== parent && stop('parent exited'), 200) : null;
  watch?.unref();
  try {
    for (let i = 0; i < config.workers; i++) fork();
    await stopped;
  } finally {
    if (watch) clearInterval(watch);
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
  }
  if (failed) throw new Error(failed);
}
