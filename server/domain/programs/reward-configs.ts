import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import { selectRows, trxRows } from '../../db/rows.ts';
import type { Clock } from '../../clock.ts';
import { newId } from '../../crypto.ts';
import { AppError, NotFoundError, ValidationError } from '../../errors.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { COPY_DOCUMENTS, findRewardReferences, metadataRenames, renameRewardReferences, type RewardReference } from './reward-references.ts';
import type { FieldError } from '../../../shared/errors.ts';
import type { Program, Programs } from './programs.ts';
import type { ProgramLists } from '../platform/invalidation.ts';
import { campaignReward, type CampaignReward, type RewardConfigCreate, type RewardConfigUpdate } from '../../../shared/schemas/reward-config.ts';
import { mergeCommission, resolveReward, sentKeys, type Fields } from './reward-config-rules.ts';
import { fromRow, toColumns, toWire } from './reward-config-rows.ts';

/** One program's live configurations, as `listMany` reads them for one program (the same statement). */
const LIVE_ROWS_SQL = 'SELECT * FROM reward_configs WHERE program_id IN (?) AND deleted_at IS NULL ORDER BY sort_order ASC, seq ASC, id ASC';

/** `liveConfigRows`' answers by transaction, then program; entries go with their transaction object. */
const liveRowsByTrx = new WeakMap<object, Map<string, readonly Record<string, unknown>[]>>();

/** Programs whose live rows one process keeps between transactions (`SharedConfigRows`). */
export const SHARED_CONFIG_PROGRAMS = 10_000;

/**
 * Live rows between transactions (issue #34): while the invalidation bus can hear every process
 * (Redis), a program's live rows are read once and kept until a change to them is published (every
 * write here marks its transaction with `wrote`) or CACHE_TTL_MS passes.
 */
export type SharedConfigRows = ProgramLists<readonly Record<string, unknown>[]>;

/**
 * A program's live reward configurations as stored (hidden ones included), in `Campaign.rewards`
 * order, read once per transaction: a referral credit needs them for the rewards it issues and
 * again for its webhook payload's campaign. Every write of `reward_configs` (all in this file)
 * forgets its transaction's entry first, so a transaction never reads a stale list; with `shared`
 * (Redis), once per program until a change is published. Shared: never change the answer.
 */
export async function liveConfigRows(trx: Knex.Transaction, programId: string, shared: SharedConfigRows | null = null): Promise<readonly Record<string, unknown>[]> {
  let perProgram = liveRowsByTrx.get(trx);
  const hit = perProgram?.get(programId);
  if (hit) return hit;
  let rows = shared?.get(trx, programId);
  if (!rows) {
    const since = shared?.generation ?? 0;
    rows = await trxRows<Record<string, unknown>>(trx, LIVE_ROWS_SQL, [programId]);
    shared?.set(trx, programId, rows, since);
  }
  if (!perProgram) liveRowsByTrx.set(trx, (perProgram = new Map()));
  perProgram.set(programId, rows);
  return rows;
}

/** Drops what `liveConfigRows` holds for `trx` before a write of the program's reward_configs in it (and tells `shared`). */
function forgetConfigRows(trx: Knex.Transaction, programId: string, shared: SharedConfigRows | null): void {
  liveRowsByTrx.delete(trx);
  shared?.wrote(trx, programId);
}

/** A reward_configs row as the issuing rules read it. */
export interface ConfigRow {
  id: string;
  type: 'SINGLE_SIDED' | 'DOUBLE_SIDED' | 'MILESTONE' | 'LEADERBOARD' | 'AFFILIATE';
  title: string | null;
  description: string | null;
  referral_description: string | null;
  coupon_code: string | null;
  referral_coupon_code: string | null;
  is_unlimited: boolean | number;
  event: 'LEAD' | 'CONVERSION' | null;
  referred_reward_upfront: boolean | number;
  reward_limit: number | null;
  limit_duration: 'IN_TOTAL' | 'PER_MONTH' | 'PER_YEAR';
  conversions_required: number | null;
  number_of_winners: number | null;
}

/** A program holds at most this many live reward configurations (the list has no pagination). */
export const MAX_REWARD_CONFIGS_PER_PROGRAM = 100;

/** Ids we issue are `crew_` + [a-z0-9]; anything else (NUL bytes break PostgreSQL text) cannot exist. */
const plausibleId = (id: string) => /^[A-Za-z0-9_-]{1,64}$/.test(id);

