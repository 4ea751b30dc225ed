import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import { newSecret, sha256 } from '../../crypto.ts';
import { NotAuthorizedError, NotFoundError } from '../../errors.ts';
import type { TeamActor } from './owner-rules.ts';

// A person's sign-in sessions as they see them (issue #35 part 3): where each was opened (device
// from the user agent, IP), when, when last seen; ending one, all of a member's (the team's Owner),
// and rotating the current one (a new token for the same session) when privileges change. A
// session's public id is the start of its token's hash: it names the row, and reveals nothing
// that opens it.

/** A session's `last_seen_at` is written at most this often. */
export const LAST_SEEN_EVERY_MS = 60_000;
/** How long a session stays "recently re-authenticated" (the sensitive actions' window). */
export const REAUTH_WINDOW_MS = 5 * 60_000;
const ID_LENGTH = 16;
/** Why a session ended early, kept on its expired row until the hourly prune so its browser can be told. */
export type SessionEndReason = 'PRIVILEGES_CHANGED';

/**
 * Ends every signed-in session of a member whose privileges changed (issue #35, "sessions rotate on
 * privilege change"), in `q` (the change's transaction): the rows expire now and say why, so no
 * token issued under the old role opens anything, and the browser's next request is asked to sign
 * in again. Sign-ins still waiting for their code grant nothing and open a new session under the
 * new role, so they stay. Returns how many sessions ended.
 */
export async function endSessionsForPrivilegeChange(q: Knex | Knex.Transaction, userId: string, now: number): Promise<number> {
  return q('sessions')
    .where({ user_id: userId, pending_two_factor: false })
    .where('expires_at', '>', now)
    .update({ expires_at: now, ended_reason: 'PRIVILEGES_CHANGED' satisfies SessionEndReason, flash: null, reauthenticated_at: null });
}

/** One session as listed. */
export interface SessionView {
  id: string;
  browser: string;
  os: string;
  ip: string | null;
  createdAt: number;
  lastSeenAt: number;
  current: boolean;
}

/** A session's public id, from its stored hash. */
export function sessionId(hash: string): string {
  return hash.slice(0, ID_LENGTH);
}

const BROWSERS: Array<[RegExp, string]> = [
  [/Edg(?:e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\/|Chromium\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];
const SYSTEMS: Array<[RegExp, string]> = [
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Android/, 'Android'],
  [/CrOS/, 'ChromeOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/Linux/, 'Linux'],
];

/** The browser and system a user agent names, in the words people know them by; `Other` when unknown. */
export function deviceOf(userAgent: string | null): { browser: string; os: string } {
  const ua = userAgent ?? '';
  return { browser: BROWSERS.find(([re]) => re.test(ua))?.[1] ?? 'Other', os: SYSTEMS.find(([re]) => re.test(ua))?.[1] ?? 'Other' };
}

/** Sessions of people: listing, ending and rotating them. */
export class OwnerSessions {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** The person's live, signed-in sessions, the most recently seen first. */
  async list(userId: string, currentHash: string | undefined): Promise<SessionView[]> {
    const now = this.clock.now();
    const rows = await this.db
      .knex('sessions')
      .where({ user_id: userId, pending_two_factor: false })
      .where('expires_at', '>', now)
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'hash' }])
      .limit(100)
      .select('hash', 'ip', 'user_agent', 'created_at', 'last_seen_at');
    return rows
      .map((r: any) => ({
        id: sessionId(r.hash),
        ...deviceOf(r.user_agent),
        ip: r.ip ?? null,
        createdAt: Number(r.created_at),
        lastSeenAt: Number(r.last_seen_at ?? r.created_at),
        current: r.hash === currentHash,
      }))
      .sort((a, b) => b.lastSeenAt - a.lastSeenAt);
  }

  /** Ends one of the person's sessions by its id; 404 when none of theirs has it. */
  async end(userId: string, id: string): Promise<void> {
    if (!/^[0-9a-f]{16}$/.test(id)) throw new NotFoundError('None of your sessions has this id.');
    const n = await this.db.knex('sessions').where({ user_id: userId }).where('hash', 'like', `${id}%`).del();
    if (n === 0) throw new NotFoundError('None of your sessions has this id.');
    // Audited as the OS3 write by the REST pipeline.
  }

  /**
   * Ends every session of a member of the actor's team (the team's Owner only): 404 when the
   * address is not a member. Returns how many ended.
   */
  async endMember(actor: TeamActor, email: string): Promise<number> {
    if (actor.member.role !== 'OWNER') throw new NotAuthorizedError('Only the team’s Owner may end another member’s sessions.');
    const member = await this.db
      .knex('memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'm.team_id': actor.member.teamId, 'u.email': email.trim().toLowerCase() })
      .first('u.id');
    if (!member) throw new NotFoundError('No member of this team has this email address.');
    const n = await this.db.knex('sessions').where({ user_id: member.id }).del();
    // Audited as the TM6 write by the REST pipeline.
    return n;
  }

  /**
   * Gives the session a new token (same row, team, CSRF value and re-authentication), so a token seen
   * before a privilege change opens nothing after it. Returns the new token, or null when the
   * session is gone.
   */
  async rotate(hash: string): Promise<string | null> {
    const token = newSecret(32);
    const n = await this.db.knex('sessions').where({ hash }).update({ hash: sha256(token) });
    return n === 1 ? token : null;
  }

  /** Why the session behind a cookie token ended early (its row is kept, expired, until the hourly prune); null otherwise. */
  async endedReason(token: string | undefined): Promise<SessionEndReason | null> {
    if (!token || token.length > 100) return null;
    const row = await this.db.knex('sessions').where({ hash: sha256(token) }).whereNotNull('ended_reason').first('ended_reason');
    return row?.ended_reason === 'PRIVILEGES_CHANGED' ? 'PRIVILEGES_CHANGED' : null;
  }

  /** Marks the session as re-authenticated now (password, and the code when two-factor sign-in is on). */
  async markReauthenticated(hash: string): Promise<number> {
    const now = this.clock.now();
    await this.db.knex('sessions').where({ hash }).update({ reauthenticated_at: now });
    return now + REAUTH_WINDOW_MS;
  }

  /** Writes the session's last-seen time when the stored one is a minute old or more: one conditional UPDATE a minute at most. */
  async touch(hash: string, lastSeenAt: number | null): Promise<void> {
    const now = this.clock.now();
    if (lastSeenAt !== null && now - lastSeenAt < LAST_SEEN_EVERY_MS) return;
    await this.db
      .knex('sessions')
      .where({ hash })
      .where((w) => w.whereNull('last_seen_at').orWhere('last_seen_at', '<=', now - LAST_SEEN_EVERY_MS))
      .update({ last_seen_at: now });
  }
}
