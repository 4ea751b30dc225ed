import type { Db } from '../../db/connect.ts';
import type { Program } from '../programs/programs.ts';
import { ValidationError } from '../../errors.ts';
import { toParticipantReward, type RewardRow } from './reward-issuing.ts';
import type { ProgramRewardCounts, ProgramRewardList, ProgramRewardListQuery } from '../../../shared/schemas/reward.ts';

// The owner's rewards queue (PR5, a refloop extension): a program's issued rewards by state, newest
// first. Each state is one range of a partial index (migration 025): AWAITING_APPROVAL, APPROVED
// and FULFILLED walk `participant_rewards_queue` (program, approved, status, created_at, id); ALL
// walks `participant_rewards_program_list` (program, created_at, id). A fulfilled reward is always
// approved (PR3 refuses otherwise), so each state is an equality on (approved, status).

const STATES = {
  AWAITING_APPROVAL: { approved: false, status: 'PENDING' },
  APPROVED: { approved: true, status: 'PENDING' },
  FULFILLED: { approved: true, status: 'FULFILLED' },
} as const;

/** Ids we issue are [a-z0-9]; anything else cannot name a reward. */
const plausibleId = (id: string) => /^[A-Za-z0-9_-]{1,64}$/.test(id);

/** PR5: the program-wide list of issued rewards the rewards queue pages through. */
export class RewardQueue {
  constructor(private readonly db: Db) {}

  /**
   * PR6: how many rewards are in each PR5 state. One grouped read over the queue index's leading
   * columns (program, approved, status), so it costs the program's rewards, never the table.
   */
  async counts(program: Program): Promise<ProgramRewardCounts> {
    const rows: Array<Pick<RewardRow, 'approved'> & { status: string; n: number | string }> = await this.db
      .knex('participant_rewards')
      .where('program_id', program.id)
      .whereNull('deleted_at')
      .groupBy('approved', 'status')
      .select('approved', 'status')
      .count({ n: '*' });
    const out: ProgramRewardCounts = { AWAITING_APPROVAL: 0, APPROVED: 0, FULFILLED: 0, ALL: 0 };
    for (const r of rows) {
      const n = Number(r.n);
      const approved = !!r.approved;
      for (const [state, s] of Object.entries(STATES) as Array<[keyof typeof STATES, (typeof STATES)[keyof typeof STATES]]>) {
        if (s.approved === approved && s.status === r.status) out[state] += n;
      }
      out.ALL += n;
    }
    return out;
  }

  /** A page of the program's rewards in `query.state`, newest first; `nextId` is the last reward id of the page. */
  async list(program: Program, query: ProgramRewardListQuery): Promise<ProgramRewardList> {
    const knex = this.db.knex;
    const q = knex('participant_rewards as r')
      .join('participants as p', 'p.id', 'r.participant_id')
      .where('r.program_id', program.id)
      .whereNull('r.deleted_at');
    if (query.state !== 'ALL') {
      const s = STATES[query.state];
      q.where('r.approved', s.approved).where('r.status', s.status);
    }
    if (query.nextId) {
      // Any reward of the program positions the page, even one approved or deleted since.
      const after = plausibleId(query.nextId) ? await knex('participant_rewards').where({ id: query.nextId, program_id: program.id }).first('created_at', 'id') : undefined;
      if (!after) {
        throw new ValidationError('nextId must be a reward id from the previous page.', [
          { field: 'query.nextId', code: 'INVALID', message: 'Not a reward of this program.' },
        ]);
      }
      q.whereRaw('(r.created_at, r.id) < (?, ?)', [Number(after.created_at), after.id]);
    }
    q.select('r.*', 'p.email as participant_email')
      .orderBy([{ column: 'r.created_at', order: 'desc' }, { column: 'r.id', order: 'desc' }])
      .limit(query.limit + 1);
    const rows = (await q) as Array<RewardRow & { participant_email: string }>;
    const page = rows.slice(0, query.limit);
    return {
      rewards: page.map((r) => ({ ...toParticipantReward(r), participantId: r.participant_id, participantEmail: r.participant_email, createdAt: Number(r.created_at) })),
      limit: query.limit,
      nextId: rows.length > query.limit ? page[page.length - 1]!.id : null,
    };
  }
}
