import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Jobs } from './jobs.ts';
import { pruneRetained } from './retention.ts';
import type { AuditLog } from './audit.ts';

const HOUR = 3_600_000;
/** Idempotency records are replayable for a day. */
export const IDEMPOTENCY_TTL_MS = 24 * HOUR;
/** Billing integrations' received events are kept this long (issue #25). */
export const BILLING_EVENT_TTL_MS = 30 * 24 * HOUR;
/** Webhook events and their delivery logs are kept this long once no delivery is pending. */
export const WEBHOOK_LOG_TTL_MS = 30 * 24 * HOUR;

/**
 * Hourly housekeeping on the job runner: prunes expired rate-limit counters, idempotency records,
 * owner sessions, one-time owner links, finished jobs, webhook logs and billing integrations' event logs older than 30 days (but a refund
 * still waiting for its sale, which the billing engine reports first), and the
 * participant API's visits, unique-visitor pairs and superseded fraud decisions past their
 * retention, and audit entries past AUDIT_RETENTION_DAYS (server/domain/platform/retention.ts, in short batches). Each run
 * schedules the next, keyed by its hour, so several processes never double it up.
 */
export class Maintenance {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly jobs: Jobs,
    private readonly audit?: AuditLog,
    private readonly auditRetentionDays = 400,
  ) {
    this.schedule = jobs.registerPeriodic('maintenance.prune', HOUR, 'prune', () => this.prune());
  }

  /** Makes sure the run for the hour containing `at` is queued. */
  readonly schedule: (at?: number) => Promise<void>;

  /** Deletes what has expired; returns how many rows each table lost. */
  async prune(): Promise<Record<string, number>> {
    const now = this.clock.now();
    const k = this.db.knex;
    return {
      rate_limits: await k('rate_limits').where('expire', '<', Date.now() - HOUR).del(),
      idempotency_records: await k('idempotency_records').where('created_at', '<', now - IDEMPOTENCY_TTL_MS).del(),
      sessions: await k('sessions').where('expires_at', '<', now).del(),
      // Remembered browsers (issue #35) once their 30 days are over.
      trusted_devices: await k('trusted_devices').where('expires_at', '<', now).del(),
      owner_tokens: await k('owner_tokens').where('expires_at', '<', now - 30 * 24 * HOUR).del(),
      jobs: await k('jobs').whereIn('status', ['DONE']).where('updated_at', '<', now - 7 * 24 * HOUR).del(),
      // Deliveries and their attempts go with their event (ON DELETE CASCADE).
      webhook_events: await k('webhook_events')
        .where('created_at', '<', now - WEBHOOK_LOG_TTL_MS)
        .whereNotExists(k('webhook_deliveries as d').whereRaw('d.event_id = webhook_events.id').where('d.status', 'PENDING').select(k.raw('1')))
        .del(),
      // MCP OAuth: codes and tokens a day after they expired (a replayed code or rotated refresh
      // token is recognised, and revokes its grant, for as long as it could have worked), and
      // connections revoked 30 days ago with everything issued under them (ON DELETE CASCADE).
      mcp_oauth_codes: await k('mcp_oauth_codes').where('expires_at', '<', now - 24 * HOUR).del(),
      mcp_oauth_tokens: await k('mcp_oauth_tokens').where('expires_at', '<', now - 24 * HOUR).del(),
      mcp_oauth_grants: await k('mcp_oauth_grants').whereNotNull('revoked_at').where('revoked_at', '<', now - 30 * 24 * HOUR).del(),
      // One-time sign-in links (migration 021): useless once expired, used or not.
      participant_login_tokens: await k('participant_login_tokens').where('expires_at', '<', now).del(),
      // Billing integrations' event logs (issue #25). A refund still waiting for its sale stays: the
      // billing engine reports it UNMATCHED first (issue #35, billing/unmatched-refunds.ts), and
      // that entry goes 30 days after the report.
      billing_events: await k('billing_events').where('received_at', '<', now - BILLING_EVENT_TTL_MS).whereNot('outcome', 'DEFERRED').del(),
      ...(await pruneRetained(this.db, now)),
      // The audit trail leaves only through its recorded prune (server/domain/platform/audit.ts).
      audit_log: this.audit ? await this.audit.prune(this.auditRetentionDays * 24 * HOUR) : 0,
    };
  }
}
