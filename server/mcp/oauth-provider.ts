import type { Response } from 'express';
import type { OAuthServerProvider, AuthorizationParams } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { Deps } from '../http/deps.ts';
import { GrantFailure, type McpOAuthStore, type StoredClient } from './oauth-store.ts';
import { MCP_SCOPES, isMcpScope, type McpScope } from './scopes.ts';
import { mcpUrls } from './urls.ts';

/** How long the owner has to decide on the consent page. */
export const CONSENT_TTL_MS = 10 * 60 * 1000;

/** An authorization request waiting on the consent page, sealed into its URL (nothing stored until approval). */
export interface PendingAuthorization {
  /** Tells this sealed value from other sealed values the server hands out. */
  kind: 'mcp-consent';
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: McpScope[];
  state: string | null;
  resource: string | null;
  expiresAt: number;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_REDIRECT_URIS = 10;

/** A redirect URI a client may register: https, http on a loopback host (RFC 8252 §7.3), or a private-use scheme (§7.1). */
export function acceptableRedirectUri(value: string): boolean {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return false;
  }
  if (u.hash) return false;
  if (u.protocol === 'https:') return true;
  if (u.protocol === 'http:') return LOOPBACK.has(u.hostname);
  // Private-use schemes are reverse domain names (com.example.app:/cb); script and data schemes never.
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(u.protocol);
}

function grantError(err: unknown): never {
  if (err instanceof GrantFailure) {
    if (err.kind === 'invalid_scope') throw new InvalidScopeError(err.message);
    if (err.kind === 'invalid_target') throw new InvalidTargetError(err.message);
    throw new InvalidGrantError(err.message);
  }
  throw err;
}

/**
 * Our `OAuthServerProvider` for the SDK's authorize, token, registration and revocation handlers.
 * `authorize` hands the request to the consent page; PKCE is checked by the store inside the same
 * transaction that spends the code (so a wrong verifier burns it), hence `skipLocalPkceValidation`.
 */
export class McpOAuthProvider implements OAuthServerProvider {
  readonly skipLocalPkceValidation = true;
  readonly clientsStore: OAuthRegisteredClientsStore;
  readonly #store: McpOAuthStore;

  constructor(private readonly deps: Deps) {
    this.#store = deps.mcpOAuth;
    const store = this.#store;
    this.clientsStore = {
      getClient: (id) => store.getClient(id) as Promise<OAuthClientInformationFull | undefined>,
      registerClient: async (client) => {
        const uris = client.redirect_uris ?? [];
        if (uris.length === 0 || uris.length > MAX_REDIRECT_URIS) throw new InvalidClientMetadataError(`Register between 1 and ${MAX_REDIRECT_URIS} redirect_uris.`);
        const bad = uris.filter((u) => !acceptableRedirectUri(String(u)));
        if (bad.length) throw new InvalidClientMetadataError(`redirect_uris must be https, http on a loopback host, or a private-use scheme: ${bad.join(', ')}`);
        const grants = client.grant_types ?? ['authorization_code', 'refresh_token'];
        const unsupported = grants.filter((g) => g !== 'authorization_code' && g !== 'refresh_token');
        if (unsupported.length) throw new InvalidClientMetadataError(`Unsupported grant_types: ${unsupported.join(', ')}. Only authorization_code and refresh_token are offered.`);
        const responses = client.response_types ?? ['code'];
        if (responses.some((r) => r !== 'code')) throw new InvalidClientMetadataError('Only the response type "code" is offered.');
        const method = client.token_endpoint_auth_method ?? 'client_secret_post';
        if (method !== 'none' && method !== 'client_secret_post') throw new InvalidClientMetadataError('token_endpoint_auth_method must be "none" or "client_secret_post".');
        const full = { ...client, grant_types: grants, response_types: responses, token_endpoint_auth_method: method } as unknown as StoredClient;
        return (await store.registerClient(full)) as OAuthClientInformationFull;
      },
    };
  }

  /** Checks the scopes and resource, then sends the browser to the consent page with the request sealed into its URL. */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const requested = (params.scopes ?? []).filter(Boolean);
    const unknown = requested.filter((s) => !isMcpScope(s));
    if (unknown.length) throw new InvalidScopeError(`Unknown or unavailable scopes: ${unknown.join(' ')}. Available: ${MCP_SCOPES.join(' ')}`);
    const scopes = requested.length ? MCP_SCOPES.filter((s) => requested.includes(s)) : [...MCP_SCOPES];
    const urls = mcpUrls(this.deps.config);
    if (params.resource && params.resource.href.replace(/\/$/, '') !== urls.resource) {
      throw new InvalidTargetError(`This server only issues tokens for ${urls.resource}.`);
    }
    const pending: PendingAuthorization = {
      kind: 'mcp-consent',
      clientId: client.client_id,
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      scopes,
      state: params.state ?? null,
      resource: params.resource ? urls.resource : null,
      expiresAt: this.deps.clock.now() + CONSENT_TTL_MS,
    };
    const sealed = this.deps.sealer.seal(JSON.stringify(pending));
    res.redirect(302, `${this.deps.config.publicUrl}/oauth/consent?request=${encodeURIComponent(sealed)}`);
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, authorizationCode: string): Promise<string> {
    return this.#store.challengeFor(client.client_id, authorizationCode).catch(grantError);
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, verifier?: string, redirectUri?: string, resource?: URL): Promise<OAuthTokens> {
    return this.#store.exchangeCode(client.client_id, code, verifier, redirectUri, resource?.href).catch(grantError);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    return this.#store.refresh(client.client_id, refreshToken, scopes, resource?.href).catch(grantError);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const grant = await this.#store.verifyAccess(token);
    if (!grant) throw new InvalidTokenError('The access token is not valid.');
    return { token, clientId: grant.clientId, scopes: grant.key.scopes, expiresAt: Math.floor(grant.expiresAt / 1000), resource: grant.resource ? new URL(grant.resource) : undefined };
  }

  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    await this.#store.revoke(client.client_id, request.token);
  }
}

/** Opens a sealed pending authorization from the consent page's URL; null when forged, garbled or expired. */
export function openPending(deps: Deps, sealed: string): PendingAuthorization | null {
  if (!sealed || sealed.length > 8000) return null;
  const plain = deps.sealer.open(sealed);
  if (!plain) return null;
  try {
    const p = JSON.parse(plain) as PendingAuthorization;
    return p.kind === 'mcp-consent' && p.expiresAt > deps.clock.now() ? p : null;
  } catch {
    return null;
  }
}
