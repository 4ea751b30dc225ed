import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import { newId, newSecret, sha256, type Sealer } from '../../crypto.ts';
import { InvalidStateError, NotAuthorizedError, ValidationError } from '../../errors.ts';
import type { TeamActor } from './owner-rules.ts';
import { matchTotp, newTotpSecret, otpauthUri, qrCodeDataUrl } from './totp.ts';

// Two-factor sign-in for team members (issue #35 part 2): a TOTP secret enrolled from the console
// and confirmed with a code before it counts, stored sealed (the Sealer of owners.ts) and never
// logged; ten single-use recovery codes, stored hashed; browsers remembered for 30 days by a hashed
// device token. Knows nothing of HTTP or of limits: the callers charge wrong codes.

/** How many recovery codes an enrolment makes. */
export const RECOVERY_CODE_COUNT = 10;
/** How long "remember this browser" skips the code. */
export const TRUSTED_DEVICE_TTL_MS = 30 * 24 * 3600 * 1000;

/** What a member's two-factor state is. */
export interface TwoFactorStatus {
  enabled: boolean;
  enabledAt: number | null;
  recoveryCodesLeft: number;
}

/** A code field's refusal, at the field that carries it. */
export function wrongCode(field = 'code'): ValidationError {
  return new ValidationError('That code is not right. Enter the 6-digit code your authenticator app shows now, or one of your recovery codes.', [
    { field, code: 'INVALID_CODE', message: 'Not a current code or an unused recovery code.' },
  ]);
}

