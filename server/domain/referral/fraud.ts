import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import { newId } from '../../crypto.ts';
import { insertRow } from '../../db/rows.ts';
import type { CampaignOptions } from '../../../shared/schemas/program-config-options.ts';
import { completedDocument } from '../programs/program-config.ts';
import type { Activity } from '../platform/activity.ts';
import type { Webhooks } from '../messaging/webhooks.ts';
import type { Program, Programs } from '../programs/programs.ts';
import type { Participants } from '../participants/service.ts';
import { parseJson, type ParticipantRow, type Q, type ScreeningCandidate, type ScreeningDecision } from '../participants/model.ts';
import { decisionFromRow, FraudReview } from './fraud-review.ts';
import { assessCandidate, LEVEL_RANK, MAX_MATCHES, mergeIds, REASON, type FraudAssessment, type RiskLevel } from './fraud-screening.ts';

// Anti-fraud (issue #4 "Fraud"; rest-v2 §2.8 fraud fields, §2.20 options.fraud, the seed's 422
// "participant blocked"). Two kinds of evidence:
//
// - Owner rules: blocked emails, email domains and IPs (CIDR ranges too), burner domains when
//   `blockBurnerEmails` is on, the per-IP sign-up limits, an IP that already produced a HIGH-risk
//   participant when `autoBlockHighRiskIps` is on, and the country lists when the operator's proxy
//   names the country (GEO_COUNTRY_HEADER). A hit is HIGH and always refused with 422: the owner
//   already decided. A reCAPTCHA that fails is refused before screening (server/domain/referral/recaptcha.ts);
//   one that could not be checked is a signal of weight 1.
// - Signals, weighed: compared with the referrer (same mailbox after normalising the email 3, same
//   app install 3, same browser fingerprint 2, same IP 1, same name part at another domain 1) and
//   with other participants (same app install 2, same fingerprint 1). 0 → LOW, 1–2 → MEDIUM, ≥3 →
//   HIGH. Signals block only when `autoBlockFraud` is on, `requireManualFraudApproval` is off and
//   `fraud.strictness` covers the level (STRICT: MEDIUM and HIGH; STANDARD: HIGH; LENIENT: HIGH
//   backed by two or more signals).
//
// Every decision is stored with its reasons in `fraud_decisions`; flagged participants are created
// but their referral is not credited automatically.

/** A stored decision as the owner reads it. */
export interface FraudDecision {
  id: string;
  participantId: string;
  riskLevel: RiskLevel;
  previousRiskLevel: RiskLevel | null;
  reasonCode: string;
  reasons: string[];
  matches: string[];
  source: 'AUTOMATIC' | 'MANUAL';
  context: 'SIGNUP' | 'REFERRAL_CHANGE' | 'OWNER_UPDATE';
  actor: string | null;
  /** False when an earlier manual verdict kept this automatic result off the participant. */
  applied: boolean;
  createdAt: number;
}

/** A decision about to be stored. */
type Pending = Omit<FraudDecision, 'id' | 'participantId' | 'createdAt' | 'previousRiskLevel'> & {
  previous: { level: RiskLevel; code: string | null } | null;
};

function encodeIds(ids: string[]): string | null {
  return ids.length ? JSON.stringify(ids.slice(0, MAX_MATCHES)) : null;
}

