// The MCP and OAuth endpoints, built on their first request: the MCP SDK, Express and the tools'
// schemas they need take ≈ 0.5 s to load, which every process start (the server, each CLI command,
// each test file's server) paid before, whether or not an agent ever connected. The paths are
// listed by urls.ts `mcpSurfacePaths` (beside the addresses endpoint.ts serves them at), so nothing
// else waits for that load.
import type Koa from 'koa';
import type { Deps } from '../http/deps.ts';
import { mcpSurfacePaths } from './urls.ts';

/** `mcpEndpoints(deps)` (endpoint.ts), loaded when a request first reaches one of its paths. */
export function lazyMcpEndpoints(deps: Deps): Koa.Middleware {
  const paths = mcpSurfacePaths(deps.config);
  let endpoints: Promise<Koa.Middleware> | undefined;
  return async (ctx, next) => {
    if (!paths.has(ctx.path)) return next();
    endpoints ??= import('./endpoint.ts').then((m) => m.mcpEndpoints(deps));
    return (await endpoints)(ctx, next);
  };
}
