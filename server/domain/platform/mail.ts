import type { Knex } from 'knex';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Jobs } from './jobs.ts';
import { newOrderedId } from '../../crypto.ts';
import { insertRow } from '../../db/rows.ts';

/** One message to send. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  kind: string;
  teamId?: string | null;
  /** Display name shown with MAIL_FROM's address (program emails use the program's sender name). */
  fromName?: string | null;
  replyTo?: string | null;
  /** Extra headers, e.g. `List-Unsubscribe` and `List-Unsubscribe-Post` (RFC 8058). */
  headers?: Record<string, string>;
}

/** A message as stored in the outbox. */
export interface OutboxMessage {
  id: string;
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string | null;
  links: string[];
  kind: string;
  replyTo: string | null;
  headers: Record<string, string>;
  status: string;
  transport: string;
  createdAt: number;
  sentAt: number | null;
}

const LINK = /https?:\/\/[^\s<>"')]+/g;

/** Header values never carry line breaks (header injection). */
const oneLine = (v: string) => v.replace(/[\r\n]+/g, ' ').trim();

/** `"Name" <address>` from a display name and MAIL_FROM (whose own display name is replaced). */
function withDisplayName(from: string, name: string): string {
  const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
  const quoted = oneLine(name).replace(/["\\]/g, '\\$&').slice(0, 100);
  return quoted ? `"${quoted}" <${address}>` : from;
}

/**
 * The one mailer. Every message is written to the database outbox in the caller's transaction.
 * Without SMTP_URL the outbox is the transport (read it with `refloop mail list` or /_dev/mail);
 * with SMTP_URL a durable job delivers it through nodemailer and retries on failure.
 */
export class Mailer {
  readonly #transport: Transporter | null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly jobs: Jobs,
    private readonly from: string,
    smtpUrl: string | null,
  ) {
    this.#transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
    jobs.register('mail.deliver', async ({ id }: { id: string }) => this.#deliver(id));
  }

  /**
   * Queues a message in the given transaction (or directly). Every row has the same columns, so
   * inside a transaction the INSERT is one cached statement; ids are time-ordered (they name no
   * capability), so the outbox's key appends instead of writing a random page per message.
   */
  async send(q: Knex | Knex.Transaction, msg: MailMessage): Promise<string> {
    const id = newOrderedId();
    const links = [...new Set([...(msg.text.match(LINK) ?? []), ...((msg.html ?? '').match(LINK) ?? [])])];
    await insertRow(this.db, q, 'mail_outbox', {
      id,
      to: msg.to,
      from: msg.fromName ? withDisplayName(this.from, msg.fromName) : this.from,
      subject: msg.subject,
      text: msg.text,
      html: msg.html ?? null,
      links: JSON.stringify(links),
      kind: msg.kind,
      team_id: msg.teamId ?? null,
      reply_to: msg.replyTo ? oneLine(msg.replyTo) : null,
      headers: msg.headers ? JSON.stringify(Object.fromEntries(Object.entries(msg.headers).map(([k, v]) => [k, oneLine(v)]))) : null,
      status: this.#transport ? 'QUEUED' : 'OUTBOX',
      transport: this.#transport ? 'smtp' : 'outbox',
      created_at: this.clock.now(),
    });
    if (this.#transport) await this.jobs.enqueue(q, 'mail.deliver', { id }, { maxAttempts: 8 });
    return id;
  }

  async #deliver(id: string): Promise<void> {
    const row = await this.db.knex('mail_outbox').where({ id }).first();
    if (!row || row.status === 'SENT' || !this.#transport) return;
    try {
      await this.#transport.sendMail({
        from: row.from,
        to: row.to,
        subject: row.subject,
        text: row.text,
        html: row.html ?? undefined,
        replyTo: row.reply_to ?? undefined,
        headers: row.headers ? JSON.parse(row.headers) : undefined,
      });
      await this.db.knex('mail_outbox').where({ id }).update({ status: 'SENT', sent_at: this.clock.now(), error: null });
    } catch (err) {
      await this.db.knex('mail_outbox').where({ id }).update({ status: 'FAILED', error: String((err as Error).message).slice(0, 1000) });
      throw err;
    }
  }

  /** How many messages the outbox holds (to one address, when `to` is given). */
  async count(filter: { to?: string } = {}): Promise<number> {
    let q = this.db.knex('mail_outbox');
    if (filter.to) q = q.where('to', filter.to.toLowerCase());
    const [row] = await q.count({ n: '*' });
    return Number(row?.n ?? 0);
  }

  /** Lists the outbox, newest first; `offset` skips that many of the newest (paging). */
  async list(filter: { to?: string; limit?: number; offset?: number } = {}): Promise<OutboxMessage[]> {
    let q = this.db.knex('mail_outbox').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'seq', order: 'desc' }]).limit(filter.limit ?? 100).offset(filter.offset ?? 0);
    if (filter.to) q = q.where('to', filter.to.toLowerCase());
    const rows = await q;
    return rows.map((r: any) => ({
      id: r.id,
      to: r.to,
      from: r.from,
      subject: r.subject,
      text: r.text,
      html: r.html,
      links: JSON.parse(r.links),
      kind: r.kind,
      replyTo: r.reply_to ?? null,
      headers: r.headers ? JSON.parse(r.headers) : {},
      status: r.status,
      transport: r.transport,
      createdAt: Number(r.created_at),
      sentAt: r.sent_at == null ? null : Number(r.sent_at),
    }));
  }

  /** Closes the SMTP pool. */
  close(): void {
    this.#transport?.close();
  }
}
