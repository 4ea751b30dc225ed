import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { UnavailableError } from '../../errors.ts';

/** The outcome of charging one point. */
export interface BudgetCharge {
  over: boolean;
  /** Points left in the window after this charge (0 when over). */
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/** What a budget needs to know about itself (the window length is the store's). */
export interface BudgetLimits {
  points: number;
}

interface KeyState {
  /** The store's count as of the last answer (every process's charges). */
  base: number;
  /** Points this process has admitted but not yet sent. */
  pending: number;
  /** When the store's window ends; 0 when this process has not yet heard from the store in this window. */
  windowEnds: number;
  /** Over the budget until then: answered from memory, the store is not asked again. */
  blockedUntil: number;
  lastSync: number;
  syncing: Promise<void> | null;
}

/** Budgets below this many points charge the store on every call: too small to batch. */
const EXACT_BELOW = 200;
/** A background sync goes out at least this often while a key takes charges. */
const SYNC_MS = 1000;
const MAX_KEYS = 100_000;

/**
 * A fixed-window budget shared by several processes through a rate-limiter-flexible store (the
 * `rate_limits` table) without a write per request: each process admits against the store's last
 * count plus its own unsent points and sends them in batches (1% of the budget, or every second).
 * The store is asked synchronously for a key's first charge in a window, near the limit (the last
 * 10%) and for small budgets, so the edge is exact; far from it, all processes together can
 * overshoot by at most one batch and one second of traffic each. Once the store says "over", the
 * key is refused from memory until the window resets.
 */
export class SharedBudget {
  readonly #keys = new Map<string, KeyState>();
  readonly #batch: number;
  readonly #exactFrom: number;

  constructor(
    private readonly store: RateLimiterAbstract,
    private readonly limits: BudgetLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.#batch = Math.max(1, Math.floor(limits.points / 100));
    this.#exactFrom = limits.points < EXACT_BELOW ? 0 : limits.points - Math.ceil(limits.points / 10);
  }

  /** Charges one point to `key`; a store failure on a synchronous path is a 503, never an accidental allow. */
  async charge(key: string): Promise<BudgetCharge> {
    const now = this.now();
    let s = this.#keys.get(key);
    if (!s) {
      if (this.#keys.size >= MAX_KEYS) this.#evict(now);
      s = { base: 0, pending: 0, windowEnds: 0, blockedUntil: 0, lastSync: 0, syncing: null };
      this.#keys.set(key, s);
    }
    if (now < s.blockedUntil) return { over: true, remaining: 0, resetMs: s.blockedUntil - now };
    if (s.windowEnds && now >= s.windowEnds) {
      // Unsent points belonged to the window that ended.
      s.base = 0;
      s.pending = 0;
      s.windowEnds = 0;
    }
    const estimate = s.base + s.pending + 1;
    if (!s.windowEnds || estimate > this.#exactFrom) {
      if (s.syncing) await s.syncing;
      const answer = await this.#send(key, s, 1, true);
      const at = this.now();
      return { over: answer.over, remaining: answer.over ? 0 : Math.max(0, this.limits.points - s.base - s.pending), resetMs: Math.max(0, s.windowEnds - at) };
    }
    s.pending++;
    if (!s.syncing && (s.pending >= this.#batch || now - s.lastSync >= SYNC_MS)) {
      s.syncing = this.#send(key, s, 0, false).then(
        () => undefined,
        () => undefined,
      );
    }
    return { over: false, remaining: Math.max(0, this.limits.points - estimate), resetMs: Math.max(0, s.windowEnds - now) };
  }

  /** Sends every unsent point and waits for the store's answers; a store failure keeps them for later. Unsent points lost at exit cost at most one batch. */
  async flush(): Promise<void> {
    await Promise.all([...this.#keys.values()].map((s) => s.syncing));
    await Promise.all(
      [...this.#keys.entries()].filter(([, s]) => s.pending > 0).map(([key, s]) => this.#send(key, s, 0, false).catch(() => undefined)),
    );
  }

  /** Sends this process's unsent points (plus `extra` for the call being decided) and adopts the store's count. */
  async #send(key: string, s: KeyState, extra: number, strict: boolean): Promise<{ over: boolean }> {
    const sent = s.pending;
    const n = sent + extra;
    s.pending = 0;
    s.lastSync = this.now();
    let res: RateLimiterRes;
    let over = false;
    try {
      res = await this.store.consume(key, n);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) {
        s.pending += sent; // sent again with the next sync
        if (!strict) s.syncing = null;
        throw new UnavailableError('Rate limiting is temporarily unavailable. Try again shortly.');
      }
      res = err;
      over = true;
    } finally {
      if (!strict) s.syncing = null;
    }
    const at = this.now();
    s.base = res.consumedPoints;
    s.windowEnds = at + Math.max(1, res.msBeforeNext);
    if (over) s.blockedUntil = s.windowEnds;
    return { over };
  }

  /** Forgets keys whose window ended (the map stays bounded whatever the number of programs). */
  #evict(now: number): void {
    for (const [k, s] of this.#keys) if (!s.syncing && s.windowEnds <= now && s.blockedUntil <= now) this.#keys.delete(k);
    if (this.#keys.size >= MAX_KEYS) this.#keys.clear();
  }
}
