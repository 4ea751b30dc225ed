// Adding a participant (rest-v2 §3.8 P3), with the anti-fraud screening it runs before writing
// (P5 screens a referral moving to another referrer the same way) and the plan's participant limit.
import type { Knex } from 'knex';
import type { Program } from '../programs/programs.ts';
import { newId } from '../../crypto.ts';
import { ParticipantBlockedError } from '../../errors.ts';
import { assertParticipantCapacity, type TeamBilling } from '../platform/plans.ts';
import type { Participant, ParticipantCreate } from '../../../shared/schemas/participant.ts';
import {
  assertProgramLanguage,
  derivedReferralStatus,
  emailKey,
  fieldError,
  gdprStrict,
  historyWrites,
  metadataStrings,
  programLanguages,
  type ParticipantHooks,
  type ParticipantRow,
  type ScreeningCandidate,
  type RequestEvidence,
  type ScreeningDecision,
} from './model.ts';
import { findParticipant, findReferrer, updateReferrer } from './referrals.ts';
import { ScoreLedger } from './score-ledger.ts';
import { freeShareKey, writeMetadata } from './keys.ts';
import { trxRows } from '../../db/rows.ts';
import { knowTeamVerified } from '../platform/known-team.ts';
import type { AuditWrite } from '../platform/audit.ts';
import type { ParticipantsContext } from './service.ts';

/** The reserved metadata key (rest-v2 §2.8) that holds recorded GDPR consent. */
export const GDPR_AGREEMENTS = 'gdprAgreements';

/** What P3's callers add: an enrollment `source`, their `trx`, the request's evidence, a GDPR agreement. */
export type AddOptions = { source?: string; trx?: Knex.Transaction; request?: RequestEvidence; gdprAgreement?: { text: string }; audit?: AuditWrite };

/**
 * P3: adds a participant, or returns the one with this email unchanged (`isNew: false`). Enrollment
 * engines pass `source` (how a new affiliate enrolled) and `trx` to join their own transaction.
 */
export async function addParticipant(
  ctx: ParticipantsContext,
  program: Program,
  billing: TeamBilling,
  input: ParticipantCreate,
  opts: AddOptions = {},
): Promise<Participant> {
  if (input.isAffiliate !== undefined && program.type !== 'AFFILIATE') throw fieldError('isAffiliate', 'isAffiliate applies only to affiliate programs.');
  if (input.language) assertProgramLanguage(program, input.language);
  const strict = gdprStrict(program);
  const metadata = metadataStrings(input.metadata ?? {});
  // The reserved key clients cannot send: what the participant agreed to, in the program's words, and when.
  if (opts.gdprAgreement) metadata[GDPR_AGREEMENTS] = JSON.stringify([{ text: opts.gdprAgreement.text, agreedAt: new Date(ctx.clock.now()).toISOString() }]);
  const run = async (trx: Knex.Transaction, ledger: ScoreLedger): Promise<Participant> => {
    const now = ctx.clock.now();
    // The program emails' check of the team (teamVerified) takes the state the request's key read.
    if (billing.verificationStatus !== undefined) knowTeamVerified(trx, program.teamId, billing.verificationStatus);
    const existing = await findParticipant(trx, program.id, input.email);
    if (existing) return (await ctx.serialize(trx, program, [existing], { isNew: false }))[0]!;
    await assertCapacity(ctx, trx, program.id, billing, now, 0);
    // Locked as `updateReferrer` locks it (FOR NO KEY UPDATE), so it takes this row instead of reading it again.
    const referrer = input.referredBy ? await findReferrer(trx, program.id, input.referredBy, true) : null;
    const id = newId();
    // Anti-fraud before anything is written: a block is a 422 that leaves no trace.
    const candidate: ScreeningCandidate = {
      id,
      email: input.email,
      ipAddress: input.ipAddress ?? null,
      fingerprint: input.fingerprint ?? null,
      mobileInstanceId: input.mobileInstanceId ?? null,
      existing: null,
      ...(opts.request ? { request: opts.request } : {}),
    };
    const screen = await screenSignUp(ctx.hooks, trx, program, candidate, referrer);
    const status = referrer ? (input.referralStatus ?? (screen.holdCredit ? 'CREDIT_PENDING' : derivedReferralStatus(program))) : null;
    // Affiliate programs (rest-v2 §3.8 P3): enrolled unless a valid referrer makes this a referred customer.
    const enroll = program.type === 'AFFILIATE' && (input.isAffiliate ?? !referrer);
    const row = {
      id,
      program_id: program.id,
      email: input.email,
      email_key: emailKey(input.email),
      first_name: input.firstName ?? null,
      last_name: input.lastName ?? null,
      share_key: await freeShareKey(trx, program.id),
      referred_by: referrer?.id ?? null,
      referral_status: status,
      referral_source: referrer ? 'PARTICIPANT' : 'DIRECT',
      referred_at: referrer ? now : null,
      credited_at: status === 'CREDIT_AWARDED' ? now : null,
      month_key: 0,
      ip_address: strict ? null : (input.ipAddress ?? null),
      fingerprint: strict ? null : (input.fingerprint ?? null),
      mobile_instance_id: strict ? null : (input.mobileInstanceId ?? null),
      metadata: Object.keys(metadata).length ? JSON.stringify(metadata) : null,
      language: input.language && input.language !== programLanguages(program).base ? input.language : null,
      is_affiliate: enroll,
      affiliate_status: enroll ? 'APPROVED' : null,
      affiliate_enrollment_source: enroll ? (opts.source ?? 'REST_API') : null,
      created_at: now,
      updated_at: now,
      ...screen.columns,
    };
    // RETURNING *: the stored row with every default, which the hooks and the answer need (no re-read).
    // A column left undefined takes its default, as knex's insert left it out.
    const columns = Object.keys(row).filter((k) => row[k as keyof typeof row] !== undefined);
    const [created] = await trxRows<ParticipantRow>(trx, insertParticipantSql(columns), columns.map((k) => row[k as keyof typeof row]));
    if (!created) {
      // Added by a concurrent request a moment ago: same answer as any existing email.
      const again = (await findParticipant(trx, program.id, input.email))!;
      return (await ctx.serialize(trx, program, [again], { isNew: false }))[0]!;
    }
    await writeMetadata(trx, program.id, id, {}, metadata);
    ledger.count(1, 0);
    const credited = referrer && (await updateReferrer(trx, ledger, referrer.id, { from: null, to: status, creditedAt: null, attach: { id, at: now } }, now, referrer));
    for (const hook of ctx.hooks.created) await hook(trx, program, created, ledger, credited || null);
    if (credited && status === 'CREDIT_AWARDED') for (const hook of ctx.hooks.referralCredited) await hook(trx, program, credited, created, ledger);
    // The referrer's summary from the row this transaction holds (hooks update it in place, as reward
    // issuing does `is_winner`); ranks and the payload's counts add the ledger's moves, written last.
    const [wire] = await ctx.serialize(trx, program, [created], { isNew: true, ledger, ...(credited ? { known: new Map([[credited.id, credited]]) } : {}) });
    const { isNew: _isNew, rewards: _rewards, ...data } = wire!;
    if (!historyWrites.has(trx)) await ctx.events?.participantAdded(trx, program, data, ledger);
    for (const after of screen.afterWrite) await after(trx, program, created);
    return wire!;
  };
  // The activity rows the hooks record are written together at the end (one INSERT); then the
  // ledger's shared rows (score buckets, the program's counters), just before COMMIT: every
  // concurrent sign-up updates them, so each holds their row locks for as short a time as it can.
  const batch = ctx.hooks.activityBatch;
  const work = async (trx: Knex.Transaction): Promise<Participant> => {
    const ledger = new ScoreLedger(program.id);
    const added = batch ? await batch(trx, () => run(trx, ledger)) : await run(trx, ledger);
    await ledger.flush(trx);
    // Exact under concurrency: the counter now includes every committed add and this one.
    if (added.isNew) await assertCapacity(ctx, trx, program.id, billing, ctx.clock.now(), 1);
    // The request's audit entry rides this transaction (issue #35): one INSERT, the last before COMMIT.
    await opts.audit?.(trx, added);
    return added;
  };
  // Concurrent sign-ups share one SQLite transaction, each in its own savepoint (group commit): with
  // synchronous FULL every COMMIT waits for a sync of the WAL, which one group pays once.
  return opts.trx ? work(opts.trx) : ctx.db.grouped(work);
}

