// The participant API's leaderboard (its leaderboard operation and the window's first page): names
// as the design's `nameFormat` shows them, masked emails, each row's score on the board.
import type { ParticipantApiServices as Deps } from './services.ts';
import type { MobileProgram } from './mobile-programs.ts';
import { completedDocument } from '../programs/program-config.ts';
import { maskEmail } from '../messaging/email-layout.ts';
import type { z } from 'zod';
import type { mobileLeaderboard, mobileLeaderboardQuery } from '../../../shared/schemas/mobile-campaign.ts';

/**
 * The leaderboard with names as the design's `nameFormat` shows them and masked emails. `page`
 * reads the first page × limit rows and keeps the last page (capped by the schema); `offsetKey`
 * continues from a previous page like REST P2's `nextId`.
 */
export async function readLeaderboard(deps: Deps, view: MobileProgram, q: z.output<typeof mobileLeaderboardQuery>, participantId: string | null = null): Promise<z.infer<typeof mobileLeaderboard>> {
  const design = completedDocument('design', view.program, view.program.documents.design) as { leaderboard: { defaultSelector: 'ALL_TIME' | 'CURRENT_MONTH' | 'PREV_MONTH'; nameFormat: NameFormat } };
  const type = q.leaderboardType ?? design.leaderboard.defaultSelector;
  const page = q.offsetKey ? 1 : (q.page ?? 1);
  // Only what a board row shows is read (leaderboardEntries): no participant is serialized.
  const read = await deps.participants.leaderboardEntries(view.program, { leaderboardType: type, limit: q.limit * page, nextId: q.offsetKey });
  const rows = read.rows.slice(q.limit * (page - 1));
  const format = design.leaderboard.nameFormat;
  return {
    leaderboardType: type,
    rows: rows.map((p) => ({ rank: p.rank, name: formatName(p.firstName, p.lastName, format), email: maskEmail(p.email), score: p.score, isYou: p.id === participantId })),
    limit: q.limit,
    nextOffsetKey: read.nextId,
  };
}

type NameFormat = 'FIRST' | 'FIRST_LAST_INITIAL' | 'FIRST_LAST' | 'ANONYMOUS';

/** A participant's name as others see it on the leaderboard. */
function formatName(first: string | null | undefined, last: string | null | undefined, format: NameFormat): string | null {
  if (format === 'ANONYMOUS' || !first) return null;
  if (format === 'FIRST' || !last) return first;
  return format === 'FIRST_LAST' ? `${first} ${last}` : `${first} ${last[0]}.`;
}
