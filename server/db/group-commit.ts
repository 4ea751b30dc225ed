// SQLite group commit: `Db.grouped` on SQLite (callers queued while a transaction runs share the next
// one, each in a savepoint) and `GroupCache`, values kept for the life of one shared transaction.
import type { Knex } from 'knex';
import type Database from 'better-sqlite3';
import { detached } from './ambient.ts';

/** The shared transactions of the SQLite group commit (see `groupCommit` and `GroupCache`). */
const groupTransactions = new WeakSet<object>();
/** Forgets what every `GroupCache` holds for a group transaction whose caller's savepoint was rolled back. */
const groupCacheResets: Array<(trx: object) => void> = [];

/**
 * Values that only the group commit's own statements change, kept for the life of one shared SQLite
 * transaction (nothing else writes while it runs): its callers read a value once and the writer
 * that changes it updates the cached copy in place (`peek`). A caller whose savepoint is rolled
 * back may have changed cached values, so every entry of that transaction is then forgotten. Other
 * transactions (PostgreSQL, plain knex transactions) get no cache: `of` answers null.
 */
export class GroupCache<V> {
  readonly #entries = new WeakMap<object, Map<string, V>>();

  constructor() {
    groupCacheResets.push((trx) => this.#entries.delete(trx));
  }

  /** The entries of `trx` when it is a group-commit transaction, else null (read afresh). */
  of(trx: object): Map<string, V> | null {
    if (!groupTransactions.has(trx)) return null;
    let entries = this.#entries.get(trx);
    if (!entries) this.#entries.set(trx, (entries = new Map()));
    return entries;
  }

  /** The entries `trx` holds already, for the writer that must keep them current. */
  peek(trx: object): Map<string, V> | undefined {
    return this.#entries.get(trx);
  }
}

/** Most callers one shared transaction takes: bounds how long the first of them waits for COMMIT. */
const GROUP_MAX = 64;

interface GroupedCall {
  fn(trx: Knex.Transaction): Promise<unknown>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

/**
 * SQLite group commit. One process writes through one connection, so concurrent write transactions
 * run one after another anyway; what each pays alone is its COMMIT (≈ 0.6 ms to append a referral
 * trigger's ≈ 57 WAL frames, many of them the same index pages as its neighbours'). Callers queue
 * while a transaction runs; the next one takes them all, each in a savepoint.
 */
export function groupCommit(knex: Knex): <T>(fn: (trx: Knex.Transaction) => Promise<T>) => Promise<T> {
  const queue: GroupedCall[] = [];
  let running = false;
  const runBatch = async (): Promise<void> => {
    let batch: GroupedCall[] = [];
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    try {
      await knex.transaction(async (trx) => {
        groupTransactions.add(trx);
        // Taken once the connection is ours: callers that queued while it was busy join this transaction.
        batch = queue.splice(0, GROUP_MAX);
        if (batch.length === 1) {
          // Alone: no savepoint; a failure rolls the transaction back and rejects below.
          outcomes.push({ ok: true, value: await batch[0]!.fn(trx) });
          return;
        }
        // Plain SAVEPOINT statements on the shared transaction: a knex nested transaction cost
        // ≈ 100 µs of JavaScript per caller. Callers therefore share one transaction object (and
        // the per-transaction read caches keyed by it, which stay valid: nothing outside this
        // transaction writes while it runs), and must not leave queries running once they settle.
        const conn = (await (trx.client as { acquireConnection(): Promise<Database.Database> }).acquireConnection()) as Database.Database;
        for (const call of batch) {
          conn.prepare('SAVEPOINT grouped_call').run();
          let value: unknown;
          try {
            value = await call.fn(trx);
          } catch (err) {
            // SQLite may have ended the whole transaction (a full disk, say): then the group fails.
            if (!conn.inTransaction) throw err;
            conn.prepare('ROLLBACK TO grouped_call').run();
            conn.prepare('RELEASE grouped_call').run();
            for (const reset of groupCacheResets) reset(trx);
            outcomes.push({ ok: false, value: err });
            continue;
          }
          conn.prepare('RELEASE grouped_call').run();
          outcomes.push({ ok: true, value });
        }
      });
    } catch (err) {
      // Rolled back or the shared COMMIT failed: nobody's work landed.
      for (const call of batch) call.reject(err);
      return;
    }
    batch.forEach((call, i) => (outcomes[i]!.ok ? call.resolve(outcomes[i]!.value) : call.reject(outcomes[i]!.value)));
  };
  const drain = async (): Promise<void> => {
    try {
      while (queue.length) await runBatch();
    } finally {
      running = false;
    }
  };
  return <T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      // better-sqlite3 answers synchronously, so a request runs to its end in microtasks and the next
      // one is not even parsed until it does: yield to the event loop once, so requests that are
      // already waiting reach this queue and share the transaction.
      if (!running) {
        running = true;
        detached(() => setImmediate(drain));
      }
    });
}
