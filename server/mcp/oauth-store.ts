import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../db/connect.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { newId, newSecret, safeEqual, sha256, type Sealer } from '../crypto.ts';
import type { Scope } from '../../shared/scopes.ts';
import type { McpScope } from './scopes.ts';
import { teamFields, type KeyRecord } from '../domain/platform/keys.ts';
import { canManageKeys } from '../domain/platform/owners.ts';

/** Why an OAuth step failed; the provider maps each to the SDK's OAuth error of the same name. */
export class GrantFailure extends Error {
  constructor(
    readonly kind: 'invalid_grant' | 'invalid_scope' | 'invalid_target',
    message: string,
  ) {
    super(message);
  }
}

/** A registered client as stored (RFC 7591 metadata plus our id and, for confidential clients, the secret). */
export interface StoredClient {
  client_id: string;
  client_secret?: string;
  client_secret_expires_at?: number;
  client_id_issued_at?: number;
  redirect_uris: string[];
  [field: string]: unknown;
}

/** What the consent page approved: one team, the scopes, and the PKCE binding of the request. */
export interface ApprovedRequest {
  clientId: string;
  teamId: string;
  userId: string;
  scopes: McpScope[];
  redirectUri: string;
  codeChallenge: string;
  resource: string | null;
}

/** Tokens as the token endpoint answers them (RFC 6749 §5.1). */
export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** A verified access token: the grant it belongs to, shaped like an API key so REST handlers accept it. */
export interface AccessGrant {
  grantId: string;
  clientId: string;
  resource: string | null;
  expiresAt: number;
  key: KeyRecord;
}

const ACCESS_PREFIX = 'mcpat_';
const REFRESH_PREFIX = 'mcprt_';
const CODE_PREFIX = 'mcpac_';
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

// One indexed round trip: the token, its grant, the team (for the key-shaped record) and the
// approving user's membership, which must still exist and still allow managing keys (what approving
// a connection needs): a member who leaves, or whose role no longer allows it (TM8), takes their
// connections along; they work again if that access comes back.
const ACCESS_SQL = `SELECT g.id AS grant_id, g.client_id, g.team_id, g.scopes AS grant_scopes, g.resource, tk.scopes, tk.expires_at,
  t.disabled, t.owner_email_verified, t.plan, t.has_payment_method, t.trial_ends_at, t.verification_status
  FROM mcp_oauth_tokens tk
  JOIN mcp_oauth_grants g ON g.id = tk.grant_id
  JOIN teams t ON t.id = g.team_id
  JOIN memberships m ON m.team_id = g.team_id AND m.user_id = g.user_id
  WHERE tk.hash = ? AND tk.kind = 'access' AND tk.revoked_at IS NULL AND g.revoked_at IS NULL
  AND (m.role IN ('OWNER', 'ADMIN') OR m.manage_api)`;

/** base64url(SHA-256(verifier)): the S256 transform of RFC 7636 §4.6. */
function s256(verifier: string): string {
  return crypto.createHash('sha256').update(verifier).digest('base64url');
}

/**
 * Storage of the MCP authorization server: registered clients, single-use authorization codes,
 * grants (one team, approved scopes) and their access and refresh tokens, all secrets as SHA-256
 * (the client secret sealed). Every multi-row change runs in one transaction.
 */
