import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { newId } from '../../crypto.ts';
import { InvalidStateError, NotAuthorizedError, NotFoundError } from '../../errors.ts';
import { assertProgramCapacity, assertRestAccess, type TeamBilling } from '../platform/plans.ts';
import { defaultDocuments, type ProgramDocuments } from './program-config.ts';
import type { Campaign, CampaignCreate, CampaignUpdate } from '../../../shared/schemas/campaign.ts';
import { deepFreeze } from '../../../shared/freeze.ts';
import { selectRows } from '../../db/rows.ts';
import { ProgramLists, SharedCache, type InvalidationBus } from '../platform/invalidation.ts';
import { SHARED_CONFIG_PROGRAMS, type SharedConfigRows } from './reward-configs.ts';

/** The counters `toCampaign` reads (a narrow row of their own, off the wide `programs` row: issue #26). */
const COUNTS_SQL = 'SELECT referral_count, participant_count, impression_count, invite_count, winner_count FROM program_counters WHERE program_id = ?';
/** The counter columns of `program_counters`. */
const COUNT_COLUMNS = ['referral_count', 'participant_count', 'impression_count', 'invite_count', 'winner_count'] as const;

/** A program as stored, with its documents parsed. */
export interface Program {
  id: string;
  teamId: string;
  type: 'REFERRAL' | 'AFFILIATE';
  name: string;
  status: 'DRAFT' | 'IN_PROGRESS' | 'COMPLETE' | 'DELETED';
  currencyISO: string;
  goal: string | null;
  companyName: string | null;
  companyLogoImageUrl: string | null;
  documents: ProgramDocuments;
  createdAt: number;
  updatedAt: number;
}

/** Work other modules attach to program lifecycle moments, run inside the same transaction. */
export interface ProgramHooks {
  /** After a program row is inserted (starter rewards, rewards sent on create). */
  created: Array<(trx: Knex.Transaction, program: Program, input: CampaignCreate & Record<string, unknown>) => Promise<void>>;
  /** After a clone is inserted (copy reward configs and other configuration). */
  cloned: Array<(trx: Knex.Transaction, source: Program, copy: Program) => Promise<void>>;
  /** After a program moves to COMPLETE (CAMPAIGN_ENDED, leaderboard prizes). */
  ended: Array<(trx: Knex.Transaction, program: Program) => Promise<void>>;
  /** After a program's row changed and the change committed (process-local caches drop it). */
  changed: Array<(programId: string) => void>;
  /** Loads the embedded `rewards` of several programs. */
  rewards: ((q: Knex | Knex.Transaction, programIds: string[]) => Promise<Map<string, Record<string, unknown>[]>>) | null;
}

// Allowed status moves: launch, end, and end a draft that never launched. Nothing leaves COMPLETE.
const MOVES: Record<string, string[]> = { DRAFT: ['IN_PROGRESS', 'COMPLETE'], IN_PROGRESS: ['COMPLETE'], COMPLETE: [] };

/** Programs whose parsed documents one process keeps. */
const PARSED_CACHE_SIZE = 1000;
/** Program rows one process keeps for `forRequest` while the invalidation bus is live. */
const ROW_CACHE_SIZE = 10_000;
const PROGRAM_ROW_SQL = 'SELECT * FROM programs WHERE id = ? LIMIT 1';

/** A program's counters (the `program_counters` row, written by sign-ups, credits, visit folds and invites). */
export interface ProgramCounts {
  referral: number;
  participant: number;
  impression: number;
  invite: number;
  winner: number;
}

/** A program_counters row's counters (the columns COUNTS_SQL reads); zeros when there is no row. */
function countsOf(row: Record<string, unknown> | undefined): ProgramCounts {
  if (!row) return { referral: 0, participant: 0, impression: 0, invite: 0, winner: 0 };
  return {
    referral: Number(row.referral_count),
    participant: Number(row.participant_count),
    impression: Number(row.impression_count),
    invite: Number(row.invite_count),
    winner: Number(row.winner_count),
  };
}

