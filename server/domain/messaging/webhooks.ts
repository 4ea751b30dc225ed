import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import { insertRow, insertRowsTogether, trxRows } from '../../db/rows.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import type { Sealer } from '../../crypto.ts';
import { newId, newOrderedId } from '../../crypto.ts';
import { InvalidStateError, NotFoundError, ValidationError } from '../../errors.ts';
import type { Jobs } from '../platform/jobs.ts';
import { ProgramLists, type InvalidationBus } from '../platform/invalidation.ts';
import { toProgram, type PendingCounts, type Program, type Programs } from '../programs/programs.ts';
import { checkTarget, TargetRefusedError } from '../platform/ssrf.ts';
import type { EventParticipant } from '../participants/serialize.ts';
import { attemptsOf, targetPolicy, toDeliveries, WebhookDeliveries } from './webhook-delivery.ts';
import type { AuditLog } from '../platform/audit.ts';
import { mockEventData } from './webhook-test-events.ts';
import type {
  Webhook,
  WebhookCreate,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryList,
  WebhookDeliveryListQuery,
  WebhookEnvelope,
  WebhookEvent,
  WebhookTestResponse,
  WebhookUpdate,
} from '../../../shared/schemas/webhook.ts';

/** Webhooks one program may have. */
export const MAX_WEBHOOKS_PER_PROGRAM = 10;
/** The id of a program's first webhook (GrowSurf's "primary" webhook). */
export const PRIMARY_WEBHOOK_ID = 'primary';

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

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

/**
 * Webhooks: configuration (W1–W5), the event outbox every engine writes to with `emit`, and
 * durable, signed delivery with retries, auto-disable and a delivery log.
 */
