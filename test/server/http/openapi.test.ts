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

  it('lists the counts per state (issue #32) as refloop extensions, each registered right after its list', async () => {
    const doc = (await app.request('GET', '/openapi/v2.json')).body;
    const counts = {
      PR6: ['/campaign/{id}/rewards/counts', 'ProgramRewardCounts', ['AWAITING_APPROVAL', 'APPROVED', 'FULFILLED', 'ALL']],
      AF16: ['/campaign/{id}/commissions/counts', 'CommissionCounts', ['PENDING', 'APPROVED', 'PAID', 'REVERSED', 'DELETED', 'ALL']],
      AF17: ['/campaign/{id}/payouts/counts', 'PayoutCounts', ['UPCOMING', 'QUEUED', 'ISSUED', 'FAILED', 'REVERSED', 'ALL']],
      AF18: ['/campaign/{id}/affiliate-applications/counts', 'AffiliateApplicationCounts', ['PENDING', 'APPROVED', 'DENIED', 'ALL']],
      FR2: ['/campaign/{id}/fraud-reviews/counts', 'FraudReviewCounts', ['OPEN', 'DECIDED', 'ALL']],
    } as const;
    for (const [id, [path, schema, keys]] of Object.entries(counts)) {
      const entry = doc.paths[path]?.get;
      expect(entry, path).toBeDefined();
      expect(entry['x-refloop-id']).toBe(id);
      expect(entry.summary).toMatch(/^refloop extension\./);
      expect(entry.responses[200].content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${schema}` });
      expect(Object.keys(doc.components.schemas[schema].properties)).toEqual(keys);
      // Registered right after its list (GET of the path without /counts), so no /:id route of the prefix comes first.
      const at = operations.findIndex((op) => op.id === id);
      expect(operations[at - 1]!.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')).toBe(path.replace(/\/counts$/, ''));
    }
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
