import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/connect.ts';
import type { SharedRedis } from '../../redis.ts';
import { consume, databaseLimiter, memoryLimiter, storeLimiter } from '../limits.ts';
import { RateLimitedError } from '../../errors.ts';
import { SharedBudget, type BudgetCharge } from './shared-budget.ts';

const WINDOW_S = 60;

/** One budget's state for the standard headers. */
interface PolicyState {
  token: string;
  /** Its `RateLimit-Policy` item, built once. */
  policy: string;
  charge: BudgetCharge;
}

const policyItem = (token: string, points: number, windowS = WINDOW_S) => `"${token}";q=${points};w=${windowS}`;
/** Sign-in link requests are counted over 15 minutes, the links' lifetime. */
const LOGIN_WINDOW_S = 15 * 60;

/** Which of a program's budgets a call is charged to. */
export type ProgramBudget = 'calls' | 'visits';

/**
 * Participant-API budgets. Per caller, in memory (this process's, or with WORKERS > 1 the cluster
 * primary's, shared by every worker: `memoryLimiter`): per IP for session creation, per IP and
 * client instance for everything else (visitors behind one NAT each have their own budget). Per
 * program, so one program's traffic cannot starve the others: one budget for visits and a smaller
 * one for every other call, in memory or, with RATE_LIMIT_STORE=database, shared by all processes
 * through the `rate_limits` table in batches (`SharedBudget`) rather than a write per visit. With
 * RATE_LIMIT_STORE=redis every budget, per caller and per program, is an exact count in Redis (one
 * round trip per charge, no batching: docs/decisions.md), with the memory count as its fallback.
 */
export class MobileLimits {
  readonly #sessions: RateLimiterAbstract;
  readonly #calls: RateLimiterAbstract;
  readonly #program: Record<ProgramBudget, { token: string; name: string; policy: string; charge: (key: string) => Promise<BudgetCharge> }>;
  readonly #sessionPolicy: string;
  readonly #callPolicy: string;
  readonly #loginIp: RateLimiterAbstract;
  readonly #loginEmail: RateLimiterAbstract;
  readonly #loginIpPolicy: string;
  readonly #loginEmailPolicy: string;

