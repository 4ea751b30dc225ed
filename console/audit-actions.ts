// The audit log page's action and resource vocabulary (issue #35): which actions the action filter
// offers, grouped as an owner looks for them, and the label of an action or resource type, falling
// back to its code for one the catalogue (i18n/en-audit-actions.ts) does not name.
import { en, t, type MessageKey } from './i18n/index.ts';
import { userAgentSummary } from '../shared/user-agent.ts';

/** The action filter's groups, in the order the select shows them; each action once. */
export const AUDIT_ACTION_GROUPS = {
  access: ['access.signIn', 'access.signInFailed', 'access.signInCodeFailed', 'access.lockout', 'access.signOut', 'OS1', 'OS3', 'RA1', 'access.reauthenticateFailed', 'TF2', 'TF3', 'TF4', 'TF5', 'access.twoFactorConfirmFailed', 'T6', 'TK2', 'TK3', 'T5', 'access.keyCreate', 'access.keyRevoke', 'TM3', 'TM4', 'TM5', 'access.memberInvite', 'TM6', 'TM7', 'TM8', 'A0', 'T2', 'T3', 'T4'],
  money: [
    'PR2', 'PR3', 'PR4', 'AF8', 'AF9', 'AF12', 'AF13', 'PO1', 'PO2', 'P15',
    'system.commission.auto_approve', 'system.payout.monthly_run', 'system.reward.leaderboard_month', 'system.billing.unmatched_refund',
    'billing.stripe.sale', 'billing.stripe.refund', 'billing.stripe.refund_undone', 'billing.stripe.subscription_end',
    'billing.paddle.sale', 'billing.paddle.refund', 'billing.paddle.refund_reversed', 'billing.paddle.chargeback', 'billing.paddle.chargeback_reversed', 'billing.paddle.subscription_end',
  ],
  config: ['C3', 'C4', 'C5', 'C6', 'CF2', 'CF4', 'CF6', 'CF8', 'TR2', 'EP1', 'EP2', 'AS1', 'TS1', 'R2', 'R3', 'R4', 'R5', 'RC2', 'RC3', 'RC4', 'W2', 'W3', 'W4', 'W5', 'W7', 'BI2', 'BI3', 'BI4', 'BI7', 'BI8', 'BI9', 'BC1', 'BC4', 'IM1', 'IM2'],
  people: ['P3', 'P5', 'P6', 'P7', 'P8', 'P9', 'P10', 'P11', 'RF3', 'AF3', 'AF5', 'AF6', 'AF7', 'DI1', 'system.referral.delayed_credit', 'system.referral.credit_expired', 'billing.stripe.customer_add', 'billing.paddle.customer_add'],
  exports: ['PO3', 'DX1', 'DX2', 'DX3', 'DX4', 'AU2'],
  system: ['audit.prune', 'system.webhook.auto_disable', 'system.account.purge_unverified'],
} as const satisfies Record<string, readonly string[]>;

/** The resource types the resource filter offers (entries name these). */
export const AUDIT_RESOURCE_TYPES = Object.keys(en)
  .filter((k) => k.startsWith('audit.res.'))
  .map((k) => k.slice('audit.res.'.length));

const known = (key: string): key is MessageKey => key in en;

/** What the page calls an action: its label, or its code when the catalogue has none. */
export function actionLabel(action: string): string {
  const key = `audit.op.${action}`;
  return known(key) ? t(key) : action;
}

/** What the page calls a resource type. */
export function resourceLabel(type: string): string {
  const key = `audit.res.${type}`;
  return known(key) ? t(key) : type;
}

/** "Chrome 156 on Linux", "curl 8.5": the client an entry came from, as a person reads it. */
export function agentLabel(userAgent: string | null): string | null {
  const s = userAgentSummary(userAgent);
  if (!s) return null;
  return s.system ? t('audit.agent', { client: s.client, system: s.system }) : s.client;
}
