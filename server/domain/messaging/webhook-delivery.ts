// Durable, signed webhook delivery: the `webhook.deliver` job with its retry schedule and
// auto-disable, the queueing of deliveries, one signed HTTP attempt and the delivery log's rows.
import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import { insertRow, type TableRows } from '../../db/rows.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import type { Sealer } from '../../crypto.ts';
import { newOrderedId } from '../../crypto.ts';
import type { Jobs } from '../platform/jobs.ts';
import { SYSTEM, type AuditLog } from '../platform/audit.ts';
import { checkTarget, pinnedLookup, type Target } from '../platform/ssrf.ts';
import type { WebhookDelivery, WebhookDeliveryAttempt } from '../../../shared/schemas/webhook.ts';

/** Consecutive failed attempts (across deliveries) a webhook needs, at the least, before it switches itself off. */
export const AUTO_DISABLE_AFTER_FAILURES = 15;
/**
 * How long a webhook's failures must have gone on (its first failure since the last success, or
 * since its last change, this long ago) before it switches itself off: a receiver that answers 503
 * for a second under load fails thousands of attempts in that second, and none of that is an outage.
 */
export const AUTO_DISABLE_FAILING_FOR_MS = 12 * 3600_000;
/** Attempts per delivery: the first plus one after each gap of `RETRY_DELAYS_MS`. */
export const MAX_DELIVERY_ATTEMPTS = 15;
/**
 * Gap before attempt n+1 after attempt n failed. The 14 gaps add up to 86,920 s ≈ 24.1 h, so a
 * delivery is retried for about a day. (The job runner's own backoff, 10 s·2^(n−1) capped at 1 h,
 * would give 15 attempts in only 23,110 s ≈ 6.4 h, so delivery schedules its own retries.)
 */
export const RETRY_DELAYS_MS = [10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 10800, 14400, 18000, 28800].map((s) => s * 1000);
/** How long a receiver has to answer one delivery. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a receiver's reply is kept in the delivery log. */
export const RESPONSE_BODY_LIMIT = 1024;
/** Sent as User-Agent on every delivery. */
export const USER_AGENT = 'refloop-webhooks/1';

const JOB_TYPE = 'webhook.deliver';
// Infrastructure failures inside the handler (database down, crash mid-send) fall back to the
// runner's own retries; receiver failures are scheduled by RETRY_DELAYS_MS instead.
const JOB_MAX_ATTEMPTS = 5;

/** `GrowSurf-Signature` value: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. */
export function signatureHeader(secret: string, unixSeconds: number, rawBody: string): string {
  const v1 = crypto.createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

/** The result of one HTTP attempt. */
export interface Outcome {
  ok: boolean;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  statusText: string | null;
  body: string | null;
  error: string | null;
}

function toAttempt(row: any): WebhookDeliveryAttempt {
  return {
    attempt: Number(row.attempt),
    at: Number(row.started_at),
    durationMs: Number(row.duration_ms),
    statusCode: row.status_code == null ? null : Number(row.status_code),
    responseBody: row.response_body ?? null,
    error: row.error ?? null,
  };
}

/** Posts `body` to a checked target over node:http(s), connecting only to the checked address. */
function post(target: Target, headers: Record<string, string>, body: string, timeoutMs: number): Promise<{ statusCode: number; statusText: string; body: string }> {
  const signal = AbortSignal.timeout(timeoutMs);
  const transport = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      target.url,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        signal,
        // A fresh connection per delivery, so the pinned address is the one used.
        agent: false,
        ...(target.address ? { lookup: pinnedLookup(target.address, target.family) } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          resolve({ statusCode: res.statusCode ?? 0, statusText: res.statusMessage ?? '', body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8') });
        };
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          size += c.length;
          // Enough kept for the log; an endless reply must not hold the worker.
          if (size >= RESPONSE_BODY_LIMIT) {
            finish();
            res.destroy();
          }
        });
        res.on('end', finish);
        res.on('error', (err) => (done ? undefined : reject(err)));
      },
    );
    req.on('error', (err) => reject(signal.aborted ? new Error(`no response within ${timeoutMs / 1000} s`) : err));
    req.end(body);
  });
}

/** The target guard's policy: private addresses only when configured, HTTPS only in production. */
export function targetPolicy(config: Config) {
  return { allowPrivate: config.webhookAllowPrivate, requireHttps: config.env === 'production' };
}

