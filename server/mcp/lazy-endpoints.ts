// The MCP and OAuth endpoints, built on their first request: the MCP SDK, Express and the tools'
// schemas they need take ≈ 0.5 s to load, which every process start (the server, each CLI command,
// each test file's server) paid before, whether or not an agent ever connected. The paths are
// decided here, from the same settings as endpoint.ts, so nothing else waits for that load.
import type Koa from 'koa';
import type { Deps } from '../http/deps.ts';
import { OAUTH_PATHS } from './urls.ts';

/** `mcpEndpoints(deps)` (endpoint.ts), loaded when a request first reaches one of its paths. */
export function lazyMcpEndpoints(deps: Deps): Koa.Middleware {
  const paths = new Set<string>([
    '/.well-known/oauth-protected-resource',
    `/.well-known/oauth-protected-resource${deps.config.mcp.path}`,
    '/.well-known/oauth-authorization-server',
    ...Object.values(OAUTH_PATHS),
    deps.config.mcp.onboardPath,
    deps.config.mcp.path,
  ]);
  let endpoints: Promise<Koa.Middleware> | undefined;
  return async (ctx, next) => {
    if (!paths.has(ctx.path)) return next();
    endpoints ??= import('./endpoint.ts').then((m) => m.mcpEndpoints(deps));
    return (await endpoints)(ctx, next);
  };
}
