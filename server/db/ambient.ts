// The request transaction: one database transaction that everything a piece of work does runs in,
// without passing it down. A keyed REST write (Idempotency-Key) runs its whole handler this way, so
// its idempotency record commits in the same transaction as the change it protects (issue #34).
//
// While `withinTransaction(trx, fn)` runs, every statement `fn` starts on the same knex instance
// (query builder, raw, `Db.get`/`all`/`arrays`, `Db.batch`, `Db.grouped`) runs on that
// transaction's connection, and every `knex.transaction(…)` becomes a savepoint in it. Work that
// outlives the request (the job runner, group-commit queues, timers) must not join it: start it
// with `detached(…)`.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

/** The transaction work of the current async context runs in. */
export interface Ambient {
  readonly trx: Knex.Transaction;
  /** The driver connection the transaction holds. */
  readonly conn: unknown;
  /** False once the transaction has settled: work that outlived it goes back to the pool. */
  open: boolean;
  /** What `afterTransaction` queued, for whoever opened the transaction to wait for (`settleAfter`). */
  readonly after: Array<Promise<unknown>>;
}

const scope = new AsyncLocalStorage<Ambient>();
/** Connections held by an open request transaction: releasing one through the pool is a no-op. */
const held = new WeakSet<object>();
/**
 * Request transactions open now. The storage is enabled only while one is: an enabled
 * AsyncLocalStorage turns on Node's promise hooks, which tax every promise of the process (≈ 5 % of
 * a visit, 20 % of `GET /v2/team` on SQLite, measured), so a process serves reads and participant-API
 * traffic without them whenever no REST write is under way. Disabling it leaves no context behind
 * that matters: every transaction it carried has settled (`open` is false).
 */
let open = 0;

/** Whether any request transaction is open (its AsyncLocalStorage, and so Node's promise hooks, enabled). */
export function ambientInUse(): boolean {
  return open > 0;
}

/** The open request transaction of this async context, if any. */
export function ambient(): Ambient | undefined {
  const a = scope.getStore();
  return a?.open ? a : undefined;
}

/**
 * Runs `fn` with `trx` as the request transaction of everything it starts. `after` collects the work
 * `fn` left for after the transaction (`afterTransaction`); pass it to `settleAfter` once the
 * transaction has ended.
 */
export async function withinTransaction<T>(trx: Knex.Transaction, fn: () => Promise<T>, after: Array<Promise<unknown>> = []): Promise<T> {
  const conn = await (trx.client as unknown as { acquireConnection(): Promise<object> }).acquireConnection();
  const a: Ambient = { trx, conn, open: true, after };
  held.add(conn);
  open++;
  try {
    return await scope.run(a, fn);
  } finally {
    a.open = false;
    held.delete(conn);
    if (--open === 0) scope.disable();
  }
}

/** Runs `fn` outside any request transaction: for work that outlives the request (timers, queues, the job runner). */
export function detached<T>(fn: () => T): T {
  // A disabled storage has no context to leave (and `exit` would toggle the promise hooks off and on).
  return open > 0 ? scope.exit(fn) : fn();
}

/**
 * Routes a knex instance's statements into the request transaction when one is open: the pool's
 * `acquireConnection` hands out its connection (and `releaseConnection` leaves it alone), and
 * `knex.transaction(fn)` opens a savepoint in it. Patch after any other wrapper of `transaction`.
 */
export function routeIntoAmbient(knex: Knex): void {
  const client = knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(conn: unknown): Promise<unknown> };
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);
  client.acquireConnection = () => {
    const a = ambient();
    return a ? Promise.resolve(a.conn) : acquire();
  };
  client.releaseConnection = (conn: unknown) => (conn && held.has(conn as object) ? Promise.resolve() : release(conn));
  const transaction = knex.transaction.bind(knex) as (fn?: unknown, config?: unknown) => unknown;
  const routed = (fn?: unknown, config?: unknown): unknown => {
    const a = ambient();
    if (a) return (a.trx.transaction as (fn?: unknown, config?: unknown) => unknown)(fn, config);
    return transaction(fn, config);
  };
  Object.defineProperty(knex, 'transaction', { value: routed, configurable: true, writable: true });
}

/**
 * Runs `fn` once the request transaction has ended, committed or rolled back, outside it, on a
 * connection of its own: for records that must outlive a refusal (the access events of a wrong
 * password). The transaction's opener waits for it before answering (`settleAfter`). Without a
 * request transaction it runs now, and the returned promise settles when it is done. A failure is
 * dropped.
 */
export function afterTransaction(fn: () => Promise<void>): Promise<void> {
  const a = ambient();
  const run = () => detached(fn).catch(() => undefined);
  if (!a) return run();
  a.after.push(a.trx.executionPromise.then(run, run));
  return Promise.resolve();
}

/** Waits for the work a request transaction left for after it (`withinTransaction`'s `after`), including work that work queued. */
export async function settleAfter(after: Array<Promise<unknown>>): Promise<void> {
  while (after.length) await Promise.allSettled(after.splice(0));
}
