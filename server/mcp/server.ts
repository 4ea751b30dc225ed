import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Deps } from '../deps.ts';
import { errorBodyFor } from '../http/error-middleware.ts';
import { NotAuthorizedError } from '../errors.ts';
import { ERROR_CODES } from '../../shared/errors.ts';
import { PROFILES, type McpCredential, type ToolContext, type ToolDef } from './tool-kit.ts';

/** Name and version the endpoint reports in `initialize`. */
export const SERVER_INFO = { name: 'refloop-mcp', version: '0.1.0' };

/** True when the credential holds every scope the tool needs; scope-less tools are always allowed. */
export function mayUse(tool: ToolDef, credential: McpCredential | null): boolean {
  if (tool.scopes.length === 0) return true;
  return !!credential && tool.scopes.every((s) => credential.key.scopes.includes(s));
}

function describe(tool: ToolDef): Tool {
  const p = PROFILES[tool.profile];
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema as Tool['outputSchema'],
    annotations: { title: tool.title, readOnlyHint: p.readOnlyHint, destructiveHint: p.destructiveHint, idempotentHint: p.idempotentHint, openWorldHint: p.openWorldHint },
    _meta: { 'growsurf/riskTier': p.riskTier, 'refloop/scopes': tool.scopes },
  };
}

/** A failure as the tool result mcp.md §4 describes: `isError` and the REST error object as JSON, never internals. */
function errorResult(deps: Deps, err: unknown, requestId: string): CallToolResult {
  let body = errorBodyFor(err, deps.config.supportUrl, new Date(deps.clock.now()));
  if (!body) {
    deps.log.error('mcp tool error', { requestId, error: String((err as Error)?.stack ?? err) });
    body = { name: 'InternalServerError', code: ERROR_CODES.INTERNAL, message: `Something went wrong on our side. Quote request id ${requestId} if you contact support.`, status: 500, level: 'error', timestamp: new Date(deps.clock.now()).toISOString() };
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body, null, 2) }] };
}

/**
 * One MCP server for one HTTP request (stateless Streamable HTTP): the SDK handles the protocol;
 * we answer `tools/list` with the tools this credential may use and `tools/call` after checking
 * again, so an unlisted tool is refused with the REST error rather than run.
 */
export function buildServer(deps: Deps, tools: ToolDef[], credential: McpCredential | null, ip: string, requestId: string, instructions: string): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions });
  const byName = new Map(tools.map((t) => [t.name, t]));
  const ctx: ToolContext = { deps, credential, ip };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.filter((t) => mayUse(t, credential)).map(describe) }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    try {
      if (!mayUse(tool, credential)) {
        const missing = tool.scopes.filter((s) => !credential?.key.scopes.includes(s));
        throw new NotAuthorizedError(`This connection is missing the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')} required for ${tool.name}.`);
      }
      const args = request.params.arguments ?? {};
      const result = await tool.run(args as Record<string, unknown>, ctx);
      const text = tool.text ? tool.text(result) : JSON.stringify(result, null, 2);
      return { content: [{ type: 'text', text }], structuredContent: result };
    } catch (err) {
      return errorResult(deps, err, requestId);
    }
  });
  return server;
}
