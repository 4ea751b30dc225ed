import { z } from 'zod';
import { METADATA_LIMITS, fraudRiskLevel, participant, referralStatus } from './participant.ts';

// Participant lists (rest-v2 §2.27 ParticipantList, §3.8 P1, P2): the page both answer, P1's query
// (newest first, metadata filters and the refloop extensions: search, filters, sort) and P2's
// leaderboard query. Cursor rows, metadata matches and board order need the database and live in
// server/domain/participants/.

/** Leaderboard orderings (P2 `leaderboardType`). */
export const leaderboardType = z.enum([
  'ALL_TIME',
  'CURRENT_MONTH',
  'PREV_MONTH',
  'TOTAL_IMPRESSION_COUNT',
  'UNIQUE_IMPRESSION_COUNT',
  'BY_COMMISSIONS',
  'BY_REVENUE',
  'BY_REFERRALS',
  'BY_LEADS',
]);
/** Most filter pairs one participant list request may carry. */
export const MAX_METADATA_FILTERS = 3;

/** `ParticipantList` (P1, P2): `nextId` is null on the last page. */
export const participantList = z
  .object({ participants: z.array(participant), limit: z.number().int(), nextId: z.string().nullable() })
  .meta({ id: 'ParticipantList' });

const limit = z.coerce.number().int().min(1).max(100).default(10);
const cursor = z.string().min(1).max(64).optional().meta({ description: 'The last participant id of the previous page.' });
const METADATA_PARAM = /^metadata\[(.*)\]$/s;

const listBool = z.enum(['true', 'false']).transform((v) => v === 'true');
/** P1 orders (refloop extension `sort`). */
export const participantListSort = z.enum(['createdAt', 'referralCount', 'email']);
const ext = 'refloop extension: ';
/** The refloop extensions of P1's query; absent, P1 answers exactly as GrowSurf's. */
const listExtensions = {
  search: z
    .string()
    .trim()
    .min(1)
    .max(254)
    .optional()
    .meta({ description: `${ext}an email prefix (case-insensitive), a first or last name prefix (case-insensitive; "first last" matches both), or an exact participant id, share key or vanity key.` }),
  referred: listBool.optional().meta({ description: `${ext}true: only participants with a referrer; false: only those without.` }),
  referralStatus: referralStatus.optional().meta({ description: `${ext}only participants whose own referral has this status.` }),
  fraudRiskLevel: fraudRiskLevel.optional().meta({ description: `${ext}only participants at this anti-fraud risk level.` }),
  isAffiliate: listBool.optional().meta({ description: `${ext}true: only affiliates; false: only non-affiliates.` }),
  sort: participantListSort
    .optional()
    .meta({ description: `${ext}createdAt (newest first, the default), referralCount (most first, ties oldest first) or email (A–Z). nextId continues the same order.` }),
};
/** Names of the P1 extension parameters. */
export const PARTICIPANT_LIST_EXTENSIONS = Object.keys(listExtensions) as Array<keyof typeof listExtensions>;

/**
 * P1 query: `limit`, `nextId` and up to three `metadata[key]=value` exact-match filters; plus the
 * refloop extensions (search, filters, sort), which are only in the output when sent.
 */
export const participantListQuery = z
  .looseObject({ limit, nextId: cursor, ...listExtensions })
  .superRefine((q, ctx) => {
    let n = 0;
    for (const [k, v] of Object.entries(q)) {
      const m = METADATA_PARAM.exec(k);
      if (!m) continue;
      n++;
      if (m[1]!.length < 1 || m[1]!.length > METADATA_LIMITS.keyLength) {
        ctx.addIssue({ code: 'custom', path: [k], message: `Metadata filter keys are 1–${METADATA_LIMITS.keyLength} characters.` });
      }
      if (typeof v !== 'string') ctx.addIssue({ code: 'custom', path: [k], message: 'Give each metadata filter once.' });
      else if (v.length > METADATA_LIMITS.valueLength) ctx.addIssue({ code: 'custom', path: [k], message: `Metadata values are at most ${METADATA_LIMITS.valueLength} characters.` });
    }
    if (n > MAX_METADATA_FILTERS) ctx.addIssue({ code: 'custom', path: ['metadata'], message: `At most ${MAX_METADATA_FILTERS} metadata filters.` });
  })
  .transform((q) => {
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(q)) {
      const m = METADATA_PARAM.exec(k);
      if (m) metadata[m[1]!] = v as string;
    }
    const extensions: ParticipantListExtensions = {};
    for (const k of PARTICIPANT_LIST_EXTENSIONS) if (q[k] !== undefined) (extensions as Record<string, unknown>)[k] = q[k];
    return { limit: q.limit, nextId: q.nextId, metadata, ...(Object.keys(extensions).length ? { extensions } : {}) };
  });

/** The P1 extensions a request sent (at least one when present). */
export interface ParticipantListExtensions {
  search?: string;
  referred?: boolean;
  referralStatus?: z.infer<typeof referralStatus>;
  fraudRiskLevel?: z.infer<typeof fraudRiskLevel>;
  isAffiliate?: boolean;
  sort?: z.infer<typeof participantListSort>;
}

/** P2 query; `isMonthly=true` is the deprecated spelling of `leaderboardType=CURRENT_MONTH`. */
export const leaderboardQuery = z
  .object({ leaderboardType: leaderboardType.optional(), isMonthly: listBool.optional(), limit, nextId: cursor })
  .superRefine((q, ctx) => {
    if (q.isMonthly === true && q.leaderboardType && q.leaderboardType !== 'CURRENT_MONTH') {
      ctx.addIssue({ code: 'custom', path: ['isMonthly'], message: 'isMonthly=true means leaderboardType=CURRENT_MONTH; send one of them.' });
    }
  })
  .transform((q) => ({
    leaderboardType: q.leaderboardType ?? (q.isMonthly ? ('CURRENT_MONTH' as const) : ('ALL_TIME' as const)),
    limit: q.limit,
    nextId: q.nextId,
  }));

export type ParticipantList = z.infer<typeof participantList>;
export type ParticipantListQuery = z.output<typeof participantListQuery>;
export type LeaderboardQuery = z.output<typeof leaderboardQuery>;
export type LeaderboardType = z.infer<typeof leaderboardType>;
