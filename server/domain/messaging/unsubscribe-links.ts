import crypto from 'node:crypto';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Activity } from '../platform/activity.ts';
import type { ParticipantRow } from '../participants/model.ts';
import { toProgram } from '../programs/programs.ts';
import { maskEmail } from './email-layout.ts';
import type { ProgramEmails } from './program-emails.ts';

// Unsubscribe links: every email to a participant carries one (in its footer and `List-Unsubscribe`),
// a signed token naming program and participant, with no expiry. The page it opens
// (server/http/pages/unsubscribe.ts) shows whom the token names and unsubscribes them from program
// emails, which `ProgramEmails` then skips.

/** The unsubscribe links of `ProgramEmails` (it makes one, as `programEmails.unsubscribeLinks`): tokens, the page's target, the unsubscribe. */
export class UnsubscribeLinks {
  readonly #key: Buffer;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly activity: Activity,
    private readonly emails: ProgramEmails,
    instanceSecret: string,
  ) {
    // A key of its own, derived from the instance secret, so an unsubscribe token is useless anywhere else.
    this.#key = crypto.createHmac('sha256', instanceSecret).update('refloop:unsubscribe').digest();
  }

  /** The participant's unsubscribe link: a token naming program and participant, signed, with no expiry. */
  url(programId: string, participantId: string): string {
    return `${this.config.publicUrl}/unsubscribe?token=${this.token(programId, participantId)}`;
  }

  /** `<programId>.<participantId>.<128-bit HMAC>` (ids are [a-z0-9], so the dots are unambiguous). */
  token(programId: string, participantId: string): string {
    return `${programId}.${participantId}.${this.#mac(programId, participantId)}`;
  }

  /** The program and participant a token names, or null when it is malformed or its signature is wrong. */
  read(token: string): { programId: string; participantId: string } | null {
    const m = /^([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{22})$/.exec(token);
    if (!m) return null;
    const expected = Buffer.from(this.#mac(m[1]!, m[2]!));
    const given = Buffer.from(m[3]!);
    return crypto.timingSafeEqual(expected, given) ? { programId: m[1]!, participantId: m[2]! } : null;
  }

  #mac(programId: string, participantId: string): string {
    return crypto.createHmac('sha256', this.#key).update(`${programId}\n${participantId}`).digest('base64url').slice(0, 22);
  }

  /** What the confirmation page shows for a token; null when the token or participant is not valid. */
  async target(token: string): Promise<{ email: string; company: string; unsubscribed: boolean; language: string } | null> {
    const ids = this.read(token);
    if (!ids) return null;
    const row: ParticipantRow | undefined = await this.db.knex('participants').where({ id: ids.participantId, program_id: ids.programId }).first();
    if (!row) return null;
    const programRow = await this.db.knex('programs').where({ id: ids.programId }).first();
    if (!programRow) return null;
    const program = toProgram(programRow);
    return { email: maskEmail(row.email), company: this.emails.companyName(program), unsubscribed: !!row.unsubscribed, language: this.emails.languageOf(program, row) };
  }

  /** Unsubscribes the participant a token names from program emails (idempotent); false when the token is not valid. */
  async unsubscribe(token: string): Promise<boolean> {
    const ids = this.read(token);
    if (!ids) return false;
    return this.db.knex.transaction(async (trx) => {
      const row = await trx('participants').where({ id: ids.participantId, program_id: ids.programId }).forNoKeyUpdate().first('id', 'unsubscribed');
      if (!row) return false;
      if (row.unsubscribed) return true;
      await trx('participants').where({ id: row.id }).update({ unsubscribed: true, updated_at: this.clock.now() });
      await this.activity.record(trx, {
        programId: ids.programId,
        participantId: row.id,
        type: 'EMAIL',
        action: 'email.unsubscribed',
        text: 'Unsubscribed from program emails with the email link',
      });
      return true;
    });
  }
}
