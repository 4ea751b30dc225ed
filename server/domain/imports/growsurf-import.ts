// Moving a program in from a server that speaks the GrowSurf v2 REST API (issue #33): the program
// with its id, its four configuration documents, its reward configurations, and its participants
// with their ids, share keys and vanity keys unchanged, so every link already shared resolves here
// to the same person. The run is a row of `import_runs` whose stage and source cursor move in the
// same transaction as the rows of each page: a run killed at any moment continues with --resume
// and writes nothing twice; a finished run run again changes nothing. A record that cannot be
// imported is refused by its source id with the reason, and the rest goes on.
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import { newId, type Sealer } from '../../crypto.ts';
import { MAX_WEBHOOKS_PER_PROGRAM } from '../messaging/webhooks.ts';
import { webhookEvent } from '../../../shared/schemas/webhook.ts';
import { AppError, ConflictError } from '../../errors.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { toProgram, type Program } from '../programs/programs.ts';
import { defaultDocuments, type ProgramConfig } from '../programs/program-config.ts';
import type { DocumentKind } from '../../../shared/schemas/program-config-fields.ts';
import { READ_ONLY_FIELDS } from '../../../shared/schemas/program-config.ts';
import { IMPORT_KINDS } from '../../../shared/schemas/imports.ts';
import type { RewardConfigs } from '../programs/reward-configs.ts';
import { rewardConfigCreate, type CampaignReward, type RewardConfigCreate } from '../../../shared/schemas/reward-config.ts';
import { COLUMN_BOARD_NAMES, boardSpec, monthBoard, monthKey } from '../participants/boards.ts';
import { ScoreLedger } from '../participants/score-ledger.ts';
import { encodeRecent, parseJson, programLanguages, valueHash } from '../participants/model.ts';
import { writeMetadata } from '../participants/keys.ts';
import { GrowSurfSource } from './source.ts';
import { keepableId, participantRow, type SourceParticipant, type SourceReward } from './participant-rows.ts';
import { activityRow, destinationRow, resourceRow, type SourceActivity, type SourceDestinations, type SourceResource } from './program-rows.ts';
import { affiliateInviteRow, applicationRow, badId, commissionRows, payoutRow, type SourceAffiliateInvite, type SourceApplication, type SourceCommission, type SourcePayout } from './affiliate-rows.ts';

/** The stages of one program's import, in order. */
export const IMPORT_STAGES = [
  'documents',
  'rewards',
  'webhooks',
  'resources',
  'participants',
  'referrals',
  'payouts',
  'commissions',
  'affiliateInvites',
  'applications',
  'totals',
  'destinations',
  'activity',
  'links',
  'done',
] as const;
/** Stages only an affiliate program has. */
const AFFILIATE_STAGES: readonly ImportStage[] = ['payouts', 'commissions', 'affiliateInvites', 'applications', 'totals', 'destinations'];

/** The stage after `stage` for a program of `type` (the activity logs only when asked for). */
function nextStage(stage: ImportStage, type: 'REFERRAL' | 'AFFILIATE', withActivity: boolean): ImportStage {
  let i = IMPORT_STAGES.indexOf(stage) + 1;
  while ((type !== 'AFFILIATE' && AFFILIATE_STAGES.includes(IMPORT_STAGES[i]!)) || (!withActivity && IMPORT_STAGES[i] === 'activity')) i++;
  return IMPORT_STAGES[i]!;
}
export type ImportStage = (typeof IMPORT_STAGES)[number];

/** Record kinds an import counts and refuses. */
export type ImportKind = (typeof IMPORT_KINDS)[number];

/** What one kind came to: created here, already here (skipped), refused. */
export interface KindCounts {
  created: number;
  /** Already here and unchanged (a catch-up run updates what changed: `updated`). */
  skipped: number;
  refused: number;
  updated?: number;
}

/** One refused record: its kind, its id on the source, and why. */
export interface Refusal {
  kind: ImportKind;
  sourceId: string;
  reason: string;
}

/** What an import (or its dry run) reports at the end, per program. */
export interface ProgramImportReport {
  programId: string;
  name: string;
  type: 'REFERRAL' | 'AFFILIATE';
  dryRun: boolean;
  resumed: boolean;
  /** True when an earlier run had finished: this one found nothing to do. */
  alreadyImported: boolean;
  counts: Record<ImportKind, KindCounts>;
  refusals: Refusal[];
  /** The new signing secret of each webhook this run brought in (switched off): shown once, stored sealed. */
  webhookSecrets: Array<{ id: string; secret: string }>;
  requests: number;
}

/** A moment worth reporting: a stage reached, a page written, a pause. */
export interface ImportProgress {
  programId: string;
  stage: ImportStage | 'program';
  done: number;
  /** What the source says there is (participants: the program's participantCount). */
  total: number | null;
  message?: string;
}

/** One program's import, as the CLI and the console start it. */
export interface ImportRequest {
  source: GrowSurfSource;
  programId: string;
  teamId: string;
  dryRun?: boolean;
  resume?: boolean;
  /** Catch up after a finished run: bring in what is new on the source and update what changed (`--since`). */
  since?: boolean;
  /** Also each participant's activity log (P13: one request per participant and page; `--activity`). Kept by the run for `--resume`. */
  activity?: boolean;
  onProgress?: (p: ImportProgress) => void;
  /** Called once per imported webhook with its new signing secret, as soon as it is stored (a run stopped later has shown it already). */
  onWebhookSecret?: (w: { programId: string; id: string; secret: string }) => void | Promise<void>;
}

/** The services an import writes through. */
export interface ImportDeps {
  db: Db;
  clock: Clock;
  programConfig: ProgramConfig;
  rewardConfigs: RewardConfigs;
  sealer: Sealer;
}

/** An email invite as the referrals list (RF1) shows it (rest-v2 §2.14). */
interface SourceInvite {
  id: string;
  email: string;
  referralStatus: string;
  referredBy: string;
  createdAt?: number;
  updatedAt?: number;
}

/** A webhook as the source lists it (rest-v2 §2.15; its secret is never shown). */
interface SourceWebhook {
  id: string;
  payloadUrl?: string | null;
  events?: string[];
  isEnabled?: boolean;
}

/** The event names a webhook may subscribe to. */
const WEBHOOK_EVENTS = new Set<string>(webhookEvent.options);

/** The source's campaign object (rest-v2 §2.3), the fields read. */
interface SourceCampaign {
  id: string;
  name: string;
  type: 'REFERRAL' | 'AFFILIATE';
  status: string;
  currencyISO?: string;
  /** refloop sources only (a refloop extension of the campaign object); GrowSurf does not return them. */
  companyName?: string | null;
  companyLogoImageUrl?: string | null;
  participantCount?: number;
  impressionCount?: number;
  inviteCount?: number;
}

/** Participants read per source request (the list's maximum). */
const PAGE = 100;
const DOCUMENTS: DocumentKind[] = ['design', 'emails', 'options', 'installation'];

/** 409 for a program that cannot be imported into this team as it stands. */
export class ImportConflictError extends ConflictError {}

/** Every kind at nothing yet, in the order of shared/schemas/imports.ts (the console's and the CLI's order). */
export const zeroCounts = (): Record<ImportKind, KindCounts> => Object.fromEntries(IMPORT_KINDS.map((k) => [k, { created: 0, skipped: 0, refused: 0 }])) as Record<ImportKind, KindCounts>;

/** Imports programs from a GrowSurf-compatible source into this refloop. */
export class ProgramImports {
  /** Whether the run in progress is a catch-up (one run at a time per instance of this class). */
  #catchUp = false;
  /** The run's commission id → payout id, read at its first commissions page (the payouts stage comes before). */
  #payoutOf: Map<string, string> | null = null;

  constructor(private readonly deps: ImportDeps) {}