/** Starter rewards for a new program created without `rewards` (rest-v2 §3.2): hidden, to configure; titled by what they give (issue #32), since participants read the title once it is switched on. */
export function starterRewards(program: Pick<Program, 'type' | 'goal'>): RewardConfigCreate[] {
  const hidden = { isVisible: false, metadata: {} };
  if (program.type === 'AFFILIATE') {
    return [
      {
        ...hidden,
        type: 'AFFILIATE',
        title: '20% commission on every sale',
        description: 'Earn 20% of every sale you refer.',
        commissionStructure: { type: 'PERCENT', percent: 20, event: 'SALE', duration: 'FOREVER', holdDuration: 30, minPaidReferrals: 1 },
      },
    ];
  }
  switch (program.goal) {
    case 'HEALTHCARE_PROVIDERS':
      return [{ ...hidden, type: 'SINGLE_SIDED', title: 'Reward for every referral', description: 'Get a reward for every person you refer.' }];
    case 'SUBSCRIBERS':
      return [1, 3, 5, 10].map((n, i) => ({
        ...hidden,
        type: 'MILESTONE' as const,
        title: `Reward for ${n} ${n === 1 ? 'referral' : 'referrals'}`,
        description: `Refer ${n} ${n === 1 ? 'friend' : 'friends'} to unlock this reward.`,
        conversionsRequired: n,
        order: i,
        nextMilestonePrefix: 'Refer',
        nextMilestoneSuffix: 'more friends to unlock your next reward',
      }));
    case 'WAITLIST':
      return [{ ...hidden, type: 'LEADERBOARD', title: 'Top referrer prize', description: 'The top referrers win a prize.', numberOfWinners: 3 }];
    default:
      return [
        {
          ...hidden,
          type: 'DOUBLE_SIDED',
          title: 'Give a reward, get a reward',
          description: 'Refer a friend and you both get a reward.',
          referralDescription: 'Get a reward when you sign up through a friend.',
        },
      ];
  }
}

