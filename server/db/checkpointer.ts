import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { SqliteSynchronous } from '../config.ts';

/** SQLite's own automatic checkpoint size in pages, restored when the checkpointer thread stops. */
export const AUTO_CHECKPOINT_PAGES = 10_000;

export interface CheckpointerOptions {
  /** The checkpointer thread starts once the WAL file has grown to this many bytes (default 8 MiB). */
  startAtBytes?: number;
  /** How often the main thread looks at the WAL's size until then (default 1 s). */
  watchMs?: number;
  /** How often the thread checkpoints (default 250 ms). */
  intervalMs?: number;
  /** WAL frames after which the thread asks for a quiet moment to start the WAL over (default 32,768 ≈ 128 MiB). */
  resetFrames?: number;
  /** The thread's connection's `synchronous`, the same as the request connection's (default FULL). */
  synchronous?: SqliteSynchronous;
}

export interface CheckpointerState {
  /** Whether the thread is checkpointing (the connection's automatic checkpoints are off). */
  running: boolean;
  /** Quiet moments given to the thread, and how many of them started the WAL over. */
  quietMoments: number;
  resets: number;
  /** Why the thread stopped, when it failed; automatic checkpoints are back on then. */
  failure: string | null;
  /** The thread connection's `synchronous` as SQLite reports it (2 FULL, 1 NORMAL) once it has opened; null before. */
  synchronous: number | null;
}

type Message = { type: 'ready'; synchronous: number } | { type: 'quiet' } | { type: 'done'; reset: boolean } | { type: 'failed'; message: string };

/** How long the main thread holds its connection for one quiet moment at most. */
const QUIET_TIMEOUT_MS = 10_000;

/**
 * Takes SQLite's WAL checkpoints off the thread that answers requests. With automatic checkpoints,
 * the COMMIT that crosses the WAL limit copies every changed page back into the database file and
 * waits for two fsyncs, on the event loop: under a steady write load (referral triggers, visits)
 * that was a 120–150 ms stall every ≈ 14 group commits. Once the WAL file shows such a load (it
 * grows past `startAtBytes`), a worker thread with its own connection checkpoints every
 * `intervalMs` instead, and the request connection's automatic checkpoints are switched off.
 * Short-lived processes (the CLI, tests) never reach the threshold and keep SQLite's behaviour.
 *
 * The connection is borrowed through `acquire`/`release` (knex's pool of one), so a quiet moment
 * waits for the running transaction and nothing else touches the database until it ends. If the
 * thread fails or exits, automatic checkpoints are switched back on.
 */
export class BackgroundCheckpointer {
  readonly state: CheckpointerState = { running: false, quietMoments: 0, resets: 0, failure: null, synchronous: null };
  #worker: Worker | null = null;
  #watch: NodeJS.Timeout | null = null;
  #closed = false;
  #pendingDone: ((m: { reset: boolean }) => void) | null = null;
  readonly #opts: Required<CheckpointerOptions>;

  constructor(
    private readonly filename: string,
    private readonly acquire: () => Promise<Database.Database>,
    private readonly release: (conn: Database.Database) => Promise<void>,
    opts: CheckpointerOptions = {},
  ) {
    this.#opts = { startAtBytes: 8 * 1024 * 1024, watchMs: 1000, intervalMs: 250, resetFrames: 32_768, synchronous: 'FULL', ...opts };
    this.#watch = setInterval(() => this.#look(), this.#opts.watchMs);
    this.#watch.unref();
  }

  /** The pragma a newly made connection needs: automatic checkpoints off while the thread runs them. */
  configure(conn: Database.Database): void {
    if (this.state.running) conn.pragma('wal_autocheckpoint = 0');
  }

  #look(): void {
    let size = 0;
    try {
      size = fs.statSync(`${this.filename}-wal`).size;
    } catch {
      return; // no WAL yet
    }
    if (size < this.#opts.startAtBytes) return;
    clearInterval(this.#watch!);
    this.#watch = null;
    void this.#start();
  }

  async #start(): Promise<void> {
    let worker: Worker;
    try {
      worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), {
        workerData: { filename: this.filename, intervalMs: this.#opts.intervalMs, resetFrames: this.#opts.resetFrames, synchronous: this.#opts.synchronous },
      });
    } catch (err) {
      this.state.failure = (err as Error).message;
      return;
    }
    worker.unref();
    this.#worker = worker;
    worker.on('message', (m: Message) => {
      if (m.type === 'ready') this.state.synchronous = m.synchronous;
      else if (m.type === 'quiet') void this.#quiet();
      else if (m.type === 'done') this.#pendingDone?.(m);
      else if (m.type === 'failed') this.state.failure = m.message;
    });
    worker.on('error', (err) => {
      this.state.failure = err.message;
    });
    worker.once('exit', () => {
      this.#worker = null;
      this.#pendingDone?.({ reset: false });
      if (!this.#closed) void this.#setAuto(AUTO_CHECKPOINT_PAGES).then(() => (this.state.running = false));
    });
    await this.#setAuto(0);
    this.state.running = true;
  }

  async #setAuto(pages: number): Promise<void> {
    if (this.#closed) return;
    const conn = await this.acquire();
    try {
      conn.pragma(`wal_autocheckpoint = ${pages}`);
    } finally {
      await this.release(conn);
    }
  }

  /** Holds the connection while the thread backfills what is left, so the next write starts the WAL over. */
  async #quiet(): Promise<void> {
    if (this.#closed || !this.#worker) return;
    const conn = await this.acquire();
    try {
      const worker = this.#worker;
      if (this.#closed || !worker) return;
      const done = await new Promise<{ reset: boolean }>((resolve) => {
        const timer = setTimeout(() => resolve({ reset: false }), QUIET_TIMEOUT_MS);
        this.#pendingDone = (m) => {
          clearTimeout(timer);
          this.#pendingDone = null;
          resolve(m);
        };
        worker.postMessage('go');
      });
      this.state.quietMoments++;
      if (done.reset) this.state.resets++;
    } finally {
      await this.release(conn);
    }
  }

  /** Stops watching and stops the thread (before the connection closes, so its final checkpoint has the file to itself). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#watch) clearInterval(this.#watch);
    const worker = this.#worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    const timer = setTimeout(() => void worker.terminate(), 2000);
    await exited;
    clearTimeout(timer);
  }
}