  /** Imports (or, with `dryRun`, checks) one program of the source into team `teamId`. */
  async importProgram(req: ImportRequest): Promise<ProgramImportReport> {
    const { db } = this.deps;
    const campaign = await req.source.get<SourceCampaign>(`/campaign/${encodeURIComponent(req.programId)}`);
    if (campaign.type !== 'REFERRAL' && campaign.type !== 'AFFILIATE') throw new AppError(422, ERROR_CODES.BAD_REQUEST, 'BadRequestError', `Program ${req.programId} has a type refloop does not know (${String(campaign.type)}).`);
    const report: ProgramImportReport = {
      programId: campaign.id,
      name: campaign.name,
      type: campaign.type,
      dryRun: !!req.dryRun,
      resumed: false,
      alreadyImported: false,
      counts: zeroCounts(),
      refusals: [],
      webhookSecrets: [],
      requests: 0,
    };
    const progress = (stage: ImportProgress['stage'], done: number, total: number | null, message?: string) =>
      req.onProgress?.({ programId: campaign.id, stage, done, total, ...(message ? { message } : {}) });

    let run = await db.knex('import_runs').where({ program_id: campaign.id }).first();
    if (run && run.team_id !== req.teamId) throw new ImportConflictError(`Program ${campaign.id} was imported into another team of this refloop.`);
    const existing = await db.knex('programs').where({ id: campaign.id }).first('id', 'team_id');
    if (!run && existing) throw new ImportConflictError(`A program with the id ${campaign.id} already exists here and was not made by an import; nothing was written.`);
    if (run?.status === 'DONE' && req.since && !req.dryRun) {
      // The cut-over: new configurations, webhooks, participants, referrals and money since the
      // first run, and changes to what came in (the documents are left as the owner may have edited them here).
      await db.knex('import_runs').where({ id: run.id }).update({ status: 'RUNNING', mode: 'CATCH_UP', stage: 'rewards', cursor: null, counts: JSON.stringify(zeroCounts()), updated_at: this.deps.clock.now(), finished_at: null });
      run = await db.knex('import_runs').where({ id: run.id }).first();
      report.resumed = true;
    } else if (run?.status === 'DONE') {
      report.alreadyImported = true;
      report.counts = { ...zeroCounts(), ...JSON.parse(run.counts) };
      report.refusals = await this.#refusals(run.id);
      report.requests = req.source.requests;
      return report;
    }
    if (run && !req.resume && !req.dryRun) {
      throw new ImportConflictError(`The import of program ${campaign.id} stopped at its ${run.stage} stage; run it again with --resume to continue where it stopped.`);
    }
    if (run) report.resumed = true;

    if (req.dryRun) return this.#dryRun(req, campaign, report, run);

    if (!run) {
      progress('program', 0, null, `creating program ${campaign.id}`);
      run = await this.#createProgram(req.teamId, req.source.base, campaign, !!req.activity);
      report.counts.program.created = 1;
    } else report.counts = { ...zeroCounts(), ...JSON.parse(run.counts) };
    const runId: string = run.id;
    /** A catch-up run updates records already here that changed on the source. */
    this.#catchUp = run.mode === 'CATCH_UP';
    this.#payoutOf = null;
    let stage: ImportStage = run.stage;
    let cursor: string | null = run.cursor ?? null;

    if (stage === 'documents') {
      const program = await this.#program(campaign.id);
      for (const kind of DOCUMENTS) {
        const doc = await req.source.get<Record<string, unknown>>(`/campaign/${encodeURIComponent(campaign.id)}/${kind}`);
        await this.deps.programConfig.update(program, kind, importableDocument(kind, doc));
      }
      report.counts.documents.created = DOCUMENTS.length;
      stage = await this.#advance(runId, 'rewards', null, report.counts);
      progress('documents', DOCUMENTS.length, DOCUMENTS.length);
    }

    if (stage === 'rewards') {
      const program = await this.#program(campaign.id);
      const list = await req.source.get<{ rewards?: CampaignReward[] } | CampaignReward[]>(`/campaign/${encodeURIComponent(campaign.id)}/reward-configs`);
      const rewards = Array.isArray(list) ? list : (list.rewards ?? []);
      await db.knex.transaction(async (trx) => {
        const have = new Set((await trx('reward_configs').where({ program_id: program.id }).select('id')).map((r: { id: string }) => r.id));
        const fresh: Array<{ id: string; body: RewardConfigCreate }> = [];
        for (const r of rewards) {
          if (have.has(r.id)) {
            report.counts.rewards.skipped++;
            continue;
          }
          const body = rewardBody(r);
          if ('refused' in body) await this.#refuse(trx, runId, report, { kind: 'rewards', sourceId: String(r.id), reason: body.refused });
          else fresh.push({ id: r.id, body: body.body });
        }
        // One by one: a configuration our rules refuse is reported, and the others still come in.
        for (const f of fresh) {
          try {
            await trx.transaction((inner) => this.deps.rewardConfigs.createIn(inner, program, [f.body], () => '', false, () => f.id));
            report.counts.rewards.created++;
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            await this.#refuse(trx, runId, report, { kind: 'rewards', sourceId: f.id, reason: refusalText(err) });
          }
        }
        stage = await this.#advance(runId, 'webhooks', null, report.counts, trx);
      });
      progress('rewards', rewards.length, rewards.length);
    }

    if (stage === 'webhooks') {
      // Webhooks come in switched off, each with a new signing secret shown once in the report: the
      // source never shows its secrets, and nothing should reach the owner's endpoints twice (from
      // both servers) before they switch the source's off.
      const list = await req.source.get<{ webhooks?: SourceWebhook[] } | SourceWebhook[]>(`/campaign/${encodeURIComponent(campaign.id)}/webhooks`);
      const hooks = Array.isArray(list) ? list : (list.webhooks ?? []);
      await db.knex.transaction(async (trx) => {
        const have = new Set((await trx('webhooks').where({ program_id: campaign.id }).select('id')).map((r: { id: string }) => r.id));
        for (const h of hooks.slice(0, MAX_WEBHOOKS_PER_PROGRAM)) {
          if (have.has(String(h.id))) {
            report.counts.webhooks.skipped++;
            continue;
          }
          const bad = badId(h.id) ?? (typeof h.payloadUrl === 'string' && !/^https?:\/\//i.test(h.payloadUrl) ? 'Its payload URL is not an http(s) URL.' : null);
          if (bad) {
            await this.#refuse(trx, runId, report, { kind: 'webhooks', sourceId: String(h.id), reason: bad });
            continue;
          }
          const secret = `whsec_${crypto.randomBytes(24).toString('base64url')}`;
          const now = this.deps.clock.now();
          await trx('webhooks').insert({
            program_id: campaign.id,
            id: h.id,
            payload_url: typeof h.payloadUrl === 'string' ? h.payloadUrl.slice(0, 2048) : null,
            events: JSON.stringify([...new Set((h.events ?? []).filter((e) => WEBHOOK_EVENTS.has(e)))]),
            is_enabled: false,
            auto_disabled: false,
            failure_count: 0,
            last_failure_at: null,
            secret_enc: this.deps.sealer.seal(secret),
            created_at: now,
            updated_at: now,
          });
          report.webhookSecrets.push({ id: h.id, secret });
          report.counts.webhooks.created++;
        }
        for (const h of hooks.slice(MAX_WEBHOOKS_PER_PROGRAM)) await this.#refuse(trx, runId, report, { kind: 'webhooks', sourceId: String(h.id), reason: `A program may have at most ${MAX_WEBHOOKS_PER_PROGRAM} webhooks here.` });
        stage = await this.#advance(runId, 'resources', null, report.counts, trx);
      });
      // Awaited: a caller that keeps them (the console's job) has them stored before the run goes on.
      for (const w of report.webhookSecrets) await req.onWebhookSecret?.({ programId: campaign.id, ...w });
      progress('webhooks', hooks.length, hooks.length);
    }

    if (stage === 'resources') {
      // Links and texts come in with their ids; a file's bytes are not readable through the REST API.
      const list = await req.source.get<{ resources?: SourceResource[] } | SourceResource[]>(`/campaign/${encodeURIComponent(campaign.id)}/resources`);
      const resources = Array.isArray(list) ? list : (list.resources ?? []);
      await db.knex.transaction(async (trx) => {
        await this.#writeSimple(trx, runId, report, 'resources', 'program_resources', resources, (r) => resourceRow(r, campaign.id, this.deps.clock.now()));
        stage = await this.#advance(runId, 'participants', null, report.counts, trx);
      });
      progress('resources', resources.length, resources.length);
    }

    const id = encodeURIComponent(campaign.id);
    const startCursor = (at: ImportStage) => (at === run.stage ? (run.cursor ?? null) : null);
    const withActivity = run.with_activity === true || Number(run.with_activity) === 1;
    const next = (after: ImportStage) => nextStage(after, campaign.type, withActivity);

    if (stage === 'participants') {
      const program = await this.#program(campaign.id);
      const total = typeof campaign.participantCount === 'number' ? campaign.participantCount : null;
      const before = report.counts.participants.created + report.counts.participants.skipped + report.counts.participants.refused;
      stage = await this.#paged(runId, report, 'participants', next('participants'), cursor, before, total, progress, async (c) => {
        const page = await req.source.get<{ participants?: SourceParticipant[]; nextId?: string | null }>(`/campaign/${id}/participants`, { limit: PAGE, nextId: c ?? undefined });
        const people = page.participants ?? [];
        await this.#completeRewards(req.source, campaign.id, people);
        return { items: people, next: page.nextId ?? null, write: (trx) => this.#writeParticipants(trx, program, runId, people, report, req.source.lastDate) };
      });
    }

    if (stage === 'referrals') {
      // The referrals-and-invites list (RF1): email invites not yet joined come in with their ids;
      // a referred participant's row says when the referral last changed (`updatedAt`).
      stage = await this.#paged(runId, report, 'referrals', next('referrals'), startCursor('referrals'), 0, null, progress, async (c) => {
        const page = await req.source.get<{ referrals?: SourceInvite[]; nextId?: string | null; more?: boolean }>(`/campaign/${id}/referrals`, { limit: PAGE, nextId: c ?? undefined });
        const all = page.referrals ?? [];
        return {
          items: all,
          next: page.more === false ? null : (page.nextId ?? null),
          write: async (trx) => {
            await this.#writeInvites(trx, campaign.id, runId, all.filter((r) => r.referralStatus === 'INVITE_SENT'), report);
            await touchReferred(trx, campaign.id, all.filter((r) => r.referralStatus !== 'INVITE_SENT'));
          },
        };
      });
    }

    if (this.#catchUp && IMPORT_STAGES.indexOf(stage) > IMPORT_STAGES.indexOf('referrals')) {
      // An invite that was waiting when the first run read it and whose contact has joined since,
      // referred by its sender: joined here too (the source lists that person, no longer the invite).
      await db.knex.transaction(async (trx) => {
        const waiting: Array<{ id: string; participant_id: string; email_key: string }> = await trx('invites').where({ program_id: campaign.id, status: 'INVITE_SENT' }).select('id', 'participant_id', 'email_key');
        for (const chunk of chunks(waiting, 200)) {
          const joined: Array<{ id: string; email_key: string; referred_by: string; created_at: number }> = await trx('participants').where({ program_id: campaign.id }).whereIn('email_key', chunk.map((w) => w.email_key)).select('id', 'email_key', 'referred_by', 'created_at');
          for (const w of chunk) {
            const p = joined.find((j) => j.email_key === w.email_key && j.referred_by === w.participant_id);
            if (p) await trx('invites').where({ id: w.id }).update({ status: 'JOINED', joined_participant_id: p.id, joined_at: Number(p.created_at), updated_at: this.deps.clock.now() });
          }
        }
      });
    }

    // Affiliate programs: payouts first (commissions point at them), then commissions with the sales
    // they came from, affiliate invites, applications, and each affiliate's totals.
    if (stage === 'payouts') {
      const program = await this.#program(campaign.id);
      stage = await this.#paged(runId, report, 'payouts', next('payouts'), startCursor('payouts'), 0, null, progress, async (c) => {
        const page = await req.source.get<{ payouts?: SourcePayout[]; nextId?: string | null }>(`/campaign/${id}/payouts`, { limit: PAGE, nextId: c ?? undefined });
        const items = page.payouts ?? [];
        return { items, next: page.nextId ?? null, write: (trx) => this.#writePayouts(trx, program, runId, items, report) };
      });
    }
    if (stage === 'commissions') {
      const program = await this.#program(campaign.id);
      stage = await this.#paged(runId, report, 'commissions', next('commissions'), startCursor('commissions'), 0, null, progress, async (c) => {
        const page = await req.source.get<{ commissions?: SourceCommission[]; nextId?: string | null }>(`/campaign/${id}/commissions`, { limit: PAGE, nextId: c ?? undefined });
        const items = page.commissions ?? [];
        return { items, next: page.nextId ?? null, write: (trx) => this.#writeCommissions(trx, program, runId, items, report) };
      });
    }
    if (stage === 'affiliateInvites') {
      stage = await this.#paged(runId, report, 'affiliateInvites', next('affiliateInvites'), startCursor('affiliateInvites'), 0, null, progress, async (c) => {
        const offset = Number(c ?? 0);
        const page = await req.source.get<{ invites?: SourceAffiliateInvite[]; total?: number }>(`/campaign/${id}/affiliate-invites`, { limit: PAGE, offset });
        const items = page.invites ?? [];
        const more = items.length > 0 && offset + items.length < Number(page.total ?? 0);
        return { items, next: more ? String(offset + items.length) : null, write: (trx) => this.#writeSimple(trx, runId, report, 'affiliateInvites', 'affiliate_invites', items, (i) => affiliateInviteRow(i, campaign.id, this.deps.clock.now())) };
      });
    }
    if (stage === 'applications') {
      stage = await this.#paged(runId, report, 'applications', next('applications'), startCursor('applications'), 0, null, progress, async (c) => {
        const offset = Number(c ?? 0);
        const page = await req.source.get<{ applications?: SourceApplication[]; total?: number }>(`/campaign/${id}/affiliate-applications`, { limit: PAGE, offset });
        const items = page.applications ?? [];
        const more = items.length > 0 && offset + items.length < Number(page.total ?? 0);
        return { items, next: more ? String(offset + items.length) : null, write: (trx) => this.#writeSimple(trx, runId, report, 'applications', 'affiliate_applications', items, (a) => applicationRow(a, campaign.id, this.deps.clock.now())) };
      });
    }
    if (stage === 'totals') {
      // Each affiliate's referral revenue and commission total (their leaderboards), as the source's
      // participant analytics (P12) state them: the sales behind them are not listed whole.
      const program = await this.#program(campaign.id);
      stage = await this.#paged(runId, report, 'totals', next('totals'), startCursor('totals'), 0, null, progress, async (c) => {
        const earners: Array<{ referrer_id: string }> = await db
          .knex('commissions')
          .where({ program_id: campaign.id })
          .modify((q) => (c ? q.where('referrer_id', '>', c) : q))
          .distinct('referrer_id')
          .orderBy('referrer_id')
          .limit(PAGE);
        const totals: Array<{ id: string; revenue: number; commissions: number }> = [];
        for (const e of earners) {
          const { analytics: a = {} } = await req.source.get<{ analytics?: { referralRevenue?: number; totalCommissions?: number } }>(`/campaign/${id}/participant/${encodeURIComponent(e.referrer_id)}/analytics`);
          totals.push({ id: e.referrer_id, revenue: Math.max(0, Math.round(Number(a.referralRevenue ?? 0))), commissions: Math.max(0, Math.round(Number(a.totalCommissions ?? 0))) });
        }
        return { items: earners, next: earners.length === PAGE ? earners.at(-1)!.referrer_id : null, write: (trx) => this.#writeTotals(trx, program, totals) };
      });
    }

    if (stage === 'destinations') {
      // Each affiliate's confirmed payout destination (P14: one request per affiliate), so payouts can
      // go on without asking everyone to confirm again; tax details are never listed nor stored.
      stage = await this.#paged(runId, report, 'destinations', next('destinations'), startCursor('destinations'), 0, null, progress, async (c) => {
        const affiliates: Array<{ id: string }> = await db
          .knex('participants')
          .where({ program_id: campaign.id, is_affiliate: true })
          .modify((q) => (c ? q.where('id', '>', c) : q))
          .orderBy('id')
          .limit(PAGE)
          .select('id');
        const found: Array<{ participantId: string; d: SourceDestinations }> = [];
        for (const a of affiliates) found.push({ participantId: a.id, d: await req.source.get<SourceDestinations>(`/campaign/${id}/participant/${encodeURIComponent(a.id)}/payout-destination`) });
        return {
          items: affiliates,
          next: affiliates.length === PAGE ? affiliates.at(-1)!.id : null,
          write: async (trx) => {
            const have = new Set((await trx('payout_destinations').where({ program_id: campaign.id }).whereIn('participant_id', affiliates.map((a) => a.id)).select('participant_id')).map((r: { participant_id: string }) => r.participant_id));
            for (const f of found) {
              const row = destinationRow(f.d, campaign.id, f.participantId, newId(), this.deps.clock.now());
              if (!row) continue;
              if (have.has(f.participantId)) {
                report.counts.destinations.skipped++;
                continue;
              }
              await trx('payout_destinations').insert(row);
              report.counts.destinations.created++;
            }
          },
        };
      });
    }

    if (stage === 'activity') {
      // Each participant's activity log, oldest first as our log keeps it (P13 pages newest first).
      stage = await this.#paged(runId, report, 'activity', next('activity'), startCursor('activity'), 0, null, progress, async (c) => {
        const people: Array<{ id: string }> = await db
          .knex('participants')
          .where({ program_id: campaign.id })
          .modify((q) => (c ? q.where('id', '>', c) : q))
          .orderBy('id')
          .limit(20)
          .select('id');
        const rows: Array<Record<string, unknown>> = [];
        for (const p of people) {
          const log: SourceActivity[] = [];
          for (let offset: number | null = 0; offset !== null; ) {
            const page: { activityLogs?: SourceActivity[]; offset?: number | null } = await req.source.get(`/campaign/${id}/participant/${encodeURIComponent(p.id)}/activity-logs`, { limit: PAGE, offset });
            log.push(...(page.activityLogs ?? []));
            offset = (page.activityLogs ?? []).length && typeof page.offset === 'number' && page.offset > offset ? page.offset : null;
          }
          for (const a of log.reverse()) {
            const row = activityRow(a, campaign.id, p.id);
            if (row) rows.push(row);
          }
        }
        return {
          items: people,
          next: people.length === 20 ? people.at(-1)!.id : null,
          write: async (trx) => {
            // A page written before a stop is not written again: its participants' imported rows are replaced.
            await trx('activity_logs').where({ program_id: campaign.id, action: 'import.activity' }).whereIn('participant_id', people.map((p) => p.id)).del();
            for (const chunk of chunks(rows, 200)) await trx('activity_logs').insert(chunk);
            report.counts.activity.created += rows.length;
          },
        };
      });
    }

    if (stage === 'links') {
      await db.knex.transaction(async (trx) => {
        await this.#linkReferrals(trx, campaign.id);
        // The program's own counters the participants do not carry, as the source counts them.
        await trx('program_counters')
          .where({ program_id: campaign.id })
          .update({ impression_count: Math.max(0, Math.floor(campaign.impressionCount ?? 0)), invite_count: Math.max(0, Math.floor(campaign.inviteCount ?? 0)) });
        await trx('import_runs').where({ id: runId }).update({ stage: 'done', status: 'DONE', mode: 'FULL', cursor: null, counts: JSON.stringify(report.counts), updated_at: this.deps.clock.now(), finished_at: this.deps.clock.now() });
      });
      stage = 'done';
      progress('done', report.counts.participants.created, null);
    }
    report.refusals = await this.#refusals(runId);
    report.requests = req.source.requests;
    return report;
  }

  /** The program row (same id, name, type, status, currency), its counters and the run, in one transaction. */
  async #createProgram(teamId: string, sourceUrl: string, campaign: SourceCampaign, withActivity: boolean): Promise<any> {
    const now = this.deps.clock.now();
    const docs = defaultDocuments(campaign.type, null);
    const status = ['DRAFT', 'IN_PROGRESS', 'COMPLETE'].includes(campaign.status) ? campaign.status : 'DRAFT';
    const run = {
      id: newId(),
      team_id: teamId,
      program_id: campaign.id,
      source_url: sourceUrl.slice(0, 2048),
      source_kind: 'GROWSURF',
      status: 'RUNNING',
      stage: 'documents',
      cursor: null,
      with_activity: withActivity,
      counts: JSON.stringify({ ...zeroCounts(), program: { created: 1, skipped: 0, refused: 0 } }),
      started_at: now,
      updated_at: now,
    };
    await this.deps.db.knex.transaction(async (trx) => {
      // Checked again inside: two importers started at once create it once.
      if (await trx('programs').where({ id: campaign.id }).first('id')) throw new ImportConflictError(`A program with the id ${campaign.id} already exists here; nothing was written.`);
      await trx('programs').insert({
        id: campaign.id,
        team_id: teamId,
        type: campaign.type,
        name: String(campaign.name || campaign.id).slice(0, 255),
        status,
        currency_iso: /^[A-Z]{3}$/.test(campaign.currencyISO ?? '') ? campaign.currencyISO : 'USD',
        goal: null,
        company_name: typeof campaign.companyName === 'string' ? campaign.companyName.slice(0, 255) : null,
        company_logo_image_url: typeof campaign.companyLogoImageUrl === 'string' && /^https?:\/\//.test(campaign.companyLogoImageUrl) ? campaign.companyLogoImageUrl.slice(0, 2048) : null,
        design: JSON.stringify(docs.design),
        emails: JSON.stringify(docs.emails),
        options: JSON.stringify(docs.options),
        installation: JSON.stringify(docs.installation),
        ...(status !== 'DRAFT' ? { launched_at: now } : {}),
        ...(status === 'COMPLETE' ? { ended_at: now } : {}),
        created_at: now,
        updated_at: now,
      });
      await trx('program_counters').insert({ program_id: campaign.id });
      await trx('import_runs').insert(run);
    });
    return run;
  }

  /**
   * Runs a paged stage from `cursor`: each page read from the source, then written with the run's
   * move to its next cursor in one transaction, so a stop between pages resumes at the next one.
   */
  async #paged<T>(
    runId: string,
    report: ProgramImportReport,
    stage: ImportStage,
    then: ImportStage,
    cursor: string | null,
    done: number,
    total: number | null,
    progress: (stage: ImportProgress['stage'], done: number, total: number | null) => void,
    read: (cursor: string | null) => Promise<{ items: T[]; next: string | null; write: (trx: Knex.Transaction) => Promise<void> }>,
  ): Promise<ImportStage> {
    for (;;) {
      const page = await read(cursor);
      const next = page.items.length ? page.next : null;
      await this.deps.db.knex.transaction(async (trx) => {
        await page.write(trx);
        await this.#advance(runId, next ? stage : then, next, report.counts, trx);
      });
      done += page.items.length;
      progress(stage, done, total);
      if (!next) return then;
      cursor = next;
    }
  }

  /** Writes a page of payouts with their ids, states and amounts (their affiliate must have come in). */
  async #writePayouts(trx: Knex.Transaction, program: Program, runId: string, items: SourcePayout[], report: ProgramImportReport): Promise<void> {
    const people = await this.#idsIn(trx, 'participants', items.map((p) => String(p.participantId)), program.id);
    await this.#writeSimple(trx, runId, report, 'payouts', 'payouts', items, (p) =>
      people.has(String(p.participantId)) ? payoutRow(p, program.id, program.currencyISO, this.deps.clock.now()) : { refused: 'Its affiliate was not imported.' },
    );
  }

  /** Writes a page of commissions, each SALE one with the sale rebuilt from it, pointing at the payout that lists it. */
  async #writeCommissions(trx: Knex.Transaction, program: Program, runId: string, items: SourceCommission[], report: ProgramImportReport): Promise<void> {
    if (!items.length) return;
    const here = await this.#idsIn(trx, 'commissions', items.map((c) => String(c.id)));
    const people = await this.#idsIn(trx, 'participants', items.flatMap((c) => [String(c.referrerId), String(c.referredId)]), program.id);
    // Which payout lists each commission: the payouts stage is over, so read once per run, not once per page.
    let payoutOf = this.#payoutOf;
    if (!payoutOf) {
      payoutOf = new Map<string, string>();
      for (const p of await trx('payouts').where({ program_id: program.id }).select('id', 'commission_ids')) for (const cid of JSON.parse(p.commission_ids) as string[]) payoutOf.set(cid, p.id);
      this.#payoutOf = payoutOf;
    }
    // Commissions name no configuration on the wire: the program's first commission reward stands for it.
    const config = await trx('reward_configs').where({ program_id: program.id }).whereNull('deleted_at').orderBy([{ column: 'sort_order' }, { column: 'seq' }]).first('id');
    const sales: Array<Record<string, unknown>> = [];
    const rows: Array<Record<string, unknown>> = [];
    for (const c of items) {
      const refuse = (reason: string) => this.#refuse(trx, runId, report, { kind: 'commissions', sourceId: String(c.id), reason });
      if (here.has(String(c.id))) {
        const m = this.#catchUp && config ? commissionRows(c, { programId: program.id, programCurrency: program.currencyISO, configId: config.id, payoutId: payoutOf.get(String(c.id)) ?? null, now: this.deps.clock.now() }) : null;
        const changed = m && 'commission' in m ? await this.#sync(trx, 'commissions', m.commission, ['transaction_id', 'reward_config_id', 'original_amount']) : false;
        if (changed && c.status === 'REVERSED') {
          // Reversed since the first run: its sale was refunded whole.
          const row = await trx('commissions').where({ id: c.id }).first('transaction_id');
          if (row?.transaction_id) await trx('affiliate_transactions').where({ id: row.transaction_id }).update({ amount_refunded: trx.ref('gross_amount'), amendment_type: 'REFUND' });
        }
        if (changed) report.counts.commissions.updated = (report.counts.commissions.updated ?? 0) + 1;
        else report.counts.commissions.skipped++;
        continue;
      }
      if (!people.has(String(c.referrerId)) || !people.has(String(c.referredId))) {
        await refuse('Its affiliate or customer was not imported.');
        continue;
      }
      if (!config) {
        await refuse('The program has no reward configuration to hold its commission structure.');
        continue;
      }
      const mapped = commissionRows(c, { programId: program.id, programCurrency: program.currencyISO, configId: config.id, payoutId: payoutOf.get(String(c.id)) ?? null, now: this.deps.clock.now() });
      if ('refused' in mapped) {
        await refuse(mapped.refused);
        continue;
      }
      here.add(String(c.id));
      if (mapped.sale) sales.push(mapped.sale);
      rows.push(mapped.commission);
    }
    for (const chunk of chunks(sales, 200)) await trx('affiliate_transactions').insert(chunk);
    for (const chunk of chunks(rows, 200)) await trx('commissions').insert(chunk);
    report.counts.commissions.created += rows.length;
  }

  /**
   * Each affiliate's totals, and the BY_REVENUE and BY_COMMISSIONS leaderboards moved to them. The
   * revenue the source states (gross less refunds) also says what was refunded of sales whose
   * commission was not reversed: that share goes to the sales whose commission fell below the
   * affiliate's own rate, in proportion, so the program's analytics count the same revenue.
   */
  async #writeTotals(trx: Knex.Transaction, program: Program, totals: Array<{ id: string; revenue: number; commissions: number }>): Promise<void> {
    const ledger = new ScoreLedger(program.id);
    for (const t of totals) {
      const row = await trx('participants').where({ id: t.id, program_id: program.id }).first('commission_total', 'revenue_total');
      if (!row) continue;
      await trx('participants').where({ id: t.id }).update({ commission_total: t.commissions, revenue_total: t.revenue });
      ledger.move('BY_COMMISSIONS', Number(row.commission_total), t.commissions);
      ledger.move('BY_REVENUE', Number(row.revenue_total), t.revenue);
      await partialRefunds(trx, program.id, t.id, t.revenue);
    }
    await ledger.flush(trx);
  }

  /** Rows of one kind that map one to one: the new ones inserted, those already here skipped, the rest refused with their reason. */
  async #writeSimple<T extends { id: string }>(
    trx: Knex.Transaction,
    runId: string,
    report: ProgramImportReport,
    kind: ImportKind,
    table: string,
    items: T[],
    map: (item: T) => { row: Record<string, unknown> } | { refused: string },
  ): Promise<void> {
    if (!items.length) return;
    const here = await this.#idsIn(trx, table, items.map((i) => String(i.id)));
    const rows: Array<Record<string, unknown>> = [];
    for (const item of items) {
      if (here.has(String(item.id))) {
        const m = this.#catchUp ? map(item) : null;
        if (m && 'row' in m && (await this.#sync(trx, table, m.row))) report.counts[kind].updated = (report.counts[kind].updated ?? 0) + 1;
        else report.counts[kind].skipped++;
        continue;
      }
      const m = map(item);
      if ('refused' in m) {
        await this.#refuse(trx, runId, report, { kind, sourceId: String(item.id), reason: m.refused });
        continue;
      }
      here.add(String(item.id));
      rows.push(m.row);
    }
    for (const chunk of chunks(rows, 200)) await trx(table).insert(chunk);
    report.counts[kind].created += rows.length;
  }

  /**
   * Catch-up: sets the columns of `row` (by its id) that differ from what is stored, except `keep`
   * and the row's identity and creation time; whether anything changed.
   */
  async #sync(trx: Knex.Transaction, table: string, row: Record<string, unknown>, keep: string[] = []): Promise<boolean> {
    const stored = await trx(table).where({ id: row.id }).first();
    if (!stored) return false;
    const patch: Record<string, unknown> = {};
    for (const [col, value] of Object.entries(row)) {
      if (col === 'id' || col === 'program_id' || col === 'created_at' || col === 'updated_at' || keep.includes(col)) continue;
      if (same(stored[col], value) === false) patch[col] = value;
    }
    if (!Object.keys(patch).length) return false;
    if ('updated_at' in stored && 'updated_at' in row) patch.updated_at = row.updated_at;
    await trx(table).where({ id: row.id }).update(patch);
    return true;
  }

  /** Which of `ids` exist in `table` (in program `programId` when given). */
  async #idsIn(trx: Knex.Transaction, table: string, ids: string[], programId?: string): Promise<Set<string>> {
    const out = new Set<string>();
    for (const chunk of chunks([...new Set(ids)], 500)) {
      const q = trx(table).whereIn('id', chunk);
      if (programId) q.where({ program_id: programId });
      for (const r of await q.select('id')) out.add(r.id);
    }
    return out;
  }

  /**
   * Writes one page of participants: each new, already here, or refused with its reason. The checks
   * and writes are a few statements per page, not per participant (the import of 100,000
   * participants is bounded by the source's rate limit, not by this side).
   */
  async #writeParticipants(trx: Knex.Transaction, program: Program, runId: string, people: SourceParticipant[], report: ProgramImportReport, sourceTime: number | null): Promise<void> {
    if (!people.length) return;
    const now = this.deps.clock.now();
    // The page's monthly counts are those of the month the source was in when it answered (an import
    // that runs across midnight at a month's end keeps them in their month).
    const ctx = { ...rowContext(program, now), monthKey: monthKey(sourceTime ?? now), sourceTime: sourceTime ?? now };
    const ids = people.map((p) => String(p.id));
    const taken = new Map<string, string>((await trx('participants').whereIn('id', ids).select('id', 'program_id')).map((r: { id: string; program_id: string }) => [r.id, r.program_id]));
    const mapped: Array<{ p: SourceParticipant; row: Record<string, unknown>; vanityKeys: string[]; metadata: Record<string, string>; keys: string[] }> = [];
    const changed: SourceParticipant[] = [];
    for (const p of people) {
      const where = taken.get(String(p.id));
      if (where === program.id) {
        if (this.#catchUp) changed.push(p);
        else report.counts.participants.skipped++;
        continue;
      }
      if (where) {
        await this.#refuse(trx, runId, report, { kind: 'participants', sourceId: String(p.id), reason: 'A participant of another program on this refloop has this id.' });
        continue;
      }
      const m = participantRow(p, program.id, ctx);
      if ('refused' in m) await this.#refuse(trx, runId, report, { kind: 'participants', sourceId: String(p.id), reason: m.refused });
      else mapped.push({ p, ...m, keys: [String(m.row.share_key).toLowerCase(), ...m.vanityKeys.map((k) => k.toLowerCase())] });
    }
    // What this program already holds of the page's emails and keys, in three statements.
    const held = await heldBy(trx, program.id, mapped.map((m) => ({ emailKey: String(m.row.email_key), shareKey: String(m.row.share_key), keys: m.keys })));
    const ledger = new ScoreLedger(program.id);
    const rows: Array<Record<string, unknown>> = [];
    const vanity: Array<Record<string, unknown>> = [];
    const meta: Array<Record<string, unknown>> = [];
    const accepted: typeof mapped = [];
    for (const m of mapped) {
      const email = String(m.row.email_key);
      const clash = clashWith(held, email, m.keys);
      if (clash) {
        await this.#refuse(trx, runId, report, { kind: 'participants', sourceId: String(m.p.id), reason: clash });
        continue;
      }
      // Held from now on: a later row of the page with the same email or key clashes with this one.
      held.emails.add(email);
      for (const k of m.keys) held.keys.add(k);
      rows.push(m.row);
      for (const k of m.vanityKeys) vanity.push({ program_id: program.id, key_lower: k.toLowerCase(), participant_id: m.p.id });
      for (const [meta_key, value] of Object.entries(m.metadata)) meta.push({ participant_id: m.p.id, program_id: program.id, meta_key, value, value_hash: valueHash(value) });
      addScores(ledger, m.row, now);
      accepted.push(m);
    }
    for (const chunk of chunks(rows, 200)) await trx('participants').insert(chunk);
    for (const chunk of chunks(vanity, 500)) await trx('participant_vanity_keys').insert(chunk);
    for (const chunk of chunks(meta, 500)) await trx('participant_metadata').insert(chunk);
    report.counts.participants.created += rows.length;
    const updated = changed.length ? await this.#updateParticipants(trx, program, runId, changed, ctx, ledger, report) : [];
    await this.#writeRewards(trx, program, runId, [...accepted.map((m) => ({ p: m.p, joinedAt: Number(m.row.created_at) })), ...updated], report);
    await ledger.flush(trx);
  }

  /**
   * Catch-up: participants already here whose listed fields changed on the source get the source's
   * values, with their scores moved on the leaderboards and their vanity keys and metadata index kept
   * in step. Returns each with its sign-up time (for their new rewards).
   */
  async #updateParticipants(
    trx: Knex.Transaction,
    program: Program,
    runId: string,
    people: SourceParticipant[],
    ctx: ReturnType<typeof rowContext> & { monthKey: number; sourceTime: number },
    ledger: ScoreLedger,
    report: ProgramImportReport,
  ): Promise<Array<{ p: SourceParticipant; joinedAt: number }>> {
    const now = this.deps.clock.now();
    const rows = new Map<string, Record<string, unknown>>((await trx('participants').whereIn('id', people.map((p) => p.id))).map((r: Record<string, unknown>) => [String(r.id), r]));
    const out: Array<{ p: SourceParticipant; joinedAt: number }> = [];
    for (const p of people) {
      const old = rows.get(p.id)!;
      out.push({ p, joinedAt: Number(old.created_at) });
      const m = participantRow(p, program.id, ctx);
      if ('refused' in m) {
        await this.#refuse(trx, runId, report, { kind: 'participants', sourceId: p.id, reason: m.refused });
        continue;
      }
      const patch: Record<string, unknown> = {};
      for (const col of PARTICIPANT_SYNCED) if (same(old[col], m.row[col]) === false) patch[col] = m.row[col];
      // The referral's time stays what it was unless the referrer changed.
      if (!('referred_by' in patch)) {
        delete patch.referred_at;
        delete patch.credited_at;
      }
      // A referral credited since the first run was credited about when the source answered.
      if ('referral_status' in patch && patch.referral_status === 'CREDIT_AWARDED') patch.credited_at = ctx.sourceTime;
      if ('recent_referrals' in patch) patch.recent_referrals_at = null;
      if (!Object.keys(patch).length) {
        report.counts.participants.skipped++;
        continue;
      }
      if ('vanity_keys' in patch) {
        const lowers = m.vanityKeys.map((k) => k.toLowerCase());
        const other =
          lowers.length &&
          ((await trx('participant_vanity_keys').where({ program_id: program.id }).whereIn('key_lower', lowers).whereNot('participant_id', p.id).first('key_lower')) ||
            (await trx('participants').where({ program_id: program.id }).whereIn('share_key', lowers).whereNot('id', p.id).first('id')));
        if (other) {
          await this.#refuse(trx, runId, report, { kind: 'participants', sourceId: p.id, reason: 'Its new vanity keys are another participant’s keys here; it was left as it was.' });
          continue;
        }
        await trx('participant_vanity_keys').where({ participant_id: p.id }).del();
        if (lowers.length) await trx('participant_vanity_keys').insert(lowers.map((key_lower) => ({ program_id: program.id, key_lower, participant_id: p.id })));
      }
      if ('metadata' in patch) await writeMetadata(trx, program.id, p.id, parseJson<Record<string, string>>(old.metadata as string | null, {}), m.metadata);
      await trx('participants').where({ id: p.id }).update({ ...patch, updated_at: now });
      // Scores: off the boards as they were, onto them as they are.
      const next = { ...old, ...patch };
      addScores(ledger, old, now, -1);
      addScores(ledger, next, now, 1);
      report.counts.participants.updated = (report.counts.participants.updated ?? 0) + 1;
    }
    return out;
  }

  /** Writes a page of email invites with their ids (an invite's sender must have come in). */
  async #writeInvites(trx: Knex.Transaction, programId: string, runId: string, invites: SourceInvite[], report: ProgramImportReport): Promise<void> {
    if (!invites.length) return;
    const here = new Set((await trx('invites').whereIn('id', invites.map((i) => String(i.id))).select('id')).map((r: { id: string }) => r.id));
    const senders = new Set((await trx('participants').where({ program_id: programId }).whereIn('id', invites.map((i) => String(i.referredBy))).select('id')).map((r: { id: string }) => r.id));
    const rows: Array<Record<string, unknown>> = [];
    const pairs = new Set<string>();
    for (const i of invites) {
      const refuse = (reason: string) => this.#refuse(trx, runId, report, { kind: 'invites', sourceId: String(i.id), reason });
      if (here.has(String(i.id))) {
        report.counts.invites.skipped++;
        continue;
      }
      if (!keepableId(i.id)) {
        await refuse('Its id is not one refloop can keep.');
        continue;
      }
      if (!senders.has(String(i.referredBy))) {
        await refuse('Its sender was not imported.');
        continue;
      }
      const email = typeof i.email === 'string' ? i.email.trim() : '';
      const pair = `${i.referredBy}|${email.toLowerCase()}`;
      if (!email || email.length > 254 || pairs.has(pair) || (await trx('invites').where({ program_id: programId, participant_id: i.referredBy, email_key: email.toLowerCase() }).first('id'))) {
        await refuse(email ? 'Its sender already invited this address here.' : 'It has no email address.');
        continue;
      }
      pairs.add(pair);
      const createdAt = typeof i.createdAt === 'number' ? i.createdAt : this.deps.clock.now();
      rows.push({
        id: i.id,
        program_id: programId,
        participant_id: i.referredBy,
        email,
        email_key: email.toLowerCase(),
        status: 'INVITE_SENT',
        send_count: 1,
        last_sent_at: createdAt,
        created_at: createdAt,
        updated_at: typeof i.updatedAt === 'number' ? i.updatedAt : createdAt,
      });
    }
    for (const chunk of chunks(rows, 200)) await trx('invites').insert(chunk);
    report.counts.invites.created += rows.length;
  }

  /** A participant's list shows its newest 100 rewards: for one with more, the whole list from PR1's pages. */
  async #completeRewards(source: GrowSurfSource, programId: string, people: SourceParticipant[]): Promise<void> {
    for (const p of people) {
      if (!Array.isArray(p.rewards) || p.rewards.length < 100) continue;
      const all: SourceReward[] = [];
      let nextId: string | undefined;
      do {
        const page = await source.get<{ rewards?: SourceReward[]; nextId?: string | null }>(`/campaign/${encodeURIComponent(programId)}/participant/${encodeURIComponent(p.id)}/rewards`, { limit: 100, nextId });
        all.push(...(page.rewards ?? []));
        nextId = page.nextId ?? undefined;
      } while (nextId);
      p.rewards = all;
    }
  }

  /**
   * The rewards the page's participants received, with their ids, states and times. The API does not
   * say when a reward was issued: they keep their order (newest first) on times just after the
   * sign-up. Each gets the issue key our engine would have given it, so the same occasion never
   * earns it again.
   */
  async #writeRewards(trx: Knex.Transaction, program: Program, runId: string, people: Array<{ p: SourceParticipant; joinedAt: number }>, report: ProgramImportReport): Promise<void> {
    const all = people.flatMap(({ p, joinedAt }) => (Array.isArray(p.rewards) ? p.rewards.map((r, i, list) => ({ r, recipient: p.id, at: joinedAt + (list.length - i) })) : []));
    if (!all.length) return;
    // Issued rewards name their configuration; its type decides the issue key.
    const configs = new Map<string, string>((await trx('reward_configs').where({ program_id: program.id }).select('id', 'type')).map((c: { id: string; type: string }) => [c.id, c.type]));
    const ids = all.map(({ r }) => String(r.id));
    const here = new Set<string>();
    for (const chunk of chunks(ids, 500)) for (const r of await trx('participant_rewards').whereIn('id', chunk).select('id')) here.add(r.id);
    const candidates = all.map(({ r, recipient, at }) => {
      const type = configs.get(String(r.rewardId));
      const referrerId = typeof r.referrerId === 'string' ? r.referrerId : null;
      const referredId = typeof r.referredId === 'string' ? r.referredId : null;
      const key =
        (type === 'SINGLE_SIDED' || type === 'DOUBLE_SIDED') && referrerId && referredId
          ? r.isReferrer
            ? `${r.rewardId}:${referrerId}:ref:${referredId}`
            : `${r.rewardId}:${referredId}:friend`
          : `import:${r.id}`;
      return { r, recipient, at, type, referrerId, referredId, key };
    });
    const keys = new Set<string>();
    for (const chunk of chunks(candidates.map((c) => c.key), 500)) for (const r of await trx('participant_rewards').whereIn('issue_key', chunk).select('issue_key')) keys.add(r.issue_key);
    const rows: Array<Record<string, unknown>> = [];
    for (const c of candidates) {
      const { r } = c;
      const refuse = (reason: string) => this.#refuse(trx, runId, report, { kind: 'issuedRewards', sourceId: String(r.id), reason });
      if (!keepableId(r.id)) {
        await refuse('Its id is not one refloop can keep.');
        continue;
      }
      if (here.has(r.id)) {
        const fulfilled = r.status === 'FULFILLED' || r.isFulfilled === true;
        const changed =
          this.#catchUp &&
          (await this.#sync(trx, 'participant_rewards', {
            id: r.id,
            status: fulfilled ? 'FULFILLED' : 'PENDING',
            approved: !!r.approved,
            approved_at: typeof r.approvedAt === 'number' ? r.approvedAt : null,
            fulfilled_at: typeof r.fulfilledAt === 'number' ? r.fulfilledAt : null,
            is_available: !!r.isAvailable,
            unread: r.unread !== false,
            amount: typeof r.amount === 'number' && Number.isFinite(r.amount) ? r.amount : null,
          }));
        if (changed) report.counts.issuedRewards.updated = (report.counts.issuedRewards.updated ?? 0) + 1;
        else report.counts.issuedRewards.skipped++;
        continue;
      }
      if (!c.type) {
        await refuse(`Its reward configuration ${String(r.rewardId).slice(0, 40)} is not among the source's configurations (deleted there, or refused here).`);
        continue;
      }
      here.add(r.id);
      const key = keys.has(c.key) ? `import:${r.id}` : c.key;
      keys.add(key);
      const fulfilled = r.status === 'FULFILLED' || r.isFulfilled === true;
      rows.push({
        id: r.id,
        program_id: program.id,
        participant_id: c.recipient,
        reward_config_id: r.rewardId,
        issue_key: key,
        status: fulfilled ? 'FULFILLED' : 'PENDING',
        approved: !!r.approved,
        approved_at: typeof r.approvedAt === 'number' ? r.approvedAt : null,
        fulfilled_at: typeof r.fulfilledAt === 'number' ? r.fulfilledAt : null,
        is_available: !!r.isAvailable,
        is_referrer: !!r.isReferrer,
        referrer_id: c.referrerId,
        referred_id: c.referredId,
        unread: r.unread !== false,
        amount: typeof r.amount === 'number' && Number.isFinite(r.amount) ? r.amount : null,
        currency_iso: typeof r.currencyISO === 'string' && /^[A-Z]{3}$/.test(r.currencyISO) ? r.currencyISO : null,
        commission_structure: r.commissionStructure ? JSON.stringify(r.commissionStructure) : null,
        created_at: c.at,
        deleted_at: null,
      });
    }
    for (const chunk of chunks(rows, 200)) await trx('participant_rewards').insert(chunk);
    report.counts.issuedRewards.created += rows.length;
  }

  /**
   * Each referrer's recent-referrals list in the source's own order (its `referrals`, newest first,
   * kept at insert), with each referral's time from the referred row; a referral that was not
   * imported leaves the list.
   */
  async #linkReferrals(trx: Knex.Transaction, programId: string): Promise<void> {
    const referred: Array<{ id: string; referred_at: number }> = await trx('participants').where({ program_id: programId }).whereNotNull('referred_by').select('id', 'referred_at');
    const at = new Map(referred.map((r) => [r.id, Number(r.referred_at)]));
    const referrers: Array<{ id: string; recent_referrals: string }> = await trx('participants').where({ program_id: programId }).whereNotNull('recent_referrals').whereNull('recent_referrals_at').select('id', 'recent_referrals');
    for (const r of referrers) {
      const list = r.recent_referrals
        .split(',')
        .filter((id) => at.has(id))
        .map((id) => [id, at.get(id)!] as [string, number]);
      await trx('participants').where({ id: r.id }).update(encodeRecent(list));
    }
  }

  /** Everything a real run would do, read and checked, nothing written. */
  async #dryRun(req: ImportRequest, campaign: SourceCampaign, report: ProgramImportReport, run: any): Promise<ProgramImportReport> {
    const id = encodeURIComponent(campaign.id);
    const here = run ? await this.#program(campaign.id) : null;
    if (!run) report.counts.program.created = 1;
    const stage: ImportStage = run?.stage ?? 'documents';
    const after = (s: ImportStage) => IMPORT_STAGES.indexOf(stage) > IMPORT_STAGES.indexOf(s);
    for (const kind of DOCUMENTS) {
      const doc = await req.source.get<Record<string, unknown>>(`/campaign/${id}/${kind}`);
      if (after('documents')) report.counts.documents.skipped++;
      else {
        // The same merge and rules a real run applies, over the program as it would be.
        const program = here ?? ({ ...toProgram({ id: campaign.id, team_id: req.teamId, type: campaign.type, name: campaign.name, status: 'DRAFT', currency_iso: 'USD', goal: null, created_at: 0, updated_at: 0 }, defaultDocuments(campaign.type, null)) } as Program);
        try {
          this.deps.programConfig.draft(program, kind, importableDocument(kind, doc));
          report.counts.documents.created++;
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          report.counts.documents.refused++;
          report.refusals.push({ kind: 'documents', sourceId: kind, reason: refusalText(err) });
        }
      }
    }
    const list = await req.source.get<{ rewards?: CampaignReward[] } | CampaignReward[]>(`/campaign/${id}/reward-configs`);
    const have = here ? new Set((await this.deps.db.knex('reward_configs').where({ program_id: campaign.id }).select('id')).map((r: { id: string }) => r.id)) : new Set<string>();
    for (const r of Array.isArray(list) ? list : (list.rewards ?? [])) {
      if (have.has(r.id)) report.counts.rewards.skipped++;
      else {
        const body = rewardBody(r);
        if ('refused' in body) {
          report.counts.rewards.refused++;
          report.refusals.push({ kind: 'rewards', sourceId: String(r.id), reason: body.refused });
        } else report.counts.rewards.created++;
      }
    }
    // Participants: the same checks, against this refloop and against the rows the run would add before each one.
    const ctx = rowContext(here ?? ({ type: campaign.type, documents: defaultDocuments(campaign.type, null) } as Program), this.deps.clock.now());
    const emails = new Set<string>();
    const keys = new Set<string>();
    /** Participants that would be here after the run: senders, affiliates and customers the other lists name. */
    const arriving = new Set<string>();
    let cursor: string | undefined;
    let done = 0;
    for (;;) {
      const page = await req.source.get<{ participants?: SourceParticipant[]; nextId?: string | null }>(`/campaign/${id}/participants`, { limit: PAGE, nextId: cursor });
      const people = page.participants ?? [];
      const taken = new Map<string, string>(people.length ? (await this.deps.db.knex('participants').whereIn('id', people.map((p) => String(p.id))).select('id', 'program_id')).map((r: { id: string; program_id: string }) => [r.id, r.program_id]) : []);
      const refuse = (p: SourceParticipant, reason: string) => {
        report.counts.participants.refused++;
        report.refusals.push({ kind: 'participants', sourceId: String(p.id), reason });
      };
      const candidates: Array<{ p: SourceParticipant; row: Record<string, unknown>; keys: string[] }> = [];
      for (const p of people) {
        const where = taken.get(String(p.id));
        if (where === campaign.id) {
          report.counts.participants.skipped++;
          arriving.add(String(p.id));
          continue;
        }
        if (where) {
          refuse(p, 'A participant of another program on this refloop has this id.');
          continue;
        }
        const mapped = participantRow(p, campaign.id, ctx);
        if ('refused' in mapped) refuse(p, mapped.refused);
        else candidates.push({ p, row: mapped.row, keys: [String(mapped.row.share_key).toLowerCase(), ...mapped.vanityKeys.map((k) => k.toLowerCase())] });
      }
      // The same rule a run applies against what the program here holds (when it exists), then the source's own duplicates.
      const held = here ? await heldBy(this.deps.db.knex, campaign.id, candidates.map((c) => ({ emailKey: String(c.row.email_key), shareKey: String(c.row.share_key), keys: c.keys }))) : { emails: new Set<string>(), keys: new Set<string>() };
      for (const { p, row, keys: lowers } of candidates) {
        const clash = clashWith(held, String(row.email_key), lowers) || (emails.has(String(row.email_key)) ? 'Another participant of the source has this email address.' : null) || (lowers.some((k) => keys.has(k)) ? 'Another participant of the source holds one of its share or vanity keys.' : null);
        if (clash) {
          refuse(p, clash);
          continue;
        }
        emails.add(String(row.email_key));
        for (const k of lowers) keys.add(k);
        arriving.add(String(p.id));
        report.counts.participants.created++;
      }
      done += people.length;
      req.onProgress?.({ programId: campaign.id, stage: 'participants', done, total: campaign.participantCount ?? null });
      if (!page.nextId || !people.length) break;
      cursor = page.nextId;
    }

    // The other lists: each record checked by the same rules, against the participants that would be here.
    const tally = async (kind: ImportKind, table: string, items: Array<{ id: string }>, why: (item: any) => string | null) => {
      const here = items.length ? new Set((await this.deps.db.knex(table).whereIn('id', items.map((i) => String(i.id))).select('id')).map((r: { id: string }) => r.id)) : new Set<string>();
      for (const item of items) {
        if (here.has(String(item.id))) {
          report.counts[kind].skipped++;
          continue;
        }
        const reason = why(item);
        if (reason) {
          report.counts[kind].refused++;
          report.refusals.push({ kind, sourceId: String(item.id), reason });
        } else report.counts[kind].created++;
      }
    };
    const refusedOf = (m: { refused: string } | object) => ('refused' in m ? (m as { refused: string }).refused : null);
    const hooks = await req.source.get<{ webhooks?: SourceWebhook[] } | SourceWebhook[]>(`/campaign/${id}/webhooks`);
    await tally('webhooks', 'webhooks', Array.isArray(hooks) ? hooks : (hooks.webhooks ?? []), (h: SourceWebhook) => badId(h.id) ?? (typeof h.payloadUrl === 'string' && !/^https?:\/\//i.test(h.payloadUrl) ? 'Its payload URL is not an http(s) URL.' : null));
    const now = this.deps.clock.now();
    const resources = await req.source.get<{ resources?: SourceResource[] } | SourceResource[]>(`/campaign/${id}/resources`);
    await tally('resources', 'program_resources', Array.isArray(resources) ? resources : (resources.resources ?? []), (r: SourceResource) => refusedOf(resourceRow(r, campaign.id, now)));
    const pages = async <T>(path: string, field: string, check: (items: T[]) => Promise<void>, offsetPaged = false) => {
      let c: string | undefined;
      for (;;) {
        const page = await req.source.get<Record<string, any>>(path, offsetPaged ? { limit: PAGE, offset: Number(c ?? 0) } : { limit: PAGE, nextId: c });
        const items = (page[field] ?? []) as T[];
        await check(items);
        const next = offsetPaged ? (items.length && Number(c ?? 0) + items.length < Number(page.total ?? 0) ? String(Number(c ?? 0) + items.length) : null) : page.more === false ? null : (page.nextId ?? null);
        if (!items.length || !next) return;
        c = next;
      }
    };
    await pages<SourceInvite>(`/campaign/${id}/referrals`, 'referrals', (rows) =>
      tally('invites', 'invites', rows.filter((r) => r.referralStatus === 'INVITE_SENT'), (i: SourceInvite) => badId(i.id) ?? (arriving.has(String(i.referredBy)) ? null : 'Its sender would not be imported.')),
    );
    if (campaign.type === 'AFFILIATE') {
      const currency = here?.currencyISO ?? (campaign.currencyISO || 'USD');
      await pages<SourcePayout>(`/campaign/${id}/payouts`, 'payouts', (items) =>
        tally('payouts', 'payouts', items, (p: SourcePayout) => (arriving.has(String(p.participantId)) ? refusedOf(payoutRow(p, campaign.id, currency, now)) : 'Its affiliate would not be imported.')),
      );
      await pages<SourceCommission>(`/campaign/${id}/commissions`, 'commissions', (items) =>
        tally('commissions', 'commissions', items, (c: SourceCommission) =>
          arriving.has(String(c.referrerId)) && arriving.has(String(c.referredId)) ? refusedOf(commissionRows(c, { programId: campaign.id, programCurrency: currency, configId: 'x', payoutId: null, now })) : 'Its affiliate or customer would not be imported.',
        ),
      );
      await pages<SourceAffiliateInvite>(`/campaign/${id}/affiliate-invites`, 'invites', (items) => tally('affiliateInvites', 'affiliate_invites', items, (i) => refusedOf(affiliateInviteRow(i, campaign.id, now))), true);
      await pages<SourceApplication>(`/campaign/${id}/affiliate-applications`, 'applications', (items) => tally('applications', 'affiliate_applications', items, (a) => refusedOf(applicationRow(a, campaign.id, now))), true);
    }
    report.requests = req.source.requests;
    return report;
  }

  async #program(id: string): Promise<Program> {
    return toProgram(await this.deps.db.knex('programs').where({ id }).first());
  }

  /** Moves the run to `stage` with `cursor` (inside `trx` when given: with the rows it covers). */
  async #advance(runId: string, stage: ImportStage, cursor: string | null, counts: Record<ImportKind, KindCounts>, trx?: Knex.Transaction): Promise<ImportStage> {
    await (trx ?? this.deps.db.knex)('import_runs').where({ id: runId }).update({ stage, cursor, counts: JSON.stringify(counts), updated_at: this.deps.clock.now() });
    return stage;
  }

  async #refuse(trx: Knex.Transaction, runId: string, report: ProgramImportReport, r: Refusal): Promise<void> {
    report.counts[r.kind].refused++;
    await trx('import_refusals')
      .insert({ run_id: runId, kind: r.kind, source_id: r.sourceId.slice(0, 255), reason: r.reason.slice(0, 1000), created_at: this.deps.clock.now() })
      .onConflict(['run_id', 'kind', 'source_id'])
      .merge(['reason']);
  }

  async #refusals(runId: string): Promise<Refusal[]> {
    const rows = await this.deps.db.knex('import_refusals').where({ run_id: runId }).orderBy([{ column: 'kind' }, { column: 'source_id' }]);
    return rows.map((r: { kind: ImportKind; source_id: string; reason: string }) => ({ kind: r.kind, sourceId: r.source_id, reason: r.reason }));
  }
}

