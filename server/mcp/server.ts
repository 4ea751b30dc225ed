import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Deps } from '../http/deps.ts';
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

/** The request schemas the SDK checks for the methods this server answers. */
const REQUEST_SCHEMAS = new Map<string, { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ code: string; path: PropertyKey[]; message: string; expected?: string }> } } }>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

/** What a JSON value is, in a message's words. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

/** One sentence for the first problem with a request's params (never a schema dump). */
function paramsProblem(method: string, request: unknown, issue: { code: string; path: PropertyKey[]; message: string; expected?: string }): string {
  const where = issue.path.map(String).join('.') || 'params';
  if (issue.code === 'invalid_type' && issue.expected) {
    let v: unknown = request;
    for (const k of issue.path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
    const expected = issue.expected === 'record' || issue.expected === 'object' ? 'an object' : /^[aeiou]/.test(issue.expected) ? `an ${issue.expected}` : `a ${issue.expected}`;
    if (v === undefined) return `Invalid params for ${method}: ${where} is required (${expected}).`;
    const hint = method === 'tools/call' && where === 'params.arguments' ? ' of the tool’s inputs by name, e.g. {"campaignId": "…"}' : '';
    return `Invalid params for ${method}: ${where} must be ${expected}${hint}, not ${kindOf(v)}.`;
  }
  return `Invalid params for ${method}: ${where}: ${issue.message}`;
}

/**
 * Answers requests whose params the SDK would refuse (tools/call with `arguments` null, an array or
 * a string; a numeric tool name …) with JSON-RPC -32602 and one clear sentence. The SDK itself
 * parses params before any handler runs and turns its zod error into -32603 with the raw issue
 * list, so the check sits in front of it, on the transport. Call after `server.connect(transport)`.
 */
export function answerInvalidParams(transport: Transport): void {
  const forward = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const m = message as { method?: unknown; id?: unknown };
    const schema = typeof m.method === 'string' && m.id !== undefined ? REQUEST_SCHEMAS.get(m.method) : undefined;
    const checked = schema?.safeParse(message);
    const issue = checked && !checked.success ? checked.error?.issues[0] : undefined;
    if (issue) {
      const answer = { jsonrpc: '2.0', id: m.id, error: { code: ErrorCode.InvalidParams, message: paramsProblem(m.method as string, message, issue) } } as JSONRPCMessage;
      void transport.send(answer).catch(() => undefined);
      return;
    }
    forward?.(message, extra);
  };
}
