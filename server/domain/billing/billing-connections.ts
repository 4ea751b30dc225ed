import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Sealer } from '../../crypto.ts';
import type { Program } from '../programs/programs.ts';
import { newId, newOrderedId } from '../../crypto.ts';
import { ConflictError, InvalidStateError, NotFoundError, translateDbError } from '../../errors.ts';
import { pendingRefund } from './unmatched-refunds.ts';
import type { Integration } from '../../../shared/schemas/program-config-integrations.ts';
import type {
  BillingConnection,
  BillingEvent,
  BillingEventList,
  BillingEventListQuery,
  BillingProvider,
  StripeConnectionCreate,
  StripeConnectionUpdate,
} from '../../../shared/schemas/billing.ts';

/** The Stripe event types the endpoint applies; the owner selects these in Stripe. */
export const STRIPE_EVENT_TYPES = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.paid',
  'charge.refunded',
  'customer.subscription.deleted',
  'refund.created',
  'refund.failed',
  'invoice_payment.paid',
] as const;

/** The Paddle Billing event types the endpoint applies; the owner selects these in Paddle. */
export const PADDLE_EVENT_TYPES = ['transaction.completed', 'transaction.paid', 'adjustment.created', 'adjustment.updated', 'subscription.canceled'] as const;

const EVENT_TYPES: Record<BillingProvider, readonly string[]> = { STRIPE: STRIPE_EVENT_TYPES, PADDLE: PADDLE_EVENT_TYPES };
const NAMES: Record<BillingProvider, string> = { STRIPE: 'Stripe', PADDLE: 'Paddle' };

/** A billing_connections row. */
export interface ConnectionRow {
  id: string;
  program_id: string;
  provider: BillingProvider;
  state: 'ACTIVE' | 'DISCONNECTED';
  webhook_secret_sealed: string | null;
  api_key_sealed: string | null;
  api_key_hint: string | null;
  created_at: number | string;
  updated_at: number | string;
  last_event_at: number | string | null;
}

/** Where Stripe posts a connection's events. */
export function stripeWebhookPath(connectionId: string): string {
  return `/integrations/stripe/${encodeURIComponent(connectionId)}/webhook`;
}

/** Where Paddle posts a connection's events. */
export function paddleWebhookPath(connectionId: string): string {
  return `/integrations/paddle/${encodeURIComponent(connectionId)}/webhook`;
}

/** The console page where a person connects a program to Stripe (I1's connectUrl). */
export function stripeConnectUrl(publicUrl: string, programId: string): string {
  return integrationConnectUrl(publicUrl, programId, 'STRIPE');
}

/** The console page where a person connects a program to a billing system (I1's connectUrl). */
export function integrationConnectUrl(publicUrl: string, programId: string, provider: BillingProvider): string {
  return `${publicUrl}/console/programs/${encodeURIComponent(programId)}/integrations/${provider.toLowerCase()}`;
}

/** A connection's credentials in the provider's terms: the webhook secret and the optional look-up key. */
export interface Credentials {
  webhookSigningSecret: string;
  restrictedApiKey?: string | null;
}

const num = (v: unknown): number | null => (v == null ? null : Number(v));

/**
 * A program's billing connections (Stripe for now) and their event logs. Secrets are sealed on the
 * way in and never leave: reads show only whether an API key is stored and its last four characters.
 */
