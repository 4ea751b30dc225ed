import type { Db } from '../../db/connect.ts';

// The console's Outbox page (issue #23): a server without SMTP_URL delivers nothing, so its mail
// outbox is the only place an owner can read what refloop sent for their team. One team never sees
// another's mail, and a teammate never sees another person's account mail (a set-password link in
// it would hand over their account).

/** Messages per page. */
export const OUTBOX_PAGE_MAX = 50;

/** Kinds the team sends to people who are not (yet) members or participants: its invitations. */
const INVITATION_KINDS = ['team.invite', 'program.invite', 'affiliate.invite'];

/** One message as the Outbox page lists it. */
export interface TeamOutboxMessage {
  id: string;
  to: string;
  subject: string;
  kind: string;
  text: string;
  links: string[];
  createdAt: number;
}

/** A page of the team's outbox and the cursor of the next (older) page. */
export interface TeamOutboxPage {
  messages: TeamOutboxMessage[];
  nextCursor: string | null;
}

/**
 * What a team's outbox holds: messages written for the team (`mail_outbox.team_id`, set by every
 * send a team's action or program causes) and addressed to one of its current members, a
 * participant of one of its programs, or the invitee of one of its invitations; account mail
 * (`account.*`: welcome with the set-password link, verification, key rotated) only when it is
 * addressed to the reader themself. Newest first by insertion order (`seq`, index 027).
 */
export class TeamOutbox {
  constructor(private readonly db: Db) {}

  /** One page for `reader` (the signed-in person's address) in `teamId`; `cursor` is the previous page's nextCursor. */
  async list(teamId: string, reader: string, opts: { limit: number; cursor?: string | null }): Promise<TeamOutboxPage> {
    const limit = Math.min(Math.max(1, opts.limit), OUTBOX_PAGE_MAX);
    const before = opts.cursor && /^\d{1,15}$/.test(opts.cursor) ? Number(opts.cursor) : null;
    const k = this.db.knex;
    const q = k('mail_outbox as o')
      .where('o.team_id', teamId)
      .modify((b) => {
        if (before !== null) b.where('o.seq', '<', before);
      })
      .where((w) =>
        w
          .where((a) => a.where('o.kind', 'like', 'account.%').where('o.to', reader.toLowerCase()))
          .orWhere((b) =>
            b.whereNot('o.kind', 'like', 'account.%').where((r) =>
              r
                .whereIn('o.kind', INVITATION_KINDS)
                .orWhereExists(k('memberships as m').join('users as u', 'u.id', 'm.user_id').where('m.team_id', teamId).whereRaw('u.email = o."to"').select(k.raw('1')))
                .orWhereExists(k('participants as p').join('programs as g', 'g.id', 'p.program_id').where('g.team_id', teamId).whereRaw('p.email_key = lower(o."to")').select(k.raw('1'))),
            ),
          ),
      )
      .orderBy('o.seq', 'desc')
      .limit(limit + 1)
      .select('o.seq', 'o.id', 'o.to', 'o.subject', 'o.kind', 'o.text', 'o.links', 'o.created_at');
    const rows = (await q) as any[];
    const page = rows.slice(0, limit);
    return {
      messages: page.map((r) => ({ id: r.id, to: r.to, subject: r.subject, kind: r.kind, text: r.text, links: JSON.parse(r.links), createdAt: Number(r.created_at) })),
      nextCursor: rows.length > limit ? String(page[page.length - 1]!.seq) : null,
    };
  }
}
