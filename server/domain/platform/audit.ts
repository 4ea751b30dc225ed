// The team audit trail (issue #35 part 1): one hash-chained, append-only list of entries per team,
// each appended in the transaction of the change it records (migration 038, docs/decisions.md).
//
// An entry's hash is sha256(prev_hash "\n" seq "\n" body), where body is the canonical JSON of its
// stored columns (`canonicalBody`). The append is ONE statement that reads the chain head, numbers
// the entry and computes its hash in the database (PostgreSQL: an upsert of `audit_heads` in a CTE,
// whose row lock serializes a team's writers until COMMIT, so concurrent processes never fork the
// chain; SQLite: one writer, `audit_sha256` registered on the connection, a trigger moves the head).
// `verify` recomputes every hash in JS; `prune` removes old entries only through a recorded prune.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import { runSql } from '../../db/rows.ts';
import { ValidationError } from '../../errors.ts';

/** Who made a change. */
export interface AuditActor {
  type: 'MEMBER' | 'API_KEY' | 'SYSTEM' | 'ANONYMOUS';
  /** User id, API key id or job name. */
  id: string | null;
  /** Member email, API key prefix or job name. */
  label: string | null;
}

/**
 * The sources of SYSTEM entries: changes no person or key made at that moment (issue #35). The
 * actor's id is the job type (or the inbound endpoint) that made the change, its label what the
 * console shows after "System:".
 *
 * Action names: REST writes use the routes table's operation id (C4, AF8 …), owner-page access
 * events `access.<event>`, the retention prune `audit.prune`; a job or a time-driven move is
 * `system.<context>.<what>` (`system.referral.delayed_credit`); an inbound billing webhook is
 * `billing.<provider>.<what>` (`billing.stripe.refund`). One entry per resource a change touched
 * (a participant, a commission, a payout, a transaction), in the change's own transaction.
 */
export const SYSTEM = {
  delayedCredit: { id: 'referral.trigger', label: 'Delayed referral credit' },
  creditWindow: { id: 'referral.credit-window', label: 'Referral credit window' },
  leaderboardMonth: { id: 'rewards.leaderboard-month', label: 'Monthly leaderboard prizes' },
  commissionHold: { id: 'commissions.hold', label: 'Commission hold period' },
  payoutRun: { id: 'payouts.monthly-run', label: 'Monthly payout run' },
  webhookDelivery: { id: 'webhook.deliver', label: 'Webhook delivery' },
  unmatchedRefunds: { id: 'billing.unmatched-refunds', label: 'Unmatched refunds report' },
  accountPurge: { id: 'account.purge_unverified', label: 'Unverified account purge' },
  stripe: { id: 'billing.stripe', label: 'Stripe webhook' },
  paddle: { id: 'billing.paddle', label: 'Paddle webhook' },
} as const satisfies Record<string, { id: string; label: string }>;

/** What an inbound billing webhook's change was (`billing.<provider>.<what>`). */
export type BillingChange = 'customer_add' | 'sale' | 'refund' | 'refund_undone' | 'refund_reversed' | 'chargeback' | 'chargeback_reversed' | 'subscription_end';

/** Every action a SYSTEM entry carries (`audit.prune` apart): the console names and groups each one. */
export const SYSTEM_ACTIONS = [
  'system.referral.delayed_credit',
  'system.referral.credit_expired',
  'system.reward.leaderboard_month',
  'system.commission.auto_approve',
  'system.payout.monthly_run',
  'system.webhook.auto_disable',
  'system.billing.unmatched_refund',
  'system.account.purge_unverified',
  'billing.stripe.customer_add',
  'billing.stripe.sale',
  'billing.stripe.refund',
  'billing.stripe.refund_undone',
  'billing.stripe.subscription_end',
  'billing.paddle.customer_add',
  'billing.paddle.sale',
  'billing.paddle.refund',
  'billing.paddle.refund_reversed',
  'billing.paddle.chargeback',
  'billing.paddle.chargeback_reversed',
  'billing.paddle.subscription_end',
] as const;
/** One of `SYSTEM_ACTIONS`. */
export type SystemAction = (typeof SYSTEM_ACTIONS)[number];
const systemActions = new Set<string>(SYSTEM_ACTIONS);

