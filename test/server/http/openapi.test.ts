import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { operations } from '../../../server/http/routes.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

describe('GET /openapi/v2.json', () => {
  it('is OpenAPI 3.1 version 2.0.0 listing every operation with its scope, without a key', async () => {
    const res = await app.request('GET', '/openapi/v2.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('2.0.0');
    for (const op of operations) {
      const path = op.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const entry = doc.paths[path]?.[op.method.toLowerCase()];
      expect(entry, `${op.method} ${path}`).toBeDefined();
      expect(entry.operationId).toBe(op.name);
      if (op.access === 'public') expect(entry.security).toEqual([]);
      else expect(entry['x-scopes']).toEqual(op.access.scopes);
    }
    expect(doc.paths['/accounts'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateAccountRequest' });
    expect(doc.components.schemas.CreateAccountRequest.additionalProperties).toBe(false);
    expect(doc.components.schemas.CreateAccountRequest.properties.firstName.maxLength).toBe(255);
    expect(doc.components.schemas.Team.properties.ownerEmailVerified.description).toMatch(/extension/);
    // Every reference resolves.
    for (const [, id] of JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) expect(doc.components.schemas[id!], id).toBeDefined();
    expect(doc.components.schemas.Error.properties.policyName).toBeDefined();
  });

  it('renders a readable reference at /docs', async () => {
    const res = await app.request('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.text).toContain('POST /v2/accounts');
    expect(res.text).toContain('team:read');
  });

  it('serves a health check', async () => {
    const res = await app.request('GET', '/healthz');
    expect(res.body).toEqual({ status: 'ok' });
  });
});
