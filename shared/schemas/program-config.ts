import { z } from 'zod';
import { TRANSACTIONAL_TEMPLATES, type ConfigProgramType, type DocumentKind } from './program-config-fields.ts';
import { campaignDesign, type CampaignDesign } from './program-config-design.ts';
import { campaignEmails, type CampaignEmails } from './program-config-emails.ts';
import { AFFILIATE_ONLY_EVENTS, REFERRAL_ONLY_EVENTS, campaignOptions, type CampaignOptions } from './program-config-options.ts';
import { campaignInstallation, type CampaignInstallation } from './program-config-installation.ts';

// The four program configuration documents (rest-v2 §2.18–§2.21) as a family. Each document is one
// typed, closed object (program-config-design/-emails/-options/-installation.ts): unknown keys at any
// depth are rejected, every string and array is capped. Fields that exist for one program type only
// are optional there and listed in TYPE_ONLY_FIELDS here; `documentSchema(kind, type)` gives the exact
// schema for one program type, and the PATCH bodies are the documents' deep partials.

/** Fields that exist for one program type only, per document, as dotted paths (§3.0 "per type"). */
export const TYPE_ONLY_FIELDS: Record<DocumentKind, Record<string, ConfigProgramType>> = {
  design: {
    referralSummary: 'REFERRAL',
    affiliateSummary: 'AFFILIATE',
    commissions: 'AFFILIATE',
    payouts: 'AFFILIATE',
    'participantSettings.manualPayout': 'AFFILIATE',
    'participantSettings.wise': 'AFFILIATE',
  },
  emails: {
    welcomeReferred: 'REFERRAL',
    referralLinkUsed: 'REFERRAL',
    goalAchieved: 'REFERRAL',
    campaignEndedWinners: 'REFERRAL',
    campaignEndedNonWinners: 'REFERRAL',
    commissionGenerated: 'AFFILIATE',
    commissionAdjusted: 'AFFILIATE',
    payoutPending: 'AFFILIATE',
    payoutSentSuccess: 'AFFILIATE',
  },
  options: {
    requireManualRewardApproval: 'REFERRAL',
    autoFulfillRewards: 'REFERRAL',
    allowClientSideReferralTrigger: 'REFERRAL',
    payoutThreshold: 'AFFILIATE',
    taxDocumentation: 'AFFILIATE',
    affiliateApplicationMode: 'AFFILIATE',
    affiliateReapplicationPolicy: 'AFFILIATE',
    affiliateReapplicationCooldownDays: 'AFFILIATE',
    affiliateApplicationReviewEstimateBusinessDays: 'AFFILIATE',
    affiliateApplicationForm: 'AFFILIATE',
    ...Object.fromEntries(REFERRAL_ONLY_EVENTS.map((e) => [`notificationEmails.events.${e}`, 'REFERRAL' as const])),
    ...Object.fromEntries(AFFILIATE_ONLY_EVENTS.map((e) => [`notificationEmails.events.${e}`, 'AFFILIATE' as const])),
  },
  installation: { referralTrigger: 'REFERRAL' },
};

/** Fields the server owns: a PATCH may send them back unchanged but never change them. */
export const READ_ONLY_FIELDS: Record<DocumentKind, string[]> = {
  design: [],
  emails: ['settings.sender.fromEmail', ...TRANSACTIONAL_TEMPLATES.map((t) => `${t}.isEnabled`)],
  options: ['followUpReminder.enabledAt'],
  installation: ['mobile.publicKey'],
};

/** The wire schema of each document (optional type-only fields), as returned by GET. */
export const DOCUMENT_SCHEMAS = {
  design: campaignDesign,
  emails: campaignEmails,
  options: campaignOptions,
  installation: campaignInstallation,
} as const;

// ── Schema reshaping ────────────────────────────────────────────────────────────────────────────

/** Rebuilds an object schema with new fields, keeping its description (never its `id`). */
function rebuild(schema: z.ZodObject, shape: Record<string, z.ZodType>): z.ZodType {
  const { id: _id, ...meta } = (schema.meta() ?? {}) as Record<string, unknown>;
  const out = z.strictObject(shape);
  return Object.keys(meta).length ? out.meta(meta) : out;
}

/** Every field optional at every depth (objects stay closed): the PATCH body of a document. */
export function deepPartial(schema: z.ZodType): z.ZodType {
  let inner = schema;
  if (inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
  if (inner instanceof z.ZodObject) {
    const shape: Record<string, z.ZodType> = {};
    for (const [k, v] of Object.entries(inner.shape as Record<string, z.ZodType>)) shape[k] = deepPartial(v).optional();
    return rebuild(inner, shape);
  }
  return inner;
}

/** The wire schema narrowed to one program type: the other type's fields removed, its own required. */
function forType(schema: z.ZodType, restricted: Record<string, ConfigProgramType>, type: ConfigProgramType, prefix = ''): z.ZodType {
  let inner = schema;
  let optional = false;
  if (inner instanceof z.ZodOptional) {
    optional = true;
    inner = inner.unwrap() as z.ZodType;
  }
  if (!(inner instanceof z.ZodObject)) return optional && !restricted[prefix.slice(0, -1)] ? schema : inner;
  const shape: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(inner.shape as Record<string, z.ZodType>)) {
    const path = prefix + k;
    const only = restricted[path];
    if (only && only !== type) continue;
    shape[k] = forType(v, restricted, type, `${path}.`);
  }
  const out = rebuild(inner, shape);
  return optional && !restricted[prefix.slice(0, -1)] ? out.optional() : out;
}

const cache = new Map<string, z.ZodType>();
/** The exact, complete schema of one document for one program type (every field required). */
export function documentSchema(kind: DocumentKind, type: ConfigProgramType): z.ZodType {
  const key = `${kind}:${type}`;
  let s = cache.get(key);
  if (!s) {
    s = forType(DOCUMENT_SCHEMAS[kind], TYPE_ONLY_FIELDS[kind], type);
    cache.set(key, s);
  }
  return s;
}

/** PATCH bodies: deep partials of the wire schemas (type rules are checked against the program). */
export const campaignDesignUpdate = (deepPartial(campaignDesign) as z.ZodObject).meta({ id: 'CampaignDesignUpdate' }) as unknown as z.ZodType<DeepPartial<CampaignDesign>>;
/** `PATCH /campaign/{id}/emails` body. */
export const campaignEmailsUpdate = (deepPartial(campaignEmails) as z.ZodObject).meta({ id: 'CampaignEmailsUpdate' }) as unknown as z.ZodType<DeepPartial<CampaignEmails>>;
/** `PATCH /campaign/{id}/options` body. */
export const campaignOptionsUpdate = (deepPartial(campaignOptions) as z.ZodObject).meta({ id: 'CampaignOptionsUpdate' }) as unknown as z.ZodType<DeepPartial<CampaignOptions>>;
/** `PATCH /campaign/{id}/installation` body. */
export const campaignInstallationUpdate = (deepPartial(campaignInstallation) as z.ZodObject).meta({ id: 'CampaignInstallationUpdate' }) as unknown as z.ZodType<
  DeepPartial<CampaignInstallation>
>;

/** A partial at every depth; arrays are whole values. */
export type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;