/** One of the SYSTEM sources. */
export type SystemSource = (typeof SYSTEM)[keyof typeof SYSTEM];

/** A SYSTEM entry as its writer describes it (the actor comes from `source`; changes are redacted on append). */
export interface SystemDraft {
  teamId: string;
  source: SystemSource;
  action: SystemAction;
  resourceType: string;
  resourceId: string | null;
  /** `{ ids, fields: { name: { before?, after } } }`, as REST entries carry them, plus anything the source adds (`event`). */
  changes: Record<string, unknown>;
  /** The sender of an inbound webhook; null for jobs. */
  ip?: string | null;
  userAgent?: string | null;
}

/** An entry before it is numbered and chained. */
export interface AuditDraft {
  teamId: string;
  actor: AuditActor;
  ip: string | null;
  userAgent: string | null;
  /** The routes table's operation id, or an access event name (`access.signIn` …). */
  action: string;
  resourceType: string | null;
  resourceId: string | null;
  /** What changed (already redacted): serialized as stored and hashed. */
  changes: unknown;
}

/** An entry as stored and answered. */
export interface AuditEntry {
  id: string;
  seq: number;
  at: number;
  actor: AuditActor;
  ip: string | null;
  userAgent: string | null;
  action: string;
  resource: { type: string | null; id: string | null };
  changes: unknown;
  prevHash: string;
  hash: string;
}

/** Writes the request's entry inside the transaction of its change (null: a transaction of its own), given the handler's result. */
export type AuditWrite = (trx: Knex.Transaction | null, result: unknown) => Promise<void>;

/** The filters and page of `GET /team/audit-log`. */
export interface AuditQuery {
  limit: number;
  cursor?: string;
  actor?: string;
  resourceType?: string;
  resourceId?: string;
  action?: string;
  from?: number;
  to?: number;
}

/** One broken link found by `verify`. */
export interface AuditBreak {
  teamId: string;
  seq: number;
  problem: string;
}

const COLUMNS = 'team_id, seq, at, actor_type, actor_id, actor_label, ip, user_agent, action, resource_type, resource_id, changes, prev_hash, hash';

// PostgreSQL: the head row's upsert numbers the entry, chains it and locks the team's chain until COMMIT.
const PG_APPEND = `WITH head AS (
  INSERT INTO audit_heads AS h (team_id, seq, prev_hash, hash)
  VALUES (?, 1, '', encode(sha256(convert_to(chr(10) || '1' || chr(10) || ?, 'UTF8')), 'hex'))
  ON CONFLICT (team_id) DO UPDATE SET seq = h.seq + 1, prev_hash = h.hash,
    hash = encode(sha256(convert_to(h.hash || chr(10) || (h.seq + 1)::text || chr(10) || ?, 'UTF8')), 'hex')
  RETURNING seq, prev_hash, hash
)
INSERT INTO audit_log (${COLUMNS}) SELECT ?, seq, ?::bigint, ?, ?, ?, ?, ?, ?, ?, ?, ?, prev_hash, hash FROM head`;

// SQLite: one writer; the head is read here and moved by the audit_log_head trigger.
const SQLITE_APPEND = `INSERT INTO audit_log (${COLUMNS})
SELECT ?, h.seq + 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, h.hash, audit_sha256(h.hash || char(10) || (h.seq + 1) || char(10) || ?)
FROM (SELECT coalesce((SELECT seq FROM audit_heads WHERE team_id = ?), 0) AS seq, coalesce((SELECT hash FROM audit_heads WHERE team_id = ?), '') AS hash) h`;