/** Every attempt of one delivery, oldest first. */
export async function attemptsOf(q: Knex | Knex.Transaction, deliveryId: string): Promise<WebhookDeliveryAttempt[]> {
  return (await q('webhook_delivery_attempts').where({ delivery_id: deliveryId }).orderBy('attempt', 'asc')).map(toAttempt);
}

/** Delivery rows (joined with their event's payload) as the delivery log shows them, each with its latest attempt. */
export async function toDeliveries(q: Knex | Knex.Transaction, rows: any[]): Promise<WebhookDelivery[]> {
  const last = new Map<string, WebhookDeliveryAttempt>();
  if (rows.length) {
    const attempts = await q('webhook_delivery_attempts').whereIn('delivery_id', rows.map((r) => r.id)).orderBy('attempt', 'asc');
    for (const a of attempts) last.set(a.delivery_id, toAttempt(a));
  }
  return rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    event: r.event,
    status: r.status,
    test: Boolean(r.is_test),
    replayOf: r.replay_of ?? null,
    attemptCount: Number(r.attempts),
    lastAttempt: last.get(r.id) ?? null,
    nextAttemptAt: r.status === 'PENDING' && r.next_attempt_at != null ? Number(r.next_attempt_at) : null,
    createdAt: Number(r.created_at),
    completedAt: r.completed_at == null ? null : Number(r.completed_at),
    payload: JSON.parse(r.payload),
  }));
}

/** One event to one webhook, about to be queued (`replayOf`: the delivery it sends again). */
export interface QueuedDelivery {
  programId: string;
  webhookId: string;
  eventId: string;
  event: string;
  replayOf: string | null;
}

