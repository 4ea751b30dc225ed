import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../../config.ts';
import { consume } from '../limits.ts';
import { RateLimitedError } from '../../errors.ts';

/**
 * Participant-API budgets, in process memory: per IP for session creation, per IP and client
 * instance for everything else (visitors behind one NAT each have their own budget). A database
 * store would put a write on every visit; with several processes each one counts its own share.
 */
export class MobileLimits {
  readonly #sessions: RateLimiterAbstract;
  readonly #calls: RateLimiterAbstract;

  constructor(private readonly config: Config) {
    this.#sessions = new RateLimiterMemory({ keyPrefix: 'm_ses', points: config.mobile.sessionsPerIpPerMinute, duration: 60 });
    this.#calls = new RateLimiterMemory({ keyPrefix: 'm_cli', points: config.mobile.ratePerMinute, duration: 60 });
  }

  /** Charges session creation to the caller's address. */
  session(ip: string): Promise<Record<string, string>> {
    return charge(this.#sessions, ip, 'ip', 'IP', this.config.mobile.sessionsPerIpPerMinute, 'Too many sessions from this network address. Slow down and retry later.');
  }

  /** Charges a call to the caller's address and client instance. */
  call(ip: string, instanceId: string): Promise<Record<string, string>> {
    return charge(this.#calls, `${ip}|${instanceId}`, 'client', 'CLIENT', this.config.mobile.ratePerMinute, 'Too many requests from this client. Slow down and retry later.');
  }
}

/** One point; the REST API's standard headers (`RateLimit-Policy`, `RateLimit`, `Retry-After` on 429) and error object. */
async function charge(limiter: RateLimiterAbstract, key: string, token: string, policyName: string, points: number, message: string): Promise<Record<string, string>> {
  const { res, over } = await consume(limiter, key);
  const reset = Math.max(0, Math.ceil(res.msBeforeNext / 1000));
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"${token}";q=${points};w=60`,
    RateLimit: `"${token}";r=${Math.max(0, res.remainingPoints)};t=${reset}`,
  };
  if (!over) return headers;
  headers['Retry-After'] = String(Math.max(1, reset));
  throw new RateLimitedError(policyName, message, headers);
}