/** Spreads an affiliate's refunds not shown by reversed commissions over the sales whose commission shrank (see `#writeTotals`). */
async function partialRefunds(trx: Knex.Transaction, programId: string, affiliateId: string, revenue: number): Promise<void> {
  const sales: Array<{ id: string; gross: number; inCampaign: number; refunded: number; amount: number; saleAmount: number | null; status: string }> = (
    await trx('affiliate_transactions as t')
      .join('commissions as c', 'c.transaction_id', 't.id')
      .where({ 't.program_id': programId, 't.referrer_id': affiliateId })
      .select('t.id', 't.gross_amount as gross', 't.gross_amount_in_campaign_currency as inCampaign', 't.amount_refunded as refunded', 'c.amount', 'c.sale_amount as saleAmount', 'c.status')
  ).map((r: Record<string, unknown>) => ({ id: String(r.id), gross: Number(r.gross), inCampaign: Number(r.inCampaign), refunded: Number(r.refunded), amount: Number(r.amount), saleAmount: r.saleAmount == null ? null : Number(r.saleAmount), status: String(r.status) }));
  const counted = sales.reduce((n, s) => n + s.inCampaign - (s.gross ? Math.round((s.inCampaign * s.refunded) / s.gross) : 0), 0);
  let missing = counted - revenue;
  if (missing <= 0) return;
  const rate = (s: (typeof sales)[number]) => (s.saleAmount ? s.amount / s.saleAmount : 0);
  const top = Math.max(0, ...sales.filter((s) => s.status !== 'REVERSED' && s.status !== 'DELETED').map(rate));
  const shrunk = sales.filter((s) => s.status !== 'REVERSED' && s.status !== 'DELETED' && top > 0 && rate(s) < top && s.refunded < s.gross);
  for (const [i, s] of shrunk.entries()) {
    const estimate = Math.round(s.inCampaign * (1 - rate(s) / top));
    const share = Math.min(missing, i === shrunk.length - 1 ? missing : estimate, s.inCampaign);
    if (share <= 0) continue;
    const refunded = Math.min(s.gross, s.refunded + Math.round((share * s.gross) / (s.inCampaign || 1)));
    await trx('affiliate_transactions').where({ id: s.id }).update({ amount_refunded: refunded, amendment_type: 'REFUND' });
    missing -= share;
    if (missing <= 0) return;
  }
}