/** The delivery side of webhooks: queues deliveries and runs the `webhook.deliver` job. */
export class WebhookDeliveries {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly jobs: Jobs,
    private readonly sealer: Sealer,
    /** Drops the outbox's per-transaction list of subscribed webhooks (every transaction that writes webhooks does). */
    private readonly forgetSubscriptions: (trx: Knex.Transaction) => void,
    /** Tells the outbox that `trx` switched one of the program's webhooks off (published once it commits). */
    private readonly subscriptionsChanged: (trx: Knex.Transaction, programId: string) => void = () => undefined,
    /** Records the switch-off as a SYSTEM audit entry (issue #35). */
    private readonly audit: AuditLog | null = null,
  ) {
    jobs.register(JOB_TYPE, async ({ deliveryId }: { deliveryId: string }) => this.deliver(deliveryId));
  }

  /**
   * The `webhook.deliver` job: one attempt of one delivery. A failure is logged, counted against the
   * webhook and rescheduled by RETRY_DELAYS_MS. When the webhook's failures have gone on for
   * AUTO_DISABLE_FAILING_FOR_MS (and number at least AUTO_DISABLE_AFTER_FAILURES), it switches
   * itself off; its pending deliveries are held, not failed, until it is switched back on.
   */
  async deliver(deliveryId: string): Promise<void> {
    const knex = this.db.knex;
    const delivery = await knex('webhook_deliveries').where({ id: deliveryId }).first();
    if (!delivery || delivery.status !== 'PENDING') return;
    // A retry that was brought forward (the webhook was switched back on) leaves its old job behind.
    if (delivery.next_attempt_at != null && Number(delivery.next_attempt_at) > this.clock.now()) return;
    const hook = await knex('webhooks').where({ program_id: delivery.program_id, id: delivery.webhook_id }).first();
    if (hook?.auto_disabled && !hook.is_enabled) {
      // Switched off by failures: held, PENDING with no attempt planned, until it is switched back on.
      await knex('webhook_deliveries').where({ id: deliveryId, status: 'PENDING' }).update({ next_attempt_at: null, updated_at: this.clock.now() });
      return;
    }
    if (!hook || !hook.is_enabled) {
      // Switched off by its owner: skipped.
      await knex('webhook_deliveries')
        .where({ id: deliveryId, status: 'PENDING' })
        .update({ status: 'SKIPPED', next_attempt_at: null, completed_at: this.clock.now(), updated_at: this.clock.now() });
      return;
    }
    const event = await knex('webhook_events').where({ id: delivery.event_id }).first('payload');
    const outcome = await this.send(hook, deliveryId, delivery.event, event.payload);
    await knex.transaction(async (trx) => {
      const current = await trx('webhook_deliveries').where({ id: deliveryId }).forUpdate().first();
      if (!current || current.status !== 'PENDING') return;
      const attempt = Number(current.attempts) + 1;
      const now = this.clock.now();
      await this.insertAttempt(trx, deliveryId, attempt, outcome);
      const where = { program_id: current.program_id, id: current.webhook_id };
      this.forgetSubscriptions(trx);
      if (outcome.ok) {
        await trx('webhook_deliveries').where({ id: deliveryId }).update({ status: 'SUCCEEDED', attempts: attempt, next_attempt_at: null, completed_at: now, updated_at: now });
        await trx('webhooks').where(where).update({ failure_count: 0, failing_since: null });
        return;
      }
      // The first failure after a success starts the streak (SET reads the old count).
      await trx('webhooks')
        .where(where)
        .update({ failure_count: trx.raw('failure_count + 1'), last_failure_at: now, failing_since: trx.raw('CASE WHEN failure_count = 0 OR failing_since IS NULL THEN ? ELSE failing_since END', [now]) });
      const after = await trx('webhooks').where(where).first('failure_count', 'is_enabled', 'failing_since');
      const exhausted = attempt >= MAX_DELIVERY_ATTEMPTS;
      if (after && after.is_enabled && Number(after.failure_count) >= AUTO_DISABLE_AFTER_FAILURES && now - Number(after.failing_since) >= AUTO_DISABLE_FAILING_FOR_MS) {
        this.subscriptionsChanged(trx, current.program_id);
        await trx('webhooks').where(where).update({ is_enabled: false, auto_disabled: true });
        const program = this.audit ? await trx('programs').where({ id: current.program_id }).first('team_id') : null;
        if (program) {
          await this.audit!.system(trx, {
            teamId: program.team_id,
            source: SYSTEM.webhookDelivery,
            action: 'system.webhook.auto_disable',
            resourceType: 'webhooks',
            resourceId: current.webhook_id,
            changes: {
              ids: { id: current.program_id, webhookId: current.webhook_id },
              fields: { isEnabled: { before: true, after: false }, autoDisabled: { before: false, after: true }, failureCount: { after: Number(after.failure_count) }, failingSince: { after: Number(after.failing_since) } },
            },
          });
        }
        // This delivery is held like the rest of the backlog, unless it has used up its attempts.
        await trx('webhook_deliveries')
          .where({ id: deliveryId })
          .update(exhausted ? { status: 'FAILED', attempts: attempt, next_attempt_at: null, completed_at: now, updated_at: now } : { attempts: attempt, next_attempt_at: null, updated_at: now });
        this.log.warn('webhook auto-disabled after failing for hours', { programId: current.program_id, webhookId: current.webhook_id, failures: Number(after.failure_count), failingSince: Number(after.failing_since) });
        return;
      }
      if (exhausted) {
        await trx('webhook_deliveries').where({ id: deliveryId }).update({ status: 'FAILED', attempts: attempt, next_attempt_at: null, completed_at: now, updated_at: now });
        return;
      }
      const runAt = now + RETRY_DELAYS_MS[attempt - 1]!;
      await trx('webhook_deliveries').where({ id: deliveryId }).update({ attempts: attempt, next_attempt_at: runAt, updated_at: now });
      await this.jobs.enqueue(trx, JOB_TYPE, { deliveryId }, { runAt, uniqueKey: `${JOB_TYPE}:${deliveryId}:${attempt + 1}`, maxAttempts: JOB_MAX_ATTEMPTS });
    });
  }

  /** Stores a new PENDING delivery and queues its first attempt; returns the delivery id. */
  async queue(trx: Knex | Knex.Transaction, d: QueuedDelivery): Promise<string> {
    const row = this.row(d);
    await insertRow(this.db, trx, 'webhook_deliveries', row);
    await this.jobs.enqueue(trx, JOB_TYPE, { deliveryId: row.id }, { uniqueKey: `${JOB_TYPE}:${row.id}:1`, maxAttempts: JOB_MAX_ATTEMPTS });
    return row.id;
  }

  /** A new PENDING delivery row of one event to one webhook. */
  row(d: QueuedDelivery) {
    const now = this.clock.now();
    return {
      id: newOrderedId(),
      program_id: d.programId,
      webhook_id: d.webhookId,
      event_id: d.eventId,
      event: d.event,
      status: 'PENDING',
      is_test: false,
      replay_of: d.replayOf,
      attempts: 0,
      next_attempt_at: now,
      completed_at: null,
      created_at: now,
      updated_at: now,
    };
  }

  /** The jobs of the first attempts of deliveries whose rows the caller stores itself, as rows for `insertRowsTogether` (`Webhooks.emitMany`). */
  firstAttemptJobs(deliveries: Array<{ id: string }>): TableRows {
    return this.jobs.rowsOf(deliveries.map((d) => ({ type: JOB_TYPE, payload: { deliveryId: d.id }, opts: { uniqueKey: `${JOB_TYPE}:${d.id}:1`, maxAttempts: JOB_MAX_ATTEMPTS } })));
  }

  /**
   * Queues an attempt now for every delivery still PENDING on a webhook that is switched back on:
   * the ones held while it was off and the ones waiting for a later retry. Each keeps its attempt
   * count; the job that was waiting finds the delivery already attempted and does nothing.
   */
  async resume(trx: Knex.Transaction, programId: string, webhookId: string): Promise<number> {
    const now = this.clock.now();
    const pending: Array<{ id: string; attempts: number }> = await trx('webhook_deliveries')
      .where({ program_id: programId, webhook_id: webhookId, status: 'PENDING', is_test: false })
      .select('id', 'attempts');
    for (let i = 0; i < pending.length; i += 200) {
      const chunk = pending.slice(i, i + 200);
      await trx('webhook_deliveries').whereIn('id', chunk.map((d) => d.id)).update({ next_attempt_at: now, updated_at: now });
      await this.jobs.enqueueMany(
        trx,
        chunk.map((d) => ({ type: JOB_TYPE, payload: { deliveryId: d.id }, opts: { uniqueKey: `${JOB_TYPE}:${d.id}:${Number(d.attempts) + 1}:resumed-${now}`, maxAttempts: JOB_MAX_ATTEMPTS } })),
      );
    }
    return pending.length;
  }

  /** Stores one attempt in the delivery log. */
  async insertAttempt(trx: Knex.Transaction, deliveryId: string, attempt: number, o: Outcome): Promise<void> {
    await trx('webhook_delivery_attempts').insert({
      delivery_id: deliveryId,
      attempt,
      started_at: o.startedAt,
      duration_ms: o.durationMs,
      status_code: o.statusCode,
      response_body: o.body,
      error: o.error ? o.error.slice(0, 1000) : null,
      success: o.ok,
    });
  }

  /** One signed POST; the target is checked again now, since DNS may have changed since it was saved. */
  async send(hook: any, deliveryId: string, event: string, body: string): Promise<Outcome> {
    const startedAt = this.clock.now();
    const t0 = performance.now();
    const done = (o: Omit<Outcome, 'startedAt' | 'durationMs'>): Outcome => ({ ...o, startedAt, durationMs: Math.round(performance.now() - t0) });
    const fail = (error: string) => done({ ok: false, statusCode: null, statusText: null, body: null, error });
    if (!hook.payload_url) return fail('The webhook has no payload URL.');
    let secret: string | null = null;
    if (hook.secret_enc) {
      secret = this.sealer.open(hook.secret_enc);
      if (secret == null) return fail('The stored secret cannot be unsealed (was SECRET_KEY changed?); set the secret again.');
    }
    let target: Target;
    try {
      target = await checkTarget(hook.payload_url, targetPolicy(this.config));
    } catch (err) {
      return fail(`Refused: ${(err as Error).message}`);
    }
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'GrowSurf-Delivery-Id': deliveryId,
      'GrowSurf-Event': event,
    };
    if (secret) headers['GrowSurf-Signature'] = signatureHeader(secret, Math.floor(startedAt / 1000), body);
    try {
      const res = await post(target, headers, body, DELIVERY_TIMEOUT_MS);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return done({ ok, statusCode: res.statusCode, statusText: res.statusText || null, body: res.body || null, error: ok ? null : `HTTP ${res.statusCode}` });
    } catch (err) {
      const e = err as Error & { code?: string };
      return fail(e.code ? `${e.code}: ${e.message}` : e.message);
    }
  }
}
