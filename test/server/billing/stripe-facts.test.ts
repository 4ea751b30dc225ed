import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../server/domain/billing/stripe-facts.ts';
import { stripeEvent } from './stripe-helpers.ts';

// What refloop reads out of a Stripe event (issue #25): verified, but still outside data.

const TYPES = ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'invoice.paid', 'charge.refunded', 'customer.subscription.deleted', 'refund.created', 'refund.failed', 'refund.updated', 'charge.refund.updated', 'invoice_payment.paid', 'payout.paid'];

describe('factsOf', () => {
  it('never throws on any object, and every amount it reads is a safe integer', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TYPES), fc.anything(), (type, object) => {
        const facts = factsOf({ type, data: { object } });
        expect(['sale', 'refund', 'refund-one', 'refund-undone', 'invoice-payment', 'subscription-end', 'skip']).toContain(facts.kind);
        if (facts.kind === 'sale') expect(Number.isSafeInteger(facts.amount) && Number.isSafeInteger(facts.tax)).toBe(true);
        if (facts.kind === 'refund') {
          expect(Number.isSafeInteger(facts.amountRefunded)).toBe(true);
          for (const r of facts.refunds ?? []) expect(Number.isSafeInteger(r.amount) && r.amount > 0 && typeof r.refundId === 'string').toBe(true);
        }
        if (facts.kind === 'refund-one' || facts.kind === 'refund-undone') expect(Number.isSafeInteger(facts.amount) && facts.amount > 0).toBe(true);
        if (facts.kind === 'invoice-payment') expect(typeof facts.invoiceId).toBe('string');
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a fixture’s fields when a random one is replaced by junk', () => {
    fc.assert(
      fc.property(fc.constantFrom('checkout.session.completed.payment', 'invoice.paid', 'invoice.paid.basil', 'charge.refunded'), fc.string({ maxLength: 40 }), fc.anything(), (name, field, junk) => {
        const event = stripeEvent(name, (_e, o) => (o[field] = junk));
        expect(() => factsOf(event)).not.toThrow();
      }),
      { numRuns: 1000 },
    );
  });

  it('reads a paid Checkout Session: amounts in minor units, the currency upper-cased, the referral and the identifiers', () => {
    const facts = factsOf(stripeEvent('checkout.session.completed.payment', (_e, o) => ((o.client_reference_id = ' ada_share '), (o.total_details.amount_tax = 800))));
    expect(facts).toEqual({
      kind: 'sale',
      amount: 10_000,
      tax: 800,
      currency: 'USD',
      paidAt: null,
      referral: 'ada_share',
      email: 'jenny.rosen@example.com',
      firstName: 'Jenny',
      lastName: 'Rosen',
      customerRef: 'cus_NffrFeUfNV2Hib',
      subscriptionRef: null,
      issuedAt: 1768478100000,
      ids: { externalId: 'cs_test_a1enSAC01IA3Ps2vL32mNoWKMCNmmfUGTeEeHXI5tLCvyFNGsdG2UNA7mr', paymentIntentId: 'pi_3PqKfXLkdIwHu7ix0N6Vf1Tx' },
    });
    expect(factsOf(stripeEvent('checkout.session.completed.payment', (_e, o) => (o.payment_status = 'unpaid'))).kind).toBe('skip');
  });

  it('reads both invoice shapes: the subscription from the top level or from parent.subscription_details', () => {
    const old = factsOf(stripeEvent('invoice.paid', (_e, o) => (o.subscription_details.metadata = { refloop_referral: 'ada_share' })));
    expect(old).toMatchObject({ kind: 'sale', amount: 2500, subscriptionRef: 'sub_1PqL2ZLkdIwHu7ixWmjWQ1xK', referral: 'ada_share', paidAt: 1771156800000, ids: { invoiceId: 'in_1PsbD1LkdIwHu7ixJv8Hc0oK', paymentIntentId: 'pi_3PsbD2LkdIwHu7ix1y2LwN0B', chargeId: 'ch_3PsbD2LkdIwHu7ix1bH3Rn4v' } });
    const basil = factsOf(stripeEvent('invoice.paid.basil'));
    expect(basil).toMatchObject({ kind: 'sale', subscriptionRef: 'sub_1PqL2ZLkdIwHu7ixWmjWQ1xK', referral: null, ids: { invoiceId: 'in_1RlHe1R7UUImIKwkP0rjTz5M' } });
  });

  it('reads a charge’s refunds list, oldest first and counted ones only, when it is complete', () => {
    const refunds = (data: unknown[], hasMore = false) => factsOf(stripeEvent('charge.refunded', (_e, o) => (o.refunds = { object: 'list', data, has_more: hasMore, total_count: data.length, url: `/v1/charges/${o.id}/refunds` })));
    const listed = refunds([
      { id: 're_second', object: 'refund', amount: 2000, created: 1768564900, status: 'pending' },
      { id: 're_failed', object: 'refund', amount: 500, created: 1768564850, status: 'failed' },
      { id: 're_first', object: 'refund', amount: 4000, created: 1768564800, status: 'succeeded' },
    ]);
    expect(listed).toMatchObject({ kind: 'refund', refunds: [{ refundId: 're_first', amount: 4000 }, { refundId: 're_second', amount: 2000 }] });
    expect(refunds([{ id: 're_first', object: 'refund', amount: 4000, created: 1, status: 'succeeded' }], true)).toMatchObject({ kind: 'refund', refunds: null });
    expect(factsOf(stripeEvent('charge.refunded'))).toMatchObject({ kind: 'refund', refunds: null });
  });

  it('reads refund.created as one refund and invoice_payment.paid as the link from an invoice to its payment', () => {
    const refund = { id: 're_1', object: 'refund', amount: 4000, charge: 'ch_1', payment_intent: 'pi_1', currency: 'usd', status: 'succeeded' };
    expect(factsOf({ type: 'refund.created', data: { object: refund } })).toEqual({ kind: 'refund-one', refundId: 're_1', amount: 4000, currency: 'USD', ids: { chargeId: 'ch_1', paymentIntentId: 'pi_1' } });
    expect(factsOf({ type: 'refund.updated', data: { object: { ...refund, status: 'failed' } } })).toMatchObject({ kind: 'refund-undone', refundId: 're_1', status: 'failed' });
    const payment = { id: 'inpay_1', object: 'invoice_payment', amount_paid: 2500, currency: 'usd', invoice: 'in_1', is_default: true, payment: { type: 'payment_intent', payment_intent: 'pi_1' }, status: 'paid' };
    expect(factsOf({ type: 'invoice_payment.paid', data: { object: payment } })).toEqual({ kind: 'invoice-payment', invoicePaymentRef: 'inpay_1', invoiceId: 'in_1', paymentIntentId: 'pi_1', chargeId: null });
    expect(factsOf({ type: 'invoice_payment.paid', data: { object: { ...payment, status: 'open' } } }).kind).toBe('skip');
  });
});
