// The few fields refloop reads out of Stripe's event objects. Stripe's payloads are verified but
// still data from outside: every read checks its type, nothing here throws. Older API versions
// carry an invoice's payment intent and charge on the invoice and its subscription at the top
// level; newer ones under `parent.subscription_details` and `payments`: both are read.
import { STRIPE_REFERRAL_METADATA_KEY } from '../../../shared/schemas/billing.ts';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown, max = 255): string | null => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : null);
/** An expandable field: the id string, or the expanded object's id. */
const ref = (v: unknown): string | null => str(v) ?? str(obj(v)?.id);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
const seconds = (v: unknown): number | null => {
  const n = int(v);
  return n != null && n > 0 ? n * 1000 : null;
};

/** A paid sale as one event describes it. */
export interface SaleFacts {
  kind: 'sale';
  /** Minor units, as Stripe sends them. */
  amount: number;
  tax: number;
  currency: string;
  paidAt: number | null;
  /** client_reference_id or metadata.refloop_referral: the referrer's code. */
  referral: string | null;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  customerRef: string | null;
  subscriptionRef: string | null;
  /** When the billing system made the invoice (for the subscription-end rule). */
  issuedAt: number | null;
  ids: SaleIds;
}

/** The AF8 identifiers a Stripe sale is recorded under. */
export interface SaleIds {
  externalId?: string;
  invoiceId?: string;
  paymentIntentId?: string;
  chargeId?: string;
}

/** A charge's refunded total. */
export interface RefundFacts {
  kind: 'refund';
  /** Cumulative, minor units. */
  amountRefunded: number;
  currency: string;
  ids: SaleIds;
  /** The charge's refunds, oldest first, when the event carries the whole list (`refunds.data`, older API versions); failed and cancelled ones left out. */
  refunds?: OneRefund[] | null;
}

/** One Stripe refund (re_…) and its amount. */
export interface OneRefund {
  refundId: string;
  amount: number;
}

/** One refund Stripe made (refund.created, or an update that is not a failure): counted by its id. */
export interface RefundOneFacts extends OneRefund {
  kind: 'refund-one';
  currency: string;
  ids: SaleIds;
}

/** invoice_payment.paid: which payment intent (and charge) paid an invoice, the link basil API versions leave off both. */
export interface InvoicePaymentFacts {
  kind: 'invoice-payment';
  invoicePaymentRef: string;
  invoiceId: string;
  paymentIntentId: string | null;
  chargeId: string | null;
}

/** A refund that failed or was cancelled after it was counted: the refunded total goes back down. */
export interface RefundUndoneFacts {
  kind: 'refund-undone';
  refundId: string;
  amount: number;
  currency: string;
  status: 'failed' | 'canceled';
  ids: SaleIds;
}

/** A subscription's end. */
export interface SubscriptionEndFacts {
  kind: 'subscription-end';
  subscriptionRef: string;
  customerRef: string | null;
  endedAt: number | null;
}

/** Something the event says that is not used, with why. */
export interface Skip {
  kind: 'skip';
  reason: string;
}

/** What one event means to refloop. */
export type Facts = SaleFacts | RefundFacts | RefundOneFacts | RefundUndoneFacts | InvoicePaymentFacts | SubscriptionEndFacts | Skip;

function splitName(name: string | null): { firstName: string | null; lastName: string | null } {
  if (!name) return { firstName: null, lastName: null };
  const parts = name.trim().split(/\s+/);
  return { firstName: parts[0]!.slice(0, 100) || null, lastName: parts.slice(1).join(' ').slice(0, 100) || null };
}

function referralOf(...metadatas: unknown[]): string | null {
  for (const m of metadatas) {
    const v = str(obj(m)?.[STRIPE_REFERRAL_METADATA_KEY], 200);
    if (v) return v.trim();
  }
  return null;
}

function ids(values: SaleIds): SaleIds {
  const out: SaleIds = {};
  for (const [k, v] of Object.entries(values)) if (v) out[k as keyof SaleIds] = v;
  return out;
}

/** Refund statuses Stripe counts in a charge's amount_refunded (a failed or cancelled refund is taken back out). */
const COUNTED_REFUND = new Set(['succeeded', 'pending', 'requires_action']);

/** A charge's `refunds` list, oldest first, when it is there and complete (`has_more` false); counted refunds only. */
function refundList(v: unknown): OneRefund[] | null {
  const list = obj(v);
  if (!list || !Array.isArray(list.data) || list.has_more !== false) return null;
  const out: Array<OneRefund & { created: number }> = [];
  for (const item of list.data) {
    const r = obj(item);
    const id = str(r?.id);
    const amount = int(r?.amount);
    if (!id || amount == null || amount <= 0) return null;
    if (COUNTED_REFUND.has(str(r?.status) ?? '')) out.push({ refundId: id, amount, created: int(r?.created) ?? 0 });
  }
  return out.sort((a, b) => a.created - b.created).map(({ refundId, amount }) => ({ refundId, amount }));
}

