import os from 'node:os';
import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import { insertRow, insertRowsTogether, type TableRows } from '../../db/rows.ts';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import { newId, newOrderedId } from '../../crypto.ts';
import { detached } from '../../db/ambient.ts';

/** A job handler; throwing schedules a retry with backoff until max attempts. */
export type JobHandler = (payload: any, ctx: { jobId: string; attempt: number }) => Promise<void>;

/** Options for one enqueued job. */
export interface EnqueueOptions {
  runAt?: number;
  uniqueKey?: string;
  maxAttempts?: number;
}

/**
 * How long a claim lasts without a heartbeat (issue #20): a job held by a process that died is
 * claimed again this long after the dead process's last heartbeat. Live workers renew their claims
 * every `LEASE_MS / 4`, so a claim only lapses when its process is gone or its event loop has been
 * blocked for the whole lease.
 */
export const LEASE_MS = 10_000;

/**
 * The durable job table and its runner. Enqueue inside the caller's transaction so a job exists
 * exactly when its cause committed. On PostgreSQL claims use FOR UPDATE SKIP LOCKED so several
 * processes share the table; claims are short leases renewed by a heartbeat while the runner holds
 * them, so a job whose worker crashed is claimed again within seconds, and a worker that lost its
 * lease never overwrites the new holder's outcome.
 */