/** Sets referred participants' `updated_at` to the time the source's referrals list shows (one statement). */
async function touchReferred(trx: Knex.Transaction, programId: string, rows: SourceInvite[]): Promise<void> {
  const known = rows.filter((r) => typeof r.id === 'string' && typeof r.updatedAt === 'number' && Number.isFinite(r.updatedAt));
  if (!known.length) return;
  const cases = known.map(() => 'WHEN ? THEN CAST(? AS bigint)').join(' ');
  await trx.raw(`UPDATE participants SET updated_at = CASE id ${cases} END WHERE program_id = ? AND id IN (${known.map(() => '?').join(', ')})`, [
    ...known.flatMap((r) => [r.id, Math.floor(r.updatedAt!)]),
    programId,
    ...known.map((r) => r.id),
  ]);
}

/** `list` in pieces of at most `size` (multi-row inserts within every database's parameter limit). */
function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** What a row needs to know of its program. */
function rowContext(program: Pick<Program, 'type' | 'documents'>, now: number) {
  const langs = programLanguages(program as Program);
  return { now, monthKey: monthKey(now), baseLanguage: langs.base, languages: langs.all, affiliate: program.type === 'AFFILIATE' };
}

/** What program `programId` already holds of some rows' emails and keys (lower-cased), in three statements. */
async function heldBy(q: Knex | Knex.Transaction, programId: string, rows: Array<{ emailKey: string; shareKey: string; keys: string[] }>): Promise<{ emails: Set<string>; keys: Set<string> }> {
  const held = { emails: new Set<string>(), keys: new Set<string>() };
  if (!rows.length) return held;
  const all = [...new Set(rows.flatMap((r) => [...r.keys, r.shareKey]))];
  for (const r of await q('participants').where({ program_id: programId }).whereIn('email_key', rows.map((x) => x.emailKey)).select('email_key')) held.emails.add(r.email_key);
  for (const r of await q('participant_vanity_keys').where({ program_id: programId }).whereIn('key_lower', all).select('key_lower')) held.keys.add(r.key_lower);
  for (const r of await q('participants').where({ program_id: programId }).whereIn('share_key', all).select('share_key')) held.keys.add(String(r.share_key).toLowerCase());
  return held;
}

