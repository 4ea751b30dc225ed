import cluster from 'node:cluster';
import { RateLimiterCluster, RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterSQLite, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import type { Db } from '../db/connect.ts';
import type { SharedRedis } from '../redis.ts';
import { RateLimitedError, UnavailableError } from '../errors.ts';
import { SharedInFlight } from './shared-inflight.ts';
import { detached } from '../db/ambient.ts';

/** One team policy of the spec's Limits table. */
interface Policy {
  /** Header word: Second | Minute | Hour. */
  word: 'Second' | 'Minute' | 'Hour';
  /** `policyName` on a 429. */
  name: 'SECOND' | 'MINUTE' | 'HOUR';
  points: number;
  windowSeconds: number;
  limiter: RateLimiterAbstract;
}

/** Result of charging the team budget: headers to send, and the error to throw when over. */
export interface TeamCharge {
  headers: Record<string, string>;
  error: RateLimitedError | null;
}

const HEADER_PREFIXES = ['Service', 'GrowSurf'] as const;

/** Wrong second-factor codes a member may type in WRONG_CODES_WINDOW_S before a lockout (issue #35: "five wrong codes → limited"). */
export const WRONG_CODES_PER_USER = 5;
/** Wrong codes from one IP across members in the same window. */
export const WRONG_CODES_PER_IP = 20;
const WRONG_CODES_WINDOW_S = 900;

/** How far apart two readings of one fixed window's reset time may be (clock reads, store latency); further apart is a new window. */
const IP_WINDOW_JITTER_MS = 1000;

/**
 * Every REST limit: the per-IP public budget, the per-team second/minute/hour policies, the write
 * slowdown counter, account-creation and verification-email limits (all through rate-limiter-flexible,
 * in Redis or the database so several processes share one budget, or in memory), plus the
 * concurrent requests per IP and the identical requests in flight: across processes in Redis when
 * there is one, else per process (and per process whenever Redis does not answer).
 */
export class Limits {
  readonly policies: Policy[];
  readonly #ip: RateLimiterAbstract;
  readonly #writes: RateLimiterAbstract;
  readonly accountCreation: RateLimiterAbstract;
  readonly verificationEmail: RateLimiterAbstract;
  /** Owner sign-in attempts, per email and per IP: the brake on password guessing besides scrypt. */
  readonly signInPerEmail: RateLimiterAbstract;
  readonly signInPerIp: RateLimiterAbstract;
  /** Wrong second-factor codes (sign-in, re-authentication, enrolment), per member and per IP (issue #35). */
  readonly wrongCodesPerUser: RateLimiterAbstract;
  readonly wrongCodesPerIp: RateLimiterAbstract;
  /** Invitation emails (points = addresses) per sender per day and per team per hour: stricter than the team budgets. */
  readonly invitesPerParticipant: RateLimiterAbstract;
  readonly invitesPerTeam: RateLimiterAbstract;
  /** Emails to one participant through `POST …/participant/{p}/email`, per team per hour. */
  readonly participantEmails: RateLimiterAbstract;
  /** Test emails from the console (EP2), per team per hour: the brake on a loop of tests. */
  readonly testEmails: RateLimiterAbstract;
  /** MCP dynamic client registrations per IP per hour (the MCP SDK's own cap), counted in the shared store like the team budgets, so every process shares it. */
  readonly clientRegistration: RateLimiterAbstract;
  readonly #inFlightPerIp = new Map<string, number>();
  /** The public budget as the last charge of an IP with requests in flight left it (ms epoch of the reset). */
  readonly #lastIpCharge = new Map<string, { remaining: number; resetAt: number }>();
  readonly #inFlightRequests = new Set<string>();
  /** Identical requests in flight across processes; null without Redis. */
  readonly #sharedRequests: SharedInFlight | null;
  /** Concurrent requests per IP across processes: with RATE_LIMIT_STORE=redis only. */
  readonly #sharedSlots: SharedInFlight | null;

  constructor(
    private readonly config: Config,
    db: Db,
    redis: SharedRedis | null = null,
  ) {
    const make = (keyPrefix: string, points: number, duration: number): RateLimiterAbstract => storeLimiter(config, db, redis, { keyPrefix, points, duration });
    this.#sharedRequests = redis ? new SharedInFlight(redis) : null;
    this.#sharedSlots = config.limits.store === 'redis' ? this.#sharedRequests : null;
    const l = config.limits;
    this.policies = [
      { word: 'Second', name: 'SECOND', points: l.second.points, windowSeconds: l.second.windowSeconds, limiter: make('t5s', l.second.points, l.second.windowSeconds) },
      { word: 'Minute', name: 'MINUTE', points: l.minute, windowSeconds: 60, limiter: make('t1m', l.minute, 60) },
      { word: 'Hour', name: 'HOUR', points: l.hour, windowSeconds: 3600, limiter: make('t1h', l.hour, 3600) },
    ];
    this.#ip = make('ip', l.ipPerMinute, 60);
    this.#writes = make('wr', Number.MAX_SAFE_INTEGER, 60);
    this.accountCreation = make('acct', l.accountCreationPerHour, 3600);
    this.verificationEmail = make('vmail', l.verificationEmailPerHour, 3600);
    this.signInPerEmail = make('signin_e', l.signInPerEmail15m, 900);
    this.signInPerIp = make('signin_ip', l.signInPerEmail15m * 10, 900);
    this.wrongCodesPerUser = make('tfa_u', WRONG_CODES_PER_USER, WRONG_CODES_WINDOW_S);
    this.wrongCodesPerIp = make('tfa_ip', WRONG_CODES_PER_IP, WRONG_CODES_WINDOW_S);
    this.invitesPerParticipant = make('inv_p', l.invitesPerParticipantPerDay, 86_400);
    this.invitesPerTeam = make('inv_t', l.invitesPerTeamPerHour, 3600);
    this.participantEmails = make('pmail', l.participantEmailsPerTeamPerHour, 3600);
    this.clientRegistration = make('oauth_reg', CLIENT_REGISTRATIONS_PER_HOUR, 3600);
    this.testEmails = make('tmail', TEST_EMAILS_PER_HOUR, 3600);
  }

  /** Charges the public per-IP budget (before authentication); standard headers describe only it. */
  async chargeIp(ip: string): Promise<{ headers: Record<string, string>; error: RateLimitedError | null }> {
    const res = await consume(this.#ip, ip);
    const remaining = Math.max(0, res.res.remainingPoints);
    // Remembered while the IP has requests in flight, for a CONCURRENCY 429 that charges nothing.
    // Charges of one IP can come back out of order (a database store answers each on its own
    // connection), so within one window the lowest remaining count is the latest state.
    if (this.#inFlightPerIp.has(ip)) {
      const resetAt = Date.now() + res.res.msBeforeNext;
      const prev = this.#lastIpCharge.get(ip);
      if (!prev || remaining < prev.remaining || resetAt - prev.resetAt > IP_WINDOW_JITTER_MS) this.#lastIpCharge.set(ip, { remaining, resetAt });
    }
    const reset = Math.max(0, Math.ceil(res.res.msBeforeNext / 1000));
    const headers = this.#ipHeaders(remaining, reset);
    if (!res.over) return { headers, error: null };
    headers['Retry-After'] = String(Math.max(1, reset));
    return { headers, error: new RateLimitedError('IP', 'Too many requests from this network address. Slow down and retry later.', headers) };
  }

  /** The standard headers of the public per-IP budget (docs/errors.md "Rate-limit headers"). */
  #ipHeaders(remaining: number, resetSeconds: number): Record<string, string> {
    return {
      'RateLimit-Policy': `"ip";q=${this.config.limits.ipPerMinute};w=60`,
      RateLimit: `"ip";r=${remaining};t=${resetSeconds}`,
    };
  }

  /**
   * The per-IP budget's headers for a request refused before it was charged (429 CONCURRENCY): from
   * the IP's last charge in this process (one of its requests in flight made it), else read from the
   * store without consuming. A store that cannot answer leaves them out rather than turning the 429
   * into a 503.
   */
  async #ipHeadersUncharged(ip: string): Promise<Record<string, string>> {
    const last = this.#lastIpCharge.get(ip);
    if (last) return this.#ipHeaders(last.remaining, Math.max(0, Math.ceil((last.resetAt - Date.now()) / 1000)));
    try {
      const res = await this.#ip.get(ip);
      if (!res) return this.#ipHeaders(this.config.limits.ipPerMinute, 0);
      return this.#ipHeaders(Math.max(0, res.remainingPoints), Math.max(0, Math.ceil(res.msBeforeNext / 1000)));
    } catch {
      return {};
    }
  }

  /** Charges the team's second/minute/hour budgets (after authentication). */
  async chargeTeam(teamId: string): Promise<TeamCharge> {
    const results = await Promise.all(this.policies.map((p) => consume(p.limiter, teamId)));
    const headers: Record<string, string> = {};
    const policyParts: string[] = [];
    const stateParts: string[] = [];
    let hit: { policy: Policy; ms: number } | null = null;
    results.forEach(({ res, over }, i) => {
      const p = this.policies[i]!;
      const remaining = Math.max(0, res.remainingPoints);
      const reset = Math.max(0, Math.ceil(res.msBeforeNext / 1000));
      const token = p.word.toLowerCase();
      policyParts.push(`"${token}";q=${p.points};w=${p.windowSeconds}`);
      stateParts.push(`"${token}";r=${remaining};t=${reset}`);
      for (const prefix of HEADER_PREFIXES) {
        headers[`${prefix}-RateLimit-${p.word}-Limit`] = String(p.points);
        headers[`${prefix}-RateLimit-${p.word}-Remaining`] = String(remaining);
      }
      if (over && (!hit || res.msBeforeNext > hit.ms)) hit = { policy: p, ms: res.msBeforeNext };
      if (over) for (const prefix of HEADER_PREFIXES) headers[`${prefix}-Retry-After-${p.word}-Milliseconds`] = String(Math.max(1, Math.ceil(res.msBeforeNext)));
    });
    headers['RateLimit-Policy'] = policyParts.join(', ');
    headers.RateLimit = stateParts.join(', ');
    if (!hit) return { headers, error: null };
    const h = hit as { policy: Policy; ms: number };
    headers['Retry-After'] = String(Math.max(1, Math.ceil(h.ms / 1000)));
    return {
      headers,
      error: new RateLimitedError(h.policy.name, `Rate limit exceeded for the ${h.policy.word.toLowerCase()} policy. Retry after ${headers['Retry-After']} seconds.`, headers),
    };
  }

  /**
   * The milliseconds until a member (or an IP) may try a second-factor code again after five wrong
   * ones (twenty from one IP) in 15 minutes; 0 when they may try now. Only wrong codes count, so a
   * member who types their code right is never slowed.
   */
  async codeLockout(userId: string, ip: string): Promise<number> {
    try {
      const [u, i] = await Promise.all([this.wrongCodesPerUser.get(userId), this.wrongCodesPerIp.get(ip)]);
      const wait = (r: RateLimiterRes | null, most: number) => (r && r.consumedPoints >= most ? Math.max(1000, r.msBeforeNext) : 0);
      return Math.max(wait(u, WRONG_CODES_PER_USER), wait(i, WRONG_CODES_PER_IP));
    } catch {
      throw new UnavailableError('Rate limiting is temporarily unavailable. Try again shortly.');
    }
  }

  /** Counts one wrong second-factor code; returns the lockout it started (ms), 0 when more tries are left. */
  async wrongCode(userId: string, ip: string): Promise<number> {
    const [u, i] = await Promise.all([consume(this.wrongCodesPerUser, userId), consume(this.wrongCodesPerIp, ip)]);
    const wait = (c: { res: RateLimiterRes }, most: number) => (c.res.consumedPoints >= most ? Math.max(1000, c.res.msBeforeNext) : 0);
    return Math.max(wait(u, WRONG_CODES_PER_USER), wait(i, WRONG_CODES_PER_IP));
  }

  /** The 429 of a member locked out of second-factor codes. */
  static codeLockedError(ms: number): RateLimitedError {
    const seconds = Math.max(1, Math.ceil(ms / 1000));
    return new RateLimitedError('TWO_FACTOR', `Too many wrong codes. Try again in ${Math.ceil(seconds / 60)} minutes.`, { 'Retry-After': String(seconds) });
  }

  /** Charges one point of a special-purpose limiter; over the limit → 429 with `Retry-After` and the given policy name. */
  async enforce(limiter: RateLimiterAbstract, key: string, policyName: string, message: string): Promise<void> {
    const { over, res } = await consume(limiter, key);
    if (over) throw new RateLimitedError(policyName, message, { 'Retry-After': String(Math.max(1, Math.ceil(res.msBeforeNext / 1000))) });
  }

  /**
   * Charges `count` invitation emails to the sender's daily and the team's hourly budget. A refused
   * batch costs nothing: rate-limiter-flexible counts refused points too, so they are given back.
   */
  async chargeInvites(teamId: string, senderKey: string, count: number): Promise<void> {
    const l = this.config.limits;
    const steps: Array<[RateLimiterAbstract, string, string, string]> = [
      [this.invitesPerParticipant, senderKey, 'INVITES_PER_PARTICIPANT', `A participant may send at most ${l.invitesPerParticipantPerDay} invitations per day.`],
      [this.invitesPerTeam, teamId, 'INVITES_PER_TEAM', `This team may send at most ${l.invitesPerTeamPerHour} invitations per hour.`],
    ];
    const charged: Array<[RateLimiterAbstract, string]> = [];
    const refund = async (list: Array<[RateLimiterAbstract, string]>) => {
      for (const [limiter, key] of list) await limiter.reward(key, count).catch(() => undefined);
    };
    for (const [limiter, key, policy, message] of steps) {
      try {
        await limiter.consume(key, count);
        charged.push([limiter, key]);
      } catch (err) {
        await refund(err instanceof RateLimiterRes ? [...charged, [limiter, key]] : charged);
        if (!(err instanceof RateLimiterRes)) throw new UnavailableError('Rate limiting is temporarily unavailable. Try again shortly.');
        throw new RateLimitedError(policy, message, { 'Retry-After': String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))) });
      }
    }
  }

  /** Charges one participant email to the team's hourly budget. */
  async chargeParticipantEmail(teamId: string): Promise<void> {
    await this.enforce(this.participantEmails, teamId, 'PARTICIPANT_EMAIL', `This team may email participants at most ${this.config.limits.participantEmailsPerTeamPerHour} times per hour.`);
  }

  /** Counts a write for the team and returns the slowdown delay: (n − threshold) × step ms. */
  async writeDelay(teamId: string): Promise<number> {
    const { res } = await consume(this.#writes, teamId);
    const over = res.consumedPoints - this.config.limits.writeSlowdownAfter;
    return over > 0 ? over * this.config.limits.writeSlowdownStepMs : 0;
  }

  /**
   * The gate in front of every public endpoint: takes one of the IP's concurrent slots (429
   * CONCURRENCY past the cap), charges the public per-IP budget (its headers go to `setHeaders`),
   * runs `fn`, and frees the slot however `fn` ends.
   */
  async guardIp<T>(ip: string, setHeaders: (headers: Record<string, string>) => void, fn: () => Promise<T>): Promise<T> {
    // Without shared slots the local count answers synchronously (no promise hop per request).
    const leave = this.#sharedSlots ? await this.#takeSlot(ip) : this.#localSlot(ip);
    if (!leave) {
      const headers = { ...(await this.#ipHeadersUncharged(ip)), 'Retry-After': '1' };
      throw new RateLimitedError('CONCURRENCY', `Too many concurrent requests from this address (limit ${this.config.limits.concurrencyPerIp}).`, headers);
    }
    try {
      const pub = await this.chargeIp(ip);
      setHeaders(pub.headers);
      if (pub.error) throw pub.error;
      return await fn();
    } finally {
      leave();
    }
  }

  /**
   * One of the IP's concurrent slots: counted in Redis across processes when it answers, else in
   * this process (`enterIp`). A slot Redis gave is counted in this process too, so the per-process
   * count that streams and an outage fall back on includes every request running here, and the
   * process's own slots (streams) also cap it.
   */
  async #takeSlot(ip: string): Promise<(() => void) | null> {
    const shared = this.#sharedSlots ? await this.#sharedSlots.enterIp(ip, this.config.limits.concurrencyPerIp) : null;
    if (shared === false) return null;
    if (shared === null) return this.#localSlot(ip);
    // Slots this process holds that Redis does not count (streamed downloads, `enterIp`) still count here.
    if ((this.#inFlightPerIp.get(ip) ?? 0) >= this.config.limits.concurrencyPerIp) {
      shared.leave();
      return null;
    }
    this.#inFlightPerIp.set(ip, (this.#inFlightPerIp.get(ip) ?? 0) + 1);
    return () => {
      shared.leave();
      this.leaveIp(ip);
    };
  }

  /** One of the IP's slots in this process (`enterIp`), released by the function returned; null at the cap. */
  #localSlot(ip: string): (() => void) | null {
    return this.enterIp(ip) ? () => this.leaveIp(ip) : null;
  }

  /** Marks one more request in flight for an IP in this process; false when it would pass the concurrency cap. */
  enterIp(ip: string): boolean {
    const n = this.#inFlightPerIp.get(ip) ?? 0;
    if (n >= this.config.limits.concurrencyPerIp) return false;
    this.#inFlightPerIp.set(ip, n + 1);
    return true;
  }

  /** Releases a slot taken by `enterIp`. */
  leaveIp(ip: string): void {
    const n = (this.#inFlightPerIp.get(ip) ?? 1) - 1;
    if (n <= 0) {
      this.#inFlightPerIp.delete(ip);
      this.#lastIpCharge.delete(ip);
    } else this.#inFlightPerIp.set(ip, n);
  }

  /** Registers an in-flight request fingerprint; false when an identical one is already running. */
  enterRequest(fingerprint: string): boolean {
    if (this.#inFlightRequests.has(fingerprint)) return false;
    this.#inFlightRequests.add(fingerprint);
    return true;
  }

  /** Releases a fingerprint taken by `enterRequest`. */
  leaveRequest(fingerprint: string): void {
    this.#inFlightRequests.delete(fingerprint);
  }

  /**
   * Claims an in-flight request fingerprint across processes (Redis `SET NX`, expiring after a
   * minute should this process die holding it); false when an identical request already runs. When
   * Redis does not answer, the claim is this process's (`enterRequest`'s set).
   */
  async claimRequest(fingerprint: string): Promise<boolean> {
    if (this.#inFlightRequests.has(fingerprint)) return false;
    const shared = this.#sharedRequests ? await this.#sharedRequests.claim(fingerprint) : null;
    if (shared !== null) return shared;
    if (this.#sharedRequests?.holds(fingerprint)) return false;
    return this.enterRequest(fingerprint);
  }

  /** Releases a fingerprint taken by `claimRequest`, where it was taken; never rejects. */
  async releaseRequest(fingerprint: string): Promise<void> {
    if (this.#sharedRequests?.holds(fingerprint)) return this.#sharedRequests.release(fingerprint);
    this.leaveRequest(fingerprint);
  }
}

/** A limiter in the configured store (RATE_LIMIT_STORE): Redis, the database or memory. */
export function storeLimiter(config: Config, db: Db, redis: SharedRedis | null, base: { keyPrefix: string; points: number; duration: number }): RateLimiterAbstract {
  if (config.limits.store === 'redis') {
    if (!redis) throw new Error('RATE_LIMIT_STORE=redis needs the Redis connection (REDIS_URL)');
    return redisLimiter(config, redis, base);
  }
  return config.limits.store === 'memory' ? memoryLimiter(config, base) : databaseLimiter(db, base);
}

/**
 * A limiter counted in Redis, so every process shares it, with the memory limiter this process
 * would otherwise use as its insurance: while Redis does not answer (not connected: no command is
 * sent; or a command failed), charges are counted there, and from Redis again once it is back. A
 * Redis outage so never refuses or fails a request; for its length each process counts alone.
 */
export function redisLimiter(config: Config, redis: SharedRedis, base: { keyPrefix: string; points: number; duration: number }): RateLimiterAbstract {
  return new RateLimiterRedis({
    ...base,
    keyPrefix: `${redis.prefix}rl:${base.keyPrefix}`,
    storeClient: redis.client,
    useRedisPackage: false,
    rejectIfRedisNotReady: true,
    insuranceLimiter: memoryLimiter(config, base),
  });
}

/**
 * A limiter counted in the `rate_limits` table, so every process shares it. Both stores take knex's
 * own connection (raw statements, no query builder), serialised with our transactions.
 */
export function databaseLimiter(db: Db, base: { keyPrefix: string; points: number; duration: number }): RateLimiterAbstract {
  const store = { ...base, storeClient: db.knex, storeType: 'knex', tableName: 'rate_limits', tableCreated: true, clearExpiredByTimeout: false };
  if (db.dialect !== 'pg') return new RateLimiterSQLite(store as any);
  const limiter = new RateLimiterPostgres(store as any);
  // A charge stands whatever becomes of the request: it runs outside the request transaction
  // (server/db/ambient.ts; every audited write runs in one, issue #35) on a connection of its own,
  // so a refused write's rollback never gives its points back. SQLite's one connection is the
  // request's, so there the charge joins it (SQLite's default store is memory).
  const methods = limiter as unknown as Record<'consume' | 'penalty' | 'reward' | 'get' | 'delete', (...args: unknown[]) => Promise<unknown>>;
  for (const m of ['consume', 'penalty', 'reward', 'get', 'delete'] as const) {
    const f = methods[m].bind(limiter);
    methods[m] = (...args: unknown[]) => detached(() => f(...args));
  }
  return limiter;
}

/**
 * A limiter counted in memory: this process's own, or, in a worker of `refloop serve` with WORKERS > 1
 * (server/cluster.ts), the cluster primary's, asked over IPC, so every worker on the host charges one
 * count (no database write). A primary that does not answer within 2 s is a store failure (503).
 */
export function memoryLimiter(config: Config, base: { keyPrefix: string; points: number; duration: number }): RateLimiterAbstract {
  return config.workers > 1 && cluster.isWorker ? new RateLimiterCluster({ ...base, timeoutMs: 2000 }) : new RateLimiterMemory(base);
}

/** Dynamic client registrations one address may make per hour (the MCP SDK's default, kept). */
export const CLIENT_REGISTRATIONS_PER_HOUR = 20;
/** Test emails (EP2) a team may send per hour. */
export const TEST_EMAILS_PER_HOUR = 20;

/** Consumes one point; a rejection is "over", a store failure is a 503 (never an accidental allow or a 500). */
export async function consume(limiter: RateLimiterAbstract, key: string): Promise<{ res: RateLimiterRes; over: boolean }> {
  try {
    return { res: await limiter.consume(key, 1), over: false };
  } catch (err) {
    if (err instanceof RateLimiterRes) return { res: err, over: true };
    throw new UnavailableError('Rate limiting is temporarily unavailable. Try again shortly.');
  }
}
