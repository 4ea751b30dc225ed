import Koa from 'koa';
import { htmlPolicy } from './http/page-policy.ts';
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { visitFastPath } from './http/mobile/visit-fast-path.ts';
import type { Deps } from './deps.ts';
import { errorMiddleware } from './http/error-middleware.ts';
import { restApi } from './http/rest.ts';
import { consoleApi } from './http/console/api.ts';
import { consoleAssets } from './http/console/assets.ts';
import { mobileApi } from './http/mobile/router.ts';
import { mobileOperations } from './http/mobile/routes.ts';
import { uploadEndpoint } from './http/upload.ts';
import { stripeWebhookEndpoint } from './http/billing-webhook.ts';
import { paddleWebhookEndpoint } from './http/paddle-webhook.ts';
import { operations } from './http/routes.ts';
import { buildOpenApi, renderDocs } from './http/openapi.ts';
import { NotFoundError } from './errors.ts';
import { withRequestId } from './db/retry.ts';
import { sitePages } from './http/pages/site.ts';
import { verifyPage } from './http/pages/verify.ts';
import { ownerPages } from './http/pages/owner.ts';
import { unsubscribePage } from './http/pages/unsubscribe.ts';
import { widgetAssets } from './http/pages/widget-assets.ts';
import { previewPages } from './http/pages/preview.ts';
import { lazyMcpEndpoints } from './mcp/lazy-endpoints.ts';
import { oauthConsentPage } from './http/pages/oauth-consent.ts';
import { affiliateInvitePage } from './http/pages/affiliate-invite.ts';
import { payoutConfirmPage } from './http/pages/payout-confirm.ts';
import { taxPage } from './http/pages/tax.ts';
import { shareLinkPage } from './http/pages/share-link.ts';
import { hostedPages } from './http/pages/landing.ts';
import { baseHeaders, logRequest } from './http/response-base.ts';

/**
 * The server's request listener: the visit fast path (server/http/mobile/visit-fast-path.ts) takes
 * the plainly valid `POST /mobile/v2/visits`, the Koa application everything else.
 */
export function createHandler(deps: Deps, extra: Koa.Middleware[] = []): (req: IncomingMessage, res: ServerResponse) => void {
  const koa = createApp(deps, extra).callback();
  const fast = visitFastPath(deps);
  return (req, res) => {
    if (!fast(req, res)) void koa(req, res);
  };
}

/** Builds the Koa application from explicit dependencies (plus `extra` routes in front); only server/main.ts listens on a port. */
export function createApp(deps: Deps, extra: Koa.Middleware[] = []): Koa {
  const app = new Koa();
  app.proxy = deps.config.trustProxy;
  const headers = baseHeaders(deps.config.publicUrl.startsWith('https:'));
  const openapiDoc = buildOpenApi(operations, deps.config.publicUrl);
  const openapi = JSON.stringify(openapiDoc);
  const docsPage = renderDocs(openapiDoc);

  // Request id, access log and baseline security headers.
  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    ctx.state.requestId = crypto.randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    ctx.set(headers);
    try {
      // The db layer logs a transaction it runs again (PostgreSQL deadlocks) with this request's id.
      // Only PostgreSQL runs a transaction again: on SQLite the AsyncLocalStorage is never entered, so
      // Node never turns on its promise hooks, which tax every promise of the process (≈ 5 % of a visit).
      if (deps.db.dialect === 'pg') await withRequestId(ctx.state.requestId, next);
      else await next();
    } finally {
      logRequest(deps.log, ctx.state.requestId, ctx.method, ctx.path, ctx.status, started);
    }
  });
  app.use(errorMiddleware(deps.log, deps.config.supportUrl));
  // Routes an embedding entry point adds in front of ours (the demo store of `npm start`).
  for (const mw of extra) app.use(mw);
  // `/v2` goes straight to the REST pipeline: none of the middlewares below before `rest` answers a
  // path under it (mobile, MCP, widget files, previews, uploads, webhooks, health and docs), so each
  // would be one more async hop and path test per REST request. An MCP endpoint configured under
  // `/v2` (MCP_PATH, MCP_ONBOARD_PATH) is the one exception and keeps its place.
  const rest = restApi(deps, operations);
  const mcpPaths = new Set([deps.config.mcp.path, deps.config.mcp.onboardPath]);
  app.use((ctx, next) => {
    const path = ctx.path;
    if ((path === '/v2' || path.startsWith('/v2/')) && !mcpPaths.has(path)) return rest(ctx, next);
    return next();
  });
  // Our own HTML responses only: the routes an embedding entry point adds (the demo store) keep their
  // own headers, and the REST API above answers JSON and CSV, never HTML.
  app.use(htmlPolicy());
  app.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/healthz') {
      await deps.db.knex.raw('select 1');
      // Redis down is not an outage (limits fall back to this process), so the status stays ok and says so.
      ctx.body = deps.redis ? { status: 'ok', redis: deps.redis.health().state } : { status: 'ok' };
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/docs') {
      ctx.type = 'html';
      ctx.body = docsPage;
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/openapi/v2.json') {
      ctx.type = 'application/json';
      ctx.body = openapi;
      return;
    }
    return next();
  });
  // The participant API first among the prefixed routes: visits are the hottest path, and every
  // middleware in front of it is another async hop per request.
  app.use(mobileApi(deps, mobileOperations));
  app.use(lazyMcpEndpoints(deps));
  app.use(widgetAssets());
  app.use(previewPages(deps));
  // The MCP servers send C6 to `/api/v2/mcp/campaign/{id}/referral-flow-screenshots` on the API
  // origin (rest-v2 §1.1); it is the same operation as under /v2, through the same REST pipeline.
  app.use(async (ctx, next) => {
    const m = /^\/api\/v2\/mcp(\/campaign\/[^/]+\/referral-flow-screenshots)$/.exec(ctx.path);
    if (m) ctx.path = `/v2${m[1]}`;
    return next();
  });
  app.use(uploadEndpoint(deps));
  app.use(stripeWebhookEndpoint(deps));
  app.use(paddleWebhookEndpoint(deps));
  // Also here for the MCP screenshot path rewritten to `/v2` just above.
  app.use(rest);
  // The owner console: the same operations through the owner session, and the app's files.
  app.use(consoleApi(deps, operations));
  app.use(consoleAssets());
  app.use(verifyPage(deps));
  app.use(unsubscribePage(deps));
  app.use(affiliateInvitePage(deps));
  app.use(payoutConfirmPage(deps));
  app.use(taxPage(deps));
  app.use(shareLinkPage(deps));
  app.use(hostedPages(deps));
  app.use(oauthConsentPage(deps));
  app.use(ownerPages(deps));
  app.use(sitePages(deps));
  app.use(async (ctx) => {
    throw new NotFoundError(`Nothing at ${ctx.method} ${ctx.path}.`);
  });
  app.on('error', () => {
    /* already logged by the error middleware */
  });
  return app;
}