/** The canonical text an entry's hash covers: its stored columns, in order, as JSON. */
export function canonicalBody(row: {
  team_id: string;
  at: number | string;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  ip: string | null;
  user_agent: string | null;
  action: string;
  resource_type: string | null;
  resource_id: string | null;
  changes: string;
}): string {
  return JSON.stringify([row.team_id, Number(row.at), row.actor_type, row.actor_id, row.actor_label, row.ip, row.user_agent, row.action, row.resource_type, row.resource_id, row.changes]);
}

/** An entry's hash from the previous one's, its number and its canonical body. */
export function entryHash(prevHash: string, seq: number, body: string): string {
  return createHash('sha256').update(`${prevHash}\n${seq}\n${body}`).digest('hex');
}

const cap = (s: string | null | undefined, n: number): string | null => (s == null ? null : s.length > n ? s.slice(0, n) : s);

function toEntry(r: any): AuditEntry {
  let changes: unknown = null;
  try {
    changes = JSON.parse(r.changes);
  } catch {
    changes = r.changes;
  }
  return {
    id: String(r.seq),
    seq: Number(r.seq),
    at: Number(r.at),
    actor: { type: r.actor_type, id: r.actor_id, label: r.actor_label },
    ip: r.ip,
    userAgent: r.user_agent,
    action: r.action,
    resource: { type: r.resource_type, id: r.resource_id },
    changes,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}

/** Entries read per statement by `verify` and removed per prune step. */
const BATCH = 2000;

/** The access events (`AuditLog.access`): what a person did or tried at the door, refused tries included. */
export const ACCESS_EVENTS = [
  'access.signIn',
  'access.signInFailed',
  'access.signInCodeFailed',
  'access.signOut',
  'access.lockout',
  'access.reauthenticateFailed',
  'access.twoFactorConfirmFailed',
  'access.keyCreate',
  'access.keyRevoke',
  'access.memberInvite',
] as const;
export type AccessEvent = (typeof ACCESS_EVENTS)[number];

/** The audit trail: append (inside the change's transaction), read, verify, prune. */
export class AuditLog {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /**
   * Appends one entry to its team's chain in `trx` (one statement), or in a transaction of its own
   * when `trx` is null (access events, outbound operations: no change transaction to ride).
   */
  async append(trx: Knex.Transaction | null, draft: AuditDraft): Promise<void> {
    const row = {
      team_id: draft.teamId,
      at: this.clock.now(),
      actor_type: draft.actor.type,
      actor_id: cap(draft.actor.id, 64),
      actor_label: cap(draft.actor.label, 320),
      ip: cap(draft.ip, 64),
      user_agent: cap(draft.userAgent, 512),
      action: cap(draft.action, 64)!,
      resource_type: cap(draft.resourceType, 64),
      resource_id: cap(draft.resourceId, 320),
      changes: JSON.stringify(draft.changes ?? null),
    };
    const body = canonicalBody(row);
    const values = [row.team_id, row.at, row.actor_type, row.actor_id, row.actor_label, row.ip, row.user_agent, row.action, row.resource_type, row.resource_id, row.changes];
    const params = this.db.dialect === 'pg' ? [row.team_id, body, body, ...values] : [...values, body, row.team_id, row.team_id];
    const sql = this.db.dialect === 'pg' ? PG_APPEND : SQLITE_APPEND;
    if (trx) await runSql(trx, sql, params);
    else await this.db.knex.transaction((t) => runSql(t, sql, params));
  }

  /** Appends a SYSTEM entry in `trx`, the transaction of the change it records; secrets are removed and destinations masked as in REST entries. */
  system(trx: Knex.Transaction, d: SystemDraft): Promise<void> {
    // An action the console cannot name is a programming error: refuse it before it enters the chain.
    if (!systemActions.has(d.action)) throw new Error(`Unknown SYSTEM audit action ${d.action}; add it to SYSTEM_ACTIONS.`);
    return this.append(trx, {
      teamId: d.teamId,
      actor: { type: 'SYSTEM', id: d.source.id, label: d.source.label },
      ip: d.ip ?? null,
      userAgent: d.userAgent ?? null,
      action: d.action,
      resourceType: d.resourceType,
      resourceId: d.resourceId,
      changes: capped(redact(d.changes)),
    });
  }

  /**
   * An owner page's access event (sign-in, failed sign-in, sign-out, a key made or revoked on the
   * keys page), one entry in each team the person belongs to, in a transaction of its own (the
   * session it concerns is written by owners.ts). A failed sign-in names the email typed, never the
   * password; an email nobody has is recorded nowhere (no team to tell).
   */
  async access(event: AccessEvent, who: { email: string; userId?: string; teamId?: string }, from: { ip: string | null; userAgent: string | null }, details: Record<string, unknown> = {}): Promise<void> {
    const email = who.email.trim().toLowerCase().slice(0, 254);
    if (!email && !who.userId) return;
    const q = this.db.knex('users as u').join('memberships as m', 'm.user_id', 'u.id');
    if (who.teamId) q.where('m.team_id', who.teamId);
    const rows: Array<{ id: string; team_id: string }> = await (who.userId ? q.where('u.id', who.userId) : q.where('u.email', email)).select('u.id', 'm.team_id');
    if (rows.length === 0) return;
    await this.db.knex.transaction(async (trx) => {
      for (const r of rows) {
        await this.append(trx, {
          teamId: r.team_id,
          actor: { type: 'MEMBER', id: r.id, label: email || null },
          ip: from.ip,
          userAgent: from.userAgent,
          action: event,
          resourceType: 'owner',
          resourceId: r.id,
          changes: redact(details),
        });
      }
    });
  }

  /** `GET /team/audit-log`: a team's entries newest first, filtered, `limit` per page, `nextCursor` = the last seq. */
  async list(teamId: string, q: AuditQuery): Promise<{ entries: AuditEntry[]; nextCursor: string | null }> {
    const k = this.db.knex;
    const query = k('audit_log').where('team_id', teamId).orderBy('seq', 'desc').limit(q.limit + 1);
    if (q.cursor) query.where('seq', '<', Number(q.cursor));
    if (q.actor) query.where((w) => w.where('actor_label', q.actor!).orWhere('actor_id', q.actor!));
    if (q.resourceType) query.where('resource_type', q.resourceType);
    if (q.resourceId) query.where('resource_id', q.resourceId);
    if (q.action) query.where('action', q.action);
    if (q.from != null) query.where('at', '>=', q.from);
    if (q.to != null) query.where('at', '<', q.to);
    const rows = await query.select();
    const page = rows.slice(0, q.limit).map(toEntry);
    return { entries: page, nextCursor: rows.length > q.limit ? page[page.length - 1]!.id : null };
  }

  /** Every team's chain checked from its last prune anchor: the first broken link of each team that has one. */
  async verify(teamId?: string): Promise<{ teams: number; entries: number; breaks: AuditBreak[] }> {
    const k = this.db.knex;
    const teams = teamId
      ? [teamId]
      : [...new Set([...(await k('audit_heads').pluck('team_id')), ...(await k('audit_log').distinct('team_id').pluck('team_id'))])].sort();
    const breaks: AuditBreak[] = [];
    let entries = 0;
    for (const team of teams) {
      const result = await this.verifyTeam(team);
      entries += result.entries;
      if (result.broken) breaks.push(result.broken);
    }
    return { teams: teams.length, entries, breaks };
  }

  private async verifyTeam(team: string, through = Infinity): Promise<{ entries: number; broken: AuditBreak | null; last: { seq: number; hash: string } }> {
    const k = this.db.knex;
    const anchor = await k('audit_prunes').where('team_id', team).orderBy('through_seq', 'desc').first();
    let seq = anchor ? Number(anchor.through_seq) : 0;
    let prev: string = anchor ? anchor.anchor_hash : '';
    let entries = 0;
    const broken = (s: number, problem: string) => ({ entries, broken: { teamId: team, seq: s, problem }, last: { seq, hash: prev } });
    for (;;) {
      const rows = await k('audit_log').where('team_id', team).where('seq', '>', seq).where('seq', '<=', Number.isFinite(through) ? through : Number.MAX_SAFE_INTEGER).orderBy('seq').limit(BATCH).select();
      for (const r of rows) {
        const n = Number(r.seq);
        if (n !== seq + 1) return broken(seq + 1, `entry ${seq + 1} is missing (the next stored entry is ${n})`);
        if (r.prev_hash !== prev) return broken(n, `prev_hash ${r.prev_hash} is not the hash of entry ${seq} (${prev || 'none: the chain starts here'})`);
        const hash = entryHash(prev, n, canonicalBody(r));
        if (hash !== r.hash) return broken(n, `its content does not match its hash (stored ${r.hash}, computed ${hash})`);
        seq = n;
        prev = r.hash;
        entries++;
      }
      if (rows.length < BATCH) break;
    }
    if (!Number.isFinite(through)) {
      const head = await k('audit_heads').where('team_id', team).first();
      if (head && (Number(head.seq) !== seq || head.hash !== prev)) {
        return broken(Number(head.seq), `the chain head is entry ${head.seq} (${head.hash}) but the last stored entry is ${seq} (${prev || 'none'}): entries after ${seq} were removed`);
      }
      if (!head && seq > 0) return broken(seq, 'the chain has entries but no head');
    }
    return { entries, broken: null, last: { seq, hash: prev } };
  }

  /**
   * Removes entries older than `retentionMs`, oldest first, in steps of `BATCH`, keeping each
   * team's newest entry (a purged team's too, until it is old enough: then the trail goes whole). Each step first checks the links it removes (a broken chain is never pruned
   * away: it is reported and kept), then, in one transaction, appends the `audit_prunes` record of
   * the last entry it removes and that entry's hash, the only thing the delete trigger lets through.
   */
  async prune(retentionMs: number, log?: (msg: string) => void): Promise<number> {
    const k = this.db.knex;
    const cutoff = this.clock.now() - retentionMs;
    const teams = await k('audit_log').where('at', '<', cutoff).distinct('team_id').pluck('team_id');
    let removed = 0;
    for (const team of teams) {
      // A purged team's trail goes whole once it is old enough; a live team keeps its newest entry.
      const gone = !(await k('teams').where('id', team).first('id'));
      for (;;) {
        const head = await k('audit_heads').where('team_id', team).first();
        const last = await k('audit_log').where('team_id', team).where('at', '<', cutoff).where('seq', '<', gone ? Number.MAX_SAFE_INTEGER : Number(head?.seq ?? 0)).max({ seq: 'seq' }).first();
        const first = await k('audit_log').where('team_id', team).min({ seq: 'seq' }).first();
        if (last?.seq == null || first?.seq == null) break;
        const through = Math.min(Number(last.seq), Number(first.seq) + BATCH - 1);
        const checked = await this.verifyTeam(team, through);
        if (checked.broken) {
          log?.(`audit prune skipped team ${team}: entry ${checked.broken.seq} ${checked.broken.problem}`);
          break;
        }
        await k.transaction(async (trx) => {
          await trx('audit_prunes').insert({ team_id: team, through_seq: through, anchor_hash: checked.last.hash, at: this.clock.now() });
          removed += Number(await trx('audit_log').where('team_id', team).where('seq', '<=', through).del());
          if (gone) return;
          await this.append(trx, {
            teamId: team,
            actor: { type: 'SYSTEM', id: 'maintenance.prune', label: 'maintenance.prune' },
            ip: null,
            userAgent: null,
            action: 'audit.prune',
            resourceType: 'audit_log',
            resourceId: String(through),
            changes: { throughSeq: through, anchorHash: checked.last.hash, retentionDays: Math.round(retentionMs / 86_400_000) },
          });
        });
        if (through < Number(last.seq)) continue;
        break;
      }
    }
    return removed;
  }
}

// Field names whose values never enter the trail (secrets, credentials, tax data) and those masked to their last four characters (payout destinations).
const SECRET = /secret|password|passcode|token|credential|api_?key|private|signing|tax|ssn|\btin\b|vat/i;
const DESTINATION = /iban|account|routing|swift|bic|sort_?code|paypal|wallet|bank|destination/i;
const MAX_STRING = 500;
const MAX_CHANGES = 8000;

/** A value masked to its last four characters. */
export function maskValue(v: unknown): unknown {
  if (v == null || v === '') return v;
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length <= 4 ? '••••' : `••••${s.slice(-4)}`;
}

/** A value with its secrets removed and destinations masked, by field name, at any depth; long strings cut. */
export function redact(value: unknown, maskAll = false, depth = 0): unknown {
  if (value == null || typeof value === 'number' || typeof value === 'boolean') return maskAll && value != null ? maskValue(value) : value;
  if (typeof value === 'string') {
    if (maskAll) return maskValue(value);
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  }
  if (depth > 6) return '[nested]';
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, maskAll, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (SECRET.test(k)) out[k] = '[redacted]';
      else out[k] = redact(v, maskAll || DESTINATION.test(k), depth + 1);
    }
    return out;
  }
  return String(value);
}