export class McpOAuthStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly sealer: Sealer,
  ) {}

  /** Stores a client the SDK's registration handler validated; the secret is sealed, never kept in plain text. */
  async registerClient(client: StoredClient): Promise<StoredClient> {
    const { client_secret, client_secret_expires_at, ...metadata } = client;
    await this.db.knex('mcp_oauth_clients').insert({
      id: client.client_id,
      metadata: JSON.stringify(metadata),
      secret_enc: client_secret ? this.sealer.seal(client_secret) : null,
      secret_expires_at: client_secret ? (client_secret_expires_at ?? null) : null,
      created_at: this.clock.now(),
    });
    return client;
  }

  /** A registered client with its secret opened (the SDK's client authentication compares it), or undefined. */
  async getClient(clientId: string): Promise<StoredClient | undefined> {
    if (!clientId || clientId.length > 64) return undefined;
    const row = await this.db.knex('mcp_oauth_clients').where({ id: clientId }).first();
    if (!row) return undefined;
    const client = JSON.parse(row.metadata) as StoredClient;
    if (row.secret_enc) {
      const secret = this.sealer.open(row.secret_enc);
      // A secret that cannot be opened (SECRET_KEY changed) must not turn the client into a public one.
      client.client_secret = secret ?? newSecret(32);
      if (row.secret_expires_at != null) client.client_secret_expires_at = Number(row.secret_expires_at);
    }
    return client;
  }

  /** Issues a single-use authorization code for an approved request; only its hash is stored. */
  async createCode(req: ApprovedRequest): Promise<string> {
    const code = CODE_PREFIX + newSecret(32);
    const now = this.clock.now();
    await this.db.knex('mcp_oauth_codes').insert({
      hash: sha256(code),
      client_id: req.clientId,
      team_id: req.teamId,
      user_id: req.userId,
      scopes: JSON.stringify(req.scopes),
      redirect_uri: req.redirectUri,
      code_challenge: req.codeChallenge,
      resource: req.resource,
      expires_at: now + this.config.mcp.authCodeTtlMs,
      created_at: now,
    });
    return code;
  }

  /** The PKCE challenge a code was issued for (the SDK interface asks; our exchange checks the verifier itself). */
  async challengeFor(clientId: string, code: string): Promise<string> {
    const row = await this.db.knex('mcp_oauth_codes').where({ hash: sha256(code), client_id: clientId }).first('code_challenge');
    if (!row) throw new GrantFailure('invalid_grant', 'The authorization code is not valid.');
    return row.code_challenge;
  }

  /**
   * Exchanges a code for tokens. The code is spent first, whatever happens next: a wrong verifier
   * or redirect URI burns it, and a code presented twice revokes what the first exchange issued
   * (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3).
   */
  async exchangeCode(clientId: string, code: string, verifier: string | undefined, redirectUri: string | undefined, resource: string | undefined): Promise<IssuedTokens> {
    const hash = sha256(code);
    const now = this.clock.now();
    return this.#committed(async (trx) => {
      const spent = await trx('mcp_oauth_codes').where({ hash }).whereNull('used_at').update({ used_at: now });
      const row = await trx('mcp_oauth_codes').where({ hash }).first();
      if (!row) throw new GrantFailure('invalid_grant', 'The authorization code is not valid.');
      if (spent !== 1) {
        if (row.grant_id) await this.#revokeGrant(trx, row.grant_id, now);
        throw new GrantFailure('invalid_grant', 'The authorization code was already used.');
      }
      if (row.client_id !== clientId) throw new GrantFailure('invalid_grant', 'The authorization code was issued to another client.');
      if (Number(row.expires_at) <= now) throw new GrantFailure('invalid_grant', 'The authorization code has expired.');
      if (redirectUri === undefined || redirectUri !== row.redirect_uri) throw new GrantFailure('invalid_grant', 'redirect_uri does not match the authorization request.');
      if (!verifier || !VERIFIER.test(verifier) || !safeEqual(s256(verifier), row.code_challenge)) {
        throw new GrantFailure('invalid_grant', 'code_verifier does not match the challenge.');
      }
      if (resource !== undefined && row.resource && resource.replace(/\/$/, '') !== String(row.resource).replace(/\/$/, '')) {
        throw new GrantFailure('invalid_target', 'resource does not match the authorization request.');
      }
      const member = await trx('memberships').where({ team_id: row.team_id, user_id: row.user_id }).first('role', 'manage_api');
      if (!member || !canManageKeys({ teamId: row.team_id, teamName: '', role: member.role, manageApi: Boolean(member.manage_api) })) {
        throw new GrantFailure('invalid_grant', 'The approving user can no longer connect this team.');
      }
      const grantId = newId();
      await trx('mcp_oauth_grants').insert({
        id: grantId,
        client_id: clientId,
        team_id: row.team_id,
        user_id: row.user_id,
        scopes: row.scopes,
        resource: row.resource,
        created_at: now,
      });
      await trx('mcp_oauth_codes').where({ hash }).update({ grant_id: grantId });
      return this.#issue(trx, grantId, JSON.parse(row.scopes), null, now);
    });
  }

  /**
   * Rotates a refresh token: the presented one is spent and a new pair issued. A spent refresh
   * token presented again means it leaked, so the whole grant is revoked (OAuth 2.1 §4.3.1).
   */
  async refresh(clientId: string, refreshToken: string, scopes: string[] | undefined, resource: string | undefined): Promise<IssuedTokens> {
    const hash = sha256(refreshToken);
    const now = this.clock.now();
    return this.#committed(async (trx) => {
      const row = await trx('mcp_oauth_tokens as tk')
        .join('mcp_oauth_grants as g', 'g.id', 'tk.grant_id')
        .where({ 'tk.hash': hash, 'tk.kind': 'refresh' })
        .leftJoin('memberships as m', function () {
          this.on('m.team_id', '=', 'g.team_id').andOn('m.user_id', '=', 'g.user_id');
        })
        .first('tk.grant_id', 'tk.scopes', 'tk.expires_at', 'tk.used_at', 'tk.revoked_at', 'g.client_id', 'g.scopes as grant_scopes', 'g.revoked_at as grant_revoked_at', 'g.resource', 'm.user_id as member', 'm.role as member_role', 'm.manage_api as member_manage_api');
      if (!row || row.client_id !== clientId) throw new GrantFailure('invalid_grant', 'The refresh token is not valid.');
      if (row.used_at != null) {
        await this.#revokeGrant(trx, row.grant_id, now);
        throw new GrantFailure('invalid_grant', 'The refresh token was already used; the connection is revoked.');
      }
      if (row.revoked_at != null || row.grant_revoked_at != null || Number(row.expires_at) <= now || row.member == null || !canManageKeys({ teamId: '', teamName: '', role: row.member_role, manageApi: Boolean(row.member_manage_api) })) {
        throw new GrantFailure('invalid_grant', 'The refresh token is revoked or expired.');
      }
      const spent = await trx('mcp_oauth_tokens').where({ hash }).whereNull('used_at').update({ used_at: now });
      if (spent !== 1) throw new GrantFailure('invalid_grant', 'The refresh token was already used.');
      if (resource !== undefined && row.resource && resource.replace(/\/$/, '') !== String(row.resource).replace(/\/$/, '')) {
        throw new GrantFailure('invalid_target', 'resource does not match the grant.');
      }
      const held: string[] = JSON.parse(row.scopes ?? row.grant_scopes);
      let next = held;
      if (scopes && scopes.length) {
        const extra = scopes.filter((s) => !held.includes(s));
        if (extra.length) throw new GrantFailure('invalid_scope', `Scopes not granted: ${extra.join(' ')}`);
        next = held.filter((s) => scopes.includes(s));
      }
      const grantScopes: string[] = JSON.parse(row.grant_scopes);
      return this.#issue(trx, row.grant_id, next, next.length === grantScopes.length ? null : next, now);
    });
  }

  /**
   * Runs `fn` in a transaction that commits even when `fn` refuses with a GrantFailure: the spent
   * code or refresh token and any revocation must stick, the refusal is thrown after the commit.
   */
  async #committed<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const out = await this.db.knex.transaction(async (trx) => {
      try {
        return { value: await fn(trx) };
      } catch (err) {
        if (err instanceof GrantFailure) return { failure: err };
        throw err;
      }
    });
    if ('failure' in out) throw out.failure;
    return out.value;
  }

  async #issue(trx: Knex.Transaction, grantId: string, scopes: string[], narrowed: string[] | null, now: number): Promise<IssuedTokens> {
    const access = ACCESS_PREFIX + newSecret(32);
    const refresh = REFRESH_PREFIX + newSecret(32);
    const m = this.config.mcp;
    const narrow = narrowed ? JSON.stringify(narrowed) : null;
    await trx('mcp_oauth_tokens').insert([
      { hash: sha256(access), kind: 'access', grant_id: grantId, scopes: narrow, expires_at: now + m.accessTokenTtlMs, created_at: now },
      { hash: sha256(refresh), kind: 'refresh', grant_id: grantId, scopes: narrow, expires_at: now + m.refreshTokenTtlMs, created_at: now },
    ]);
    return { access_token: access, token_type: 'Bearer', expires_in: Math.floor(m.accessTokenTtlMs / 1000), refresh_token: refresh, scope: scopes.join(' ') };
  }

  async #revokeGrant(trx: Knex.Transaction, grantId: string, now: number): Promise<void> {
    await trx('mcp_oauth_grants').where({ id: grantId }).whereNull('revoked_at').update({ revoked_at: now });
    await trx('mcp_oauth_tokens').where({ grant_id: grantId }).whereNull('revoked_at').update({ revoked_at: now });
  }

  /** True when the presented bearer looks like one of our access tokens rather than an API key. */
  isAccessToken(token: string): boolean {
    return token.startsWith(ACCESS_PREFIX);
  }

  /**
   * Resolves an access token (hot path: one indexed join). Null when unknown, revoked, expired or
   * its approving member is gone; a database failure throws, so the caller answers 503.
   */
  async verifyAccess(token: string): Promise<AccessGrant | null> {
    if (token.length > 200) return null;
    const row = await this.db.get<any>(ACCESS_SQL, sha256(token));
    if (!row || Number(row.expires_at) <= this.clock.now()) return null;
    const scopes: Scope[] = JSON.parse(row.scopes ?? row.grant_scopes);
    return {
      grantId: row.grant_id,
      clientId: row.client_id,
      resource: row.resource ?? null,
      expiresAt: Number(row.expires_at),
      key: {
        // Handlers record actors as `key:<id>`; an OAuth connection is named by its grant.
        id: `mcp_${row.grant_id}`,
        scopes,
        programIds: null,
        origin: 'MCP_OAUTH',
        revokedAt: null,
        revokedReason: null,
        ...teamFields(row),
      },
    };
  }

  /**
   * RFC 7009 revocation by the client the token was issued to: an access token dies alone; a
   * refresh token takes its whole grant along. Unknown or foreign tokens are ignored silently.
   */
  async revoke(clientId: string, token: string): Promise<void> {
    const now = this.clock.now();
    await this.db.knex.transaction(async (trx) => {
      const row = await trx('mcp_oauth_tokens as tk').join('mcp_oauth_grants as g', 'g.id', 'tk.grant_id').where('tk.hash', sha256(token)).first('tk.kind', 'tk.grant_id', 'g.client_id');
      if (!row || row.client_id !== clientId) return;
      if (row.kind === 'refresh') await this.#revokeGrant(trx, row.grant_id, now);
      else await trx('mcp_oauth_tokens').where({ hash: sha256(token) }).whereNull('revoked_at').update({ revoked_at: now });
    });
  }
}