export class BillingConnections {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly sealer: Sealer,
  ) {}

  /** The program's connection row to that billing system (Stripe unless said), if it was ever connected. */
  row(q: Knex | Knex.Transaction, programId: string, provider: BillingProvider = 'STRIPE'): Promise<ConnectionRow | undefined> {
    return q('billing_connections').where({ program_id: programId, provider }).first();
  }

  /** The connection an inbound request names, with its opened signing secret (and look-up key); null when unknown or disconnected. */
  async forInbound(connectionId: string, provider: BillingProvider = 'STRIPE'): Promise<{ row: ConnectionRow; secret: string; apiKey: string | null } | null> {
    if (!/^[a-z0-9]{1,32}$/.test(connectionId)) return null;
    const row: ConnectionRow | undefined = await this.db.knex('billing_connections').where({ id: connectionId, provider }).first();
    if (!row || row.state !== 'ACTIVE' || !row.webhook_secret_sealed) return null;
    const secret = this.sealer.open(row.webhook_secret_sealed);
    const apiKey = row.api_key_sealed ? this.sealer.open(row.api_key_sealed) : null;
    return secret ? { row, secret, apiKey: apiKey ?? null } : null;
  }

  /** Extension: the program's Stripe (or Paddle) connection (NOT_CONNECTED before the first connect). */
  async read(program: Program, provider: BillingProvider = 'STRIPE'): Promise<BillingConnection> {
    const row = await this.row(this.db.knex, program.id, provider);
    return this.view(row, provider, row ? await this.unmatched(this.db.knex, row.id) : 0);
  }

  /** How many refunds of the connection's log never matched a sale (UNMATCHED). */
  private async unmatched(q: Knex | Knex.Transaction, connectionId: string): Promise<number> {
    const r = await q('billing_events').where({ connection_id: connectionId, outcome: 'UNMATCHED' }).count({ n: '*' }).first();
    return Number(r?.n ?? 0);
  }

  /** Extension: connects the program to Stripe, or replaces the stored credentials; the endpoint URL never changes. */
  async connect(program: Program, body: StripeConnectionCreate | Credentials, provider: BillingProvider = 'STRIPE'): Promise<BillingConnection> {
    return this.db.knex.transaction(async (trx) => {
      const now = this.clock.now();
      const existing = await this.row(trx, program.id, provider);
      const secrets = {
        webhook_secret_sealed: this.sealer.seal(body.webhookSigningSecret),
        api_key_sealed: body.restrictedApiKey ? this.sealer.seal(body.restrictedApiKey) : null,
        api_key_hint: body.restrictedApiKey ? body.restrictedApiKey.slice(-4) : null,
      };
      if (existing) {
        await trx('billing_connections').where({ id: existing.id }).update({ ...secrets, state: 'ACTIVE', updated_at: now });
      } else {
        await trx('billing_connections').insert({ id: newId(), program_id: program.id, provider, state: 'ACTIVE', ...secrets, created_at: now, updated_at: now, last_event_at: null });
      }
      const row = await this.row(trx, program.id, provider);
      return this.view(row, provider, await this.unmatched(trx, row!.id));
    });
  }

  /** Extension: changes the credentials of a connected program (406 when it is not connected). */
  async update(program: Program, body: StripeConnectionUpdate | Partial<Credentials>, provider: BillingProvider = 'STRIPE'): Promise<BillingConnection> {
    return this.db.knex.transaction(async (trx) => {
      const existing = await this.row(trx, program.id, provider);
      if (!existing || existing.state !== 'ACTIVE') throw new InvalidStateError(`This program is not connected to ${NAMES[provider]}; connect it first (POST with ${provider === 'STRIPE' ? 'webhookSigningSecret' : 'webhookSecretKey'}).`);
      const patch: Record<string, unknown> = { updated_at: this.clock.now() };
      if (body.webhookSigningSecret !== undefined) patch.webhook_secret_sealed = this.sealer.seal(body.webhookSigningSecret);
      if (body.restrictedApiKey !== undefined) {
        patch.api_key_sealed = body.restrictedApiKey ? this.sealer.seal(body.restrictedApiKey) : null;
        patch.api_key_hint = body.restrictedApiKey ? body.restrictedApiKey.slice(-4) : null;
      }
      await trx('billing_connections').where({ id: existing.id }).update(patch);
      const row = await this.row(trx, program.id, provider);
      return this.view(row, provider, await this.unmatched(trx, row!.id));
    });
  }

  /** Extension: forgets the credentials; events sent afterwards answer 404. The log and the endpoint URL are kept. */
  async disconnect(program: Program, provider: BillingProvider = 'STRIPE'): Promise<{ id: string; success: true }> {
    const existing = await this.row(this.db.knex, program.id, provider);
    if (!existing || existing.state !== 'ACTIVE') throw new InvalidStateError(`This program is not connected to ${NAMES[provider]}.`);
    await this.db.knex('billing_connections').where({ id: existing.id }).update({ state: 'DISCONNECTED', webhook_secret_sealed: null, api_key_sealed: null, api_key_hint: null, updated_at: this.clock.now() });
    return { id: existing.id, success: true };
  }

  /** Extension: the connection's received events, newest first. */
  async listEvents(program: Program, query: BillingEventListQuery, provider: BillingProvider = 'STRIPE'): Promise<BillingEventList> {
    const conn = await this.row(this.db.knex, program.id, provider);
    if (!conn) return { events: [], limit: query.limit, nextId: null };
    const q = this.db.knex('billing_events').where({ connection_id: conn.id }).whereNot('outcome', 'PROCESSING');
    if (query.outcome) q.where('outcome', query.outcome);
    if (query.nextId) {
      const from = await this.db.knex('billing_events').where({ connection_id: conn.id, id: query.nextId }).first('id', 'received_at');
      if (!from) throw new NotFoundError(`No event ${query.nextId} in this connection's log.`);
      q.whereRaw('(received_at, id) <= (?, ?)', [Number(from.received_at), from.id]);
    }
    const rows = await q.orderBy([{ column: 'received_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(query.limit + 1);
    const page = rows.slice(0, query.limit);
    return { events: page.map(toEvent), limit: query.limit, nextId: rows.length > query.limit ? rows[query.limit].id : null };
  }

  /**
   * I1: what refloop integrates with (Stripe, Paddle Billing), with their real state; connectUrl is
   * the console page that makes the connection (`/console/programs/{id}/integrations/stripe`, docs/integrations.md).
   */
  async integrations(program: Program): Promise<Integration[]> {
    const rows: ConnectionRow[] = await this.db.knex('billing_connections').where({ program_id: program.id });
    return (['STRIPE', 'PADDLE'] as const).map((provider) => {
      const active = rows.some((r) => r.provider === provider && r.state === 'ACTIVE');
      return {
        id: provider.toLowerCase(),
        name: provider === 'PADDLE' ? 'Paddle Billing' : NAMES[provider],
        connected: active,
        enabled: active,
        autoDisabled: false,
        connectUrl: integrationConnectUrl(this.config.publicUrl, program.id, provider),
      };
    });
  }

  /** Opens a claim on one event id; false when it was already received (its delivery is counted). */
  async claim(connectionId: string, event: { id: string; type: string; livemode: boolean; created: number | null }): Promise<{ id: string; fresh: boolean; outcome: string }> {
    const now = this.clock.now();
    const k = this.db.knex;
    const existing = await k('billing_events').where({ connection_id: connectionId, provider_event_id: event.id }).first('id', 'outcome', 'updated_at');
    // A claim left PROCESSING by a crashed process is taken over after a minute (every effect is idempotent).
    if (existing && !(existing.outcome === 'PROCESSING' && Number(existing.updated_at) < now - 60_000)) {
      await k('billing_events').where({ id: existing.id }).increment('deliveries', 1);
      return { id: existing.id, fresh: false, outcome: existing.outcome };
    }
    if (existing) {
      await k('billing_events').where({ id: existing.id }).update({ updated_at: now }).increment('deliveries', 1);
      return { id: existing.id, fresh: true, outcome: 'PROCESSING' };
    }
    const id = newOrderedId();
    try {
      await k('billing_events').insert({
        id,
        connection_id: connectionId,
        provider_event_id: event.id,
        type: event.type.slice(0, 100),
        outcome: 'PROCESSING',
        reason: null,
        participant_id: null,
        transaction_id: null,
        livemode: event.livemode,
        event_created_at: event.created,
        deliveries: 1,
        pending: null,
        received_at: now,
        updated_at: now,
      });
    } catch (err) {
      // Two deliveries of one event at once: the other claimed it.
      if (translateDbError(err) instanceof ConflictError) return this.claim(connectionId, event);
      throw err;
    }
    await k('billing_connections').where({ id: connectionId }).update({ last_event_at: now });
    return { id, fresh: true, outcome: 'PROCESSING' };
  }

  /** Records what an event did. */
  async settle(eventRowId: string, result: EventResult): Promise<void> {
    await this.db.knex('billing_events')
      .where({ id: eventRowId })
      .update({
        outcome: result.outcome,
        reason: result.reason ? result.reason.slice(0, 500) : null,
        participant_id: result.participantId ?? null,
        transaction_id: result.transactionId ?? null,
        pending: result.pending ? JSON.stringify(result.pending) : null,
        updated_at: this.clock.now(),
      });
  }

  /** Drops a claim whose processing failed unexpectedly, so the billing system's retry runs it again. */
  async release(eventRowId: string): Promise<void> {
    await this.db.knex('billing_events').where({ id: eventRowId, outcome: 'PROCESSING' }).del();
  }

  #url(id: string, provider: BillingProvider): string {
    return `${this.config.publicUrl}${provider === 'PADDLE' ? paddleWebhookPath(id) : stripeWebhookPath(id)}`;
  }

  private view(row: ConnectionRow | undefined, provider: BillingProvider, unmatchedRefunds: number): BillingConnection {
    if (!row) {
      return { id: null, provider, state: 'NOT_CONNECTED', webhookUrl: null, events: [...EVENT_TYPES[provider]], hasRestrictedApiKey: false, restrictedApiKeyHint: null, createdAt: null, updatedAt: null, lastEventAt: null, unmatchedRefunds: 0 };
    }
    return {
      id: row.id,
      provider,
      state: row.state,
      webhookUrl: this.#url(row.id, provider),
      events: [...EVENT_TYPES[provider]],
      hasRestrictedApiKey: row.api_key_sealed != null,
      restrictedApiKeyHint: row.api_key_hint,
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
      lastEventAt: num(row.last_event_at),
      unmatchedRefunds,
    };
  }
}

/** What one event did, as its log row says. */
export interface EventResult {
  outcome: 'ACCEPTED' | 'DUPLICATE' | 'UNATTRIBUTED' | 'DEFERRED' | 'UNMATCHED' | 'REJECTED' | 'IGNORED';
  reason?: string | null;
  participantId?: string | null;
  transactionId?: string | null;
  /** DEFERRED refunds: the facts needed to apply them once their sale arrives. */
  pending?: Record<string, unknown> | null;
}

function toEvent(r: any): BillingEvent {
  return {
    id: r.id,
    eventId: r.provider_event_id,
    type: r.type,
    outcome: r.outcome,
    reason: r.reason ?? null,
    participantId: r.participant_id ?? null,
    transactionId: r.transaction_id ?? null,
    livemode: r.livemode === true || r.livemode === 1,
    deliveries: Number(r.deliveries),
    createdAt: num(r.event_created_at),
    receivedAt: Number(r.received_at),
    refund: (r.outcome === 'DEFERRED' || r.outcome === 'UNMATCHED') && r.pending ? pendingRefund(r.pending) : null,
  };
}
