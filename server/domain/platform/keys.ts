import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import { newId, newSecret, sha256 } from '../../crypto.ts';
import { SCOPES, isScope, type Scope } from '../../../shared/scopes.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import { SharedCache, type InvalidationBus } from './invalidation.ts';

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
  owner?: {
    userId: string;
    email: string;
    role: 'OWNER' | 'ADMIN' | 'MEMBER';
    manageApi: boolean;
    teamName: string;
    /** The console session's stored hash (issue #35: its re-authentication, "this browser", rotation). */
    sessionHash?: string;
    /** Set by an operation that changed the person's privileges: the console answers with this new session token as its cookie. */
    newSessionToken?: string;
  };
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
/** Key records one process keeps (by secret hash) while the invalidation bus is live. */
const KEY_CACHE_SIZE = 10_000;
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

/**
 * API keys: created shown once, stored as SHA-256 plus a display prefix, revoked or rotated in place.
 * With Redis, `lookup` answers from a per-process cache that every change to a key, or to the team
 * fields a record carries, invalidates in every process (invalidation.ts): each such write goes
 * through a method here that publishes after it commits (`revoke`, `teamsChanged`).
 */
export class Keys {
  readonly #cache: SharedCache<KeyRecord> | null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus | null = null,
  ) {
    this.#cache = bus ? new SharedCache<KeyRecord>(bus, KEY_CACHE_SIZE, (change, _hash, key) => (change.kind === 'key' ? key.id === change.id : change.kind === 'team' && key.teamId === change.id)) : null;
  }

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

  /**
   * Resolves a presented secret (hot path: one indexed join, a prepared statement on SQLite; with
   * Redis, from the cache). Unknown secrets are never cached, so a new key needs no invalidation.
   */
  async lookup(secret: string): Promise<KeyRecord | null> {
    const hash = sha256(secret);
    const cache = this.#cache?.enabled ? this.#cache : null;
    const hit = cache?.get(hash);
    if (hit) return { ...hit };
    const since = this.bus?.generation ?? 0;
    const row = await this.db.get<any>(LOOKUP_SQL, hash);
    if (!row) return null;
    const key: KeyRecord = {
      id: row.id,
      scopes: JSON.parse(row.scopes),
      programIds: row.program_ids ? JSON.parse(row.program_ids) : null,
      origin: row.origin,
      revokedAt: row.revoked_at == null ? null : Number(row.revoked_at),
      revokedReason: row.revoked_reason,
      ...teamFields(row),
    };
    if (cache) {
      // Shared between requests: frozen so no caller changes another's grants.
      Object.freeze(key.scopes);
      if (key.programIds) Object.freeze(key.programIds);
      cache.set(hash, Object.freeze({ ...key }), since);
    }
    return key;
  }

  /**
   * Call after writing any column of `teams` that `teamFields` reads (disabled, owner email
   * verified, plan, payment method, trial end, verification status) or deleting teams: every
   * process drops the key records of those teams once `q` commits.
   */
  teamsChanged(q: Knex | Knex.Transaction, teamIds: string[]): void {
    for (const id of teamIds) this.bus?.publishAfterCommit(q, { kind: 'team', id });
  }

  /** Revokes one live key (`reason` ROTATED, REPLACED, REVOKED); false when it was not live. */
  async revoke(q: Knex | Knex.Transaction, keyId: string, reason: string, replacedBy: string | null = null): Promise<boolean> {
    const n = await q('api_keys')
      .where({ id: keyId })
      .whereNull('revoked_at')
      .update({ revoked_at: this.clock.now(), revoked_reason: reason, ...(replacedBy ? { replaced_by: replacedBy } : {}) });
    if (n > 0) this.bus?.publishAfterCommit(q, { kind: 'key', id: keyId });
    return n > 0;
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
    await this.revoke(q, keyId, 'ROTATED', created.id);
    return created;
  }

  /** Revokes a key by its display prefix (within a team when given). Returns false when none matched. */
  async revokeByPrefix(prefix: string, teamId?: string): Promise<boolean> {
    let q = this.db.knex('api_keys').where({ prefix }).whereNull('revoked_at');
    if (teamId) q = q.andWhere({ team_id: teamId });
    const live = await q.first('id');
    return live ? this.revoke(this.db.knex, live.id, 'REVOKED') : false;
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
