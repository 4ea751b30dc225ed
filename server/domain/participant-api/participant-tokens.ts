import crypto from 'node:crypto';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Sealer } from '../../crypto.ts';

/** Participant tokens live 30 days (the official fixture's `expiresIn`, 2592000). */
export const PARTICIPANT_TOKEN_TTL_S = 30 * 24 * 3600;

/** The two per-program secrets kept in `program_secrets`. */
type SecretName = 'participant_token' | 'participant_auth';

// The only header we issue or accept: pinning it refuses `alg: none` and algorithm swaps outright.
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/** The claims of a participant token. */
export interface ParticipantClaims {
  /** Participant id. */
  sub: string;
  /** Program id. */
  pid: string;
  iat: number;
  exp: number;
  typ: 'participant';
}

/**
 * The auto-authentication hash (web-sdk.md §5): lowercase hex HMAC-SHA256 keyed with the program's
 * participant auth secret over the email exactly as the page sends it (no case change).
 */
export function autoAuthHash(secret: string, email: string): string {
  return crypto.createHmac('sha256', secret).update(email, 'utf8').digest('hex');
}

/**
 * Participant tokens (JWT HS256, signed with a per-program secret generated on first use and stored
 * sealed; rotating it revokes every token of the program) and the participant auth secret for
 * auto-authentication. Built on node:crypto: one pinned algorithm needs no JWT library.
 */
export class ParticipantTokens {
  // Opened secrets by program and name, keyed on the sealed text so a rotation elsewhere is seen at once.
  readonly #opened = new Map<string, { sealed: string; plain: string }>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly sealer: Sealer,
  ) {}

  /** Issues a token for a participant of a program (the caller has checked both). */
  async mint(programId: string, participantId: string): Promise<{ participantToken: string; expiresIn: number }> {
    const secret = await this.#secret(programId, 'participant_token', true);
    const iat = Math.floor(this.clock.now() / 1000);
    const claims: ParticipantClaims = { sub: participantId, pid: programId, iat, exp: iat + PARTICIPANT_TOKEN_TTL_S, typ: 'participant' };
    const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return { participantToken: `${body}.${sign(secret!, body)}`, expiresIn: PARTICIPANT_TOKEN_TTL_S };
  }

  /** The participant a token names when it is well formed, signed by this program's current secret and unexpired; else null. */
  async verify(token: string, programId: string): Promise<string | null> {
    if (token.length > 2048) return null;
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== HEADER) return null;
    let claims: Partial<ParticipantClaims>;
    try {
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    if (!claims || claims.typ !== 'participant' || claims.pid !== programId || typeof claims.sub !== 'string' || typeof claims.exp !== 'number') return null;
    const secret = await this.#secret(programId, 'participant_token', false);
    if (!secret) return null;
    const expected = Buffer.from(sign(secret, `${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2]!);
    if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return null;
    if (claims.exp * 1000 <= this.clock.now()) return null;
    return claims.sub;
  }

  /** Replaces the program's signing secret and returns when: every participant token issued so far stops working. */
  async rotateSigningSecret(programId: string): Promise<number> {
    return this.#store(programId, 'participant_token', crypto.randomBytes(32).toString('base64url'));
  }

  /**
   * Creates or replaces the participant auth secret and returns it: the only time it is shown.
   * Hashes made with an earlier secret stop working. `value` lets tests use a known secret.
   */
  async createAuthSecret(programId: string, value = `pas_${crypto.randomBytes(24).toString('base64url')}`): Promise<{ participantAuthSecret: string; createdAt: number }> {
    const createdAt = await this.#store(programId, 'participant_auth', value);
    return { participantAuthSecret: value, createdAt };
  }

  /** When the program's participant auth secret was created, or null when it has none (auto-authentication is off). */
  async authSecretCreatedAt(programId: string): Promise<number | null> {
    const row = await this.db.knex('program_secrets').where({ program_id: programId, name: 'participant_auth' }).first('created_at');
    return row ? Number(row.created_at) : null;
  }

  /** True when `hash` is the auto-authentication hash of `email` under the program's auth secret (constant time). */
  async checkAutoAuth(programId: string, email: string, hash: string): Promise<boolean> {
    const secret = await this.#secret(programId, 'participant_auth', false);
    if (!secret) return false;
    const expected = Buffer.from(autoAuthHash(secret, email));
    const given = Buffer.from(hash.toLowerCase());
    return expected.length === given.length && crypto.timingSafeEqual(expected, given);
  }

  async #store(programId: string, name: SecretName, plain: string): Promise<number> {
    const now = this.clock.now();
    await this.db
      .knex('program_secrets')
      .insert({ program_id: programId, name, value_enc: this.sealer.seal(plain), created_at: now })
      .onConflict(['program_id', 'name'])
      .merge(['value_enc', 'created_at']);
    this.#opened.delete(`${programId}:${name}`);
    return now;
  }

  /** The opened secret (one indexed read; opened again only when the stored value changed). */
  async #secret(programId: string, name: SecretName, create: boolean): Promise<string | null> {
    const sql = 'SELECT value_enc FROM program_secrets WHERE program_id = ? AND name = ?';
    let row = await this.db.get<{ value_enc: string }>(sql, programId, name);
    if (!row && create) {
      await this.db
        .knex('program_secrets')
        .insert({ program_id: programId, name, value_enc: this.sealer.seal(crypto.randomBytes(32).toString('base64url')), created_at: this.clock.now() })
        .onConflict(['program_id', 'name'])
        .ignore();
      row = await this.db.get<{ value_enc: string }>(sql, programId, name);
    }
    if (!row) return null;
    const key = `${programId}:${name}`;
    const cached = this.#opened.get(key);
    if (cached && cached.sealed === row.value_enc) return cached.plain;
    const plain = this.sealer.open(row.value_enc);
    if (plain == null) return null;
    if (this.#opened.size > 10_000) this.#opened.clear();
    this.#opened.set(key, { sealed: row.value_enc, plain });
    return plain;
  }
}

function sign(secret: string, body: string): string {
  return crypto.createHmac('sha256', secret).update(body).digest('base64url');
}
