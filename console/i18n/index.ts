// The console's one message catalogue (English for now; the program-language work adds more) and
// the Intl formatting every page uses for numbers, money and dates. The machinery (`{name}`
// placeholders, plural forms) is shared with the server's pages (shared/i18n), and so are the
// messages the console and the owner pages both say (shared/i18n/en-owner.ts).
import { translator } from '../../shared/i18n/index.ts';
import { enOwner } from '../../shared/i18n/en-owner.ts';
import { en as frame } from './en.ts';
import { enAffiliates } from './en-affiliates.ts';
import { enAnalytics } from './en-analytics.ts';
import { enWebhooks } from './en-webhooks.ts';
import { enSettings } from './en-settings.ts';
import { enDesign } from './en-design.ts';
import { enOptions } from './en-options.ts';
import { enRewards } from './en-rewards.ts';
import { enFraud } from './en-fraud.ts';
import { enParticipants } from './en-participants.ts';
import { enTeam } from './en-team.ts';
import { enData } from './en-data.ts';
import { enIntegrations } from './en-integrations.ts';
import { enCodes } from './en-codes.ts';
import { enErrors } from './en-errors.ts';
import { enFrame } from './en-frame.ts';
import { enSecurity } from './en-security.ts';
import { enAudit } from './en-audit.ts';
import { enAuditActions } from './en-audit-actions.ts';

/** The whole catalogue: what the owner pages say too, the frame's and home's messages, then one file per area (`en-<area>.ts`), merged here. */
export const en = { ...enOwner, ...frame, ...enAffiliates, ...enRewards, ...enFraud, ...enParticipants, ...enAnalytics, ...enWebhooks, ...enIntegrations, ...enCodes, ...enTeam, ...enData, ...enSettings, ...enDesign, ...enOptions, ...enErrors, ...enFrame, ...enSecurity, ...enAudit, ...enAuditActions };

/** A message key. */
export type MessageKey = keyof typeof en;

const locale = 'en';

/** The message for `key` with `{name}` placeholders filled (as text); plural messages pick by `vars.count`. */
export const t = translator(en, locale);

/** A language (a program language code such as `pt-BR`) by its name in the console's language. */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** A whole number in the console's language. */
export const num = (n: number): string => n.toLocaleString(locale);

/** Integer minor units of `currency` as money. */
export function money(minor: number, currency: string | null): string {
  if (!currency) return num(minor);
  const f = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}

/** A date (epoch ms or ISO text) as a short local date and time. */
export function when(v: number | string | null | undefined): string {
  if (v == null || v === '') return '—';
  return new Date(v).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' });
}