/** Reads one verified event; unknown types and unpaid objects are skips with a reason. */
export function factsOf(event: { type: string; data?: { object?: unknown } }): Facts {
  const o = obj(event.data?.object);
  if (!o) return { kind: 'skip', reason: 'The event carries no object.' };
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const status = str(o.payment_status);
      if (status !== 'paid') return { kind: 'skip', reason: `The Checkout Session is not paid yet (payment_status ${status ?? 'missing'}); checkout.session.async_payment_succeeded records it when it is.` };
      const details = obj(o.customer_details);
      const amount = int(o.amount_total);
      const currency = str(o.currency, 3);
      if (amount == null || !currency) return { kind: 'skip', reason: 'The Checkout Session has no amount_total or currency.' };
      return {
        kind: 'sale',
        amount,
        tax: int(obj(o.total_details)?.amount_tax) ?? 0,
        currency: currency.toUpperCase(),
        paidAt: null,
        referral: str(o.client_reference_id, 200)?.trim() ?? referralOf(o.metadata),
        email: str(details?.email, 254) ?? str(o.customer_email, 254),
        ...splitName(str(details?.name, 200)),
        customerRef: ref(o.customer),
        subscriptionRef: ref(o.subscription),
        issuedAt: seconds(o.created),
        ids: ids({ externalId: str(o.id) ?? undefined, invoiceId: ref(o.invoice) ?? undefined, paymentIntentId: ref(o.payment_intent) ?? undefined }),
      };
    }
    case 'invoice.paid': {
      const amount = int(o.amount_paid);
      const currency = str(o.currency, 3);
      if (amount == null || !currency) return { kind: 'skip', reason: 'The invoice has no amount_paid or currency.' };
      const sub = obj(obj(o.parent)?.subscription_details) ?? obj(o.subscription_details);
      const taxes = Array.isArray(o.total_taxes) ? o.total_taxes.reduce((n: number, t) => n + (int(obj(t)?.amount) ?? 0), 0) : null;
      const payments = obj(o.payments)?.data;
      const firstPayment = Array.isArray(payments) ? obj(obj(payments[0])?.payment) : null;
      return {
        kind: 'sale',
        amount,
        tax: int(o.tax) ?? taxes ?? 0,
        currency: currency.toUpperCase(),
        paidAt: seconds(obj(o.status_transitions)?.paid_at),
        referral: referralOf(sub?.metadata, o.metadata),
        email: str(o.customer_email, 254),
        ...splitName(str(o.customer_name, 200)),
        customerRef: ref(o.customer),
        subscriptionRef: ref(sub?.subscription) ?? ref(o.subscription),
        issuedAt: seconds(o.created),
        ids: ids({
          invoiceId: str(o.id) ?? undefined,
          paymentIntentId: ref(o.payment_intent) ?? ref(firstPayment?.payment_intent) ?? undefined,
          chargeId: ref(o.charge) ?? ref(firstPayment?.charge) ?? undefined,
        }),
      };
    }
    case 'charge.refunded': {
      const refunded = int(o.amount_refunded);
      const currency = str(o.currency, 3);
      if (refunded == null || !currency) return { kind: 'skip', reason: 'The charge has no amount_refunded or currency.' };
      return {
        kind: 'refund',
        amountRefunded: refunded,
        currency: currency.toUpperCase(),
        ids: ids({ chargeId: str(o.id) ?? undefined, paymentIntentId: ref(o.payment_intent) ?? undefined, invoiceId: ref(o.invoice) ?? undefined }),
        refunds: refundList(o.refunds),
      };
    }
    case 'invoice_payment.paid': {
      const id = str(o.id);
      const invoice = ref(o.invoice);
      const payment = obj(o.payment);
      const paymentIntentId = ref(payment?.payment_intent);
      const chargeId = ref(payment?.charge);
      if (str(o.status) !== 'paid') return { kind: 'skip', reason: `The invoice payment is ${str(o.status) ?? 'without a status'}, not paid.` };
      if (!id || !invoice || (!paymentIntentId && !chargeId)) return { kind: 'skip', reason: 'The invoice payment names no invoice, or no payment intent or charge.' };
      return { kind: 'invoice-payment', invoicePaymentRef: id, invoiceId: invoice, paymentIntentId, chargeId };
    }
    case 'customer.subscription.deleted': {
      const id = str(o.id);
      if (!id) return { kind: 'skip', reason: 'The subscription has no id.' };
      return { kind: 'subscription-end', subscriptionRef: id, customerRef: ref(o.customer), endedAt: seconds(o.ended_at) ?? seconds(o.canceled_at) };
    }
    case 'refund.created':
    case 'refund.failed':
    case 'refund.updated':
    case 'charge.refund.updated': {
      const status = str(o.status);
      const id = str(o.id);
      const amount = int(o.amount);
      const currency = str(o.currency, 3);
      const refIds = ids({ chargeId: ref(o.charge) ?? undefined, paymentIntentId: ref(o.payment_intent) ?? undefined });
      if (status === 'failed' || status === 'canceled') {
        if (!id || amount == null || amount <= 0 || !currency) return { kind: 'skip', reason: 'The refund has no id, amount or currency.' };
        return { kind: 'refund-undone', refundId: id, amount, currency: currency.toUpperCase(), status, ids: refIds };
      }
      if (!status || !COUNTED_REFUND.has(status)) return { kind: 'skip', reason: `A refund ${status ?? 'without a status'} changes nothing here.` };
      if (!id || amount == null || amount <= 0 || !currency) return { kind: 'skip', reason: 'The refund has no id, amount or currency.' };
      return { kind: 'refund-one', refundId: id, amount, currency: currency.toUpperCase(), ids: refIds };
    }
    default:
      if (event.type.startsWith('refund.') || event.type.startsWith('charge.refund.')) {
        return { kind: 'skip', reason: 'Refunds are counted from charge.refunded and refund.created (each refund by its id); this event is not needed.' };
      }
      return { kind: 'skip', reason: `refloop does not use ${event.type.slice(0, 100)} events.` };
  }
}