/** Why a row with `emailKey` and `keys` (lower-cased) cannot come in beside what is `held`, or null. */
function clashWith(held: { emails: Set<string>; keys: Set<string> }, emailKey: string, keys: string[]): string | null {
  if (held.emails.has(emailKey)) return 'Another participant of the program here has this email address.';
  const key = keys.find((k) => held.keys.has(k));
  return key ? `The key ${key} is already another participant's share or vanity key here.` : null;
}

/**
 * Puts a row's scores on the leaderboards' histograms and counts it in the program's counters
 * (`sign` -1 takes them off again: a catch-up moves a changed row off as it was, then on as it is).
 */
function addScores(ledger: ScoreLedger, row: Record<string, unknown>, now: number, sign: 1 | -1 = 1): void {
  const put = (board: string, score: number) => (sign > 0 ? ledger.move(board, 0, score) : ledger.move(board, score, 0));
  for (const board of COLUMN_BOARD_NAMES) put(boardSpec(board, now).histogram, boardSpec(board, now).scoreOf(row as never));
  // The month boards of the row's own month (the source's month when it answered).
  const month = Number(row.month_key);
  put(monthBoard(month), Number(row.monthly_referral_count));
  put(monthBoard(month - 1), Number(row.prev_monthly_referral_count));
  // As the sign-up and credit paths count them: one participant, and the credited referrals they made.
  ledger.count(sign, sign * Number(row.referral_count));
  if (row.is_winner === true || Number(row.is_winner) === 1) ledger.winners(sign);
}

