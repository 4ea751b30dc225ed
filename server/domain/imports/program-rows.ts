// A program's own records as the source lists them (resources, rest-v2 §2.23; payout destinations,
// §2.34; activity rows, §2.26), as our rows with the same ids where they have one.
import { keepableId } from './participant-rows.ts';

/** A program resource as R1 lists it. */
export interface SourceResource {
  id: string;
  type: string;
  title: string;
  description?: string | null;
  category?: string | null;
  url?: string | null;
  text?: string | null;
  file?: unknown;
  isPublished?: boolean;
  position?: number;
  createdAt?: number;
  updatedAt?: number;
}

/** What P14 answers: a destination per enabled provider and the one being paid. */
export interface SourceDestinations {
  activeProvider?: string | null;
  destinations?: Array<{ provider?: string; status?: string; claimEmail?: string | null; confirmedAt?: number | null; legalEntityType?: string | null; needsRepairReason?: string | null }>;
}

/** One row of a participant's activity log (P13). */
export interface SourceActivity {
  type: string;
  text: string;
  createdAt: number;
}

const int = (n: unknown): number | null => (typeof n === 'number' && Number.isFinite(n) ? Math.round(n) : null);

/** A LINK or TEXT resource's row, or why it cannot be one (a FILE's bytes are not readable through the REST API). */
export function resourceRow(r: SourceResource, programId: string, now: number): { row: Record<string, unknown> } | { refused: string } {
  if (!keepableId(r.id)) return { refused: 'Its id is not one refloop can keep.' };
  if (r.type === 'FILE') return { refused: 'A file resource: the REST API does not give its file, so upload it again in the console.' };
  if (r.type !== 'LINK' && r.type !== 'TEXT') return { refused: `Its type ${String(r.type).slice(0, 16)} is not one refloop knows.` };
  if (typeof r.title !== 'string' || !r.title.trim()) return { refused: 'It has no title.' };
  if (r.type === 'LINK' && (typeof r.url !== 'string' || !/^https?:\/\//i.test(r.url))) return { refused: 'Its link is not an http(s) URL.' };
  const createdAt = int(r.createdAt) ?? now;
  return {
    row: {
      id: r.id,
      program_id: programId,
      type: r.type,
      title: r.title.slice(0, 120),
      description: typeof r.description === 'string' ? r.description.slice(0, 500) : null,
      category: typeof r.category === 'string' ? r.category.slice(0, 60) : null,
      url: r.type === 'LINK' ? String(r.url).slice(0, 2048) : null,
      text: r.type === 'TEXT' && typeof r.text === 'string' ? r.text : null,
      is_published: !!r.isPublished,
      position: Math.max(0, int(r.position) ?? 0),
      created_at: createdAt,
      updated_at: int(r.updatedAt) ?? createdAt,
    },
  };
}

/** Providers a destination can be kept for here. */
const PROVIDERS = new Set(['PAYPAL', 'VENMO', 'WISECOM']);
const KEPT = new Set(['CONFIRMED', 'ACTIVE', 'NEEDS_REPAIR']);

/**
 * The destination being paid (P14's `activeProvider`, else the one confirmed) as our row, or null when
 * none is confirmed; its country and legal name are not listed (tax details are never stored).
 */
export function destinationRow(d: SourceDestinations, programId: string, participantId: string, id: string, now: number): Record<string, unknown> | null {
  const list = (d.destinations ?? []).filter((x) => PROVIDERS.has(String(x.provider)) && KEPT.has(String(x.status)) && typeof x.claimEmail === 'string' && x.claimEmail.includes('@'));
  const pick = list.find((x) => x.provider === d.activeProvider) ?? list[0];
  if (!pick) return null;
  const confirmedAt = int(pick.confirmedAt);
  return {
    id,
    program_id: programId,
    participant_id: participantId,
    provider: pick.provider,
    account: String(pick.claimEmail).slice(0, 254),
    country: null,
    status: pick.status,
    legal_entity_type: pick.legalEntityType === 'INDIVIDUAL' || pick.legalEntityType === 'BUSINESS' ? pick.legalEntityType : null,
    legal_name: null,
    needs_repair_reason: typeof pick.needsRepairReason === 'string' ? pick.needsRepairReason.slice(0, 255) : null,
    confirmed_at: confirmedAt,
    created_at: confirmedAt ?? now,
    updated_at: confirmedAt ?? now,
  };
}

/** Activity types our log knows; another source's word is kept as COMMON. */
const ACTIVITY_TYPES = new Set(['REFERRAL', 'SHARE', 'REWARD', 'EMAIL', 'COMMON', 'VISIT', 'INVITE', 'FRAUD']);

/** An activity row (action `import.activity`, so analytics that count our own actions never count it twice). */
export function activityRow(a: SourceActivity, programId: string, participantId: string): Record<string, unknown> | null {
  if (typeof a?.text !== 'string' || typeof a.createdAt !== 'number') return null;
  return {
    program_id: programId,
    participant_id: participantId,
    type: ACTIVITY_TYPES.has(a.type) ? a.type : 'COMMON',
    action: 'import.activity',
    text: a.text.slice(0, 1000),
    data: null,
    created_at: Math.round(a.createdAt),
  };
}
