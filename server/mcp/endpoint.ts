import type Koa from 'koa';
import express from 'express';
import { bodyParser } from '@koa/bodyparser';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Deps } from '../http/deps.ts';
import { AccountDisabledError, AppError, UnavailableError } from '../errors.ts';
import { consume } from '../http/limits.ts';
import { MCP_SCOPES } from './scopes.ts';
import { McpOAuthProvider } from './oauth-provider.ts';
import { mcpUrls, OAUTH_PATHS, protectedResourceMetadataPaths, type McpUrls } from './urls.ts';
import { answerInvalidParams, buildServer } from './server.ts';
import { allTools, createAccountTool } from './tools.ts';
import type { McpCredential } from './tool-kit.ts';
import { JSON_MEDIA_TYPES, parseJsonBody } from '../http/json-body.ts';
import { errorBodyFor } from '../http/error-middleware.ts';

const INSTRUCTIONS =
  'refloop manages referral and affiliate programs for one team. Program tools take campaignId (list programs with growsurf_list_campaigns). ' +
  'Errors carry the REST error object (code, message, status). Money amounts are integer minor units.';
const ONBOARD_INSTRUCTIONS =
  'Keyless onboarding: one tool, growsurf_create_account. Calling it accepts the terms of service and privacy policy for the account holder: get the owner’s explicit approval first.';

/** The protected-resource metadata of RFC 9728 §2. */
export function protectedResourceMetadata(urls: McpUrls, docsUrl: string): OAuthProtectedResourceMetadata {
  return {
    resource: urls.resource,
    authorization_servers: [urls.issuer],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'refloop MCP',
    resource_documentation: docsUrl,
  };
}

/** The authorization-server metadata of RFC 8414 §2: S256 only, code only, no jwt-bearer, no identity endpoints. */
export function authorizationServerMetadata(urls: McpUrls, docsUrl: string): OAuthMetadata {
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorize,
    token_endpoint: urls.token,
    registration_endpoint: urls.register,
    revocation_endpoint: urls.revoke,
    scopes_supported: [...MCP_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
    service_documentation: docsUrl,
  };
}

/** Outcome of reading the bearer on the MCP endpoint. */
type Resolved = { credential: McpCredential } | { challenge: string; description: string };

/**
 * Resolves `Authorization: Bearer …` to an OAuth grant or a team API key. Any failure to look the
 * credential up (database down) is a 503: never an accidental allow, never a misleading 401.
 */
async function resolveCredential(deps: Deps, urls: McpUrls, header: string): Promise<Resolved> {
  if (!header) return { challenge: '', description: 'No credential: connect with OAuth, or send a team API key as a bearer token.' };
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return { challenge: 'invalid_request', description: 'Send Authorization: Bearer <token>.' };
  const token = m[1]!;
  try {
    if (deps.mcpOAuth.isAccessToken(token)) {
      const grant = await deps.mcpOAuth.verifyAccess(token);
      if (!grant) return { challenge: 'invalid_token', description: 'The access token is not valid, expired or revoked.' };
      if (grant.resource && grant.resource.replace(/\/$/, '') !== urls.resource) return { challenge: 'invalid_token', description: 'The access token was issued for another resource.' };
      return { credential: { kind: 'MCP_OAUTH', key: grant.key } };
    }
    const key = await deps.keys.lookup(token);
    if (!key || key.revokedAt != null) return { challenge: 'invalid_token', description: 'The API key or token is not valid.' };
    return { credential: { kind: 'TEAM_API_KEY', key, prefix: token.slice(0, 11) } };
  } catch {
    throw new UnavailableError('The credential could not be checked right now. Try again shortly.');
  }
}

/** Hands the request to an Express app (the SDK's OAuth handlers) and waits until it has answered. */
function runExpress(app: express.Express, ctx: Koa.Context): Promise<void> {
  ctx.respond = false;
  return new Promise((resolve, reject) => {
    ctx.res.once('finish', () => resolve());
    ctx.res.once('close', () => resolve());
    app(ctx.req as never, ctx.res as never, (err?: unknown) => {
      if (err) return reject(err);
      ctx.res.statusCode = 404;
      ctx.res.setHeader('Content-Type', 'application/json');
      ctx.res.end(JSON.stringify({ error: 'invalid_request', error_description: 'Not found.' }));
    });
  });
}