/** Reward configurations (CampaignReward): create, list, update, soft-delete, copy on clone, starters on create. */
export class RewardConfigs {
  /** Called with the program's id after a reward edit rewrote its documents (renamed metadata keys in program copy) and committed. */
  readonly documentsChanged: Array<(programId: string) => void> = [];

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Live rows kept between transactions (with Redis); see `SharedConfigRows`. */
    private readonly shared: SharedConfigRows | null = null,
  ) {}

  /** `GET /campaign/{id}/reward-configs`: the same items as `Campaign.rewards`. */
  async list(programId: string, q: Knex | Knex.Transaction = this.db.knex): Promise<CampaignReward[]> {
    return (await this.listMany(q, [programId])).get(programId) ?? [];
  }

  /** Every live configuration of several programs in one query, by `order` then creation (the `Campaign.rewards` loader). */
  async listMany(q: Knex | Knex.Transaction, programIds: string[]): Promise<Map<string, CampaignReward[]>> {
    const out = new Map<string, CampaignReward[]>();
    if ((q as Knex.Transaction).isTransaction === true && programIds.length === 1) {
      // Inside a transaction (a webhook payload's campaign) the rows the rewards engine read already.
      const rows = await liveConfigRows(q as Knex.Transaction, programIds[0]!, this.shared);
      out.set(programIds[0]!, rows.map((row: any) => toWire(row.id, fromRow(row))));
      return out;
    }
    for (let i = 0; i < programIds.length; i += 500) {
      const chunk = programIds.slice(i, i + 500);
      // Fixed text per chunk size, a cached statement: every webhook payload's campaign reads this.
      const rows = await selectRows<any>(
        this.db,
        q,
        `SELECT * FROM reward_configs WHERE program_id IN (${chunk.map(() => '?').join(', ')}) AND deleted_at IS NULL ORDER BY sort_order ASC, seq ASC, id ASC`,
        chunk,
      );
      for (const row of rows) {
        const list = out.get(row.program_id) ?? [];
        list.push(toWire(row.id, fromRow(row)));
        out.set(row.program_id, list);
      }
    }
    return out;
  }

  /** `POST /campaign/{id}/reward-configs`. */
  async create(program: Program, body: RewardConfigCreate): Promise<CampaignReward> {
    const [created] = await this.db.knex.transaction((trx) => this.createIn(trx, program, [body], () => ''));
    return created!;
  }

  /**
   * Creates several configurations inside the caller's transaction (RC2, `rewards` on C3, starters).
   * All are checked first; any violation throws one 400 naming each field under `prefix(i)`. `idOf`:
   * the ids to keep (a program moved in from another server keeps its reward keys, issue #33).
   */
  async createIn(trx: Knex.Transaction, program: Program, bodies: RewardConfigCreate[], prefix: (i: number) => string, starter = false, idOf?: (i: number) => string): Promise<CampaignReward[]> {
    if (!bodies.length) return [];
    const stats = await trx('reward_configs')
      .where({ program_id: program.id })
      .select(
        trx.raw('count(case when deleted_at is null then 1 end) as live'),
        trx.raw('max(case when deleted_at is null then sort_order end) as max_order'),
        trx.raw('max(seq) as max_seq'),
      )
      .first();
    const live = Number(stats?.live ?? 0);
    if (live + bodies.length > MAX_REWARD_CONFIGS_PER_PROGRAM) {
      throw new ValidationError(`A program holds at most ${MAX_REWARD_CONFIGS_PER_PROGRAM} reward configurations; delete one first.`);
    }
    let nextOrder = stats?.max_order == null ? 0 : Number(stats.max_order) + 1;
    let seq = stats?.max_seq == null ? 0 : Number(stats.max_seq) + 1;
    const errors: FieldError[] = [];
    const resolved = bodies.map((body, i) => {
      const { type, ...fields } = body;
      const sent = new Set(Object.keys(fields).filter((k) => (fields as Record<string, unknown>)[k] !== undefined));
      const r = resolveReward(type, fields, { program, sent, defaultOrder: nextOrder }, (field, message, code = 'INVALID') =>
        errors.push({ field: `${prefix(i)}${field}`, code, message }),
      );
      nextOrder = Math.max(nextOrder, r.order + 1);
      return r;
    });
    if (errors.length) throw invalid(errors);
    const now = this.clock.now();
    const out: CampaignReward[] = [];
    for (const [i, r] of resolved.entries()) {
      const id = idOf?.(i) ?? `crew_${newId()}`;
      const wire = campaignReward.parse(toWire(id, starter ? { ...r, isStarter: true } : r));
      forgetConfigRows(trx, program.id, this.shared);
      await trx('reward_configs').insert({ id, program_id: program.id, ...toColumns(r), ...(starter ? { is_starter: true } : {}), seq: seq++, created_at: now, updated_at: now });
      out.push(wire);
    }
    return out;
  }

  /** `PATCH …/reward-configs/{campaignRewardId}`: the patch over the stored reward, re-checked as a whole. */
  async update(program: Program, rewardId: string, patch: RewardConfigUpdate): Promise<CampaignReward> {
    let rewritten = false;
    const wire = await this.db.knex.transaction(async (trx) => {
      // The program row first (copy is read and may be rewritten), as a PATCH of its documents locks it.
      const copy = patch.metadata !== undefined ? await this.copyOf(trx, program.id) : null;
      const row = await this.liveRow(trx, program.id, rewardId);
      const current = fromRow(row);
      const { type: _immutable, ...changes } = patch;
      const sent = new Set(Object.keys(changes).filter((k) => (changes as Record<string, unknown>)[k] !== undefined));
      const merged = { ...current } as Record<string, unknown>;
      for (const k of sent) merged[k] = (changes as Record<string, unknown>)[k];
      // Nested objects merge into what is stored (metadata is replaced whole: rest-v2 §3.4 renames keys by it).
      if (changes.commissionStructure && current.commissionStructure) merged.commissionStructure = mergeCommission(current.commissionStructure, changes.commissionStructure);
      for (const k of ['value', 'referredValue'] as const) {
        const patch = changes[k];
        if (patch && current[k]) merged[k] = { ...current[k], ...sentKeys(patch) };
      }
      const errors: FieldError[] = [];
      const r = resolveReward(row.type, merged as Fields, { program, sent, defaultOrder: current.order }, (field, message, code = 'INVALID') =>
        errors.push({ field, code, message }),
      );
      if (errors.length) throw invalid(errors);
      const wire = campaignReward.parse(toWire(row.id, r));
      if (copy) rewritten = await this.followMetadata(trx, program.id, row.id, copy, current.metadata, r.metadata);
      // Any edit makes the reward the owner's own: it is no longer the starter placeholder.
      forgetConfigRows(trx, program.id, this.shared);
      await trx('reward_configs').where({ id: row.id }).update({ ...toColumns(r), is_starter: false, updated_at: this.clock.now() });
      return wire;
    });
    if (rewritten) for (const hook of this.documentsChanged) hook(program.id);
    return wire;
  }

  /** `DELETE …/reward-configs/{campaignRewardId}`: soft delete, so issued rewards keep their configuration. */
  async remove(program: Program, rewardId: string): Promise<{ id: string; success: true }> {
    return this.db.knex.transaction(async (trx) => {
      const copy = await this.copyOf(trx, program.id);
      const row = await this.liveRow(trx, program.id, rewardId);
      const refs = findRewardReferences(copy, row.id);
      if (refs.length) throw stillReferenced(row.id, refs);
      const now = this.clock.now();
      forgetConfigRows(trx, program.id, this.shared);
      await trx('reward_configs').where({ id: row.id }).update({ deleted_at: now, updated_at: now });
      return { id: rewardId, success: true as const };
    });
  }

  /** The program's copy documents, with its row locked for the rest of the transaction. */
  private async copyOf(trx: Knex.Transaction, programId: string): Promise<Record<string, unknown>> {
    // FOR NO KEY UPDATE: serialises copy edits without holding up the inserts that share-lock the program row (issue #20).
    const row = await trx('programs').where({ id: programId }).forNoKeyUpdate().first(...COPY_DOCUMENTS);
    if (!row) throw new NotFoundError(`No program ${programId}.`);
    return Object.fromEntries(COPY_DOCUMENTS.map((d) => [d, JSON.parse(row[d])]));
  }

  /**
   * rest-v2 §3.4: a metadata replacement rewrites references to renamed keys in program copy, and a
   * removed key that copy still references → 409 listing the referencing fields.
   */
  private async followMetadata(trx: Knex.Transaction, programId: string, rewardId: string, copy: Record<string, unknown>, before: Record<string, string>, after: Record<string, string>): Promise<boolean> {
    const { renames, removed } = metadataRenames(before, after);
    const gone = new Set(removed);
    const dangling = findRewardReferences(copy, rewardId).filter((ref) => gone.has(ref.key));
    if (dangling.length) throw stillReferenced(rewardId, dangling);
    if (!renames.size) return false;
    const next = renameRewardReferences(copy, rewardId, renames);
    if (!next) return false;
    await trx('programs')
      .where({ id: programId })
      .update({ ...Object.fromEntries(COPY_DOCUMENTS.map((d) => [d, JSON.stringify(next[d])])), updated_at: this.clock.now() });
    return true;
  }

  /** Copies the live configurations of `sourceId` into `copyId` with new ids (program clone). */
  async copyAll(trx: Knex.Transaction, sourceId: string, copyId: string): Promise<void> {
    const rows = await trx('reward_configs').where({ program_id: sourceId }).whereNull('deleted_at').orderBy([{ column: 'sort_order' }, { column: 'seq' }, { column: 'id' }]);
    const now = this.clock.now();
    forgetConfigRows(trx, copyId, this.shared);
    for (const row of rows) {
      await trx('reward_configs').insert({ ...row, id: `crew_${newId()}`, program_id: copyId, deleted_at: null, created_at: now, updated_at: now });
    }
  }

  /** Starter rewards by program type and goal, inside the creating transaction, flagged `isStarter` until edited. */
  async createStarters(trx: Knex.Transaction, program: Program): Promise<void> {
    await this.createIn(trx, program, starterRewards(program), () => '', true);
  }

  /** The live row, locked for the update; unknown, deleted or another program's → 404. */
  private async liveRow(trx: Knex.Transaction, programId: string, rewardId: string): Promise<any> {
    const row = plausibleId(rewardId)
      ? await trx('reward_configs').where({ id: rewardId, program_id: programId }).whereNull('deleted_at').forUpdate().first()
      : undefined;
    if (!row) throw new NotFoundError(`No reward configuration ${rewardId} in program ${programId}.`);
    return row;
  }
}

