import { describe, expect, it } from 'vitest';
import { verifiedAccount } from '../../helpers/app.ts';
import { commissionsOf, moneyProgram, type MoneyProgram } from '../../helpers/money.ts';
import { expectChainIntact, lastSeq, refuseAuditAction, systemEntries } from '../../helpers/audit.ts';
import { connectStripe, deliver, stripeEvent } from './stripe-helpers.ts';
import { PADDLE_API_KEY, PADDLE_SECRET, connectPaddle, deliverPaddle, paddleEvent, paddleSuite } from './paddle-helpers.ts';

// Issue #35 part 1: what the Stripe and Paddle webhooks change (sales, the customers they add,
// refunds, chargebacks, subscription ends) is recorded as SYSTEM entries of the provider's webhook,
// one per change, in the change's transaction, naming the event; a refused signature, a re-delivery
// or a duplicate sale records nothing. Events are the recorded fixtures, signed as the providers sign.

const suite = paddleSuite();
const DAY = 86_400_000;

let n = 0;
/** An affiliate program connected to Stripe (and to Paddle, with the API key), with a fresh Paddle customer id. */
async function connected(): Promise<MoneyProgram & { stripe: string; paddle: string; ctm: string }> {
  const p = await moneyProgram(suite.app);
  const { path: stripe } = await connectStripe(suite.app, p.key, p.pid);
  const { path: paddle } = await connectPaddle(suite.app, p.key, p.pid, { webhookSecretKey: PADDLE_SECRET, apiKey: PADDLE_API_KEY });
  n += 1;
  return { ...p, stripe, paddle, ctm: `ctm_01hv6y1jedq4p1n0yqn6c${String(n).padStart(5, '0')}` };
}

/** A Checkout payment by a new customer `email`, referred by `referral`. */
function payment(referral: string | null, email: string, eventId?: string) {
  return stripeEvent('checkout.session.completed.payment', (e, o) => {
    if (eventId) e.id = eventId;
    o.client_reference_id = referral;
    o.customer_details.email = email;
  });
}

/** An entry's event, as `changes.event` names it. */
const eventOf = (e: Record<string, any>) => e.changes.event?.id;