/** The anti-fraud engine: assesses sign-ups and referral changes, stores every decision, applies owner overrides. */
export class Fraud {
  /** FR1: the owner's fraud review queue. */
  readonly review: FraudReview;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly participants: Participants,
    private readonly activity: Activity,
    private readonly webhooks: Webhooks,
    private readonly programs: Programs,
  ) {
    this.review = new FraudReview(db, this);
  }

  /** The program's options document with today's defaults filled in (read only: completed once per stored document). */
  options(program: Program): CampaignOptions {
    return completedDocument('options', program, program.documents.options) as CampaignOptions;
  }

  /** The decision function (`assessCandidate`) under the program's options; reads only, nothing is written. */
  async assess(q: Q, program: Program, candidate: ScreeningCandidate, referrer: ParticipantRow | null = null): Promise<FraudAssessment> {
    return assessCandidate(q, this.clock, this.options(program), program, candidate, referrer);
  }

  /** True when a sign-up with this assessment is refused with 422 under the program's options. */
  blocks(program: Program, a: FraudAssessment): boolean {
    if (a.ruleHit) return true;
    const options = this.options(program);
    if (!options.autoBlockFraud || options.requireManualFraudApproval) return false;
    switch (options.fraud.strictness) {
      case 'STRICT':
        return LEVEL_RANK[a.riskLevel] >= 1;
      case 'LENIENT':
        return a.riskLevel === 'HIGH' && a.signals >= 2;
      default:
        return a.riskLevel === 'HIGH';
    }
  }

  /** `participants.hooks.screening`: the verdict on a sign-up (may block) or on a referral change (never blocks). */
  async screen(trx: Knex.Transaction, program: Program, candidate: ScreeningCandidate, referrer: ParticipantRow | null): Promise<ScreeningDecision> {
    const a = await this.assess(trx, program, candidate, referrer);
    const existing = candidate.existing;
    if (!existing && this.blocks(program, a)) {
      // Nothing is stored for a refused sign-up (no participant exists to hang it on); the log keeps the count.
      this.log.info('participant sign-up blocked by anti-fraud', { programId: program.id, riskLevel: a.riskLevel, reasonCode: a.reasonCode });
      return { block: true, reasonCode: a.reasonCode, holdCredit: false, columns: null, afterWrite: async () => {} };
    }
    // An owner's manual verdict stands: later automatic checks are recorded but do not replace it.
    const manual = existing?.fraud_reason_code === REASON.manualUpdate;
    const fraud_matches = encodeIds(mergeIds(parseJson<string[]>(existing?.fraud_matches, []), a.matches));
    return {
      block: false,
      reasonCode: a.reasonCode,
      holdCredit: manual ? existing!.fraud_risk_level !== 'LOW' : a.holdCredit,
      columns: manual ? { fraud_matches } : { fraud_risk_level: a.riskLevel, fraud_reason_code: a.reasonCode, fraud_matches },
      afterWrite: (t, p, row) =>
        this.record(t, p, row, {
          riskLevel: a.riskLevel,
          reasonCode: a.reasonCode,
          reasons: a.reasons,
          matches: a.matches,
          source: 'AUTOMATIC',
          context: existing ? 'REFERRAL_CHANGE' : 'SIGNUP',
          actor: null,
          applied: !manual,
          previous: existing ? { level: existing.fraud_risk_level, code: existing.fraud_reason_code } : null,
        }),
    };
  }

  /** `participants.hooks.fraudOverride`: P5 `fraudRiskLevel`, the owner's verdict (`MANUAL_UPDATE`). */
  async override(_trx: Knex.Transaction, _program: Program, row: ParticipantRow, level: RiskLevel, actor: string | null): Promise<ScreeningDecision> {
    const text = row.fraud_risk_level === level ? `Set to ${level} by the program owner (unchanged level).` : `Changed from ${row.fraud_risk_level} to ${level} by the program owner.`;
    return {
      block: false,
      reasonCode: REASON.manualUpdate,
      holdCredit: false,
      columns: { fraud_risk_level: level, fraud_reason_code: REASON.manualUpdate },
      afterWrite: (t, p, fresh) =>
        this.record(t, p, fresh, {
          riskLevel: level,
          reasonCode: REASON.manualUpdate,
          reasons: [text],
          matches: parseJson<string[]>(row.fraud_matches, []),
          source: 'MANUAL',
          context: 'OWNER_UPDATE',
          actor,
          applied: true,
          previous: { level: row.fraud_risk_level, code: row.fraud_reason_code },
        }),
    };
  }

  /** `participants.hooks.fraudMatchesOf`: `{id, email}` of each row's matches still in the program, in one query. */
  async matchesOf(q: Q, rows: ParticipantRow[]): Promise<Map<string, Array<{ id: string; email: string }>>> {
    const lists = new Map<string, string[]>();
    const all = new Set<string>();
    for (const r of rows) {
      const ids = parseJson<string[]>(r.fraud_matches, []);
      if (!ids.length) continue;
      lists.set(r.id, ids);
      for (const id of ids) all.add(id);
    }
    const out = new Map<string, Array<{ id: string; email: string }>>();
    if (!all.size) return out;
    const found: Array<{ id: string; email: string; program_id: string }> = await q('participants').whereIn('id', [...all]).select('id', 'email', 'program_id');
    const byId = new Map(found.filter((f) => f.program_id === rows[0]!.program_id).map((f) => [f.id, f.email]));
    for (const [id, ids] of lists) out.set(id, ids.filter((m) => byId.has(m)).map((m) => ({ id: m, email: byId.get(m)! })));
    return out;
  }

  /** A participant's decisions, newest first (what the owner reads to see why). */
  async decisions(programId: string, participantId: string, q: Q = this.db.knex): Promise<FraudDecision[]> {
    const rows = await q('fraud_decisions')
      .where({ program_id: programId, participant_id: participantId })
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'seq', order: 'desc' }]);
    return rows.map(decisionFromRow);
  }

  /**
   * Stores a decision; when it changed the participant's level or reason, also an activity row and
   * `PARTICIPANT_FRAUD_STATUS_UPDATED`. A sign-up counts as a change when it is flagged (not LOW).
   */
  private async record(trx: Knex.Transaction, program: Program, row: ParticipantRow, d: Pending): Promise<void> {
    const now = this.clock.now();
    // Held for the transaction's activity batch when one is open (a sign-up: one statement with its
    // activity rows; nothing in the transaction reads decisions back), else a cached statement.
    const decision = {
      id: newId(),
      program_id: program.id,
      participant_id: row.id,
      risk_level: d.riskLevel,
      previous_risk_level: d.previous?.level ?? null,
      reason_code: d.reasonCode,
      reasons: JSON.stringify(d.reasons),
      matches: JSON.stringify(d.matches),
      source: d.source,
      context: d.context,
      actor: d.actor,
      applied: d.applied,
      created_at: now,
    };
    if (!this.activity.alongside(trx, 'fraud_decisions', decision)) await insertRow(this.db, trx, 'fraud_decisions', decision);
    if (d.source === 'AUTOMATIC' && d.matches.length) await this.linkMatches(trx, program.id, row.id, d.matches);

    // Only the decision the row now shows speaks (an override in the same request silences screening).
    const shown = d.applied && row.fraud_risk_level === d.riskLevel && row.fraud_reason_code === d.reasonCode;
    const changed = d.previous ? d.previous.level !== d.riskLevel || d.previous.code !== d.reasonCode : d.riskLevel !== 'LOW';
    if (!shown || !changed) return;
    const text =
      d.source === 'MANUAL'
        ? `Fraud risk set to ${d.riskLevel} by the program owner${d.previous ? ` (was ${d.previous.level})` : ''}.`
        : d.context === 'SIGNUP'
          ? `Flagged ${d.riskLevel} fraud risk at sign-up (${d.reasonCode}): ${d.reasons.join(' ')}`
          : `Fraud risk ${d.previous?.level ?? 'LOW'} → ${d.riskLevel} after the referrer changed (${d.reasonCode}): ${d.reasons.join(' ')}`;
    await this.activity.record(trx, {
      programId: program.id,
      participantId: row.id,
      type: 'FRAUD',
      action: d.source === 'MANUAL' ? 'fraud.manual' : 'fraud.flagged',
      text,
      data: { riskLevel: d.riskLevel, previousRiskLevel: d.previous?.level ?? null, reasonCode: d.reasonCode, reasons: d.reasons, matches: d.matches, source: d.source },
    });
    const [participant] = await this.participants.forEvents(trx, program, [row]);
    const campaign = await this.programs.toCampaign(program, trx);
    await this.webhooks.emit(trx, program.id, 'PARTICIPANT_FRAUD_STATUS_UPDATED', { campaign, participant });
  }

  /** Lists `participantId` on the participants it matched too, so both sides show the match. */
  private async linkMatches(trx: Knex.Transaction, programId: string, participantId: string, matches: string[]): Promise<void> {
    const rows: Array<{ id: string; fraud_matches: string | null }> = await trx('participants')
      .whereIn('id', matches.filter((m) => m !== participantId))
      .where('program_id', programId)
      .select('id', 'fraud_matches');
    for (const r of rows) {
      const ids = parseJson<string[]>(r.fraud_matches, []);
      if (ids.includes(participantId) || ids.length >= MAX_MATCHES) continue;
      await trx('participants').where({ id: r.id }).update({ fraud_matches: encodeIds([...ids, participantId]) });
    }
  }
}

/** Plugs the fraud engine into the participants core: screening, the P5 override and `allMatchingFraudsters`. */
export function registerFraudHooks(participants: Participants, fraud: Fraud): void {
  participants.hooks.screening.push((trx, program, candidate, referrer) => fraud.screen(trx, program, candidate, referrer));
  participants.hooks.fraudOverride = (trx, program, row, level, actor) => fraud.override(trx, program, row, level, actor);
  participants.hooks.fraudMatchesOf = (q, rows) => fraud.matchesOf(q, rows);
}
