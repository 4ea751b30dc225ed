import type { Scope } from '../../shared/scopes.ts';

/**
 * The scopes a hosted MCP connection may ask for, in the order mcp.md §6 lists them: the union the
 * OAuth-capable tools use. Never `api_key:rotate`, `reward:read`, `reward:delete`, `reward:fulfill`.
 */
export const MCP_SCOPES = [
  'team:read',
  'team:write',
  'program:read',
  'program:write',
  'participant:read',
  'participant:write',
  'participant:delete',
  'reward:write',
  'analytics:read',
] as const satisfies readonly Scope[];

/** One scope a hosted MCP connection may hold. */
export type McpScope = (typeof MCP_SCOPES)[number];

/** True when `s` is one of the nine MCP scopes. */
export function isMcpScope(s: string): s is McpScope {
  return (MCP_SCOPES as readonly string[]).includes(s);
}