/** 409: program copy uses metadata of this reward that the change would take away; each referencing field once. */
function stillReferenced(rewardId: string, refs: RewardReference[]): AppError {
  const byField = new Map<string, Set<string>>();
  for (const r of refs) byField.set(r.field, (byField.get(r.field) ?? new Set()).add(r.key));
  const errors: FieldError[] = [...byField].map(([field, keys]) => ({
    field,
    code: 'REWARD_METADATA_REFERENCED',
    message: `Uses ${[...keys].map((k) => `{{campaignReward[${rewardId}].metadata.${k}}}`).join(', ')}.`,
  }));
  return new AppError(409, ERROR_CODES.CONFLICT, 'ConflictError', `Program copy still references metadata of reward ${rewardId} in ${errors.map((e) => e.field).join(', ')}; change that copy first.`, { errors });
}

/** One 400 listing every rule a reward broke. */
function invalid(errors: FieldError[]): ValidationError {
  return new ValidationError(`Invalid reward configuration: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
}

/**
 * Wires reward configurations into the program lifecycle: `Campaign.rewards`, `rewards` (or starters)
 * on create, and copies on clone, each inside the program's own transaction.
 */
export function registerRewardConfigHooks(programs: Programs, rewardConfigs: RewardConfigs): void {
  programs.hooks.rewards = (q, programIds) => rewardConfigs.listMany(q, programIds);
  programs.hooks.created.push(async (trx, program, input) => {
    // An explicit `rewards: []` means "none", so only an absent list gets starters.
    if (input.rewards !== undefined) await rewardConfigs.createIn(trx, program, input.rewards, (i) => `rewards.${i}.`);
    else await rewardConfigs.createStarters(trx, program);
  });
  programs.hooks.cloned.push((trx, source, copy) => rewardConfigs.copyAll(trx, source.id, copy.id));
}
