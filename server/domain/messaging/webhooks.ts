import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Knex } from 'knex';
import type { Db } from '../db/connect.ts';
import { insertRow, insertRows, trxRows } from '../db/rows.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { Sealer } from '../crypto.ts';
import { newId, newOrderedId } from '../crypto.ts';
import { InvalidStateError, NotFoundError, ValidationError } from '../errors.ts';
import type { Jobs } from './jobs.ts';
import { toProgram, type Program, type Programs } from './programs.ts';
import { checkTarget, pinnedLookup, TargetRefusedError, type Target } from './ssrf.ts';
import type { EventParticipant } from './participants/serialize.ts';
import type {
  Webhook,
  WebhookCreate,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookDeliveryList,
  WebhookDeliveryListQuery,
  WebhookEnvelope,
  WebhookEvent,
  WebhookTestResponse,
  WebhookUpdate,
} from '../../shared/schemas/webhook.ts';

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
/** Webhooks one program may have. */
export const MAX_WEBHOOKS_PER_PROGRAM = 10;
/** The id of a program's first webhook (GrowSurf's "primary" webhook). */
export const PRIMARY_WEBHOOK_ID = 'primary';
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
interface Outcome {
  ok: boolean;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  statusText: string | null;
  body: string | null;
  error: string | null;
}