export class Webhooks {
  /** Queues deliveries and runs the `webhook.deliver` job. */
  readonly #delivery: WebhookDeliveries;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    log: Logger,
    private readonly jobs: Jobs,
    private readonly sealer: Sealer,
    private readonly programs: Programs,
    bus: InvalidationBus | null = null,
    /** The audit trail, for the SYSTEM entry of a webhook that switches itself off. */
    audit: AuditLog | null = null,
  ) {
    this.#shared = bus ? new ProgramLists(bus, Webhooks.SHARED_PROGRAMS) : null;
    this.#delivery = new WebhookDeliveries(db, clock, config, log, jobs, sealer, (trx) => this.#subscriptions.delete(trx), (trx, programId) => this.#changed(trx, programId), audit);
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
    // In a transaction, `emitMany`'s rows: the event, its deliveries and their jobs in one statement on PostgreSQL.
    if ((trx as Knex.Transaction).isTransaction === true) return (await this.emitMany(trx as Knex.Transaction, programId, event, [data]))[0] ?? null;
    const hooks = (await this.#subscribed(trx, programId)).filter((h) => h.events.includes(event));
    if (hooks.length === 0) return null;
    const now = this.clock.now();
    const envelope: WebhookEnvelope = { event, createdAt: now, data: data as Record<string, unknown> };
    const eventId = newOrderedId();
    await insertRow(this.db, trx, 'webhook_events', { id: eventId, program_id: programId, event, payload: JSON.stringify(envelope), is_test: false, created_at: now });
    for (const h of hooks) await this.#delivery.queue(trx, { programId, webhookId: h.id, eventId, event, replayOf: null });
    const tx = trx as Knex.Transaction;
    if (tx.executionPromise) tx.executionPromise.then(() => this.jobs.kick(), () => undefined);
    else this.jobs.kick();
    return eventId;
  }

  /**
   * `emit` for several events of one kind inside the caller's transaction (a trigger's two
   * PARTICIPANT_REACHED_A_GOAL): the same rows, in one statement on PostgreSQL (one per table on SQLite). Returns the
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
    const deliveries = events.flatMap((e) => hooks.map((h) => this.#delivery.row({ programId, webhookId: h.id, eventId: e.id, event, replayOf: null })));
    // Events, deliveries and the deliveries' jobs: one statement on PostgreSQL, one per table on SQLite.
    await insertRowsTogether(trx, [
      { table: 'webhook_events', rows: events },
      { table: 'webhook_deliveries', rows: deliveries },
      this.#delivery.firstAttemptJobs(deliveries),
    ]);
    if (trx.executionPromise) trx.executionPromise.then(() => this.jobs.kick(), () => undefined);
    else this.jobs.kick();
    return events.map((e) => e.id);
  }

  /**
   * NEW_PARTICIPANT_ADDED in GrowSurf's shape: the participant's fields at the top of `data`, with
   * the program as `data.campaign` (docs/webhooks.md). Built only when a webhook listens.
   */
  async participantAdded(trx: Knex | Knex.Transaction, program: Program, participant: EventParticipant, ledger?: PendingCounts): Promise<string | null> {
    if (!(await this.listens(trx, program.id, 'NEW_PARTICIPANT_ADDED'))) return null;
    return this.emit(trx, program.id, 'NEW_PARTICIPANT_ADDED', { ...participant, campaign: await this.programs.toCampaign(program, trx, ledger) });
  }

  /** True when an enabled webhook of the program listens to `event` (read once per transaction, like `emit`). */
  async listens(trx: Knex | Knex.Transaction, programId: string, event: WebhookEvent): Promise<boolean> {
    return (await this.#subscribed(trx, programId)).some((h) => h.events.includes(event));
  }

  /**
   * The program's enabled webhooks with a payload URL, read once per transaction: a referral trigger
   * asked three times (reward announce, two emits). Only this service writes webhooks, each change
   * in its own transaction that drops the entry, so a transaction never sees a stale list; outside a
   * transaction every call reads afresh. With Redis (`#shared`), once per program until a change to
   * its webhooks is published (`#changed`, after the change commits).
   */
  async #subscribed(trx: Knex | Knex.Transaction, programId: string): Promise<Array<{ id: string; events: string[] }>> {
    const inTrx = (trx as Knex.Transaction).isTransaction === true;
    let perTrx = inTrx ? this.#subscriptions.get(trx) : undefined;
    const hit = perTrx?.get(programId);
    if (hit) return hit;
    const shared = inTrx ? this.#shared : null;
    let list = shared?.get(trx as Knex.Transaction, programId);
    if (!list) {
      const since = shared?.generation ?? 0;
      const rows: Array<{ id: string; events: string; payload_url: string | null }> = inTrx
        ? await trxRows(trx as Knex.Transaction, 'SELECT "id", "events", "payload_url" FROM "webhooks" WHERE "program_id" = ? AND "is_enabled" = ?', [programId, true])
        : await trx('webhooks').where({ program_id: programId, is_enabled: true }).select('id', 'events', 'payload_url');
      list = rows.filter((h) => h.payload_url).map((h) => ({ id: h.id, events: JSON.parse(h.events) as string[] }));
      shared?.set(trx as Knex.Transaction, programId, list, since);
    }
    if (inTrx) {
      if (!perTrx) this.#subscriptions.set(trx, (perTrx = new Map()));
      perTrx.set(programId, list);
    }
    return list;
  }

  /** Programs whose webhook lists one process keeps between transactions (`#shared`). */
  static readonly SHARED_PROGRAMS = 10_000;

  /** `#subscribed`'s lists by transaction; entries go with their transaction object. */
  readonly #subscriptions = new WeakMap<object, Map<string, Array<{ id: string; events: string[] }>>>();
  /** `#subscribed`'s lists between transactions, by program (with Redis only). */
  readonly #shared: ProgramLists<Array<{ id: string; events: string[] }>> | null;

  /** A change in `trx` to which of the program's webhooks listen (created, edited, removed, switched off): published once it commits. */
  #changed(trx: Knex.Transaction, programId: string): void {
    this.#subscriptions.delete(trx);
    this.#shared?.wrote(trx, programId);
  }

  /** `GET /campaign/{id}/webhooks`: oldest first, so `primary` leads. */
  async list(program: Program): Promise<Webhook[]> {
    const rows = await this.db.knex('webhooks').where({ program_id: program.id }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows.map(toWebhook);
  }

  /** `POST /campaign/{id}/webhooks`: the program's first webhook is `primary`. */
  async create(program: Program, input: WebhookCreate): Promise<Webhook> {
    await this.#checkUrl(input.payloadUrl);
    return this.db.knex.transaction(async (trx) => {
      this.#changed(trx, program.id);
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
      this.#changed(trx, program.id);
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
      if (patch.isEnabled === true && !before.is_enabled) resumed = await this.#delivery.resume(trx, program.id, webhookId);
      return toWebhook(await trx('webhooks').where({ program_id: program.id, id: webhookId }).first());
    });
    if (resumed) this.jobs.kick();
    return updated;
  }

  /** `DELETE …/webhooks/{webhookId}`: its deliveries go with it; queued attempts find nothing and stop. */
  async remove(program: Program, webhookId: string): Promise<{ id: string; success: true }> {
    await this.db.knex.transaction(async (trx) => {
      this.#changed(trx, program.id);
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
    const envelope: WebhookEnvelope = { event: chosen, createdAt: now, data: await mockEventData(this.clock, this.programs, program, chosen) };
    const body = JSON.stringify(envelope);
    const deliveryId = newOrderedId();
    const outcome = await this.#delivery.send(hook, deliveryId, chosen, body);
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
      await this.#delivery.insertAttempt(trx, deliveryId, 1, outcome);
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
    return { deliveries: await toDeliveries(knex, page), limit: query.limit, nextId: rows.length > query.limit ? rows[query.limit].id : null };
  }

  /** Extension: one delivery of the webhook's log with all of its attempts (W8). */
  async getDelivery(program: Program, webhookId: string, deliveryId: string): Promise<WebhookDeliveryDetail> {
    const knex = this.db.knex;
    await this.#row(knex, program.id, webhookId);
    const rows =
      deliveryId.length <= 64
        ? await knex('webhook_deliveries as d').join('webhook_events as e', 'e.id', 'd.event_id').where({ 'd.program_id': program.id, 'd.webhook_id': webhookId, 'd.id': deliveryId }).select('d.*', 'e.payload')
        : [];
    if (!rows.length) throw new NotFoundError(`No delivery ${deliveryId} for webhook ${webhookId}.`);
    return { ...(await toDeliveries(knex, rows))[0]!, attempts: await attemptsOf(knex, deliveryId) };
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
      return this.#delivery.queue(trx, { programId: program.id, webhookId, eventId: original.event_id, event: original.event, replayOf: original.id });
    });
    this.jobs.kick();
    const rows = await this.db.knex('webhook_deliveries as d').join('webhook_events as e', 'e.id', 'd.event_id').where('d.id', id).select('d.*', 'e.payload');
    return (await toDeliveries(this.db.knex, rows))[0]!;
  }

  async #row(q: Knex | Knex.Transaction, programId: string, webhookId: string): Promise<any> {
    const row = webhookId.length <= 64 ? await q('webhooks').where({ program_id: programId, id: webhookId }).first() : undefined;
    if (!row) throw new NotFoundError(`No webhook ${webhookId} in program ${programId}.`);
    return row;
  }

  /** The target guard at configuration time: a refused URL is a 400 on `payloadUrl`. */
  async #checkUrl(url: string): Promise<void> {
    try {
      await checkTarget(url, targetPolicy(this.config));
    } catch (err) {
      if (!(err instanceof TargetRefusedError)) throw err;
      throw new ValidationError(`Invalid payloadUrl: ${err.message}`, [{ field: 'payloadUrl', code: err.code, message: err.message }]);
    }
  }
}
