import crypto from 'node:crypto';
import type { Clock } from '../../clock.ts';

/** Session tokens last an hour; the client asks for a new one when a call answers 403. */
export const SESSION_TTL_S = 3600;

/** A verified session: one client instance of one program. */
export interface MobileSession {
  programId: string;
  /** The client's stable per-install id (lower-case UUID). */
  instanceId: string;
  expiresAt: number;
  /** Started with the program's X-Public-Key (a native app) rather than from an allowed page. */
  app: boolean;
}

/** Token prefixes: a page's session and an app's (the prefix is signed with the rest). */
const PREFIX = 's1';
const APP_PREFIX = 'a1';
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Short-lived session tokens of the participant API, `s1.<program>.<instance>.<expiry>.<signature>`
 * (`a1.…` for a session an app started with the program's public key):
 * stateless (HMAC with a key derived from the instance secret), so checking one on the visit path
 * costs a hash, not a database read.
 */
export class MobileSessions {
  readonly #key: Buffer;
  // Tokens already verified: a client sends the same one on every call for an hour.
  readonly #verified = new Map<string, MobileSession>();

  constructor(
    instanceSecret: string,
    private readonly clock: Clock,
  ) {
    this.#key = crypto.createHmac('sha256', instanceSecret).update('refloop:mobile-session:v1').digest();
  }

  /** Issues a session for a client instance of a program (the caller checked the program's credentials). */
  issue(programId: string, instanceId: string, app = false): { sessionToken: string; expiresIn: number; expiresAt: number } {
    const expiresAt = this.clock.now() + SESSION_TTL_S * 1000;
    const body = `${app ? APP_PREFIX : PREFIX}.${programId}.${instanceId}.${expiresAt.toString(36)}`;
    return { sessionToken: `${body}.${this.#mac(body)}`, expiresIn: SESSION_TTL_S, expiresAt };
  }

  /** The session a token carries: `invalid` when forged or malformed, `expired` when its hour is over. */
  verify(token: string): MobileSession | 'invalid' | 'expired' {
    const known = this.#verified.get(token);
    if (known) return known.expiresAt > this.clock.now() ? known : 'expired';
    if (token.length > 256) return 'invalid';
    const parts = token.split('.');
    if (parts.length !== 5 || (parts[0] !== PREFIX && parts[0] !== APP_PREFIX) || !ID.test(parts[1]!) || !UUID.test(parts[2]!)) return 'invalid';
    const body = `${parts[0]}.${parts[1]}.${parts[2]}.${parts[3]}`;
    const expected = Buffer.from(this.#mac(body));
    const given = Buffer.from(parts[4]!);
    if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return 'invalid';
    const expiresAt = parseInt(parts[3]!, 36);
    if (!Number.isSafeInteger(expiresAt)) return 'invalid';
    if (expiresAt <= this.clock.now()) return 'expired';
    const session = { programId: parts[1]!, instanceId: parts[2]!, expiresAt, app: parts[0] === APP_PREFIX };
    if (this.#verified.size >= 100_000) this.#verified.clear();
    this.#verified.set(token, session);
    return session;
  }

  #mac(body: string): string {
    return crypto.createHmac('sha256', this.#key).update(body).digest('base64url').slice(0, 22);
  }
}
