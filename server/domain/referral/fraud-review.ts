import { countsByState } from '../../db/rows.ts';
import type { Db } from '../../db/connect.ts';
import type { Program } from '../programs/programs.ts';
import { parseJson, type ParticipantRow } from '../participants/model.ts';
import { ValidationError } from '../../errors.ts';
import { REASON } from './fraud-screening.ts';
import type { Fraud, FraudDecision } from './fraud.ts';
import type { FraudDecisionWire, FraudReviewCounts, FraudReviewList, FraudReviewQuery } from '../../../shared/schemas/fraud.ts';

// The owner's fraud review queue (FR1, a refloop extension): participants flagged MEDIUM or HIGH by
// the automatic checks (OPEN) or whose level the owner set through P5 (DECIDED), newest first, with
// their newest decisions. Every query repeats the partial index's predicate (REVIEW_PREDICATE, the
// same text as migration 025's `participants_fraud_review`) so SQLite and PostgreSQL both use it:
// the review queue costs the flagged rows, not the program's million participants.

/** The `WHERE` of `participants_fraud_review`, word for word. */
export const REVIEW_PREDICATE = "(fraud_risk_level <> 'LOW' OR fraud_reason_code = 'MANUAL_UPDATE')";

/** Within REVIEW_PREDICATE, each FR1 state's condition; FR1 lists and FR2 counts with these very texts. */
const STATE_PREDICATE = {
  OPEN: "(fraud_reason_code IS NULL OR fraud_reason_code <> 'MANUAL_UPDATE')",
  DECIDED: `(fraud_reason_code = '${REASON.manualUpdate}')`,
} as const;

/** Decisions shown per participant. */
const DECISIONS_SHOWN = 10;

const plausibleId = (id: string) => /^[A-Za-z0-9_-]{1,64}$/.test(id);

/** FR1: the fraud review list the console's fraud page reads. */
export class FraudReview {
  constructor(
    private readonly db: Db,
    private readonly fraud: Pick<Fraud, 'matchesOf'>,
  ) {}

  /**
   * FR2: how many participants FR1 lists in each state. One grouped read with FR1's WHERE (the
   * partial index `participants_fraud_review`, so it costs the flagged rows), grouped by which state
   * predicate holds; OPEN and DECIDED split REVIEW_PREDICATE's rows, so ALL is their sum. Without an
   * ORDER BY, SQLite would rather walk another (program_id, …) index through all the program's
   * participants, so it is told the index (and fails loudly should the index stop matching).
   */
  async counts(program: Program): Promise<FraudReviewCounts> {
    const knex = this.db.knex;
    const state = `CASE WHEN ${STATE_PREDICATE.DECIDED} THEN 'DECIDED' WHEN ${STATE_PREDICATE.OPEN} THEN 'OPEN' END`;
    const rows: Array<{ state: string | null; n: number | string }> = await knex
      .from(this.db.dialect === 'sqlite' ? knex.raw('`participants` INDEXED BY participants_fraud_review') : 'participants')
      .where('program_id', program.id)
      .whereRaw(REVIEW_PREDICATE)
      .groupByRaw(state)
      .select(knex.raw(`${state} AS state`))
      .count({ n: '*' });
    return countsByState(rows, { OPEN: 0, DECIDED: 0 }) satisfies FraudReviewCounts;
  }

  /** A page of the program's participants under review in `query.state`, newest first. */
  async list(program: Program, query: FraudReviewQuery): Promise<FraudReviewList> {
    const knex = this.db.knex;
    const q = knex('participants').where('program_id', program.id).whereRaw(REVIEW_PREDICATE);
    if (query.state !== 'ALL') q.whereRaw(STATE_PREDICATE[query.state]);
    if (query.nextId) {
      // Any participant of the program positions the page, even one decided since.
      const after = plausibleId(query.nextId) ? await knex('participants').where({ id: query.nextId, program_id: program.id }).first('created_at', 'id') : undefined;
      if (!after) {
        throw new ValidationError('nextId must be a participant id from the previous page.', [
          { field: 'query.nextId', code: 'INVALID', message: 'Not a participant of this program.' },
        ]);
      }
      q.whereRaw('(created_at, id) < (?, ?)', [Number(after.created_at), after.id]);
    }
    const rows: ParticipantRow[] = await q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(query.limit + 1).select('*');
    const page = rows.slice(0, query.limit);
    const [matches, decisions] = await Promise.all([page.length ? this.fraud.matchesOf(knex, page) : new Map(), this.decisionsOf(program.id, page.map((r) => r.id))]);
    return {
      participants: page.map((r) => ({
        id: r.id,
        email: r.email,
        firstName: r.first_name,
        lastName: r.last_name,
        createdAt: Number(r.created_at),
        referrerId: r.referred_by,
        referralStatus: r.referred_by ? r.referral_status : null,
        fraudRiskLevel: r.fraud_risk_level,
        fraudReasonCode: r.fraud_reason_code,
        allMatchingFraudsters: matches.get(r.id) ?? [],
        decisions: decisions.get(r.id) ?? [],
      })),
      limit: query.limit,
      nextId: rows.length > query.limit ? page[page.length - 1]!.id : null,
    };
  }

  /** The newest decisions of each participant (index `fraud_decisions (participant_id, created_at)`). */
  private async decisionsOf(programId: string, ids: string[]): Promise<Map<string, FraudDecisionWire[]>> {
    const out = new Map<string, FraudDecisionWire[]>();
    if (!ids.length) return out;
    const rows = await this.db
      .knex('fraud_decisions')
      .whereIn('participant_id', ids)
      .where('program_id', programId)
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'seq', order: 'desc' }]);
    for (const r of rows) {
      const list = out.get(r.participant_id) ?? [];
      if (list.length >= DECISIONS_SHOWN) continue;
      // The review list's wire form leaves out whose decision it is (the row says) and the actor.
      const { participantId: _who, actor: _actor, ...decision } = decisionFromRow(r);
      list.push(decision);
      out.set(r.participant_id, list);
    }
    return out;
  }
}

/** Maps a `fraud_decisions` row. */
export function decisionFromRow(r: any): FraudDecision {
  return {
    id: r.id,
    participantId: r.participant_id,
    riskLevel: r.risk_level,
    previousRiskLevel: r.previous_risk_level ?? null,
    reasonCode: r.reason_code,
    reasons: parseJson<string[]>(r.reasons, []),
    matches: parseJson<string[]>(r.matches, []),
    source: r.source,
    context: r.context,
    actor: r.actor ?? null,
    applied: !!r.applied,
    createdAt: Number(r.created_at),
  };
}
