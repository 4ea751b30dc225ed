import type { Config } from '../config.ts';

/** Every public address of the hosted MCP endpoint and its authorization server. */
export interface McpUrls {
  /** The issuer (RFC 8414): the MCP origin, no path. */
  issuer: string;
  /** The protected resource (RFC 9728 `resource`): the MCP endpoint itself. */
  resource: string;
  onboard: string;
  protectedResourceMetadata: string;
  authorizationServerMetadata: string;
  authorize: string;
  token: string;
  register: string;
  revoke: string;
}

/** Paths of the OAuth endpoints, served on whichever host name reaches the process. */
export const OAUTH_PATHS = { authorize: '/oauth/authorize', token: '/oauth/token', register: '/oauth/register', revoke: '/oauth/revoke' } as const;

/** Paths of the protected-resource metadata document: at the root and under the MCP endpoint's path. */
export function protectedResourceMetadataPaths(config: Config): string[] {
  return ['/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${config.mcp.path}`];
}

/** Every path the MCP surface (endpoint.ts) answers: metadata documents, OAuth, onboarding, MCP. */
export function mcpSurfacePaths(config: Config): Set<string> {
  return new Set([...protectedResourceMetadataPaths(config), '/.well-known/oauth-authorization-server', ...Object.values(OAUTH_PATHS), config.mcp.onboardPath, config.mcp.path]);
}

/** Builds the addresses from MCP_PUBLIC_URL (or PUBLIC_URL), MCP_PATH and MCP_ONBOARD_PATH. */
export function mcpUrls(config: Config): McpUrls {
  const o = config.mcp.publicUrl;
  return {
    issuer: o,
    resource: o + config.mcp.path,
    onboard: o + config.mcp.onboardPath,
    protectedResourceMetadata: `${o}/.well-known/oauth-protected-resource`,
    authorizationServerMetadata: `${o}/.well-known/oauth-authorization-server`,
    authorize: o + OAUTH_PATHS.authorize,
    token: o + OAUTH_PATHS.token,
    register: o + OAUTH_PATHS.register,
    revoke: o + OAUTH_PATHS.revoke,
  };
}