describe('issue #35: SYSTEM entries of the Stripe webhook', () => {
  it('records the customer a sale adds and the sale, once each, naming the event; a re-delivery, a bad signature and a duplicate record nothing', async () => {
    const p = await connected();
    const before = await lastSeq(suite.app, p.teamId);
    const email = `jenny-${p.pid}@example.com`;
    expect((await deliver(suite.app, p.stripe, payment(p.affiliate.id, email))).body.outcome).toBe('ACCEPTED');
    const customer = (await suite.app.request('GET', `/v2/campaign/${p.pid}/participant/${encodeURIComponent(email)}`, { key: p.key })).body;
    const [commission] = await commissionsOf(suite.app, p);
    const entries = await systemEntries(suite.app, p.teamId, before);
    expect(entries.map((e) => e.action)).toEqual(['billing.stripe.customer_add', 'billing.stripe.sale']);
    expect(entries[0]).toMatchObject({ actor_id: 'billing.stripe', actor_label: 'Stripe webhook', resource_type: 'participants', resource_id: customer.id, ip: expect.any(String), user_agent: expect.stringContaining('Stripe'), changes: { fields: { email: { after: email }, referredBy: { after: p.affiliate.id } } } });
    const tx = await suite.app.deps.db.knex('affiliate_transactions').where({ customer_id: customer.id }).first('id');
    expect(entries[1]).toMatchObject({
      resource_type: 'transactions',
      resource_id: tx.id,
      changes: {
        ids: { id: p.pid, participantId: customer.id },
        event: { id: 'evt_1PqKfYLkdIwHu7ixZmdVdD3k', type: 'checkout.session.completed' },
        fields: { grossAmount: { after: 10_000 }, currency: { after: 'USD' }, commissions: { after: [{ id: commission!.id, referrerId: p.affiliate.id, amount: 1000, status: 'APPROVED' }] } },
      },
    });
    const seen = await lastSeq(suite.app, p.teamId);
    // The same event again (Stripe's retry), the same payment under another event id (a duplicate sale), a forged signature.
    suite.app.clock.advance(60_000);
    expect((await deliver(suite.app, p.stripe, payment(p.affiliate.id, email))).body.outcome).toBe('ACCEPTED');
    expect((await deliver(suite.app, p.stripe, payment(p.affiliate.id, email, 'evt_same_payment_again'))).body.outcome).toBe('DUPLICATE');
    expect((await deliver(suite.app, p.stripe, payment(p.affiliate.id, email, 'evt_forged'), { secret: 'whsec_notTheConnectionsSecret000000000000' })).status).toBe(400);
    expect(await systemEntries(suite.app, p.teamId, seen)).toEqual([]);
    await expectChainIntact(suite.app, p.teamId);
  });

  it('records a refund with the refunded total and the commission it reversed, and a failed refund taken back', async () => {
    const p = await connected();
    await deliver(suite.app, p.stripe, payment(p.affiliate.id, `refunded-${p.pid}@example.com`));
    const [commission] = await commissionsOf(suite.app, p);
    const before = await lastSeq(suite.app, p.teamId);
    const partial = stripeEvent('charge.refunded', (e, o) => {
      e.id = 'evt_partial_refund_audit';
      o.amount_refunded = 4000;
    });
    expect((await deliver(suite.app, p.stripe, partial)).body.outcome).toBe('ACCEPTED');
    const refunds = await systemEntries(suite.app, p.teamId, before);
    expect(refunds.length).toBeGreaterThanOrEqual(1);
    expect(refunds.every((e) => e.action === 'billing.stripe.refund' && eventOf(e) === 'evt_partial_refund_audit' && e.resource_type === 'transactions')).toBe(true);
    expect(refunds.at(-1)).toMatchObject({ changes: { fields: { amountRefunded: { after: 4000 } } } });
    const changed = refunds.flatMap((e) => e.changes.fields.commissions?.after ?? []);
    expect(changed.at(-1)).toEqual({ id: commission!.id, status: 'APPROVED', amount: 600 });
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 600 });

    const failedAt = await lastSeq(suite.app, p.teamId);
    const refund = { id: 're_3PqKfXLkdIwHu7ix0f0Kq1Ud', object: 'refund', amount: 4000, charge: 'ch_3PqKfXLkdIwHu7ix0QeT7Wb1', created: 1768564800, currency: 'usd', metadata: {}, payment_intent: 'pi_3PqKfXLkdIwHu7ix0N6Vf1Tx', reason: 'requested_by_customer', status: 'failed', failure_reason: 'expired_or_canceled_card' };
    const envelope = (id: string, type: string) => ({ id, object: 'event', api_version: '2024-06-20', created: 1768565000, data: { object: refund, previous_attributes: { status: 'pending' } }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type });
    expect((await deliver(suite.app, p.stripe, envelope('evt_refund_failed_audit', 'refund.failed'))).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 1000 });
    const undone = (await systemEntries(suite.app, p.teamId, failedAt)).filter((e) => e.action === 'billing.stripe.refund_undone');
    expect(undone).toMatchObject([{ resource_type: 'transactions', changes: { event: { id: 'evt_refund_failed_audit', type: 'refund.failed' }, fields: { amountRefunded: { before: 4000, after: 0 }, refundStatus: { after: 'failed' } } } }]);
    const afterUndo = await lastSeq(suite.app, p.teamId);
    // Stripe's refund.updated of the same failure: already taken back, nothing recorded.
    expect((await deliver(suite.app, p.stripe, envelope('evt_refund_updated_audit', 'refund.updated'))).body.outcome).toBe('DUPLICATE');
    expect(await systemEntries(suite.app, p.teamId, afterUndo)).toEqual([]);
    await expectChainIntact(suite.app, p.teamId);
  });

  it('records a subscription’s end once', async () => {
    const p = await connected();
    await deliver(suite.app, p.stripe, stripeEvent('checkout.session.completed.subscription', (_e, o) => (o.client_reference_id = p.affiliate.id)));
    const before = await lastSeq(suite.app, p.teamId);
    expect((await deliver(suite.app, p.stripe, stripeEvent('customer.subscription.deleted'))).body.outcome).toBe('ACCEPTED');
    expect((await deliver(suite.app, p.stripe, stripeEvent('customer.subscription.deleted', (e) => (e.id = 'evt_deleted_again')))).body.outcome).toBe('ACCEPTED');
    const entries = await systemEntries(suite.app, p.teamId, before);
    expect(entries).toMatchObject([{ action: 'billing.stripe.subscription_end', resource_type: 'subscriptions', resource_id: expect.stringMatching(/^sub_/), changes: { event: { type: 'customer.subscription.deleted' } } }]);
  });

  it('records the referral a payment credits in a referral program', async () => {
    const acct = await verifiedAccount(suite.app);
    const pid = (await suite.app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Both get $10' }] } })).body.id as string;
    const add = async (body: Record<string, unknown>) => (await suite.app.request('POST', `/v2/campaign/${pid}/participant`, { key: acct.key, body })).body;
    const referrer = await add({ email: `referrer-${pid}@example.com` });
    const friend = await add({ email: `friend-${pid}@example.com`, referredBy: referrer.id, referralStatus: 'CREDIT_PENDING' });
    const { path } = await connectStripe(suite.app, acct.key, pid);
    const before = await lastSeq(suite.app, acct.teamId);
    expect((await deliver(suite.app, path, payment(null, friend.email))).body.outcome).toBe('ACCEPTED');
    expect(await systemEntries(suite.app, acct.teamId, before)).toMatchObject([
      { action: 'billing.stripe.sale', resource_type: 'participants', resource_id: friend.id, changes: { fields: { referralStatus: { before: 'CREDIT_PENDING', after: 'CREDIT_AWARDED' }, referredBy: { after: referrer.id }, amount: { after: 10_000 } } } },
    ]);
    // A second payment of the credited friend changes nothing in a referral program: no entry.
    const credited = await lastSeq(suite.app, acct.teamId);
    expect((await deliver(suite.app, path, payment(null, friend.email, 'evt_second_payment'))).body.outcome).toBe('ACCEPTED');
    expect(await systemEntries(suite.app, acct.teamId, credited)).toEqual([]);
  });

  it('leaves neither the sale nor its entry when the entry cannot be written, and Stripe’s retry then applies both', async () => {
    const p = await connected();
    const email = `atomic-${p.pid}@example.com`;
    const allow = await refuseAuditAction(suite.app, 'billing.stripe.sale');
    try {
      expect((await deliver(suite.app, p.stripe, payment(p.affiliate.id, email, 'evt_atomic_sale'))).status).toBe(500);
      expect(await commissionsOf(suite.app, p)).toEqual([]);
      expect(await suite.app.deps.db.knex('affiliate_transactions').where({ program_id: p.pid })).toHaveLength(0);
    } finally {
      await allow();
    }
    const before = await lastSeq(suite.app, p.teamId);
    expect((await deliver(suite.app, p.stripe, payment(p.affiliate.id, email, 'evt_atomic_sale'))).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(suite.app, p)).length).toBe(1);
    expect((await systemEntries(suite.app, p.teamId, before)).map((e) => e.action)).toEqual(['billing.stripe.sale']);
    await expectChainIntact(suite.app, p.teamId);
  });
});