/**
 * The `changes` of a write: the request's fields (top level of the validated body), each with its
 * `after` value, taken from the handler's answer when the answer carries that field (what was
 * stored) and from the request otherwise, and its `before` value when the operation read the row
 * first. Redacted by field name; the path's ids are kept as `ids`. Past 8,000 characters only the
 * field names are kept.
 */
export function changesOf(opts: { params: Record<string, string>; body: unknown; result: unknown; before?: Record<string, unknown> | null; maskAll?: boolean }): unknown {
  const fields: Record<string, { before?: unknown; after: unknown }> = {};
  const body = opts.body && typeof opts.body === 'object' && !Array.isArray(opts.body) ? (opts.body as Record<string, unknown>) : {};
  const result = opts.result && typeof opts.result === 'object' && !Array.isArray(opts.result) ? (opts.result as Record<string, unknown>) : {};
  for (const k of Object.keys(body)) {
    if (body[k] === undefined) continue;
    if (SECRET.test(k)) {
      fields[k] = { after: '[redacted]' };
      continue;
    }
    const mask = opts.maskAll || DESTINATION.test(k);
    const after = redact(k in result ? result[k] : body[k], mask);
    fields[k] = opts.before && k in opts.before ? { before: redact(opts.before[k], mask), after } : { after };
  }
  const out = { ids: opts.params, fields };
  const text = JSON.stringify(out);
  if (text.length <= MAX_CHANGES) return out;
  return { ids: opts.params, fields: Object.keys(fields), truncated: true };
}

/** Changes past 8,000 characters keep only their field names, as `changesOf` does. */
function capped(changes: unknown): unknown {
  if (JSON.stringify(changes).length <= MAX_CHANGES) return changes;
  const c = changes as { ids?: unknown; fields?: Record<string, unknown> };
  return { ids: c.ids ?? {}, fields: Object.keys(c.fields ?? {}), truncated: true };
}

/** Parses the audit-log query's date bounds (epoch ms or ISO 8601). */
export function auditTime(v: string | number | undefined, field: string): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(n)) throw new ValidationError(`${field} is not a date.`, [{ field, code: 'INVALID', message: 'Give epoch milliseconds or an ISO 8601 date.' }]);
  return n;
}
