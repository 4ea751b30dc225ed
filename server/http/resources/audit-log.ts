import { z } from 'zod';
import type { Readable } from 'node:stream';
import { operation } from '../operation.ts';
import { auditLogPage, auditLogQuery } from '../../../shared/schemas/audit-log.ts';
import { auditTime, type AuditEntry } from '../../domain/platform/audit.ts';
import { csvStream, isoTime } from '../../domain/platform/csv-stream.ts';

/** AU1 `GET /team/audit-log` (issue #35): the team's audit trail, newest first. */
export const listAuditLog = operation({
  id: 'AU1',
  name: 'auditLog.list',
  method: 'GET',
  path: '/team/audit-log',
  access: { scopes: ['team:read'] },
  summary:
    'refloop extension. The team’s audit trail, newest first: one entry per successful write through the REST API or the console (operation id as action) and per export of participants, referrals, rewards, commissions, payouts or the trail itself (DX1–DX4, PO3, AU2, with their filters), the owner pages’ access events (sign-in, failed sign-in, sign-out, keys made or revoked there), and the changes refloop makes itself (actor type SYSTEM, id the job or webhook source: `system.…` actions of background jobs such as delayed referral credits, commission hold ends and monthly payout runs; `billing.stripe.…` / `billing.paddle.…` of the billing webhooks), each with who (member email, API key prefix or system source), when, IP, user agent, resource and changed fields (secrets and tax data never; payout destinations masked), hash-chained per team. limit 1–100 (default 50), cursor = nextCursor; filters actor, resourceType, resourceId, action, from, to.',
  query: auditLogQuery,
  response: auditLogPage,
  handler: ({ query, auth, deps }) =>
    deps.audit.list(auth!.teamId, {
      limit: query.limit,
      cursor: query.cursor,
      actor: query.actor,
      resourceType: query.resourceType,
      resourceId: query.resourceId,
      action: query.action,
      from: auditTime(query.from, 'from'),
      to: auditTime(query.to, 'to'),
    }),
});

/** The audit CSV's answer: CSV text, streamed. */
const csvFile = z.string().meta({ description: 'CSV (RFC 4180, UTF-8, CRLF, a header row; cells starting with = + - @ are prefixed with an apostrophe).' }) as unknown as z.ZodType<string | Readable>;

/** AU2 `GET /team/audit-log/export.csv` (issue #35): the filtered audit trail as a CSV download, newest first. */
export const exportAuditLog = operation({
  id: 'AU2',
  name: 'auditLog.export',
  method: 'GET',
  path: '/team/audit-log/export.csv',
  access: { scopes: ['team:read'] },
  summary:
    'refloop extension. The team’s audit trail as CSV, newest first, with the filters of AU1 (actor, resourceType, resourceId, action, from, to): seq, time (ISO 8601 UTC), actor type, actor, actor id, IP, user agent, action, resource type, resource id, changes (JSON), hash. Streamed as it is read, as a download.',
  query: auditLogQuery.omit({ limit: true, cursor: true }),
  response: csvFile,
  contentType: 'text/csv',
  download: () => 'audit-log.csv',
  audit: { reads: true, mode: 'after', resource: 'audit_log' },
  handler: ({ query, auth, deps }) => {
    const filters = { actor: query.actor, resourceType: query.resourceType, resourceId: query.resourceId, action: query.action, from: auditTime(query.from, 'from'), to: auditTime(query.to, 'to') };
    return csvStream<AuditEntry>({
      header: ['seq', 'at', 'actorType', 'actor', 'actorId', 'ip', 'userAgent', 'action', 'resourceType', 'resourceId', 'changes', 'hash'],
      page: async (after, limit) => (await deps.audit.list(auth!.teamId, { ...filters, limit, cursor: after ? String(after.createdAt) : undefined })).entries,
      cursor: (e) => ({ createdAt: e.seq, id: e.id }),
      cells: (rows) => rows.map((e) => [e.seq, isoTime(e.at), e.actor.type, e.actor.label, e.actor.id, e.ip, e.userAgent, e.action, e.resource.type, e.resource.id, JSON.stringify(e.changes), e.hash]),
    });
  },
});
