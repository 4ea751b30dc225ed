import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { ProgramEmails } from '../messaging/program-emails.ts';
import type { ParticipantTokens } from './participant-tokens.ts';
import type { MobileProgram } from './mobile-programs.ts';
import { hostAllowed } from './mobile-programs.ts';
import { findParticipant } from '../participants/referrals.ts';
import { shareBase } from '../participants/model.ts';
import { portalLinkedFromEmails, portalUrl } from '../programs/hosted-pages.ts';
import { newId, newSecret, sha256, type Sealer } from '../../crypto.ts';
import type { Jobs } from '../platform/jobs.ts';

/** A sign-in link works for 15 minutes, once. */
export const LOGIN_LINK_TTL_MS = 15 * 60_000;
/** The job that decides and sends (MA2 only queues it). */
const SEND_JOB = 'login-link.send';
/** The query parameter that carries a sign-in token back to the site (web-sdk.md §5). */
export const LOGIN_PARAM = 'grsfLogin';

/** Why a sign-in link request sent nothing (never told to the caller, who always hears `sent: true`). */
export type LoginLinkOutcome = 'SENT' | 'NO_PARTICIPANT' | 'TEAM_NOT_VERIFIED' | 'NOT_SENT';

/**
 * One-time email sign-in for returning participants on sites without auto-authentication: a random
 * token (192 bits) stored as its sha256 with participant, program and a 15-minute expiry, mailed in
 * the program's transactional `loginLink` template, and exchanged once for a participant token.
 */
export class LoginLinks {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly programEmails: ProgramEmails,
    private readonly participantTokens: ParticipantTokens,
    private readonly jobs: Jobs,
    private readonly sealer: Sealer,
    views: (programId: string) => Promise<MobileProgram | null>,
  ) {
    jobs.register(SEND_JOB, async (payload: { programId: string; sealed: string }) => {
      const opened = sealer.open(payload.sealed);
      const view = opened ? await views(payload.programId) : null;
      if (!opened || !view) return;
      const { email, returnUrl } = JSON.parse(opened) as { email: string; returnUrl?: string };
      await this.send(view, email, returnUrl);
    });
  }

  /**
   * MA2: queues the request and returns. Whether the email belongs to a participant is decided by
   * the job, so a known and an unknown address cost the caller the same one write and the answer's
   * timing reveals nothing. The address travels sealed: the jobs table keeps finished rows a week.
   */
  async request(view: MobileProgram, email: string, returnUrl: string | undefined): Promise<void> {
    const sealed = this.sealer.seal(JSON.stringify({ email, ...(returnUrl ? { returnUrl } : {}) }));
    await this.jobs.enqueue(this.db.knex, SEND_JOB, { programId: view.program.id, sealed });
    this.jobs.kick();
  }

  /**
   * Mails a sign-in link when `email` belongs to a participant of the program; otherwise does
   * nothing. The token row, the outbox row and the activity row share one transaction; a skipped
   * send (team not VERIFIED) keeps its activity row and drops the token.
   */
  async send(view: MobileProgram, email: string, returnUrl: string | undefined): Promise<LoginLinkOutcome> {
    const program = view.program;
    return this.db.knex.transaction(async (trx) => {
      const participant = await findParticipant(trx, program.id, email);
      if (!participant) return 'NO_PARTICIPANT';
      const now = this.clock.now();
      const token = newSecret(24);
      const id = newId();
      await trx('participant_login_tokens').insert({ id, program_id: program.id, participant_id: participant.id, token_hash: sha256(token), created_at: now, expires_at: now + LOGIN_LINK_TTL_MS, used_at: null });
      const loginUrl = withLoginToken(this.returnBase(view, returnUrl), token);
      // Transactional: the participant asked for it, so an unsubscribe from program emails does not stop it (the team check still does).
      const outcome = await this.programEmails.sendProgramEmail(trx, program, { ...participant, unsubscribed: false } as typeof participant, 'loginLink', { loginUrl }, { ignoreEnabled: true });
      if (outcome.sent) return 'SENT';
      await trx('participant_login_tokens').where({ id }).del();
      return outcome.reason === 'TEAM_NOT_VERIFIED' ? 'TEAM_NOT_VERIFIED' : 'NOT_SENT';
    });
  }

  /**
   * Exchanges an unexpired, unused token of this program for a participant token, marking it used
   * with a conditional update so two concurrent redeems cannot both win. Null for anything else.
   */
  async redeem(view: MobileProgram, token: string): Promise<{ participantId: string; participantToken: string; expiresIn: number } | null> {
    const now = this.clock.now();
    const participantId = await this.db.knex.transaction(async (trx) => {
      const row = await trx('participant_login_tokens').where({ token_hash: sha256(token) }).first('id', 'program_id', 'participant_id', 'expires_at', 'used_at');
      if (!row || row.program_id !== view.program.id || row.used_at != null || Number(row.expires_at) <= now) return null;
      const n = await trx('participant_login_tokens').where({ id: row.id }).whereNull('used_at').update({ used_at: now });
      return n === 1 ? (row.participant_id as string) : null;
    });
    if (!participantId) return null;
    return { participantId, ...(await this.participantTokens.mint(view.program.id, participantId)) };
  }

  /**
   * The page the link returns to: `returnUrl` when it is an http(s) page on one of the program's
   * allowed sites or on this server, else the hosted portal when the design turns the hosted pages
   * on, else the installation's shareUrl (or the hosted share page). A program that
   * allows any site accepts only the shareUrl's own host, so nobody can have a working token
   * mailed towards a site of their choosing.
   */
  returnBase(view: MobileProgram, returnUrl: string | undefined): string {
    // A design with hosted pages (landingPages.isEnabled) signs participants in to the hosted portal when the request names no page.
    const fallback = portalLinkedFromEmails(view.program) ? portalUrl(view.program.id, this.config.publicUrl) : shareBase(view.program, this.config.publicUrl);
    if (!returnUrl) return fallback;
    let u: URL;
    try {
      u = new URL(returnUrl);
    } catch {
      return fallback;
    }
    if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password) return fallback;
    const host = u.hostname.toLowerCase();
    // This server's own pages (the hosted landing page and portal) are always a safe place for a token.
    const own = host === new URL(this.config.publicUrl).hostname.toLowerCase();
    const allowed = own || (view.hosts === null ? host === new URL(fallback).hostname.toLowerCase() : hostAllowed(view.hosts, host));
    return allowed ? u.href : fallback;
  }
}

/** `base` with any `grsfLogin` removed and the new one added (before the fragment). */
export function withLoginToken(base: string, token: string): string {
  const u = new URL(base);
  u.searchParams.delete(LOGIN_PARAM);
  u.searchParams.append(LOGIN_PARAM, token);
  return u.href;
}