describe('issue #35: SYSTEM entries of the Paddle webhook', () => {
  it('records the customer a sale adds, the sale, a refund and a chargeback, each once; a bad signature and a re-delivery record nothing', async () => {
    const p = await connected();
    suite.customers.set(p.ctm, { email: `sam-${p.pid}@example.com`, name: 'Sam Miller' });
    const sale = paddleEvent('transaction.completed', (_e, d) => {
      d.customer_id = p.ctm;
      d.custom_data = { refloop_referral: p.affiliate.id };
    });
    const before = await lastSeq(suite.app, p.teamId);
    expect((await deliverPaddle(suite.app, p.paddle, sale, { secret: 'pdl_ntfset_wrong' })).status).toBe(400);
    expect(await systemEntries(suite.app, p.teamId, before)).toEqual([]);
    expect((await deliverPaddle(suite.app, p.paddle, sale)).body.outcome).toBe('ACCEPTED');
    expect((await deliverPaddle(suite.app, p.paddle, sale)).body.outcome).toBe('ACCEPTED');
    const sold = await systemEntries(suite.app, p.teamId, before);
    expect(sold.map((e) => e.action)).toEqual(['billing.paddle.customer_add', 'billing.paddle.sale']);
    expect(sold[1]).toMatchObject({ actor_id: 'billing.paddle', actor_label: 'Paddle webhook', resource_type: 'transactions', changes: { event: { id: 'evt_01hv8x2acma2gz7he4n8gs7pvk', type: 'transaction.completed' }, fields: { externalId: { after: 'txn_01hv8wptq8987qeep44cyrewp9' }, commissions: { after: [expect.objectContaining({ amount: 900, status: 'APPROVED' })] } } } });

    const refundAt = await lastSeq(suite.app, p.teamId);
    expect((await deliverPaddle(suite.app, p.paddle, paddleEvent('adjustment.updated'))).body.outcome).toBe('ACCEPTED');
    expect(await systemEntries(suite.app, p.teamId, refundAt)).toMatchObject([
      { action: 'billing.paddle.refund', resource_id: sold[1]!.resource_id, changes: { event: { type: 'adjustment.updated' }, fields: { amountRefunded: { before: 0, after: 3300 }, refundId: { after: 'adj_01hvgf2s84dr6reszzg29zbvcm' } } } },
    ]);
    const chargebackAt = await lastSeq(suite.app, p.teamId);
    const chargeback = paddleEvent('adjustment.updated', (e, d) => {
      e.event_id = 'evt_01hvgf2s84chargebackaudit0';
      d.id = 'adj_01hvgf2s84chargebackaudit0';
      d.action = 'chargeback';
      d.totals.total = '1000';
    });
    expect((await deliverPaddle(suite.app, p.paddle, chargeback)).body.outcome).toBe('ACCEPTED');
    expect(await systemEntries(suite.app, p.teamId, chargebackAt)).toMatchObject([{ action: 'billing.paddle.chargeback', changes: { fields: { refundId: { after: 'chargeback:adj_01hvgf2s84chargebackaudit0' } } } }]);
    await expectChainIntact(suite.app, p.teamId);
  });
});