/** A recovery code as typed (any case, spaces or dashes) in the form it is hashed. */
function normalRecovery(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

function recoveryHash(userId: string, code: string): string {
  return sha256(`recovery:${userId}:${normalRecovery(code)}`);
}

/** A member's second factor: enrolment, verification, recovery codes and remembered browsers. */
export class TwoFactor {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly sealer: Sealer,
  ) {}

  /** Whether the member has two-factor sign-in on, how long, and how many recovery codes are unused. */
  async status(userId: string): Promise<TwoFactorStatus> {
    const user = await this.db.knex('users').where({ id: userId }).first('totp_enabled_at');
    const left = await this.db.knex('recovery_codes').where({ user_id: userId }).whereNull('used_at').count<{ n: number | string }[]>({ n: '*' });
    const enabledAt = user?.totp_enabled_at == null ? null : Number(user.totp_enabled_at);
    return { enabled: enabledAt !== null, enabledAt, recoveryCodesLeft: Number(left[0]?.n ?? 0) };
  }

  /** Whether the member has two-factor sign-in on. */
  async enabled(userId: string, q: Knex | Knex.Transaction = this.db.knex): Promise<boolean> {
    const user = await q('users').where({ id: userId }).first('totp_enabled_at');
    return user?.totp_enabled_at != null;
  }

  /**
   * Starts (or restarts) an enrolment: a new secret, kept sealed as pending until `confirm` sees a
   * code made from it. 406 when two-factor sign-in is already on (turn it off first).
   */
  async begin(userId: string, email: string): Promise<{ secret: string; uri: string; qrCode: string }> {
    if (await this.enabled(userId)) throw new InvalidStateError('Two-factor sign-in is already on. Turn it off first to enrol another authenticator.');
    const secret = newTotpSecret();
    await this.db.knex('users').where({ id: userId }).update({ totp_pending_enc: this.sealer.seal(secret) });
    const uri = otpauthUri(secret, email);
    return { secret, uri, qrCode: qrCodeDataUrl(uri) };
  }

  /**
   * Turns two-factor sign-in on when `code` comes from the pending secret, and returns the ten
   * recovery codes, shown this once. 406 without a pending enrolment; 400 for a wrong code.
   */
  async confirm(userId: string, code: string): Promise<string[]> {
    const now = this.clock.now();
    return this.db.knex.transaction(async (trx) => {
      const user = await trx('users').where({ id: userId }).first('totp_pending_enc', 'totp_enabled_at');
      if (user?.totp_enabled_at != null) throw new InvalidStateError('Two-factor sign-in is already on.');
      const secret = user?.totp_pending_enc ? this.sealer.open(user.totp_pending_enc) : null;
      if (!secret) throw new InvalidStateError('Start the enrolment first: no authenticator is waiting to be confirmed.');
      const step = matchTotp(secret, code.trim(), now);
      if (step === null) throw wrongCode();
      await trx('users').where({ id: userId }).update({ totp_secret_enc: this.sealer.seal(secret), totp_pending_enc: null, totp_enabled_at: now, totp_last_step: step });
      return this.#newRecoveryCodes(trx, userId);
    });
  }

  /**
   * Makes a fresh set of ten recovery codes for a member with two-factor sign-in on, shown once:
   * every earlier code, used or not, stops working in the same transaction. 406 when it is off.
   */
  async regenerateRecoveryCodes(userId: string): Promise<string[]> {
    return this.db.knex.transaction(async (trx) => {
      if (!(await this.enabled(userId, trx))) throw new InvalidStateError('Two-factor sign-in is off, so there are no recovery codes to replace. Turn it on first.');
      return this.#newRecoveryCodes(trx, userId);
    });
  }

  /** Replaces the member's recovery codes with ten new ones (shown once); the old ones stop working. */
  async #newRecoveryCodes(trx: Knex.Transaction, userId: string): Promise<string[]> {
    const now = this.clock.now();
    await trx('recovery_codes').where({ user_id: userId }).del();
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
      const raw = newId(10);
      return `${raw.slice(0, 5)}-${raw.slice(5)}`;
    });
    await trx('recovery_codes').insert(codes.map((c) => ({ hash: recoveryHash(userId, c), user_id: userId, used_at: null, created_at: now })));
    return codes;
  }

  /** Turns two-factor sign-in off: the secret, the recovery codes and every remembered browser go. */
  async disable(userId: string): Promise<void> {
    await this.db.knex.transaction(async (trx) => {
      await trx('users').where({ id: userId }).update({ totp_secret_enc: null, totp_pending_enc: null, totp_enabled_at: null, totp_last_step: null });
      await trx('recovery_codes').where({ user_id: userId }).del();
      await trx('trusted_devices').where({ user_id: userId }).del();
    });
  }

  /**
   * Checks a second factor: a current TOTP code (each step works once) or an unused recovery code,
   * which is used up. Null when neither matches (or two-factor sign-in is off).
   */
  async verify(userId: string, input: string): Promise<'TOTP' | 'RECOVERY' | null> {
    const code = input.trim();
    if (!code || code.length > 40) return null;
    const now = this.clock.now();
    if (/^\d{6}$/.test(code)) {
      const user = await this.db.knex('users').where({ id: userId }).first('totp_secret_enc', 'totp_last_step');
      const secret = user?.totp_secret_enc ? this.sealer.open(user.totp_secret_enc) : null;
      if (!secret) return null;
      const last = user.totp_last_step == null ? null : Number(user.totp_last_step);
      const step = matchTotp(secret, code, now, last);
      if (step === null) return null;
      // Conditional, so two requests with one code cannot both pass.
      const n = await this.db
        .knex('users')
        .where({ id: userId })
        .where((w) => (last === null ? w.whereNull('totp_last_step') : w.where('totp_last_step', last)))
        .update({ totp_last_step: step });
      return n === 1 ? 'TOTP' : null;
    }
    if (!(await this.enabled(userId))) return null;
    const n = await this.db.knex('recovery_codes').where({ hash: recoveryHash(userId, code), user_id: userId }).whereNull('used_at').update({ used_at: now });
    return n === 1 ? 'RECOVERY' : null;
  }

  /** Remembers this browser for 30 days: the cookie's token, stored only hashed. */
  async trustDevice(userId: string): Promise<string> {
    const token = newSecret(32);
    const now = this.clock.now();
    await this.db.knex('trusted_devices').where({ user_id: userId }).where('expires_at', '<=', now).del();
    await this.db.knex('trusted_devices').insert({ hash: sha256(token), user_id: userId, expires_at: now + TRUSTED_DEVICE_TTL_MS, created_at: now });
    return token;
  }

  /** Whether a device cookie's token is this member's and unexpired. */
  async deviceTrusted(userId: string, token: string | undefined, q: Knex | Knex.Transaction = this.db.knex): Promise<boolean> {
    if (!token || token.length > 100) return false;
    const row = await q('trusted_devices').where({ hash: sha256(token), user_id: userId }).first('expires_at');
    return Boolean(row && Number(row.expires_at) > this.clock.now());
  }
}

/**
 * Sets whether the actor's team requires two-factor sign-in of every member (the team's Owner only).
 * Turning it on requires the Owner's own two-factor sign-in first, so the Owner is never the one locked out.
 */
export async function setTeamRequiresTwoFactor(db: Db, twoFactor: TwoFactor, actor: TeamActor, on: boolean): Promise<void> {
  if (actor.member.role !== 'OWNER') throw new NotAuthorizedError('Only the team’s Owner may change whether two-factor sign-in is required.');
  if (on && !(await twoFactor.enabled(actor.session.userId))) throw new InvalidStateError('Turn on two-factor sign-in for your own account first, then require it of the team.');
  await db.knex('teams').where({ id: actor.member.teamId }).update({ require_two_factor: on });
}
