// What is in flight, counted in Redis so every process sees it: each IP's concurrent requests (a
// sorted set of slots that expire, so a crashed process's slots free themselves) and identical
// requests (a key per fingerprint, SET NX with a short expiry that the running request refreshes,
// deleted only by its owner). Every method answers `null` when Redis cannot (not connected, or the
// command failed): the caller then decides from this process's own count. A release that could not
// reach Redis is sent again when Redis is back, so a short outage does not hold slots or
// fingerprints until their expiry.
import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import type { SharedRedis } from '../redis.ts';

/** How long a slot lives without a refresh: the most a crashed process's slot keeps an IP's place. */
export const SLOT_TTL_MS = 15_000;
/** A request still running refreshes its slot this often. */
const SLOT_REFRESH_MS = 5_000;
/**
 * How long an identical-request claim lives without a refresh: the most a process that died holding
 * it keeps the retry of its request waiting (a 409 until then). A request still running refreshes
 * its claim every CLAIM_REFRESH_MS, so a slow one keeps it (issue #34: with one minute and no refresh,
 * a keyed write cut by a SIGKILL could not be retried on another host for a minute).
 */
export const CLAIM_TTL_MS = 15_000;
/** A request still running refreshes its claim this often. */
const CLAIM_REFRESH_MS = 5_000;
/** Releases kept for Redis's return; past this many the oldest are left to expire. */
const MAX_PENDING_RELEASES = 10_000;

// Scripts run on Redis's own clock (TIME), so hosts whose clocks disagree still expire slots alike.
// `replicate_commands` is the default from Redis 7 and needed before it to write after TIME.
const NOW = `if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;
/** KEYS[1] the IP's slots; ARGV: cap, ttl ms, slot id. 1 when taken, 0 at the cap. */
const ENTER_SLOT = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;
/** KEYS[1] the IP's slots; ARGV: ttl ms, slot id. Pushes a live slot's expiry out (a slot already expired stays gone). */
const REFRESH_SLOT = `${NOW}
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[2]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1`;
/** KEYS[1] a claim; ARGV[1] the owner's token. Deletes the claim only while it is still that owner's. */
const RELEASE_CLAIM = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;
/** KEYS[1] a claim; ARGV: the owner's token, ttl ms. Pushes the claim's expiry out only while it is still that owner's. */
const REFRESH_CLAIM = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

interface Scripts {
  refloopEnterSlot(key: string, cap: number, ttlMs: number, slot: string): Promise<number>;
  refloopRefreshSlot(key: string, ttlMs: number, slot: string): Promise<number>;
  refloopReleaseClaim(key: string, token: string): Promise<number>;
  refloopRefreshClaim(key: string, token: string, ttlMs: number): Promise<number>;
}

/** A slot taken in Redis: released with `leave`. */
export interface SharedSlot {
  leave(): void;
}

/** Concurrent-request slots and identical-request claims shared by every process through Redis. */
export class SharedInFlight {
  readonly #client: Redis & Scripts;
  readonly #slotsPrefix: string;
  readonly #claimsPrefix: string;
  /** This process's claims in Redis: fingerprint → token and the timer that refreshes it. */
  readonly #claims = new Map<string, { token: string; refresh: NodeJS.Timeout }>();
  /** Releases that failed, sent when Redis is ready again. */
  readonly #pending = new Map<string, () => Promise<unknown>>();
  readonly #process = crypto.randomBytes(6).toString('hex');
  #seq = 0;

  constructor(private readonly redis: SharedRedis) {
    const client = redis.client;
    // Defining twice (two Limits on one connection, as in tests) replaces the same script.
    client.defineCommand('refloopEnterSlot', { numberOfKeys: 1, lua: ENTER_SLOT });
    client.defineCommand('refloopRefreshSlot', { numberOfKeys: 1, lua: REFRESH_SLOT });
    client.defineCommand('refloopReleaseClaim', { numberOfKeys: 1, lua: RELEASE_CLAIM });
    client.defineCommand('refloopRefreshClaim', { numberOfKeys: 1, lua: REFRESH_CLAIM });
    this.#client = client as Redis & Scripts;
    this.#slotsPrefix = `${redis.prefix}conc:`;
    this.#claimsPrefix = `${redis.prefix}inflight:`;
    client.on('ready', () => void this.#retryReleases());
  }

  /** Takes one of the IP's slots across processes: the slot, `false` at the cap, `null` when Redis cannot answer. */
  async enterIp(ip: string, cap: number): Promise<SharedSlot | false | null> {
    if (!this.redis.ready) return null;
    const key = this.#slotsPrefix + ip;
    const slot = `${this.#process}:${++this.#seq}`;
    let taken: number;
    try {
      taken = await this.#client.refloopEnterSlot(key, cap, SLOT_TTL_MS, slot);
    } catch {
      return null;
    }
    if (taken !== 1) return false;
    // A long request (an upload, an MCP stream) keeps its slot; one that ends sooner never refreshes.
    const refresh = setInterval(() => void this.#client.refloopRefreshSlot(key, SLOT_TTL_MS, slot).catch(() => undefined), SLOT_REFRESH_MS);
    refresh.unref();
    let left = false;
    return {
      leave: () => {
        if (left) return;
        left = true;
        clearInterval(refresh);
        void this.#release(`slot:${slot}`, () => this.#client.zrem(key, slot));
      },
    };
  }

  /** Claims a request fingerprint across processes: true when ours, false when another holds it, `null` when Redis cannot answer. */
  async claim(fingerprint: string): Promise<boolean | null> {
    if (!this.redis.ready) return null;
    if (this.#claims.has(fingerprint)) return false;
    const token = `${this.#process}:${++this.#seq}`;
    const key = this.#claimsPrefix + fingerprint;
    try {
      const ok = await this.#client.set(key, token, 'PX', CLAIM_TTL_MS, 'NX');
      if (ok !== 'OK') return false;
    } catch {
      return null;
    }
    const refresh = setInterval(() => void this.#client.refloopRefreshClaim(key, token, CLAIM_TTL_MS).catch(() => undefined), CLAIM_REFRESH_MS);
    refresh.unref();
    this.#claims.set(fingerprint, { token, refresh });
    return true;
  }

  /** True when this process holds the fingerprint in Redis. */
  holds(fingerprint: string): boolean {
    return this.#claims.has(fingerprint);
  }

  /** Releases a fingerprint this process claimed in Redis (a claim another owner took after ours expired is left alone). */
  async release(fingerprint: string): Promise<void> {
    const held = this.#claims.get(fingerprint);
    if (held === undefined) return;
    this.#claims.delete(fingerprint);
    clearInterval(held.refresh);
    const token = held.token;
    const key = this.#claimsPrefix + fingerprint;
    await this.#release(`claim:${token}`, () => this.#client.refloopReleaseClaim(key, token));
  }

  /** Sends a release; one that fails waits for Redis's return. Never rejects. */
  async #release(id: string, send: () => Promise<unknown>): Promise<void> {
    const failed = () => {
      if (this.#pending.size >= MAX_PENDING_RELEASES) this.#pending.delete(this.#pending.keys().next().value!);
      this.#pending.set(id, send);
    };
    if (!this.redis.ready) return failed();
    await send().catch(failed);
  }

  async #retryReleases(): Promise<void> {
    const pending = [...this.#pending];
    this.#pending.clear();
    await Promise.all(pending.map(([id, send]) => send().catch(() => void this.#pending.set(id, send))));
  }
}
