// Cache invalidation across processes (issue #34): after a change commits, its writer publishes what
// changed; every process (this one at once, the others through Redis pub/sub on
// `${REDIS_PREFIX}invalidate`) drops what it cached of it. Caches built on the bus (`SharedCache`)
// answer only while the bus can hear every other process: Redis configured, its command connection
// up and the subscriber subscribed. Otherwise they are bypassed, and each time the subscriber
// (re)subscribes they start empty, since messages published meanwhile are lost.
import type { Knex } from 'knex';
import type { Redis } from 'ioredis';
import type { SharedRedis } from '../../redis.ts';
import type { Logger } from '../../log.ts';
import { newId } from '../../crypto.ts';
import { ambient } from '../../db/ambient.ts';

/** What changed: an API key (by id), a team's fields a key record carries (by team id), or a program row (by id). */
export interface Invalidation {
  kind: 'key' | 'team' | 'program';
  id: string;
}

/** Called for every invalidation, or with `reset` when everything cached must go (messages may have been missed). */
export type InvalidationHandler = (change: Invalidation | 'reset') => void;

/** The longest any cached entry lives, whatever the bus hears: a bound on staleness should a message be lost. */
export const CACHE_TTL_MS = 5000;
/** How long a publish waits for a command connection that is not up yet (a CLI run that just opened it). */
const PUBLISH_WAIT_MS = 2000;
const KINDS = new Set(['key', 'team', 'program']);

/** Publishes and hears invalidations; without Redis it only dispatches within this process. */
export class InvalidationBus {
  readonly #handlers: InvalidationHandler[] = [];
  readonly #pending = new Set<Promise<void>>();
  /** Tells this process's own messages apart when Redis echoes them back. */
  readonly #origin = newId();
  readonly #channel: string;
  #sub: Redis | null = null;
  #subscribed = false;
  #closed = false;
  #generation = 0;

  constructor(
    private readonly redis: SharedRedis | null,
    private readonly log: Logger,
  ) {
    this.#channel = `${redis?.prefix ?? ''}invalidate`;
  }