// Last in the file: it moves the suite's clock 31 days on.
describe('issue #35: the unmatched-refunds report', () => {
  it('records each refund it reports, as the billing.unmatched-refunds job; the waiting refund itself recorded nothing', async () => {
    const p = await connected();
    const before = await lastSeq(suite.app, p.teamId);
    expect((await deliver(suite.app, p.stripe, stripeEvent('charge.refunded', (e) => (e.id = 'evt_refund_without_sale')))).body.outcome).toBe('DEFERRED');
    expect(await systemEntries(suite.app, p.teamId, before)).toEqual([]);
    suite.app.clock.advance(31 * DAY);
    await suite.app.deps.unmatchedRefunds.schedule();
    await suite.app.deps.jobs.runDue(100);
    const entries = await systemEntries(suite.app, p.teamId, before);
    expect(entries).toMatchObject([
      { actor_id: 'billing.unmatched-refunds', action: 'system.billing.unmatched_refund', resource_type: 'billingEvents', resource_id: 'evt_refund_without_sale', changes: { ids: { provider: 'stripe', eventType: 'charge.refunded' }, fields: { outcome: { before: 'DEFERRED', after: 'UNMATCHED' }, currency: { after: 'USD' } } } },
    ]);
    // The next hour's report finds nothing new.
    suite.app.clock.advance(3_600_000);
    await suite.app.deps.jobs.runDue(100);
    expect(await systemEntries(suite.app, p.teamId, before)).toHaveLength(1);
    await expectChainIntact(suite.app, p.teamId);
  });
});
