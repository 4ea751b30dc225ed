import type { Knex } from 'knex';
import { countsByState } from '../../db/rows.ts';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Program } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import type { TeamBilling } from '../platform/plans.ts';
import { checkAnswers, enrollmentOptions, riskOf } from './affiliate-forms.ts';
import { emailKey, fieldError, type ParticipantRow, type Q, type RequestEvidence } from '../participants/model.ts';
import { newId } from '../../crypto.ts';
import { ConflictError, InvalidStateError, NotFoundError, ValidationError, WrongProgramTypeError, translateDbError } from '../../errors.ts';
import type { AffiliateApplication, ApplicationCounts, ApplicationQuestion, ApplicationReview, ApplicationSubmit } from '../../../shared/schemas/affiliate.ts';
import type { EnrollmentOptions } from './affiliate-forms.ts';

const DAY_MS = 86_400_000;

/** A stored application row. */
interface ApplicationRow {
  id: string;
  program_id: string;
  created_at: number;
  status: 'PENDING' | 'APPROVED' | 'DENIED';
  email: string | null;
  email_key: string | null;
  first_name: string | null;
  last_name: string | null;
  risk_level: 'LOW' | 'MEDIUM' | 'HIGH' | null;
  participant_id: string | null;
  decided_at: number | null;
  reviewed_at: number | null;
  reapply_allowed_at: number | null;
  terms_accepted_at: number | null;
  rejection_reason: string | null;
  review_note: string | null;
  answers: string;
}

/** 422 unless the program is an affiliate program (every enrollment operation). */
export function assertAffiliateProgram(program: Program, what: string): void {
  if (program.type !== 'AFFILIATE') throw new WrongProgramTypeError(`${what} is only for affiliate programs; program ${program.id} is a referral program.`);
}

/**
 * Enrolls the person with `email` as an approved affiliate inside `trx`: a new participant (through
 * the participants core, so screening, plan limits, hooks and webhooks apply) or an upgrade of the
 * existing non-affiliate with that email. Returns the participant id and whether it is new.
 */
export async function enrollAffiliate(
  trx: Knex.Transaction,
  participants: Participants,
  program: Program,
  billing: TeamBilling,
  person: { email: string; firstName?: string | null; lastName?: string | null },
  source: 'APPLICATION' | 'INVITE' | 'OPEN_ENROLLMENT',
  now: number,
  request?: RequestEvidence,
): Promise<{ participantId: string; isNew: boolean }> {
  const created = await participants.create(
    program,
    billing,
    { email: person.email, ...(person.firstName ? { firstName: person.firstName } : {}), ...(person.lastName ? { lastName: person.lastName } : {}), isAffiliate: true } as never,
    { source, trx, ...(request ? { request } : {}) },
  );
  if (created.isNew) return { participantId: created.id, isNew: true };
  const row: ParticipantRow = await trx('participants').where({ id: created.id }).forNoKeyUpdate().first();
  if (!row.is_affiliate) {
    await trx('participants').where({ id: row.id }).update({ is_affiliate: true, affiliate_status: 'APPROVED', affiliate_enrollment_source: source, updated_at: now });
  }
  return { participantId: row.id, isNew: false };
}

/**
 * Affiliate applications (rest-v2 §2.32, §3.12 AF1–AF3) and the public application form submitted
 * through the participant API, following `affiliateApplicationMode` and the reapplication policy.
 */
