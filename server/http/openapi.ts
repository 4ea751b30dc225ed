import { z } from 'zod';
import type { Operation } from './operation.ts';
import { errorBody } from '../../shared/schemas/common.ts';
import { SCOPES, SCOPE_DESCRIPTIONS } from '../../shared/scopes.ts';
import { esc, page } from './pages/html.ts';

/**
 * Converts a zod schema to JSON Schema 2020-12 (what OpenAPI 3.1 uses); schemas named with
 * `.meta({id})` are hoisted into `components` and referenced from there.
 */
export function schemaOf(schema: z.ZodType, io: 'input' | 'output', components: Record<string, unknown>): Record<string, unknown> {
  const raw = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  const json = JSON.parse(JSON.stringify(raw).replaceAll('"#/$defs/', '"#/components/schemas/')) as Record<string, unknown>;
  delete json.$schema;
  const defs = (json.$defs ?? {}) as Record<string, unknown>;
  delete json.$defs;
  for (const [id, def] of Object.entries(defs)) components[id] ??= def;
  return json;
}

/** Rewrites `/campaign/:id` into `/campaign/{id}`. */
function openapiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const out = path.replace(/:([A-Za-z0-9_]+)/g, (_, p: string) => {
    params.push(p);
    return `{${p}}`;
  });
  return { path: out, params };
}

/** The OpenAPI 3.1 document of the REST API, generated from the routes table and its zod schemas. */
export function buildOpenApi(operations: Operation[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Record<string, unknown> = {};
  schemaOf(errorBody, 'output', components);
  const errorRef = { $ref: '#/components/schemas/Error' };
  const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: errorRef } } });
  for (const op of operations) {
    const { path, params } = openapiPath(op.path);
    const entry: Record<string, unknown> = {
      operationId: op.name,
      summary: op.summary,
      'x-refloop-id': op.id,
      parameters: params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      responses: {
        200: { description: 'Success', content: { [op.contentType ?? 'application/json']: { schema: schemaOf(op.response, 'output', components) } } },
        400: errorResponse('Invalid request'),
        403: errorResponse('Not authorized, email not verified, account disabled or paid plan required'),
        409: errorResponse('An identical request is already in progress'),
        429: errorResponse('Rate limited'),
      },
    };
    if (op.access === 'public') {
      entry.security = [];
    } else {
      entry.security = [{ bearerAuth: op.access.scopes }];
      entry['x-scopes'] = op.access.scopes;
    }
    if (op.query) {
      const q = schemaOf(op.query, 'input', components) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        (entry.parameters as unknown[]).push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
      }
    }
    if (op.body) {
      const content: Record<string, unknown> = { 'application/json': { schema: schemaOf(op.body, 'input', components) } };
      if (op.csvBody) content['text/csv'] = { schema: { type: 'string', description: `The CSV file itself, up to ${op.csvBody.limit / 1024 / 1024} MiB.` } };
      entry.requestBody = { required: false, content };
    }
    paths[path] = { ...(paths[path] ?? {}), [op.method.toLowerCase()]: entry };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'refloop REST API',
      version: '2.0.0',
      description:
        'Wire-compatible with the GrowSurf REST API v2. Every response other than 200 is an error object. Fields marked as refloop extensions are additions that never change an existing field.',
    },
    servers: [{ url: `${serverUrl}/v2` }],
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: `API key. Scopes: ${SCOPES.map((s) => `\`${s}\` (${SCOPE_DESCRIPTIONS[s]})`).join('; ')}`,
        },
      },
      schemas: components,
    },
    paths,
  };
}

/** A readable HTML reference at /docs, rendered from the same OpenAPI document. */
export function renderDocs(doc: Record<string, unknown>): string {
  const rows: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const scopes = (op['x-scopes'] as string[] | undefined)?.map((s) => `<code>${esc(s)}</code>`).join(' ') ?? 'none (no key)';
      rows.push(`<tr><td><code>${esc(method.toUpperCase())} /v2${esc(path)}</code></td><td>${scopes}</td><td>${esc(op.summary)}</td></tr>`);
    }
  }
  return page(
    'REST API reference',
    `<h1>REST API reference</h1>
<p>Version ${esc((doc.info as { version: string }).version)}. Machine-readable: <a href="/openapi/v2.json">/openapi/v2.json</a>. Send <code>Authorization: Bearer &lt;API_KEY&gt;</code>; every response other than 200 is an <a href="#errors">error object</a>.</p>
<table><caption class="visually-hidden">Operations</caption><thead><tr><th scope="col">Operation</th><th scope="col">Scope</th><th scope="col">What it does</th></tr></thead><tbody>${rows.join('')}</tbody></table>
<h2 id="scopes">Scopes</h2><dl>${SCOPES.map((s) => `<dt><code>${esc(s)}</code></dt><dd>${esc(SCOPE_DESCRIPTIONS[s])}</dd>`).join('')}</dl>
<h2 id="errors">Errors</h2><p>Fields: <code>name</code>, <code>code</code>, <code>message</code>, <code>errors[]</code>, <code>status</code>, <code>supportUrl</code>, <code>policyName</code>, <code>level</code>, <code>timestamp</code>.</p>`,
  );
}