function toWebhook(row: any): Webhook {
  return {
    id: row.id,
    payloadUrl: row.payload_url ?? null,
    events: JSON.parse(row.events),
    isEnabled: Boolean(row.is_enabled),
    autoDisabledDueToFailures: Boolean(row.auto_disabled),
    failureCount: Number(row.failure_count),
    lastFailureAt: row.last_failure_at == null ? null : Number(row.last_failure_at),
  };
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

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
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

/**
 * Webhooks: configuration (W1–W5), the event outbox every engine writes to with `emit`, and
 * durable, signed delivery with retries, auto-disable and a delivery log.
 */
export class Webhooks {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly jobs: Jobs,
    private readonly sealer: Sealer,
    private readonly programs: Programs,
  ) {
    jobs.register(JOB_TYPE, async ({ deliveryId }: { deliveryId: string }) => this.deliver(deliveryId));
    programs.hooks.ended.push(async (trx, program) => {
      // Re-read: hooks that ran before this one (winners, prizes) may have changed the counts.
      const current = toProgram(await trx('programs').where({ id: program.id }).first());
      await this.emit(trx, program.id, 'CAMPAIGN_ENDED', { campaign: await programs.toCampaign(current, trx) });
    });
  }

  /**
   * Announces an event, inside the caller's transaction: one event row plus one PENDING delivery and
   * one job per enabled webhook subscribed to it. A rolled-back change therefore sends nothing.
   * Returns the event id, or null when no webhook listens (nothing is stored then).
   */
  async emit(trx: Knex | Knex.Transaction, programId: string, event: WebhookEvent, data: object): Promise<string | null> {
    const hooks = (await this.#subscribed(trx, programId)).filter((h) => h.events.includes(event));
    if (hooks.length === 0) return null;
    const now = this.clock.now();
    const envelope: WebhookEnvelope = { event, createdAt: now, data: data as Record<string, unknown> };
    const eventId = newOrderedId();
    await insertRow(this.db, trx, 'webhook_events', { id: eventId, program_id: programId, event, payload: JSON.stringify(envelope), is_test: false, created_at: now });
    for (const h of hooks) await this.#queueDelivery(trx, { programId, webhookId: h.id, eventId, event, replayOf: null });
    const tx = trx as Knex.Transaction;
    if (tx.executionPromise) tx.executionPromise.then(() => this.jobs.kick(), () => undefined);
    else this.jobs.kick();
    return eventId;
  }

  /**
   * `emit` for several events of one kind inside the caller's transaction (a trigger's two
   * PARTICIPANT_REACHED_A_GOAL): the same rows, written with one statement per table. Returns the
   * event ids, none when no webhook listens.
   */
  async emitMany(trx: Knex.Transaction, programId: string, event: WebhookEvent, datas: object[]): Promise<string[]> {
    const hooks = (await this.#subscribed(trx, programId)).filter((h) => h.events.includes(event));
    if (hooks.length === 0 || datas.length === 0) return [];
    const now = this.clock.now();
    const events = datas.map((data) => {
      const envelope: WebhookEnvelope = { event, createdAt: now, data: data as Record<string, unknown> };
      return { id: newOrderedId(), program_id: programId, event, payload: JSON.stringify(envelope), is_test: false, created_at: now };
    });
    const deliveries = events.flatMap((e) => hooks.map((h) => this.#deliveryRow({ programId, webhookId: h.id, eventId: e.id, event, replayOf: null })));
    await insertRows(trx, 'webhook_events', events);
    await insertRows(trx, 'webhook_deliveries', deliveries);
    await this.jobs.enqueueMany(
      trx,
      deliveries.map((d) => ({ type: JOB_TYPE, payload: { deliveryId: d.id }, opts: { uniqueKey: `${JOB_TYPE}:${d.id}:1`, maxAttempts: JOB_MAX_ATTEMPTS } })),
    );
    if (trx.executionPromise) trx.executionPromise.then(() => this.jobs.kick(), () => undefined);
    else this.jobs.kick();
    return events.map((e) => e.id);
  }

  /**
   * NEW_PARTICIPANT_ADDED in GrowSurf's shape: the participant's fields at the top of `data`, with
   * the program as `data.campaign` (docs/webhooks.md). Built only when a webhook listens.
   */
  async participantAdded(trx: Knex | Knex.Transaction, program: Program, participant: EventParticipant): Promise<string | null> {
    if (!(await this.listens(trx, program.id, 'NEW_PARTICIPANT_ADDED'))) return null;
    return this.emit(trx, program.id, 'NEW_PARTICIPANT_ADDED', { ...participant, campaign: await this.programs.toCampaign(program, trx) });
  }

  /** True when an enabled webhook of the program listens to `event` (read once per transaction, like `emit`). */
  async listens(trx: Knex | Knex.Transaction, programId: string, event: WebhookEvent): Promise<boolean> {
    return (await this.#subscribed(trx, programId)).some((h) => h.events.includes(event));
  }

  /**
   * The program's enabled webhooks with a payload URL, read once per transaction: a referral trigger
   * asked three times (reward announce, two emits). Only this service writes webhooks, each change
   * in its own transaction that drops the entry, so a transaction never sees a stale list; outside a
   * transaction every call reads afresh.
   */
  async #subscribed(trx: Knex | Knex.Transaction, programId: string): Promise<Array<{ id: string; events: string[] }>> {
    const inTrx = (trx as Knex.Transaction).isTransaction === true;
    let perTrx = inTrx ? this.#subscriptions.get(trx) : undefined;
    const hit = perTrx?.get(programId);
    if (hit) return hit;
    const rows: Array<{ id: string; events: string; payload_url: string | null }> = inTrx
      ? await trxRows(trx as Knex.Transaction, 'SELECT "id", "events", "payload_url" FROM "webhooks" WHERE "program_id" = ? AND "is_enabled" = ?', [programId, true])
      : await trx('webhooks').where({ program_id: programId, is_enabled: true }).select('id', 'events', 'payload_url');
    const list = rows.filter((h) => h.payload_url).map((h) => ({ id: h.id, events: JSON.parse(h.events) as string[] }));
    if (inTrx) {
      if (!perTrx) this.#subscriptions.set(trx, (perTrx = new Map()));
      perTrx.set(programId, list);
    }
    return list;
  }

  /** `#subscribed`'s lists by transaction; entries go with their transaction object. */
  readonly #subscriptions = new WeakMap<object, Map<string, Array<{ id: string; events: string[] }>>>();

  /** `GET /campaign/{id}/webhooks`: oldest first, so `primary` leads. */
  async list(program: Program): Promise<Webhook[]> {
    const rows = await this.db.knex('webhooks').where({ program_id: program.id }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows.map(toWebhook);
  }

  /** `POST /campaign/{id}/webhooks`: the program's first webhook is `primary`. */
  async create(program: Program, input: WebhookCreate): Promise<Webhook> {
    await this.#checkUrl(input.payloadUrl);
    return this.db.knex.transaction(async (trx) => {
      this.#subscriptions.delete(trx);
      // Serialises creates per program so two at once cannot both take `primary`.
      await trx('programs').where({ id: program.id }).forNoKeyUpdate().first('id');
      const existing = await trx('webhooks').where({ program_id: program.id }).select('id');
      if (existing.length >= MAX_WEBHOOKS_PER_PROGRAM) {
        throw new ValidationError(`A program may have at most ${MAX_WEBHOOKS_PER_PROGRAM} webhooks; delete one first.`);
      }
      const id = existing.some((r: { id: string }) => r.id === PRIMARY_WEBHOOK_ID) ? newId() : PRIMARY_WEBHOOK_ID;
      const now = this.clock.now();
      await trx('webhooks').insert({
        program_id: program.id,
        id,
        payload_url: input.payloadUrl,
        events: JSON.stringify(unique(input.events ?? [])),
        is_enabled: input.isEnabled ?? true,
        auto_disabled: false,
        failure_count: 0,
        last_failure_at: null,
        secret_enc: input.secret ? this.sealer.seal(input.secret) : null,
        created_at: now,
        updated_at: now,
      });
      return toWebhook(await trx('webhooks').where({ program_id: program.id, id }).first());
    });
  }

  /**
   * `PATCH …/webhooks/{webhookId}`: only sent fields change; `isEnabled: true` also clears the failure
   * state and sends the deliveries held while the webhook was off, now.
   */
  async update(program: Program, webhookId: string, patch: WebhookUpdate): Promise<Webhook> {
    await this.#row(this.db.knex, program.id, webhookId);
    if (patch.payloadUrl !== undefined) await this.#checkUrl(patch.payloadUrl);
    let resumed = 0;
    const updated = await this.db.knex.transaction(async (trx) => {
      this.#subscriptions.delete(trx);
      const before = await this.#row(trx, program.id, webhookId);
      const now = this.clock.now();
      const changes: Record<string, unknown> = { updated_at: now };
      if (patch.payloadUrl !== undefined) changes.payload_url = patch.payloadUrl;
      if (patch.events !== undefined) changes.events = JSON.stringify(unique(patch.events));
      if (patch.secret !== undefined) changes.secret_enc = this.sealer.seal(patch.secret);
      if (patch.isEnabled !== undefined) changes.is_enabled = patch.isEnabled;
      // A change during a failure streak starts its clock again (SET reads the old count).
      changes.failing_since = this.db.knex.raw('CASE WHEN failure_count = 0 THEN NULL ELSE CAST(? AS BIGINT) END', [now]);
      if (patch.isEnabled === true) {
        changes.auto_disabled = false;
        changes.failure_count = 0;
        changes.failing_since = null;
      }
      await trx('webhooks').where({ program_id: program.id, id: webhookId }).update(changes);
      if (patch.isEnabled === true && !before.is_enabled) resumed = await this.#resume(trx, program.id, webhookId);
      return toWebhook(await trx('webhooks').where({ program_id: program.id, id: webhookId }).first());
    });
    if (resumed) this.jobs.kick();
    return updated;
  }

  /**
   * Queues an attempt now for every delivery still PENDING on a webhook that is switched back on:
   * the ones held while it was off and the ones waiting for a later retry. Each keeps its attempt
   * count; the job that was waiting finds the delivery already attempted and does nothing.
   */
  async #resume(trx: Knex.Transaction, programId: string, webhookId: string): Promise<number> {
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

  /** `DELETE …/webhooks/{webhookId}`: its deliveries go with it; queued attempts find nothing and stop. */
  async remove(program: Program, webhookId: string): Promise<{ id: string; success: true }> {
    await this.db.knex.transaction(async (trx) => {
      this.#subscriptions.delete(trx);
      await this.#row(trx, program.id, webhookId);
      await trx('webhooks').where({ program_id: program.id, id: webhookId }).delete();
    });
    return { id: webhookId, success: true };
  }

  /**
   * `POST …/webhooks/{webhookId}/test`: one live, signed delivery of a mock event, sent now and
   * logged, answering with the receiver's reply. It never touches the failure counters: a test
   * against a receiver being built must not switch a production webhook off.
   */
  async test(program: Program, webhookId: string, event: WebhookEvent | undefined): Promise<WebhookTestResponse> {
    const hook = await this.#row(this.db.knex, program.id, webhookId);
    const chosen = event ?? (JSON.parse(hook.events) as WebhookEvent[])[0];
    if (!chosen) {
      const message = 'This webhook subscribes to no events; send an event to test.';
      throw new ValidationError(message, [{ field: 'event', code: 'REQUIRED', message }]);
    }
    const now = this.clock.now();
    const envelope: WebhookEnvelope = { event: chosen, createdAt: now, data: await this.#mockData(program, chosen) };
    const body = JSON.stringify(envelope);
    const deliveryId = newOrderedId();
    const outcome = await this.#send(hook, deliveryId, chosen, body);
    await this.db.knex.transaction(async (trx) => {
      const eventId = newOrderedId();
      await trx('webhook_events').insert({ id: eventId, program_id: program.id, event: chosen, payload: body, is_test: true, created_at: now });
      await trx('webhook_deliveries').insert({
        id: deliveryId,
        program_id: program.id,
        webhook_id: webhookId,
        event_id: eventId,
        event: chosen,
        status: outcome.ok ? 'SUCCEEDED' : 'FAILED',
        is_test: true,
        replay_of: null,
        attempts: 1,
        next_attempt_at: null,
        completed_at: this.clock.now(),
        created_at: now,
        updated_at: this.clock.now(),
      });
      await this.#insertAttempt(trx, deliveryId, 1, outcome);
    });
    const msg = outcome.body || outcome.statusText || outcome.error || undefined;
    return {
      success: outcome.ok,
      payload: envelope,
      response: { ...(msg ? { msg } : {}), ...(outcome.statusCode != null ? { statusCode: outcome.statusCode } : {}) },
    };
  }

  /** Extension: a webhook's deliveries, newest first, with their latest attempt. */
  async listDeliveries(program: Program, webhookId: string, query: WebhookDeliveryListQuery): Promise<WebhookDeliveryList> {
    const knex = this.db.knex;
    await this.#row(knex, program.id, webhookId);
    let q = knex('webhook_deliveries as d')
      .join('webhook_events as e', 'e.id', 'd.event_id')
      .where({ 'd.program_id': program.id, 'd.webhook_id': webhookId })
      .orderBy('d.seq', 'desc')
      .limit(query.limit + 1)
      .select('d.*', 'e.payload');
    if (query.nextId) {
      const cursor = await knex('webhook_deliveries').where({ program_id: program.id, webhook_id: webhookId, id: query.nextId }).first('seq');
      if (!cursor) {
        const message = 'No delivery with this id; pass the nextId of a previous page.';
        throw new ValidationError(message, [{ field: 'query.nextId', code: 'INVALID', message }]);
      }
      q = q.where('d.seq', '<=', cursor.seq);
    }
    const rows = await q;
    const page = rows.slice(0, query.limit);
    return { deliveries: await this.#toDeliveries(knex, page), limit: query.limit, nextId: rows.length > query.limit ? rows[query.limit].id : null };
  }

  /**
   * Extension: sends a finished delivery's event again as a new delivery (a new delivery id, the
   * same envelope), so the original's log stays intact.
   */
  async replay(program: Program, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
    const id = await this.db.knex.transaction(async (trx) => {
      const hook = await this.#row(trx, program.id, webhookId);
      const original = deliveryId.length <= 64 ? await trx('webhook_deliveries').where({ program_id: program.id, webhook_id: webhookId, id: deliveryId }).first() : undefined;
      if (!original) throw new NotFoundError(`No delivery ${deliveryId} for webhook ${webhookId}.`);
      if (original.is_test) throw new InvalidStateError('Test deliveries are not replayed; send a new test instead.');
      if (original.status === 'PENDING') throw new InvalidStateError('This delivery is still being attempted; wait for it to finish before replaying it.');
      if (!hook.is_enabled) throw new InvalidStateError('This webhook is disabled; enable it (PATCH isEnabled: true) before replaying deliveries.');
      return this.#queueDelivery(trx, { programId: program.id, webhookId, eventId: original.event_id, event: original.event, replayOf: original.id });
    });
    this.jobs.kick();
    const rows = await this.db.knex('webhook_deliveries as d').join('webhook_events as e', 'e.id', 'd.event_id').where('d.id', id).select('d.*', 'e.payload');
    return (await this.#toDeliveries(this.db.knex, rows))[0]!;
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
    const outcome = await this.#send(hook, deliveryId, delivery.event, event.payload);
    await knex.transaction(async (trx) => {
      const current = await trx('webhook_deliveries').where({ id: deliveryId }).forUpdate().first();
      if (!current || current.status !== 'PENDING') return;
      const attempt = Number(current.attempts) + 1;
      const now = this.clock.now();
      await this.#insertAttempt(trx, deliveryId, attempt, outcome);
      const where = { program_id: current.program_id, id: current.webhook_id };
      this.#subscriptions.delete(trx);
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
        await trx('webhooks').where(where).update({ is_enabled: false, auto_disabled: true });
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

  async #queueDelivery(
    trx: Knex | Knex.Transaction,
    d: { programId: string; webhookId: string; eventId: string; event: string; replayOf: string | null },
  ): Promise<string> {
    const row = this.#deliveryRow(d);
    await insertRow(this.db, trx, 'webhook_deliveries', row);
    await this.jobs.enqueue(trx, JOB_TYPE, { deliveryId: row.id }, { uniqueKey: `${JOB_TYPE}:${row.id}:1`, maxAttempts: JOB_MAX_ATTEMPTS });
    return row.id;
  }

  /** A new PENDING delivery row of one event to one webhook. */
  #deliveryRow(d: { programId: string; webhookId: string; eventId: string; event: string; replayOf: string | null }) {
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

  async #insertAttempt(trx: Knex.Transaction, deliveryId: string, attempt: number, o: Outcome): Promise<void> {
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

  async #toDeliveries(q: Knex | Knex.Transaction, rows: any[]): Promise<WebhookDelivery[]> {
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

  async #row(q: Knex | Knex.Transaction, programId: string, webhookId: string): Promise<any> {
    const row = webhookId.length <= 64 ? await q('webhooks').where({ program_id: programId, id: webhookId }).first() : undefined;
    if (!row) throw new NotFoundError(`No webhook ${webhookId} in program ${programId}.`);
    return row;
  }

  #policy() {
    return { allowPrivate: this.config.webhookAllowPrivate, requireHttps: this.config.env === 'production' };
  }

  /** The target guard at configuration time: a refused URL is a 400 on `payloadUrl`. */
  async #checkUrl(url: string): Promise<void> {
    try {
      await checkTarget(url, this.#policy());
    } catch (err) {
      if (!(err instanceof TargetRefusedError)) throw err;
      throw new ValidationError(`Invalid payloadUrl: ${err.message}`, [{ field: 'payloadUrl', code: err.code, message: err.message }]);
    }
  }

  /** One signed POST; the target is checked again now, since DNS may have changed since it was saved. */
  async #send(hook: any, deliveryId: string, event: string, body: string): Promise<Outcome> {
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
      target = await checkTarget(hook.payload_url, this.#policy());
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

  /** A realistic mock payload for the test operation: the real program plus clearly fake records. */
  async #mockData(program: Program, event: WebhookEvent): Promise<Record<string, unknown>> {
    const now = this.clock.now();
    const campaign = await this.programs.toCampaign(program);
    const participant = {
      id: 'test_participant',
      email: 'test.participant@example.com',
      firstName: 'Test',
      lastName: 'Participant',
      referralCount: 1,
      monthlyReferralCount: 1,
      rank: 1,
      monthlyRank: 1,
      createdAt: now,
      referralSource: 'DIRECT',
      fraudRiskLevel: 'LOW',
      metadata: {},
    };
    const currencyISO = program.currencyISO;
    switch (event) {
      case 'CAMPAIGN_ENDED':
        return { campaign };
      case 'NEW_PARTICIPANT_ADDED':
        return { ...participant, campaign };
      case 'PARTICIPANT_FRAUD_STATUS_UPDATED':
        return { campaign, participant: { ...participant, fraudRiskLevel: 'HIGH', fraudReasonCode: 'MANUAL_UPDATE' } };
      case 'PARTICIPANT_REACHED_A_GOAL':
        return {
          campaign,
          participant,
          reward: {
            type: 'SINGLE_SIDED',
            title: 'Test reward',
            description: 'A test reward',
            couponCode: 'TEST-COUPON',
            id: 'test_reward',
            rewardId: 'test_reward_config',
            status: 'PENDING',
            approved: false,
            approvedAt: null,
            fulfilledAt: null,
            isFulfilled: false,
            isAvailable: false,
            isReferrer: true,
            referrerId: participant.id,
            referredId: 'test_referred',
            createdAt: now,
          },
        };
      case 'NEW_COMMISSION_ADDED':
      case 'COMMISSION_ADJUSTED':
        return {
          campaign,
          participant,
          commission: { id: 'test_commission', status: 'PENDING', event: 'SALE', createdAt: now, currencyISO, referrerId: participant.id, referredId: 'test_referred', amount: event === 'COMMISSION_ADJUSTED' ? 500 : 1000, saleAmount: event === 'COMMISSION_ADJUSTED' ? 5000 : 10000 },
        };
      case 'NEW_PAYOUT_ISSUED':
        return {
          campaign,
          participant,
          payout: { id: 'test_payout', participantId: participant.id, status: 'ISSUED', amount: 1000, currencyISO, commissionIds: ['test_commission'], createdAt: now, issuedAt: now },
        };
    }
  }
}
