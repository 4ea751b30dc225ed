import crypto from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Program } from '../programs/programs.ts';
import { completeDocument } from '../programs/program-config.ts';

/** What a verified receipt says: this program's participant `referrerId` had their link visited at `visitAt`. */
export interface ReceiptClaims {
  programId: string;
  referrerId: string;
  visitAt: number;
  expiresAt: number;
}

const DAY_MS = 86_400_000;
const PREFIX = 'r1';
const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The attribution options a receipt is judged by: cookie window and first/last click. */
export function attributionOptions(program: Pick<Program, 'type' | 'goal' | 'documents'>): { cookieWindowMs: number; model: 'FIRST_CLICK' | 'LAST_CLICK' } {
  const o = completeDocument('options', program, program.documents.options);
  return { cookieWindowMs: Number(o.referralCookieWindowDays) * DAY_MS, model: o.attributionModel === 'FIRST_CLICK' ? 'FIRST_CLICK' : 'LAST_CLICK' };
}

/**
 * Visit receipts (seed Mobile rule 3): compact HMAC-signed statements `r1.<program>.<referrer>.<visit
 * time>.<expiry>.<signature>` that a client keeps and attaches to participant creation. Signed with
 * a key derived from the instance secret (no database read on the visit path); the program id in
 * the signed text binds a receipt to its program.
 */
export class Receipts {
  readonly #key: Buffer;

  constructor(
    instanceSecret: string,
    private readonly clock: Clock,
  ) {
    this.#key = crypto.createHmac('sha256', instanceSecret).update('refloop:visit-receipt:v1').digest();
  }

  /** A receipt for one referred visit; it expires when the cookie window closes. */
  sign(programId: string, referrerId: string, visitAt: number, cookieWindowMs: number): string {
    const body = `${PREFIX}.${programId}.${referrerId}.${visitAt.toString(36)}.${(visitAt + cookieWindowMs).toString(36)}`;
    return `${body}.${this.#mac(body)}`;
  }

  /** The claims of a receipt with a valid signature, else null (expiry is the caller's question). */
  verify(receipt: unknown): ReceiptClaims | null {
    if (typeof receipt !== 'string' || receipt.length > 256) return null;
    const parts = receipt.split('.');
    if (parts.length !== 6 || parts[0] !== PREFIX || !ID.test(parts[1]!) || !ID.test(parts[2]!)) return null;
    const body = parts.slice(0, 5).join('.');
    const expected = Buffer.from(this.#mac(body));
    const given = Buffer.from(parts[5]!);
    if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return null;
    const visitAt = parseInt(parts[3]!, 36);
    const expiresAt = parseInt(parts[4]!, 36);
    if (!Number.isSafeInteger(visitAt) || !Number.isSafeInteger(expiresAt)) return null;
    return { programId: parts[1]!, referrerId: parts[2]!, visitAt, expiresAt };
  }

  /**
   * The referrer the program's attribution model picks from a participant's receipts: the earliest
   * (FIRST_CLICK) or latest (LAST_CLICK) visit still inside the cookie window, judged by the window
   * the receipt was issued with and today's, whichever ends first. Forged, expired and other-program
   * receipts are ignored. Null when none is valid; the caller resolves the id like any `referredBy`.
   */
  apply(program: Pick<Program, 'id' | 'type' | 'goal' | 'documents'>, receipts: readonly unknown[]): string | null {
    const { cookieWindowMs, model } = attributionOptions(program);
    const now = this.clock.now();
    let best: ReceiptClaims | null = null;
    for (const r of receipts.slice(0, 20)) {
      const c = this.verify(r);
      // A minute of slack for clock differences between processes.
      if (!c || c.programId !== program.id || c.visitAt > now + 60_000) continue;
      if (Math.min(c.expiresAt, c.visitAt + cookieWindowMs) <= now) continue;
      if (!best || (model === 'FIRST_CLICK' ? c.visitAt < best.visitAt : c.visitAt > best.visitAt)) best = c;
    }
    return best?.referrerId ?? null;
  }

  #mac(body: string): string {
    return crypto.createHmac('sha256', this.#key).update(body).digest('base64url').slice(0, 22);
  }
}