/**
 * The hosted MCP surface: the two `.well-known` metadata documents, the OAuth endpoints (the SDK's
 * handlers over our provider), the MCP endpoint (bearer: OAuth access token or team API key; team
 * budgets shared with REST) and the keyless onboarding endpoint. Only the MCP endpoint answers 401.
 */
export function mcpEndpoints(deps: Deps): Koa.Middleware {
  const urls = mcpUrls(deps.config);
  const docsUrl = `${deps.config.publicUrl}/docs`;
  const prm = JSON.stringify(protectedResourceMetadata(urls, docsUrl));
  const asm = JSON.stringify(authorizationServerMetadata(urls, docsUrl));
  const prmPaths = new Set(protectedResourceMetadataPaths(deps.config));
  const provider = new McpOAuthProvider(deps);
  const oauth = express();
  oauth.disable('x-powered-by');
  oauth.set('trust proxy', deps.config.trustProxy);
  // Our per-IP gate (concurrency and public budget) covers every endpoint; registration also has the
  // SDK's stricter hourly cap, counted by our limiter in the database (the SDK's counts per process).
  oauth.use(OAUTH_PATHS.authorize, authorizationHandler({ provider, rateLimit: false }));
  oauth.use(OAUTH_PATHS.token, tokenHandler({ provider, rateLimit: false }));
  oauth.use(OAUTH_PATHS.register, clientRegistrationHandler({ clientsStore: provider.clientsStore, clientSecretExpirySeconds: 0, rateLimit: false }));
  oauth.use(OAUTH_PATHS.revoke, revocationHandler({ provider, rateLimit: false }));
  const oauthPaths = new Set<string>(Object.values(OAUTH_PATHS));
  const tools = allTools();
  const onboardTools = [createAccountTool];
  // JSON arrives as text and goes through parseJsonBody, which bounds its shape before parsing it.
  const parser = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: JSON_MEDIA_TYPES },
    textLimit: '1mb',
    encoding: 'utf-8',
    onError() {
      throw new JsonRpcParseError();
    },
  });
  // The registration body (the SDK's express.json() would parse it, and `jwks` is stored as sent) is
  // read and bounded here first; the SDK's parser then finds the request consumed and keeps req.body.
  const registrationParser = bodyParser({ enableTypes: ['text'], extendTypes: { text: ['application/json'] }, textLimit: '100kb', encoding: 'utf-8' });
  const readRegistration = async (ctx: Koa.Context): Promise<boolean> => {
    let text: unknown;
    try {
      await registrationParser(ctx, async () => {});
      text = (ctx.request as { body?: unknown }).body;
      if (typeof text === 'string') (ctx.req as { body?: unknown }).body = parseJsonBody(text, { strict: true });
      return true;
    } catch (err) {
      ctx.status = 400;
      ctx.set('Cache-Control', 'no-store');
      const description = err instanceof AppError ? err.message : 'The request body could not be read.';
      ctx.body = { error: 'invalid_client_metadata', error_description: description };
      return false;
    }
  };
  const challenge = (error: string, description: string) =>
    `Bearer realm="refloop-mcp"${error ? `, error="${error}", error_description="${description.replace(/"/g, "'")}"` : ''}, resource_metadata="${urls.protectedResourceMetadata}"`;

  const notPost = (ctx: Koa.Context): boolean => {
    if (ctx.method === 'POST') return false;
    // Stateless: no standalone SSE stream and no session to delete (clients probe with GET after initialize).
    ctx.status = 405;
    ctx.set('Allow', 'POST');
    ctx.body = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this endpoint is stateless; send POST.' }, id: null };
    return true;
  };

  const serveMcp = async (ctx: Koa.Context, credential: McpCredential | null, list: typeof tools, instructions: string) => {
    if (notPost(ctx)) return;
    try {
      await parser(ctx, async () => {});
      const request = ctx.request as { body?: unknown };
      if (typeof request.body === 'string') request.body = parseJsonBody(request.body, { strict: true });
    } catch (err) {
      if (err instanceof AppError && err.errors?.[0]?.field === 'body') {
        // Valid JSON of a shape no JSON-RPC message has (too deep, too wide): an invalid request, with the REST error object.
        ctx.status = 400;
        ctx.body = { jsonrpc: '2.0', error: { code: -32600, message: `Invalid request: ${err.message}`, data: errorBodyFor(err, deps.config.supportUrl, new Date(deps.clock.now())) }, id: null };
        return;
      }
      if (!(err instanceof JsonRpcParseError) && !(err instanceof AppError)) throw err;
      ctx.status = 400;
      ctx.body = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body must be JSON (at most 1 MiB).' }, id: null };
      return;
    }
    const server = buildServer(deps, list, credential, ctx.ip, String(ctx.state.requestId ?? ''), instructions);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    answerInvalidParams(transport);
    ctx.respond = false;
    try {
      await transport.handleRequest(ctx.req, ctx.res, (ctx.request as { body?: unknown }).body);
    } finally {
      await transport.close().catch(() => undefined);
      await server.close().catch(() => undefined);
    }
  };

  return async (ctx, next) => {
    const path = ctx.path;
    const metadata = prmPaths.has(path) || path === '/.well-known/oauth-authorization-server';
    if (metadata && ctx.method === 'OPTIONS') {
      // Browser-based hosts send MCP-Protocol-Version on discovery, which needs a preflight.
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Access-Control-Allow-Methods', 'GET');
      ctx.set('Access-Control-Allow-Headers', '*');
      ctx.status = 204;
      return;
    }
    if (metadata && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.type = 'application/json';
      ctx.body = path === '/.well-known/oauth-authorization-server' ? asm : prm;
      return;
    }
    if (oauthPaths.has(path)) {
      await deps.limits.guardIp(ctx.ip, (h) => ctx.set(h), async () => {
        if (path === OAUTH_PATHS.register && ctx.method === 'POST') {
          const { over, res } = await consume(deps.limits.clientRegistration, ctx.ip);
          if (over) {
            // The SDK's own answer for its cap: an OAuth error object.
            ctx.status = 429;
            ctx.set('Retry-After', String(Math.max(1, Math.ceil(res.msBeforeNext / 1000))));
            ctx.set('Cache-Control', 'no-store');
            ctx.body = { error: 'too_many_requests', error_description: 'You have exceeded the rate limit for client registration requests' };
            return;
          }
        }
        if (path === OAUTH_PATHS.register && ctx.method === 'POST' && !(await readRegistration(ctx))) return;
        await runExpress(oauth, ctx);
      });
      return;
    }
    if (path === deps.config.mcp.onboardPath) {
      await deps.limits.guardIp(ctx.ip, (h) => ctx.set(h), () => serveMcp(ctx, null, onboardTools, ONBOARD_INSTRUCTIONS));
      return;
    }
    if (path !== deps.config.mcp.path) return next();
    await deps.limits.guardIp(ctx.ip, (h) => ctx.set(h), async () => {
      const resolved = await resolveCredential(deps, urls, ctx.get('authorization'));
      if ('challenge' in resolved) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', challenge(resolved.challenge, resolved.description));
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { error: resolved.challenge || 'invalid_token', error_description: resolved.description };
        return;
      }
      const { key } = resolved.credential;
      if (key.teamDisabled) throw new AccountDisabledError();
      if (notPost(ctx)) return;
      // One team budget for REST keys and MCP connections: every MCP request costs what a REST request does.
      const charge = await deps.limits.chargeTeam(key.teamId);
      ctx.set(charge.headers);
      if (charge.error) throw charge.error;
      await serveMcp(ctx, resolved.credential, tools, INSTRUCTIONS);
    });
  };
}

/** Marks a body the JSON parser refused, answered as a JSON-RPC parse error. */
class JsonRpcParseError extends Error {}
