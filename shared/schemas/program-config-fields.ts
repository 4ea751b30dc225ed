// The shared enumerations (rest-v2 §4), the program-type and document names, and the field building
// blocks (capped strings, URLs, colours, host names) the program configuration documents are made of.
import { z } from 'zod';

// ── Shared enumerations (rest-v2 §4) ────────────────────────────────────────────────────────────

/** Cookie window days (options.referralCookieWindowDays). */
export const COOKIE_WINDOW_DAYS = [1, 3, 7, 14, 30, 60, 90, 180, 365, 400] as const;
/** Credit window days (options.referralCreditWindowDays); `null` = never expires. */
export const CREDIT_WINDOW_DAYS = [1, 3, 7, 14, 30, 60, 90, 180, 365] as const;
/** Program languages (options.languages, Participant.language). */
export const PROGRAM_LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt-BR', 'nl', 'pl', 'sv', 'tr', 'ja', 'ko', 'zh-CN', 'id'] as const;
/** Share channels the window can offer (the §4 "first share channel" values that are buttons). */
export const SHARE_CHANNELS = [
  'email',
  'facebook',
  'twitter',
  'linkedin',
  'pinterest',
  'threads',
  'bluesky',
  'sms',
  'messenger',
  'whatsapp',
  'wechat',
  'telegram',
  'reddit',
  'tumblr',
  'qrcode',
] as const;
/** Every email template key (rest-v2 §2.19, §4). */
export const EMAIL_TEMPLATE_KEYS = [
  'welcomeNonReferred',
  'welcomeReferred',
  'referralLinkViewedFirstTime',
  'referralLinkUsed',
  'referredSignup',
  'goalAchieved',
  'campaignEndedWinners',
  'campaignEndedNonWinners',
  'progressUpdateMonthly',
  'commissionGenerated',
  'commissionAdjusted',
  'payoutPending',
  'payoutSentSuccess',
  'invite',
  'loginLink',
  'paypalEmailConfirmation',
  'taxInfoMissing',
  'taxInfoReceived',
  'taxInfoApproved',
  'taxInfoRejected',
] as const;
/** Transactional templates: always sent when their event happens, so `isEnabled` is fixed at true. */
export const TRANSACTIONAL_TEMPLATES = ['loginLink', 'paypalEmailConfirmation', 'taxInfoMissing', 'taxInfoReceived', 'taxInfoApproved', 'taxInfoRejected'] as const;

/** The program types, repeated here so shared schemas need no import cycle. */
export type ConfigProgramType = 'REFERRAL' | 'AFFILIATE';
/** The four documents. */
export type DocumentKind = 'design' | 'emails' | 'options' | 'installation';

// ── Building blocks ─────────────────────────────────────────────────────────────────────────────

export const text = (max: number) => z.string().max(max);
export const label = (max = 100) => z.string().trim().min(1, 'Cannot be blank.').max(max);
export const nText = (max: number) => z.string().max(max).nullable();
export const httpUrl = (max: number) => z.url({ protocol: /^https?$/, message: 'Must be a URL starting with http:// or https://.' }).max(max);
export const nUrl = (max: number) => httpUrl(max).nullable();
/** CSS colours the widget writes into a stylesheet: hex or rgb()/hsl() only, so no CSS can be injected. */
export const color = z
  .string()
  .max(40)
  .regex(/^(#[0-9a-fA-F]{3,4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\)|transparent)$/, 'Must be a hex colour such as #4f46e5, or rgb()/hsl().');
export const cssLength = z
  .string()
  .max(12)
  .regex(/^(0|\d{1,3}(\.\d{1,2})?(px|rem|em|%))$/, 'Must be a CSS length such as 8px, 0.5rem or 50%.');
export const bool = z.boolean();
export const intIn = (min: number, max: number) => z.number().int().min(min).max(max);
export const iconSpec = z.strictObject({
  type: z.enum(['DEFAULT', 'IMAGE', 'NONE']),
  imageUrl: nUrl(500),
});
export const labelled = z.strictObject({ isVisible: bool, label: label() });

/** A host name, optionally with a leading `*.` wildcard (options and installation allowlists). */
export const hostname = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'Must be a host name such as example.com or *.example.com.');