/** Participant columns a catch-up run brings up to the source's values. */
const PARTICIPANT_SYNCED = [
  'first_name', 'last_name', 'referred_by', 'referral_status', 'referral_source', 'referred_at', 'credited_at',
  'referral_count', 'month_key', 'monthly_referral_count', 'prev_monthly_referral_count', 'lead_count', 'impression_count',
  'unique_impression_count', 'invite_count', 'fraud_risk_level', 'fraud_reason_code', 'is_winner', 'ip_address', 'fingerprint',
  'mobile_instance_id', 'notes', 'unsubscribed', 'language', 'paypal_email', 'is_affiliate', 'affiliate_status',
  'affiliate_enrollment_source', 'unread_commissions_count', 'unread_payouts_count', 'vanity_keys', 'share_count', 'metadata', 'recent_referrals',
];

/** Whether a stored value and a mapped one are the same (SQLite's booleans are 0/1, PostgreSQL's bigints strings); undefined when the column is not mapped. */
function same(stored: unknown, mapped: unknown): boolean | undefined {
  if (mapped === undefined) return undefined;
  const norm = (v: unknown) => (v === null || v === undefined ? null : typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
  return norm(stored) === norm(mapped);
}

/**
 * A document as the source's GET shows it, as a PATCH of the whole document: values the GET shows
 * but a PATCH may not set (derived or read-only) are dropped; secrets the GET never shows stay unset
 * (docs/migrating.md).
 */
export function importableDocument(kind: DocumentKind, doc: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(doc ?? {}) as Record<string, unknown>;
  // Fields this server owns (its sender address, its mobile key, when a reminder was switched on).
  for (const path of READ_ONLY_FIELDS[kind]) {
    const parts = path.split('.');
    let node: unknown = out;
    for (const part of parts.slice(0, -1)) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
    if (node && typeof node === 'object') delete (node as Record<string, unknown>)[parts.at(-1)!];
  }
  return out;
}

/** A source reward configuration as the create body our rules check, or why it cannot be one. */
function rewardBody(r: CampaignReward): { body: RewardConfigCreate } | { refused: string } {
  if (typeof r?.id !== 'string' || !/^[A-Za-z0-9_-]{1,40}$/.test(r.id)) return { refused: 'Its id is not one refloop can keep.' };
  const shape = rewardConfigCreate.shape as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    if (!(k in shape) || v === null || v === undefined) continue;
    body[k] = v;
  }
  if (r.isUnlimited) delete body.limit;
  const parsed = rewardConfigCreate.safeParse(body);
  if (!parsed.success) return { refused: parsed.error.issues.map((i) => `${i.path.join('.') || 'reward'}: ${i.message}`).join('; ').slice(0, 900) };
  return { body: parsed.data };
}

/** An AppError's message with its field problems, for a refusal line. */
function refusalText(err: AppError): string {
  const fields = err.errors;
  return (fields?.length ? fields.map((f) => `${f.field}: ${f.message}`).join('; ') : err.message).slice(0, 900);
}