  /** Whether caches may answer now: the subscription is live (opened here on first ask) and commands reach Redis. */
  get caching(): boolean {
    if (!this.redis) return false;
    if (!this.#sub) this.listen();
    return this.#subscribed && this.redis.ready;
  }

  /**
   * Counts invalidations and resets heard so far: a cache stores what it read only when no
   * invalidation arrived while it read (it might have read the row just before the change committed).
   */
  get generation(): number {
    return this.#generation;
  }

  /** Opens the subscription (idempotent; `serve` calls it at start so the first requests can already be cached). */
  listen(): void {
    if (!this.redis || this.#sub) return;
    const sub = (this.#sub = this.redis.subscriber());
    sub.on('message', (channel: string, text: string) => {
      if (channel === this.#channel) this.#heard(text);
    });
    // ioredis resubscribes by itself after a reconnect; subscribing again here tells us when it is done.
    sub.on('ready', () => this.#subscribe(sub));
    sub.on('close', () => this.#lost());
    if (sub.status === 'ready') this.#subscribe(sub);
  }

  /** Adds a handler for every invalidation, this process's own included. */
  subscribe(handler: InvalidationHandler): void {
    this.#handlers.push(handler);
  }

  /** Applies `change` here at once and sends it to every other process. Call it after the change committed. */
  publish(change: Invalidation): void {
    // Inside a keyed request's transaction (server/db/ambient.ts) the change commits with it, later.
    const a = ambient();
    if (a) {
      a.trx.executionPromise.then(
        () => this.publish(change),
        () => undefined,
      );
      return;
    }
    this.#apply(change);
    if (!this.redis) return;
    const sent = this.#send(JSON.stringify({ ...change, from: this.#origin })).finally(() => this.#pending.delete(sent));
    this.#pending.add(sent);
  }

  /** `publish` once `q` commits (its outermost transaction), or now when `q` is no transaction; nothing if it rolls back. */
  publishAfterCommit(q: Knex | Knex.Transaction, change: Invalidation): void {
    const root = outermost(q);
    if (!root) return this.publish(change);
    root.executionPromise.then(
      () => this.publish(change),
      () => undefined,
    );
  }

  /**
   * Waits for the publishes of changes that just committed: their after-commit callbacks run as
   * microtasks of the commit, so one turn of the event loop lets them start, then `flush`.
   */
  async settled(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.flush();
  }

  /** Waits for the publishes under way (before the Redis connection closes: a CLI run exits right after its change). */
  async flush(): Promise<void> {
    while (this.#pending.size) await Promise.all([...this.#pending]);
  }

  /** Sends what is under way and stops answering from caches; call before the Redis connection closes. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    this.#subscribed = false;
    this.#apply('reset');
  }

  #apply(change: Invalidation | 'reset'): void {
    this.#generation++;
    for (const handler of this.#handlers) handler(change);
  }

  #heard(text: string): void {
    let msg: { kind?: unknown; id?: unknown; from?: unknown };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.from === this.#origin || typeof msg.kind !== 'string' || !KINDS.has(msg.kind) || typeof msg.id !== 'string') return;
    this.#apply({ kind: msg.kind as Invalidation['kind'], id: msg.id });
  }

  #subscribe(sub: Redis): void {
    sub.subscribe(this.#channel).then(
      () => {
        if (sub.status !== 'ready' || this.#closed) return;
        // Whatever was cached before may have missed messages while the subscription was down.
        this.#apply('reset');
        this.#subscribed = true;
      },
      () => undefined,
    );
  }

  #lost(): void {
    if (!this.#subscribed) return;
    this.#subscribed = false;
    this.#apply('reset');
    if (!this.#closed) this.log.warn('invalidation subscription lost; caches bypassed until it is back');
  }

  async #send(text: string): Promise<void> {
    const redis = this.redis!;
    try {
      if (!redis.ready) await readyWithin(redis.client, PUBLISH_WAIT_MS);
      await redis.client.publish(this.#channel, text);
    } catch (err) {
      // Other processes are then stale for at most CACHE_TTL_MS (or not at all, if they lost Redis too and bypass their caches).
      this.log.warn('invalidation not published; other processes may answer from cache until its ttl', { error: String((err as Error)?.message ?? err).slice(0, 200) });
    }
  }
}

/** The transaction whose commit makes `q`'s writes visible: its outermost one, or null outside a transaction. */
export function outermost(q: Knex | Knex.Transaction): Knex.Transaction | null {
  if ((q as Knex.Transaction).isTransaction !== true) return null;
  // knex keeps a nested transaction's parent (a savepoint's executionPromise settles at release, before the commit).
  let t = q as Knex.Transaction & { parentTransaction?: Knex.Transaction };
  while (t.parentTransaction) t = t.parentTransaction as typeof t;
  return t;
}

function readyWithin(client: Redis, ms: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error('redis not ready'));
    }, ms);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
  });
}

/**
 * A bounded cache whose entries the bus invalidates: answers only while `bus.caching`, keeps at
 * most `max` entries (least recently used go first) for at most CACHE_TTL_MS each.
 */
export class SharedCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly bus: InvalidationBus,
    private readonly max: number,
    /** Which entries a change makes stale (`reset` clears everything without asking). */
    stale: (change: Invalidation, key: string, value: V) => boolean,
  ) {
    bus.subscribe((change) => {
      if (change === 'reset') return this.#entries.clear();
      for (const [key, entry] of this.#entries) if (stale(change, key, entry.value)) this.#entries.delete(key);
    });
  }

  /** Whether the cache is in use now; when false, read the source and do not `set`. */
  get enabled(): boolean {
    return this.bus.caching;
  }

  /** The live entry for `key`, or undefined (also whenever the cache is bypassed). */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (!this.bus.caching || entry.expires <= performance.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    // Re-inserted last: the Map's order is the eviction order.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores what a read that began at bus generation `since` found, unless anything was invalidated meanwhile. */
  set(key: string, value: V, since: number): void {
    if (since !== this.bus.generation || !this.bus.caching) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    // performance.now, not the injected clock: this bounds staleness in real time, whatever domain time a test sets.
    this.#entries.set(key, { value, expires: performance.now() + CACHE_TTL_MS });
  }

  /** How many entries are held (tests and diagnostics). */
  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Per-program lists kept between transactions (a program's live reward configurations, its
 * listening webhooks), through a `SharedCache` keyed by program id: read once per program until a
 * change to that program is published. A transaction that changed a program's list (`wrote`) neither
 * takes nor gives, since what it reads is not committed yet; its change is published for every
 * process once it commits.
 */
export class ProgramLists<V> {
  readonly #cache: SharedCache<V>;
  /** Outermost transactions that changed a list. */
  readonly #writers = new WeakSet<object>();

  constructor(
    private readonly bus: InvalidationBus,
    max: number,
  ) {
    this.#cache = new SharedCache(bus, max, (change, programId) => change.kind === 'program' && change.id === programId);
  }

  #wroteIn(trx: Knex.Transaction): boolean {
    return this.#writers.has(outermost(trx) ?? trx);
  }

  /** The list kept for the program, unless `trx` changed one. */
  get(trx: Knex.Transaction, programId: string): V | undefined {
    return this.#wroteIn(trx) ? undefined : this.#cache.get(programId);
  }

  /** The bus generation to pass to `set`, taken before reading. */
  get generation(): number {
    return this.bus.generation;
  }

  /** Keeps what `trx` read, unless it changed a list or anything was invalidated since `since`. */
  set(trx: Knex.Transaction, programId: string, value: V, since: number): void {
    if (this.#cache.enabled && !this.#wroteIn(trx)) this.#cache.set(programId, value, since);
  }

  /** Before a change of the program's list in `trx`: marks `trx`, and publishes the program once it commits. */
  wrote(trx: Knex.Transaction, programId: string): void {
    this.#writers.add(outermost(trx) ?? trx);
    this.bus.publishAfterCommit(trx, { kind: 'program', id: programId });
  }
}