export class AffiliateApplications {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly participants: Participants,
  ) {}

  /** AF1: newest first, offset paging with the filter's total. */
  async list(program: Program, query: { limit: number; offset: number; status?: string }): Promise<{ applications: AffiliateApplication[]; total: number; limit: number; offset: number }> {
    const base = () => {
      const q = this.db.knex('affiliate_applications').where({ program_id: program.id });
      if (query.status) q.andWhere({ status: query.status });
      return q;
    };
    const [rows, count] = await Promise.all([
      base().orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(query.limit).offset(query.offset),
      base().count({ n: '*' }).first(),
    ]);
    return { applications: rows.map(toWire), total: Number(count?.n ?? 0), limit: query.limit, offset: query.offset };
  }

  /**
   * AF18: how many applications AF1 lists in each status, and without a status (ALL; AF1's `total`
   * for each filter). One grouped read over the program's rows (`affiliate_applications_list` leads
   * with program_id).
   */
  async counts(program: Program): Promise<ApplicationCounts> {
    const rows: Array<{ state: string; n: number | string }> = await this.db.knex('affiliate_applications').where({ program_id: program.id }).groupBy('status').select({ state: 'status' }).count({ n: '*' });
    return countsByState(rows, { PENDING: 0, APPROVED: 0, DENIED: 0 }) satisfies ApplicationCounts;
  }

  /** AF2. */
  async get(program: Program, id: string): Promise<AffiliateApplication> {
    return toWire(await this.#row(this.db.knex, program, id));
  }

  /** AF3: decide a pending application, or move a denied one's reapply time earlier. */
  async review(program: Program, billing: TeamBilling, id: string, body: ApplicationReview): Promise<AffiliateApplication> {
    const hasStatus = body.status !== undefined;
    if (hasStatus === (body.reapplyAllowedAt !== undefined)) {
      const message = 'Send exactly one of status or reapplyAllowedAt.';
      throw new ValidationError(message, [{ field: 'status', code: 'EXACTLY_ONE', message }, { field: 'reapplyAllowedAt', code: 'EXACTLY_ONE', message }]);
    }
    if (body.status !== 'DENIED') {
      for (const f of ['rejectionReason', 'reviewNote', 'allowImmediateReapply'] as const) {
        if (body[f] !== undefined) throw fieldError(f, `${f} is only accepted with status DENIED.`);
      }
    }
    const opts = enrollmentOptions(program);
    return this.db.knex.transaction(async (trx) => {
      const now = this.clock.now();
      const row = await this.#row(trx, program, id, true);
      if (body.reapplyAllowedAt !== undefined) {
        if (row.status !== 'DENIED') throw new InvalidStateError(`Application ${id} is ${row.status}; only a denied application has a reapply time.`);
        if (row.reapply_allowed_at !== null && body.reapplyAllowedAt > Number(row.reapply_allowed_at)) {
          throw fieldError('reapplyAllowedAt', 'The reapply time can only be moved earlier.');
        }
        await trx('affiliate_applications').where({ id: row.id }).update({ reapply_allowed_at: body.reapplyAllowedAt, reviewed_at: now, updated_at: now });
      } else if (row.status !== 'PENDING') {
        // Approval is idempotent (§3.12): approving an approved application answers it unchanged.
        if (!(row.status === 'APPROVED' && body.status === 'APPROVED')) throw new InvalidStateError(`Application ${id} is ${row.status}; only a PENDING application can be decided.`);
      } else if (body.status === 'APPROVED') {
        await this.#approve(trx, program, billing, row, now, now);
      } else {
        const reapply = body.allowImmediateReapply ? now : opts.policy === 'AFTER_COOLDOWN' ? now + opts.cooldownDays * DAY_MS : null;
        await trx('affiliate_applications').where({ id: row.id }).update({
          status: 'DENIED',
          decided_at: now,
          reviewed_at: now,
          rejection_reason: body.rejectionReason ?? null,
          review_note: body.reviewNote ?? null,
          reapply_allowed_at: reapply,
          updated_at: now,
        });
      }
      return toWire(await this.#row(trx, program, id));
    });
  }

  /** The public form the window shows (participant API). */
  form(program: Program): { mode: EnrollmentOptions['mode']; questions: ApplicationQuestion[]; termsUrl: string | null; reviewEstimateBusinessDays: number | null } {
    assertAffiliateProgram(program, 'The affiliate application form');
    const o = enrollmentOptions(program);
    return { mode: o.mode, questions: o.questions, termsUrl: o.termsUrl, reviewEstimateBusinessDays: o.reviewEstimate };
  }

  /**
   * A submission of the public form: OPEN_ENROLLMENT enrolls at once (no application is kept);
   * MANUAL_REVIEW keeps a PENDING application; AUTO_APPROVE approves a LOW-risk one at once and holds
   * the others for review. An existing affiliate, a pending application (409) and a denied applicant
   * inside the reapplication policy (406) are refused.
   */
  async submit(program: Program, billing: TeamBilling, input: ApplicationSubmit, evidence?: RequestEvidence): Promise<{ status: 'PENDING' | 'APPROVED'; applicationId: string | null; participantId: string | null; isNew: boolean; reviewEstimateBusinessDays: number | null }> {
    assertAffiliateProgram(program, 'Affiliate applications');
    const o = enrollmentOptions(program);
    const answers = checkAnswers(o.questions, input.answers);
    if (o.termsUrl && input.acceptTerms !== true) throw fieldError('acceptTerms', 'The program terms must be accepted.', 'REQUIRED');
    const key = emailKey(input.email);
    try {
      return await this.#submit(program, billing, input, o, answers, key, evidence);
    } catch (err) {
      // A concurrent submission from the same address won the pending-application index.
      if (translateDbError(err) instanceof ConflictError) throw new ConflictError('An application from this email address is already waiting for review.');
      throw err;
    }
  }

  async #submit(program: Program, billing: TeamBilling, input: ApplicationSubmit, o: EnrollmentOptions, answers: AffiliateApplication['answers'], key: string, evidence: RequestEvidence | undefined) {
    return this.db.knex.transaction(async (trx) => {
      const now = this.clock.now();
      const existing: ParticipantRow | undefined = await trx('participants').where({ program_id: program.id, email_key: key }).first();
      if (existing?.is_affiliate) throw new ConflictError('This email address already belongs to an affiliate of this program.');
      const last: ApplicationRow | undefined = await trx('affiliate_applications').where({ program_id: program.id, email_key: key }).orderBy('created_at', 'desc').orderBy('id', 'desc').first();
      if (last?.status === 'PENDING') throw new ConflictError('An application from this email address is already waiting for review.');
      if (last?.status === 'DENIED') {
        if (last.reapply_allowed_at === null) throw new InvalidStateError('This program does not accept a new application from this email address.');
        if (now < Number(last.reapply_allowed_at)) throw new InvalidStateError(`A new application is accepted from ${new Date(Number(last.reapply_allowed_at)).toISOString()}.`);
      }
      const person = { email: input.email, firstName: input.firstName || null, lastName: input.lastName || null };
      if (o.mode === 'OPEN_ENROLLMENT') {
        // A public sign-up like MP2: the fraud checks see the country and an unchecked reCAPTCHA.
        const enrolled = await enrollAffiliate(trx, this.participants, program, billing, person, 'OPEN_ENROLLMENT', now, evidence);
        return { status: 'APPROVED' as const, applicationId: null, participantId: enrolled.participantId, isNew: enrolled.isNew, reviewEstimateBusinessDays: null };
      }
      // A reCAPTCHA that could not be checked holds the applicant for review (never enrolled automatically).
      const first = riskOf(o, input.email, existing);
      const risk = evidence?.recaptchaUnverified && first === 'LOW' ? 'MEDIUM' : first;
      const row: ApplicationRow = {
        id: newId(),
        program_id: program.id,
        created_at: now,
        status: 'PENDING',
        email: input.email,
        email_key: key,
        first_name: person.firstName,
        last_name: person.lastName,
        risk_level: risk,
        participant_id: null,
        decided_at: null,
        reviewed_at: null,
        reapply_allowed_at: null,
        terms_accepted_at: o.termsUrl ? now : null,
        rejection_reason: null,
        review_note: null,
        answers: JSON.stringify(answers),
      };
      await trx('affiliate_applications').insert({ ...row, updated_at: now });
      // AUTO_APPROVE: anything not LOW is held for manual review (rest-v2 §2.32 riskLevel).
      if (o.mode === 'AUTO_APPROVE' && risk === 'LOW') {
        const enrolled = await this.#approve(trx, program, billing, row, now, null, evidence);
        return { status: 'APPROVED' as const, applicationId: row.id, participantId: enrolled.participantId, isNew: enrolled.isNew, reviewEstimateBusinessDays: null };
      }
      return { status: 'PENDING' as const, applicationId: row.id, participantId: null, isNew: false, reviewEstimateBusinessDays: o.reviewEstimate };
    });
  }

  async #approve(trx: Knex.Transaction, program: Program, billing: TeamBilling, row: ApplicationRow, now: number, reviewedAt: number | null, request?: RequestEvidence) {
    if (!row.email) throw new InvalidStateError('The applicant’s data was removed; this application can no longer be approved.');
    const enrolled = await enrollAffiliate(trx, this.participants, program, billing, { email: row.email, firstName: row.first_name, lastName: row.last_name }, 'APPLICATION', now, request);
    await trx('affiliate_applications').where({ id: row.id }).update({ status: 'APPROVED', participant_id: enrolled.participantId, decided_at: now, reviewed_at: reviewedAt, updated_at: now });
    return enrolled;
  }

  async #row(q: Q, program: Program, id: string, lock = false): Promise<ApplicationRow> {
    const query = q('affiliate_applications').where({ id, program_id: program.id });
    if (lock) query.forUpdate();
    const row = await query.first();
    if (!row) throw new NotFoundError(`No affiliate application ${id.slice(0, 64)} in program ${program.id}.`);
    return row;
  }
}

function toWire(r: ApplicationRow): AffiliateApplication {
  const n = (v: number | string | null) => (v === null ? null : Number(v));
  return {
    id: r.id,
    answers: JSON.parse(r.answers),
    createdAt: Number(r.created_at),
    decidedAt: n(r.decided_at),
    reviewedAt: n(r.reviewed_at),
    email: r.email,
    firstName: r.first_name,
    lastName: r.last_name,
    participantId: r.participant_id,
    reapplyAllowedAt: n(r.reapply_allowed_at),
    rejectionReason: r.rejection_reason,
    riskLevel: r.risk_level,
    status: r.status,
    termsAcceptedAt: n(r.terms_accepted_at),
  };
}
