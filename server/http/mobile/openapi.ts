import type { MobileOperation } from './operation.ts';
import { schemaOf } from '../openapi.ts';
import { errorBody } from '../../../shared/schemas/common.ts';

const SECURITY: Record<MobileOperation['auth'], Array<Record<string, string[]>>> = {
  // Native apps: program id and public key; web pages: program id from an allowed Origin.
  program: [{ programId: [], publicKey: [] }, { programId: [] }],
  session: [{ sessionToken: [] }],
  participant: [{ sessionToken: [], participantToken: [] }],
};

/** The OpenAPI 3.1 document of the participant API, generated from its operations table and the shared schemas. */
export function buildMobileOpenApi(operations: MobileOperation[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Record<string, unknown> = {};
  schemaOf(errorBody, 'output', components);
  const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
  for (const op of operations) {
    const params: string[] = [];
    const path = op.path.replace(/:([A-Za-z0-9_]+)/g, (_, p: string) => {
      params.push(p);
      return `{${p}}`;
    });
    const entry: Record<string, unknown> = {
      operationId: op.name,
      summary: op.summary,
      'x-refloop-id': op.id,
      security: op.optionalParticipant ? [...SECURITY.participant, ...SECURITY[op.auth]] : SECURITY[op.auth],
      parameters: params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      responses: {
        200: { description: 'Success', content: { 'application/json': { schema: schemaOf(op.response, 'output', components) } } },
        400: error('Invalid request'),
        403: error('Credentials missing, invalid or expired (errors[].field names which: X-Session-Token, Authorization, X-Public-Key), or a page origin the program does not allow'),
        404: error('Unknown program or operation'),
        429: error('Rate limited (policy CLIENT per IP and client instance, IP for sessions)'),
        503: error('Temporarily unavailable: retry later'),
      },
    };
    if (op.query) {
      const q = schemaOf(op.query, 'input', components) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        (entry.parameters as unknown[]).push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
      }
    }
    if (op.body) entry.requestBody = { required: true, content: { 'application/json': { schema: schemaOf(op.body, 'input', components) } } };
    paths[path] = { ...(paths[path] ?? {}), [op.method.toLowerCase()]: entry };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'refloop participant API',
      version: '2.0.0',
      description:
        'The API the widget and the native SDKs call (docs/participant-api.md). Every response other than 200 (204 for CORS preflights) is the REST API’s error object. Tokens travel in headers, never cookies.',
    },
    servers: [{ url: `${serverUrl}/mobile/v2` }],
    components: {
      securitySchemes: {
        programId: { type: 'apiKey', in: 'header', name: 'X-Program-Id', description: 'The program (campaign) id; the campaignId query parameter works too.' },
        publicKey: { type: 'apiKey', in: 'header', name: 'X-Public-Key', description: 'installation.mobile.publicKey: required for native apps (requests without an Origin).' },
        sessionToken: { type: 'apiKey', in: 'header', name: 'X-Session-Token', description: 'From POST /sessions; one hour.' },
        participantToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A participant token: REST P10, participant creation or auto-authentication; 30 days.' },
      },
      schemas: components,
    },
    paths,
  };
}