  constructor(
    private readonly config: Config,
    db: Db,
    redis: SharedRedis | null = null,
  ) {
    // Per caller: never a database write per visit; in Redis when that is the store.
    const perCaller = (keyPrefix: string, points: number) => {
      const base = { keyPrefix, points, duration: WINDOW_S };
      return config.limits.store === 'redis' ? storeLimiter(config, db, redis, base) : memoryLimiter(config, base);
    };
    this.#sessions = perCaller('m_ses', config.mobile.sessionsPerIpPerMinute);
    this.#calls = perCaller('m_cli', config.mobile.ratePerMinute);
    const budget = (keyPrefix: string, points: number) => {
      const base = { keyPrefix, points, duration: WINDOW_S };
      if (config.limits.store !== 'database') {
        const limiter = storeLimiter(config, db, redis, base);
        return async (key: string): Promise<BudgetCharge> => {
          const { res, over } = await consume(limiter, key);
          return { over, remaining: Math.max(0, res.remainingPoints), resetMs: res.msBeforeNext };
        };
      }
      const shared = new SharedBudget(databaseLimiter(db, base), { points });
      return (key: string) => shared.charge(key);
    };
    const m = config.mobile;
    this.#program = {
      calls: { token: 'program', name: 'PROGRAM', policy: policyItem('program', m.programCallsPerMinute), charge: budget('m_prg', m.programCallsPerMinute) },
      visits: { token: 'program-visits', name: 'PROGRAM_VISITS', policy: policyItem('program-visits', m.programVisitsPerMinute), charge: budget('m_pvis', m.programVisitsPerMinute) },
    };
    // Exact counts (no batching: the budgets are a handful), shared by every process with a Redis or database store.
    const exact = (keyPrefix: string, points: number): RateLimiterAbstract => {
      const base = { keyPrefix, points, duration: LOGIN_WINDOW_S };
      return storeLimiter(config, db, redis, base);
    };
    this.#loginIp = exact('m_lip', m.loginLinksPerIp);
    this.#loginEmail = exact('m_lem', m.loginLinksPerEmail);
    this.#loginIpPolicy = policyItem('login-ip', m.loginLinksPerIp, LOGIN_WINDOW_S);
    this.#loginEmailPolicy = policyItem('login-email', m.loginLinksPerEmail, LOGIN_WINDOW_S);
    this.#sessionPolicy = policyItem('ip', m.sessionsPerIpPerMinute);
    this.#callPolicy = policyItem('client', m.ratePerMinute);
  }

  /** Charges session creation to the caller's address, then to the program's call budget. */
  async session(ip: string, programId: string): Promise<Record<string, string>> {
    const caller = await this.#caller(this.#sessions, ip, 'ip', this.#sessionPolicy);
    if (caller.charge.over) throw limited([caller], 'IP', 'Too many sessions from this network address. Slow down and retry later.');
    return this.#chargeProgram(caller, programId, 'calls');
  }

  /** Charges a call to the caller's address and client instance, then to the program's visit or call budget. */
  async call(ip: string, instanceId: string, programId: string, budget: ProgramBudget): Promise<Record<string, string>> {
    const caller = await this.#caller(this.#calls, `${ip}|${instanceId}`, 'client', this.#callPolicy);
    if (caller.charge.over) throw limited([caller], 'CLIENT', 'Too many requests from this client. Slow down and retry later.');
    return this.#chargeProgram(caller, programId, budget);
  }

  /**
   * Charges a sign-in link request to the caller's address, then to the email address (`emailKey`,
   * per program), whether or not the email belongs to a participant, so a 429 reveals nothing.
   */
  async loginLink(ip: string, programId: string, emailKey: string): Promise<void> {
    const byIp = await this.#caller(this.#loginIp, ip, 'login-ip', this.#loginIpPolicy);
    if (byIp.charge.over) throw limited([byIp], 'LOGIN_LINK_IP', 'Too many sign-in links requested from this network address. Retry later.');
    const byEmail = await this.#caller(this.#loginEmail, `${programId}|${emailKey}`, 'login-email', this.#loginEmailPolicy);
    if (byEmail.charge.over) throw limited([byIp, byEmail], 'LOGIN_LINK_EMAIL', 'Too many sign-in links requested for this email address. Check your inbox, or retry later.');
  }

  async #caller(limiter: RateLimiterAbstract, key: string, token: string, policy: string): Promise<PolicyState> {
    const { res, over } = await consume(limiter, key);
    return { token, policy, charge: { over, remaining: Math.max(0, res.remainingPoints), resetMs: res.msBeforeNext } };
  }

  // A caller over its own budget is refused before the program is charged, so one client cannot spend its program's budget.
  async #chargeProgram(caller: PolicyState, programId: string, budget: ProgramBudget): Promise<Record<string, string>> {
    const b = this.#program[budget];
    const program: PolicyState = { token: b.token, policy: b.policy, charge: await b.charge(programId) };
    if (program.charge.over) {
      throw limited([caller, program], b.name, budget === 'visits' ? 'This program receives too many visits right now. Keep the visit queued and retry later.' : 'This program receives too many requests right now. Retry later.');
    }
    return headers([caller, program]);
  }
}

/** The REST API's standard headers (`RateLimit-Policy`, `RateLimit`) over every policy charged, in order. */
function headers(states: PolicyState[]): Record<string, string> {
  return {
    'RateLimit-Policy': states.length === 1 ? states[0]!.policy : `${states[0]!.policy}, ${states[1]!.policy}`,
    RateLimit: states.map((s) => `"${s.token}";r=${s.charge.remaining};t=${Math.max(0, Math.ceil(s.charge.resetMs / 1000))}`).join(', '),
  };
}

/** 429 with the standard headers and `Retry-After` from the policy that refused (the last one charged). */
function limited(states: PolicyState[], policyName: string, message: string): RateLimitedError {
  const h = headers(states);
  const refused = states[states.length - 1]!;
  h['Retry-After'] = String(Math.max(1, Math.ceil(refused.charge.resetMs / 1000)));
  return new RateLimitedError(policyName, message, h);
}