/** INSERT texts of a new participant, by column list (the row's shape varies only with the screening's columns). */
const insertSql = new Map<string, string>();

/** The participant INSERT for these columns: a clash on the email leaves the row out and returns nothing. */
function insertParticipantSql(columns: string[]): string {
  const key = columns.join(',');
  let sql = insertSql.get(key);
  if (!sql) {
    sql = `INSERT INTO "participants" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON CONFLICT ("program_id", "email_key") DO NOTHING RETURNING *`;
    insertSql.set(key, sql);
  }
  return sql;
}

/**
 * 402 when the plan's participant limit is reached (BILLING=on). Checked before adding (`pending`
 * 0) for a fast answer, and again after the counter moved (`pending` 1) so two concurrent adds
 * cannot both take the last place.
 */
async function assertCapacity(ctx: ParticipantsContext, trx: Knex.Transaction, programId: string, billing: TeamBilling, now: number, pending: 0 | 1): Promise<void> {
  if (!ctx.config.billing) return;
  const p = await trx('program_counters').where({ program_id: programId }).first('participant_count');
  assertParticipantCapacity(ctx.config.billing, billing, Number(p?.participant_count ?? 0) - pending, now);
}

/**
 * Runs the screening hooks: the first blocking verdict is a 422 (the transaction rolls back, so
 * nothing is written); otherwise their columns merge in order and any of them may hold the credit.
 */
export async function screenSignUp(
  hooks: ParticipantHooks,
  trx: Knex.Transaction,
  program: Program,
  candidate: ScreeningCandidate,
  referrer: ParticipantRow | null,
): Promise<{ holdCredit: boolean; columns: Record<string, unknown>; afterWrite: Array<ScreeningDecision['afterWrite']> }> {
  const out = { holdCredit: false, columns: {} as Record<string, unknown>, afterWrite: [] as Array<ScreeningDecision['afterWrite']> };
  for (const hook of hooks.screening) {
    const d = await hook(trx, program, candidate, referrer);
    if (!d) continue;
    if (d.block) throw new ParticipantBlockedError(`This participant was blocked as a high-risk fraud signup (${d.reasonCode}).`);
    out.holdCredit ||= d.holdCredit;
    Object.assign(out.columns, d.columns);
    out.afterWrite.push((t, p, r) => d.afterWrite(t, p, r));
  }
  return out;
}
