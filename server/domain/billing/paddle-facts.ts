// The few fields refloop reads out of Paddle Billing's notifications (issue #25). Paddle's payloads
// are verified but still data from outside: every read checks its type, nothing here throws. Paddle
// sends amounts as strings of minor units (`details.totals.grand_total`, `totals.total`) and times
// as RFC 3339 strings.
import { PADDLE_REFERRAL_CUSTOM_DATA_KEY } from '../../../shared/schemas/billing.ts';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown, max = 255): string | null => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : null);
/** A string of minor units ("65832"); Paddle writes adjustments' totals unsigned, a sign is dropped. */
const minor = (v: unknown): number | null => {
  const s = str(v, 20);
  if (!s || !/^-?\d+$/.test(s)) return null;
  const n = Math.abs(Number(s));
  return Number.isSafeInteger(n) ? n : null;
};
const time = (v: unknown): number | null => {
  const s = str(v, 64);
  const n = s ? Date.parse(s) : NaN;
  return Number.isFinite(n) ? n : null;
};

/** A paid or completed transaction: a first payment or a subscription renewal. */
export interface PaddleSaleFacts {
  kind: 'sale';
  /** details.totals.grand_total, minor units. */
  amount: number;
  tax: number;
  currency: string;
  paidAt: number | null;
  /** custom_data.refloop_referral: the referrer's code. */
  referral: string | null;
  /** ctm_…: its email needs the API. */
  customerRef: string | null;
  subscriptionRef: string | null;
  /** When Paddle billed it (for the subscription-end rule). */
  issuedAt: number | null;
  /** `origin`: web, api, subscription_recurring, … */
  origin: string | null;
  /** dsc_…: a discount the transaction used, mapped to a participant's code (BC1). */
  discountId: string | null;
  transactionId: string;
}

/** An approved refund or chargeback adjustment of one transaction (each is recorded by its own id through AF9), or a chargeback's reversal. */
export interface PaddleRefundFacts {
  kind: 'refund';
  adjustmentId: string;
  transactionId: string;
  amount: number;
  currency: string;
  /** approved applies it; reversed takes it back. */
  status: 'approved' | 'reversed';
  /** refund and chargeback take money back; chargeback_reverse returns a chargeback's. */
  action: PaddleRefundAction;
}

/** The adjustment actions that change a sale. */
export type PaddleRefundAction = 'refund' | 'chargeback' | 'chargeback_reverse';
const REFUND_ACTIONS = new Set<string>(['refund', 'chargeback', 'chargeback_reverse']);

/** A canceled subscription. */
export interface PaddleSubscriptionEndFacts {
  kind: 'subscription-end';
  subscriptionRef: string;
  customerRef: string | null;
  endedAt: number | null;
}

/** Something the notification says that is not used, with why. */
export interface PaddleSkip {
  kind: 'skip';
  reason: string;
}

export type PaddleFacts = PaddleSaleFacts | PaddleRefundFacts | PaddleSubscriptionEndFacts | PaddleSkip;

/** Reads one verified notification (`event_type`, `data`); unknown types and unfinished objects are skips with a reason. */
export function paddleFactsOf(event: { event_type?: unknown; data?: unknown }): PaddleFacts {
  const type = str(event.event_type, 100) ?? 'unknown';
  const o = obj(event.data);
  if (!o) return { kind: 'skip', reason: 'The notification carries no data.' };
  switch (type) {
    // transaction.paid comes first (paid, not yet fully processed), then transaction.completed: the
    // same sale, recorded by whichever arrives first (AF8 finds the other by its externalId).
    case 'transaction.paid':
    case 'transaction.completed': {
      const id = str(o.id);
      const totals = obj(obj(o.details)?.totals);
      const amount = minor(totals?.grand_total) ?? minor(totals?.total);
      const currency = str(totals?.currency_code, 3) ?? str(o.currency_code, 3);
      if (!id || amount == null || !currency) return { kind: 'skip', reason: 'The transaction has no id, details.totals.grand_total or currency_code.' };
      const paid = Array.isArray(o.payments) ? o.payments.map((p) => time(obj(p)?.captured_at)).find((t) => t != null) ?? null : null;
      const referral = str(obj(o.custom_data)?.[PADDLE_REFERRAL_CUSTOM_DATA_KEY], 200)?.trim() || null;
      return {
        kind: 'sale',
        amount,
        tax: minor(totals?.tax) ?? 0,
        currency: currency.toUpperCase(),
        paidAt: paid ?? time(o.billed_at),
        referral,
        customerRef: str(o.customer_id),
        subscriptionRef: str(o.subscription_id),
        issuedAt: time(o.billed_at) ?? time(o.created_at),
        origin: str(o.origin, 64),
        discountId: str(o.discount_id),
        transactionId: id,
      };
    }
    case 'adjustment.created':
    case 'adjustment.updated': {
      const action = str(o.action, 64);
      if (!action || !REFUND_ACTIONS.has(action)) {
        return { kind: 'skip', reason: `Only refund and chargeback adjustments change a sale (this one is ${action ?? 'without an action'}${action === 'chargeback_warning' ? ': a warning, the chargeback itself is applied when it comes' : ''}).` };
      }
      const status = str(o.status, 64);
      const applies = status === 'approved' || (status === 'reversed' && action === 'refund');
      if (!applies) return { kind: 'skip', reason: `The ${action.replace('_', ' ')} is ${status ?? 'without a status'}; it is applied when Paddle approves it.` };
      const id = str(o.id);
      const txn = str(o.transaction_id);
      const totals = obj(o.totals);
      const amount = minor(totals?.total);
      const currency = str(o.currency_code, 3) ?? str(totals?.currency_code, 3);
      if (!id || !txn || amount == null || amount <= 0 || !currency) return { kind: 'skip', reason: 'The adjustment has no id, transaction_id, totals.total or currency_code.' };
      return { kind: 'refund', adjustmentId: id, transactionId: txn, amount, currency: currency.toUpperCase(), status: status as 'approved' | 'reversed', action: action as PaddleRefundAction };
    }
    case 'subscription.canceled': {
      const id = str(o.id);
      if (!id) return { kind: 'skip', reason: 'The subscription has no id.' };
      return { kind: 'subscription-end', subscriptionRef: id, customerRef: str(o.customer_id), endedAt: time(o.canceled_at) };
    }
    default:
      return { kind: 'skip', reason: `refloop does not use ${type} notifications.` };
  }
}
