import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

// PostgreSQL may abort a transaction that did nothing wrong: a deadlock victim (40P01) or a
// serialization failure (40001). Every domain write runs in a top-level transaction opened by
// `knex.transaction(fn)` (or `Db.grouped` / `Db.batch`, which end in it), so that is the one place
// that runs the whole transaction again. SQLite has one writer and never raises either.

/** SQLSTATEs after which the whole transaction is safe to run again: nothing of it was committed. */
const RETRYABLE = new Set(['40001', '40P01']);

/** Runs of one transaction before its last error is answered (a 503, see `translateDbError`). */
export const TRANSACTION_ATTEMPTS = 5;

/** Whether `err` is a PostgreSQL deadlock or serialization failure: the transaction may simply run again. */
export function isRetryableTxError(err: unknown): boolean {
  return RETRYABLE.has(String((err as { code?: unknown } | null)?.code ?? ''));
}

/** What a retry is logged with; the db layer has no Koa context, so the HTTP layer lends it the request id. */
const scope = new AsyncLocalStorage<{ requestId: string }>();

/** Runs `fn` with `requestId` visible to the db layer's retry logs. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return scope.run({ requestId }, fn);
}

/** Where retries are reported (the app's logger; silent until `openDb` is given one). */
export interface RetryLog {
  warn(msg: string, fields?: Record<string, unknown>): void;
}

/** A short random pause before the next run, growing with the attempt, so the deadlocked pair does not meet again in step. */
function backoff(attempt: number): Promise<void> {
  const ms = Math.round(attempt * (5 + Math.random() * 20));
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Wraps a PostgreSQL knex instance's `transaction(fn)` so a deadlock or serialization failure runs
 * `fn` again in a new transaction, up to `TRANSACTION_ATTEMPTS` runs. Only the instance is patched:
 * nested `trx.transaction(…)` savepoints belong to the outer run and are retried with it. `fn` must
 * therefore keep its effects inside the transaction (or tied to `trx.executionPromise`, which only
 * the committed run fulfils) and build any result it returns afresh on each run.
 */
export function retryTransactions(knex: Knex, log: () => RetryLog | undefined): void {
  const original = knex.transaction.bind(knex) as (fn?: unknown, config?: unknown) => unknown;
  const transaction = (fn?: unknown, config?: unknown): unknown => {
    // `transaction()` / `transaction(config)` hand out a transaction the caller drives: not ours to rerun.
    if (typeof fn !== 'function') return original(fn, config);
    return runRetrying(() => original(fn, config) as Promise<unknown>, log);
  };
  Object.defineProperty(knex, 'transaction', { value: transaction, configurable: true, writable: true });
}

/** Runs `attempt` until it settles with anything but a retryable error, or the attempts run out. */
export async function runRetrying<T>(attempt: () => Promise<T>, log: () => RetryLog | undefined): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isRetryableTxError(err)) throw err;
      const fields = {
        requestId: scope.getStore()?.requestId ?? null,
        sqlState: (err as { code?: string }).code,
        attempt: n,
        error: String((err as Error)?.message ?? err).slice(0, 300),
      };
      if (n >= TRANSACTION_ATTEMPTS) {
        log()?.warn('transaction failed after retries', fields);
        throw err;
      }
      log()?.warn('transaction retried', fields);
      await backoff(n);
    }
  }
}