export class Jobs {
  readonly #handlers = new Map<string, JobHandler>();
  readonly #workerId = `${os.hostname()}:${process.pid}:${newId(6)}`;
  #timer: NodeJS.Timeout | null = null;
  #heartbeat: NodeJS.Timeout | null = null;
  #running: Promise<number> | null = null;
  #stopped = true;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly pollMs: number,
    private readonly leaseMs = LEASE_MS,
  ) {}

  /** This runner's name in `jobs.locked_by`. */
  get workerId(): string {
    return this.#workerId;
  }

  /**
   * Extends the lease of every job this runner holds (the heartbeat, every `leaseMs / 4` while a
   * pass runs); returns how many it still holds.
   */
  async renewLeases(): Promise<number> {
    return this.db.knex('jobs').where({ status: 'RUNNING', locked_by: this.#workerId }).update({ locked_until: this.clock.now() + this.leaseMs });
  }

  /** Registers the handler of one job type. */
  register(type: string, handler: JobHandler): void {
    this.#handlers.set(type, handler);
  }

  /**
   * A job that runs once per `everyMs` bucket: `run`, then the next bucket's run is queued. Returns
   * the function that makes sure the run of the bucket containing `at` is queued (several processes
   * never double it up: the bucket is in the unique key `<keyPrefix>:<bucket>`).
   */
  registerPeriodic(type: string, everyMs: number, keyPrefix: string, run: () => Promise<unknown>): (at?: number) => Promise<void> {
    const schedule = async (at = this.clock.now()): Promise<void> => {
      const bucket = Math.floor(at / everyMs);
      await this.enqueue(this.db.knex, type, {}, { runAt: bucket * everyMs, uniqueKey: `${keyPrefix}:${bucket}` });
    };
    this.register(type, async () => {
      await run();
      await schedule(this.clock.now() + everyMs);
    });
    return schedule;
  }

  /** Adds a job; with `uniqueKey` a second enqueue of the same key is a no-op. */
  async enqueue(q: Knex | Knex.Transaction, type: string, payload: unknown, opts: EnqueueOptions = {}): Promise<void> {
    await insertRow(this.db, q, 'jobs', this.#row(type, payload, opts), opts.uniqueKey ? 'unique_key' : undefined);
  }

  /** Adds several jobs, each with a `uniqueKey`, in one statement of the caller's transaction (like `enqueue` each). */
  async enqueueMany(trx: Knex.Transaction, jobs: Array<{ type: string; payload: unknown; opts: EnqueueOptions & { uniqueKey: string } }>): Promise<void> {
    await insertRowsTogether(trx, [this.rowsOf(jobs)]);
  }

  /**
   * The `jobs` rows `enqueueMany` writes, for a caller that writes them in one statement with rows
   * of its own (`insertRowsTogether`; a webhook's events, deliveries and their jobs).
   */
  rowsOf(jobs: Array<{ type: string; payload: unknown; opts: EnqueueOptions & { uniqueKey: string } }>): TableRows {
    return { table: 'jobs', rows: jobs.map((j) => this.#row(j.type, j.payload, j.opts)), ignoreConflictOn: 'unique_key' };
  }

  #row(type: string, payload: unknown, opts: EnqueueOptions): Record<string, unknown> {
    const now = this.clock.now();
    return {
      id: newOrderedId(),
      type,
      payload: JSON.stringify(payload ?? null),
      unique_key: opts.uniqueKey ?? null,
      status: 'QUEUED',
      run_at: opts.runAt ?? now,
      attempts: 0,
      max_attempts: opts.maxAttempts ?? 10,
      created_at: now,
      updated_at: now,
    };
  }

  /** Claims and runs every job due now (by the injected clock); returns how many ran. */
  async runDue(batch = 20): Promise<number> {
    if (this.#running) await this.#running.catch(() => 0);
    this.#running = this.#drain(batch);
    try {
      return await this.#running;
    } finally {
      this.#running = null;
    }
  }

  async #drain(batch: number): Promise<number> {
    let total = 0;
    this.#heartbeat = setInterval(() => {
      this.renewLeases().catch((err) => this.log.warn('job lease renewal failed', { error: String((err as Error)?.message ?? err) }));
    }, Math.max(10, Math.floor(this.leaseMs / 4)));
    this.#heartbeat.unref();
    try {
      for (;;) {
        const claimed = await this.#claim(batch);
        if (claimed.length === 0) return total;
        for (const job of claimed) await this.#execute(job);
        total += claimed.length;
      }
    } finally {
      clearInterval(this.#heartbeat);
      this.#heartbeat = null;
    }
  }

  async #claim(batch: number): Promise<any[]> {
    const now = this.clock.now();
    const lock = this.db.dialect === 'pg' ? 'FOR UPDATE SKIP LOCKED' : '';
    const result = await this.db.knex.raw(
      `UPDATE jobs SET status = 'RUNNING', locked_by = ?, locked_until = ?, attempts = attempts + 1, updated_at = ?
       WHERE id IN (SELECT id FROM jobs
                    WHERE (status = 'QUEUED' AND run_at <= ?) OR (status = 'RUNNING' AND locked_until < ?)
                    ORDER BY run_at LIMIT ? ${lock})
       RETURNING id, type, payload, attempts, max_attempts`,
      [this.#workerId, now + this.leaseMs, now, now, now, batch],
    );
    return this.db.dialect === 'pg' ? result.rows : result;
  }

  async #execute(job: { id: string; type: string; payload: string; attempts: number; max_attempts: number }): Promise<void> {
    const handler = this.#handlers.get(job.type);
    try {
      if (!handler) throw new Error(`no handler for job type ${job.type}`);
      await handler(JSON.parse(job.payload), { jobId: job.id, attempt: Number(job.attempts) });
      const done = await this.db.knex('jobs').where({ id: job.id, locked_by: this.#workerId }).update({ status: 'DONE', locked_by: null, locked_until: null, updated_at: this.clock.now() });
      if (!done) this.log.warn('job finished after its lease passed to another worker', { jobId: job.id, type: job.type });
    } catch (err) {
      const attempts = Number(job.attempts);
      const final = attempts >= Number(job.max_attempts);
      // Exponential backoff: 10 s, 20 s, 40 s … capped at 1 h.
      const delay = Math.min(3_600_000, 10_000 * 2 ** (attempts - 1));
      this.log.warn('job failed', { jobId: job.id, type: job.type, attempt: attempts, final, error: String((err as Error)?.message ?? err) });
      // Only while the claim is still ours: a worker that lost its lease leaves the job to its new holder.
      await this.db
        .knex('jobs')
        .where({ id: job.id, locked_by: this.#workerId })
        .update({
          status: final ? 'FAILED' : 'QUEUED',
          run_at: this.clock.now() + delay,
          locked_by: null,
          locked_until: null,
          last_error: String((err as Error)?.message ?? err).slice(0, 2000),
          updated_at: this.clock.now(),
        });
    }
  }

  /** Starts polling; `kick()` runs a pass at once. */
  start(): void {
    this.#stopped = false;
    const tick = async () => {
      if (this.#stopped) return;
      try {
        await this.runDue();
      } catch (err) {
        this.log.error('job runner pass failed', { error: String((err as Error)?.message ?? err) });
      }
      if (!this.#stopped) this.#timer = setTimeout(tick, this.pollMs);
    };
    // A kick from inside a keyed request's transaction must not run the jobs in it.
    this.#timer = detached(() => setTimeout(tick, 0));
  }

  /** Asks a started runner to look for work now (after a commit that enqueued something). */
  kick(): void {
    if (this.#stopped || this.#running) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.start();
  }

  /** Stops polling and waits for the pass in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#running) await this.#running.catch(() => 0);
  }
}