/** Maps a programs row (`documents`: already parsed ones to use instead of the row's texts). */
export function toProgram(row: any, documents?: ProgramDocuments): Program {
  return {
    id: row.id,
    teamId: row.team_id,
    type: row.type,
    name: row.name,
    status: row.status,
    currencyISO: row.currency_iso,
    goal: row.goal,
    companyName: row.company_name,
    companyLogoImageUrl: row.company_logo_image_url,
    documents: documents ?? { design: JSON.parse(row.design), emails: JSON.parse(row.emails), options: JSON.parse(row.options), installation: JSON.parse(row.installation) },
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** The counters of each program in `programIds` (zeros for one without a row), by program id. */
export async function readProgramCounts(q: Knex | Knex.Transaction, programIds: string[]): Promise<Map<string, ProgramCounts>> {
  const rows: Array<Record<string, unknown>> = programIds.length ? await q('program_counters').whereIn('program_id', programIds).select('program_id', ...COUNT_COLUMNS) : [];
  const byId = new Map(rows.map((r) => [String(r.program_id), countsOf(r)]));
  return new Map(programIds.map((id) => [id, byId.get(id) ?? countsOf(undefined)]));
}

/** Counter changes a transaction has made but not yet written (the participants core's `ScoreLedger`). */
export interface PendingCounts {
  pendingCounts(): { participants: number; referrals: number; winners: number };
}

/** Programs (campaigns): create, read, update, clone, and the per-request lookup with its gates. */
export class Programs {
  readonly hooks: ProgramHooks = { created: [], cloned: [], ended: [], changed: [], rewards: null };

  /** Rows `forRequest` read, by program id (null without a bus). */
  readonly #rows: SharedCache<Record<string, any>> | null;
  /** Live reward configuration rows kept between transactions (null without a bus); reward-configs.ts. */
  readonly configRows: SharedConfigRows | null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly bus: InvalidationBus | null = null,
  ) {
    // A `team` change drops the team's programs too: a purged team's rows went with it.
    this.#rows = bus ? new SharedCache<Record<string, any>>(bus, ROW_CACHE_SIZE, (change, id, row) => (change.kind === 'program' ? id === change.id : change.kind === 'team' && row.team_id === change.id)) : null;
    this.configRows = bus ? new ProgramLists<readonly Record<string, unknown>[]>(bus, SHARED_CONFIG_PROGRAMS) : null;
  }

  /** The documents last parsed for each program, with the stored texts they came from. */
  readonly #parsed = new Map<string, { texts: string[]; documents: ProgramDocuments }>();

  /**
   * Loads the program named in a request: unknown → 404, another team's → 403, then the plan gate.
   * Without Redis the row is read every time (so writes from any process are seen at once); with
   * it, from a cache every program write invalidates in every process (the `changed` hooks of
   * Programs, ProgramConfig, RewardConfigs and ProgramTranslations publish, server/deps.ts). Its
   * four documents are parsed only when their text changed: the parsed documents are shared between
   * requests (and so are caches keyed by them, such as the completed emails document), and frozen
   * so that no caller can change them by accident.
   */
  async forRequest(teamId: string, programId: string, billing: TeamBilling): Promise<Program> {
    // Ids are [a-z0-9]; anything else (including a NUL PostgreSQL would refuse) cannot name a program.
    const row = /^[A-Za-z0-9_-]{1,64}$/.test(programId) ? await this.#row(programId) : undefined;
    if (!row || row.status === 'DELETED') throw new NotFoundError(`No program ${programId}.`);
    if (row.team_id !== teamId) throw new NotAuthorizedError('This API key is not allowed to access this program.');
    const program = toProgram({ ...row, design: null }, this.#documentsOf(row));
    assertRestAccess(this.config.billing, billing, program.type, this.clock.now());
    return program;
  }

  /** The programs row, from the cache when it is live; unknown ids are never cached. */
  async #row(programId: string): Promise<Record<string, any> | undefined> {
    const cache = this.#rows?.enabled ? this.#rows : null;
    const hit = cache?.get(programId);
    if (hit) return hit;
    const since = this.bus?.generation ?? 0;
    const row = await this.db.get<any>(PROGRAM_ROW_SQL, programId);
    if (row && cache) cache.set(programId, Object.freeze(row), since);
    return row;
  }

    #documentsOf(row: Record<string, string>): ProgramDocuments {
    const texts = [row.design!, row.emails!, row.options!, row.installation!];
    const hit = this.#parsed.get(row.id!);
    if (hit && hit.texts.every((t, i) => t === texts[i])) return hit.documents;
    const documents = deepFreeze(toProgram(row).documents);
    this.#parsed.delete(row.id!);
    if (this.#parsed.size >= PARSED_CACHE_SIZE) this.#parsed.delete(this.#parsed.keys().next().value!);
    this.#parsed.set(row.id!, { texts, documents });
    return documents;
  }

  /**
   * The wire shape of one program, its counters read from `program_counters` (with the unflushed
   * changes of `ledger` inside a transaction: webhook payloads show the program as the change leaves it).
   */
  async toCampaign(program: Program, q: Knex | Knex.Transaction = this.db.knex, ledger?: PendingCounts): Promise<Campaign> {
    const [row] = await selectRows<Record<string, unknown>>(this.db, q, COUNTS_SQL, [program.id]);
    const stored = countsOf(row);
    const pending = ledger?.pendingCounts() ?? { participants: 0, referrals: 0, winners: 0 };
    const counts = { ...stored, referral: stored.referral + pending.referrals, participant: stored.participant + pending.participants, winner: stored.winner + pending.winners };
    const [c] = await this.toCampaigns([program], q, new Map([[program.id, counts]]));
    return c!;
  }

  /** The wire shape of several programs; `known`: counters already read (else read here, one statement for all). */
  async toCampaigns(programs: Program[], q: Knex | Knex.Transaction = this.db.knex, known?: Map<string, ProgramCounts>): Promise<Campaign[]> {
    const ids = programs.map((p) => p.id);
    const counts = known ?? (await readProgramCounts(q, ids));
    const rewards = this.hooks.rewards && programs.length ? await this.hooks.rewards(q, ids) : new Map();
    return programs.map((p) => {
      const n = counts.get(p.id) ?? countsOf(undefined);
      return {
        id: p.id,
        name: p.name,
        type: p.type,
        status: p.status,
        referralCount: n.referral,
        participantCount: n.participant,
        impressionCount: n.impression,
        inviteCount: n.invite,
        winnerCount: n.winner,
        currencyISO: p.currencyISO,
        rewards: rewards.get(p.id) ?? [],
        companyName: p.companyName ?? null,
        companyLogoImageUrl: p.companyLogoImageUrl ?? null,
      };
    });
  }

  /** `GET /campaigns`: the team's programs (only granted ones for a program-limited key), oldest first, deleted omitted. */
  async list(teamId: string, programIds: string[] | null): Promise<Campaign[]> {
    let q = this.db.knex('programs').where({ team_id: teamId }).whereNot({ status: 'DELETED' }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
    if (programIds) q = q.whereIn('id', programIds);
    return this.toCampaigns((await q).map((row) => toProgram(row)));
  }

  /** `POST /campaigns`: a DRAFT program with complete starting documents. */
  async create(teamId: string, billing: TeamBilling, input: CampaignCreate & Record<string, unknown>): Promise<Campaign> {
    const now = this.clock.now();
    assertRestAccess(this.config.billing, billing, input.type, now);
    return this.db.knex.transaction(async (trx) => {
      const count = await trx('programs').where({ team_id: teamId }).whereNot({ status: 'DELETED' }).count({ n: '*' }).first();
      assertProgramCapacity(this.config.billing, billing, Number(count?.n ?? 0), now);
      const docs = defaultDocuments(input.type, input.goal ?? null);
      const row = {
        id: newId(),
        team_id: teamId,
        type: input.type,
        name: input.name ?? defaultName(input.type, now),
        status: 'DRAFT',
        currency_iso: input.currencyISO ?? 'USD',
        goal: input.goal ?? null,
        company_name: input.companyName ?? null,
        company_logo_image_url: input.companyLogoImageUrl ?? null,
        design: JSON.stringify(docs.design),
        emails: JSON.stringify(docs.emails),
        options: JSON.stringify(docs.options),
        installation: JSON.stringify(docs.installation),
        created_at: now,
        updated_at: now,
      };
      await trx('programs').insert(row);
      await trx('program_counters').insert({ program_id: row.id });
      const program = toProgram(await trx('programs').where({ id: row.id }).first());
      for (const hook of this.hooks.created) await hook(trx, program, input);
      return this.toCampaign(program, trx);
    });
  }

  /** `PATCH /campaign/{id}`: name and company fields, launch (IN_PROGRESS) and end (COMPLETE). */
  async update(program: Program, patch: CampaignUpdate): Promise<Campaign> {
    const campaign = await this.db.knex.transaction(async (trx) => {
      // FOR NO KEY UPDATE: it orders program edits without stopping the foreign-key inserts (sign-ups, sales) that share-lock the row (issue #20).
      const current = toProgram(await trx('programs').where({ id: program.id }).forNoKeyUpdate().first());
      const now = this.clock.now();
      const changes: Record<string, unknown> = { updated_at: now };
      if (patch.name !== undefined) changes.name = patch.name;
      if (patch.companyName !== undefined) changes.company_name = patch.companyName;
      if (patch.companyLogoImageUrl !== undefined) changes.company_logo_image_url = patch.companyLogoImageUrl;
      let ended = false;
      if (patch.status && patch.status !== current.status) {
        if (!MOVES[current.status]?.includes(patch.status)) {
          throw new InvalidStateError(`A ${current.status} program cannot move to ${patch.status}.`);
        }
        changes.status = patch.status;
        if (patch.status === 'IN_PROGRESS') changes.launched_at = now;
        if (patch.status === 'COMPLETE') {
          changes.ended_at = now;
          ended = true;
        }
      }
      await trx('programs').where({ id: program.id }).update(changes);
      const updated = toProgram(await trx('programs').where({ id: program.id }).first());
      if (!ended) return this.toCampaign(updated, trx);
      for (const hook of this.hooks.ended) await hook(trx, updated);
      // The hooks (leaderboard prizes) may have changed counters such as winnerCount.
      return this.toCampaign(toProgram(await trx('programs').where({ id: program.id }).first()), trx);
    });
    for (const hook of this.hooks.changed) hook(program.id);
    return campaign;
  }

  /** `POST /campaign/{id}/clone`: a new DRAFT with the same configuration; never participants or money. */
  async clone(teamId: string, billing: TeamBilling, source: Program): Promise<Campaign> {
    const now = this.clock.now();
    return this.db.knex.transaction(async (trx) => {
      const count = await trx('programs').where({ team_id: teamId }).whereNot({ status: 'DELETED' }).count({ n: '*' }).first();
      assertProgramCapacity(this.config.billing, billing, Number(count?.n ?? 0), now);
      const id = newId();
      await trx('programs').insert({
        id,
        team_id: teamId,
        type: source.type,
        name: `${source.name} (copy)`.slice(0, 255),
        status: 'DRAFT',
        currency_iso: source.currencyISO,
        goal: source.goal,
        company_name: source.companyName,
        company_logo_image_url: source.companyLogoImageUrl,
        design: JSON.stringify(source.documents.design),
        emails: JSON.stringify(source.documents.emails),
        options: JSON.stringify(source.documents.options),
        installation: JSON.stringify(source.documents.installation),
        cloned_from: source.id,
        created_at: now,
        updated_at: now,
      });
      await trx('program_counters').insert({ program_id: id });
      const copy = toProgram(await trx('programs').where({ id }).first());
      for (const hook of this.hooks.cloned) await hook(trx, source, copy);
      return this.toCampaign(copy, trx);
    });
  }
}

/** Default name: a friendly label plus the creation date, as newer clients describe. */
function defaultName(type: 'REFERRAL' | 'AFFILIATE', now: number): string {
  return `${type === 'AFFILIATE' ? 'Affiliate' : 'Referral'} Program ${new Date(now).toISOString().slice(0, 10)}`;
}
