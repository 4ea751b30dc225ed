import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import { newId, newSecret, sha256 } from '../../crypto.ts';
import { SCOPES, isScope, type Scope } from '../../../shared/scopes.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';

/**
 * Where a key came from; account-creation keys are replaced at the owner's first sign-in.
 * `MCP_OAUTH` marks an MCP connection's access token acting as a key (never stored in api_keys).
 */
export type KeyOrigin = 'ACCOUNT_CREATION' | 'DASHBOARD' | 'ROTATION' | 'SIGN_IN' | 'CLI' | 'MCP_OAUTH' | 'CONSOLE';

/** What a presented API key resolves to. */
export interface KeyRecord {
  id: string;
  teamId: string;
  scopes: Scope[];
  programIds: string[] | null;
  origin: KeyOrigin;
  revokedAt: number | null;
  revokedReason: string | null;
  teamDisabled: boolean;
  ownerEmailVerified: boolean;
  plan: string;
  hasPaymentMethod: boolean;
  trialEndsAt: number | null;
  verificationStatus: string;
  /** The signed-in person a console session stands for (origin CONSOLE, console-access.ts); never set on an API key. */
  owner?: { userId: string; email: string; role: 'OWNER' | 'ADMIN' | 'MEMBER'; manageApi: boolean; teamName: string };
}

/** The team half of a key record from a row that joined `teams` (its columns under their own names). */
export function teamFields(row: any): Pick<KeyRecord, 'teamId' | 'teamDisabled' | 'ownerEmailVerified' | 'plan' | 'hasPaymentMethod' | 'trialEndsAt' | 'verificationStatus'> {
  return {
    teamId: row.team_id,
    teamDisabled: Boolean(row.disabled),
    ownerEmailVerified: Boolean(row.owner_email_verified),
    plan: row.plan,
    hasPaymentMethod: Boolean(row.has_payment_method),
    trialEndsAt: row.trial_ends_at == null ? null : Number(row.trial_ends_at),
    verificationStatus: row.verification_status,
  };
}

/** A key as listed (never the secret). */
export interface KeySummary {
  id: string;
  prefix: string;
  label: string | null;
  scopes: Scope[];
  programIds: string[] | null;
  origin: KeyOrigin;
  createdAt: number;
  revokedAt: number | null;
  revokedReason: string | null;
}

const LOOKUP_SQL = `SELECT k.id, k.team_id, k.scopes, k.program_ids, k.origin, k.revoked_at, k.revoked_reason,
  t.disabled, t.owner_email_verified, t.plan, t.has_payment_method, t.trial_ends_at, t.verification_status
  FROM api_keys k JOIN teams t ON t.id = k.team_id WHERE k.hash = ?`;
const KEY_PREFIX = 'sk_';
const DISPLAY_LEN = 11; // "sk_" + 8 characters

/** Parses and validates a scope list ("a,b" or array); every scope when `all`. */
export function parseScopes(input: string | string[] | undefined): Scope[] {
  const list = (Array.isArray(input) ? input : String(input ?? '').split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0) throw new ValidationError('At least one scope is required.', [{ field: 'scopes', code: 'REQUIRED', message: 'Choose at least one scope.' }]);
  const bad = list.filter((s) => !isScope(s));
  if (bad.length) {
    throw new ValidationError(`Unknown scope: ${bad.join(', ')}`, [{ field: 'scopes', code: 'INVALID_SCOPE', message: `Valid scopes: ${SCOPES.join(', ')}` }]);
  }
  return [...new Set(list as Scope[])];
}

/** API keys: created shown once, stored as SHA-256 plus a display prefix, revoked or rotated in place. */
export class Keys {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Creates a key and returns the secret, which is never retrievable again. */
  async create(
    q: Knex | Knex.Transaction,
    input: { teamId: string; scopes: Scope[]; programIds?: string[] | null; origin: KeyOrigin; label?: string | null; userId?: string | null },
  ): Promise<{ id: string; secret: string; prefix: string }> {
    for (;;) {
      const secret = KEY_PREFIX + newSecret(24);
      const prefix = secret.slice(0, DISPLAY_LEN);
      const id = newId();
      const clash = await q('api_keys').where({ prefix }).first('id');
      if (clash) continue;
      await q('api_keys').insert({
        id,
        team_id: input.teamId,
        prefix,
        hash: sha256(secret),
        scopes: JSON.stringify(input.scopes),
        program_ids: input.programIds && input.programIds.length ? JSON.stringify(input.programIds) : null,
        origin: input.origin,
        label: input.label ?? null,
        created_by_user_id: input.userId ?? null,
        created_at: this.clock.now(),
      });
      return { id, secret, prefix };
    }
  }

  /** Resolves a presented secret (hot path: one indexed join, a prepared statement on SQLite). */
  async lookup(secret: string): Promise<KeyRecord | null> {
    const hash = sha256(secret);
    const row = await this.db.get<any>(LOOKUP_SQL, hash);
    if (!row) return null;
    return {
      id: row.id,
      scopes: JSON.parse(row.scopes),
      programIds: row.program_ids ? JSON.parse(row.program_ids) : null,
      origin: row.origin,
      revokedAt: row.revoked_at == null ? null : Number(row.revoked_at),
      revokedReason: row.revoked_reason,
      ...teamFields(row),
    };
  }

  /** Replaces the key used for the request: the old one dies at once, the new one keeps its grants. */
  async rotate(q: Knex.Transaction, keyId: string): Promise<{ id: string; secret: string; prefix: string }> {
    const old = await q('api_keys').where({ id: keyId }).whereNull('revoked_at').forUpdate().first();
    if (!old) throw new NotFoundError('API key not found.');
    const created = await this.create(q, {
      teamId: old.team_id,
      scopes: JSON.parse(old.scopes),
      programIds: old.program_ids ? JSON.parse(old.program_ids) : null,
      origin: 'ROTATION',
      label: old.label,
    });
    await q('api_keys').where({ id: keyId }).update({ revoked_at: this.clock.now(), revoked_reason: 'ROTATED', replaced_by: created.id });
    return created;
  }

  /** Revokes a key by its display prefix (within a team when given). Returns false when none matched. */
  async revokeByPrefix(prefix: string, teamId?: string): Promise<boolean> {
    let q = this.db.knex('api_keys').where({ prefix }).whereNull('revoked_at');
    if (teamId) q = q.andWhere({ team_id: teamId });
    const n = await q.update({ revoked_at: this.clock.now(), revoked_reason: 'REVOKED' });
    return n > 0;
  }

  /** Lists a team's keys, newest first. */
  async list(teamId: string, opts: { includeRevoked?: boolean } = {}): Promise<KeySummary[]> {
    let q = this.db.knex('api_keys').where({ team_id: teamId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
    if (!opts.includeRevoked) q = q.whereNull('revoked_at');
    const rows = await q;
    return rows.map((r: any) => ({
      id: r.id,
      prefix: r.prefix,
      label: r.label,
      scopes: JSON.parse(r.scopes),
      programIds: r.program_ids ? JSON.parse(r.program_ids) : null,
      origin: r.origin,
      createdAt: Number(r.created_at),
      revokedAt: r.revoked_at == null ? null : Number(r.revoked_at),
      revokedReason: r.revoked_reason,
    }));
  }
}
