// Moving a program in from the console (issue #33 part 5): the same `ProgramImports.importProgram`
// the CLI drives, run as a background job so it outlives the request and the process. The job
// works in slices of at most `sliceMs` of wall time, each ending at a committed page and queuing
// the next, so a long import never holds the job runner from mail and webhook deliveries; a slice
// cut short by a dead process is claimed again when its lease lapses, and each slice resumes the run
// (`resume: true`) where the last commit left it. The source's key is sealed in `console_imports`
// while the run needs it and cleared when it ends; the webhook secrets it made wait there sealed
// for their one read.
import { performance } from 'node:perf_hooks';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import { newId, type Sealer } from '../../crypto.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { csvLine } from '../../../shared/csv.ts';
import type { Jobs } from '../platform/jobs.ts';
import type { LookupFunction } from 'node:net';
import { checkTarget, pinnedLookup, TargetRefusedError } from '../platform/ssrf.ts';
import { GrowSurfSource, SourceError, type SourceOptions } from './source.ts';
import { zeroCounts, type ImportKind, type ImportProgress, type KindCounts, type ProgramImports, type Refusal } from './growsurf-import.ts';
import { type ImportProgressView, type ImportSourceBody, type ImportSourcePrograms, type ImportStartBody } from '../../../shared/schemas/imports.ts';

/** The job type of a console import's slices. */
export const IMPORT_JOB = 'import.growsurf';
/** Wall time one slice may run before it stops at the next committed page. */
export const SLICE_MS = 20_000;
/** Runs of a slice that keeps failing on a source that is down, before the import is marked failed. */
const MAX_ATTEMPTS = 6;
/** Dry-run refusals kept for the CSV (the counts stay exact past it). */
const MAX_KEPT_REFUSALS = 10_000;
/** How often progress is written while a slice runs. */
const PROGRESS_EVERY_MS = 1_000;

/** What the console imports are built from. */
export interface ConsoleImportDeps {
  db: Db;
  clock: Clock;
  config: Config;
  log: Logger;
  jobs: Jobs;
  sealer: Sealer;
  imports: ProgramImports;
}

/** Who asks: the team, and the person (or API key) whose import it is. */
export interface ImportCaller {
  teamId: string;
  /** The owner's user id, or `key:<api key id>` for an API key. */
  who: string;
}

/** Thrown by the sliced source at the first request after a slice's time is up. */
class SliceEnded extends Error {}

/** A source whose every request first runs `before` (write what is pending, end the slice when due). */
class SlicedSource extends GrowSurfSource {
  constructor(
    opts: SourceOptions,
    private readonly before: () => Promise<void>,
  ) {
    super(opts);
  }

  override async get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    await this.before();
    return super.get<T>(path, query);
  }
}


/** Console imports: the source's programs, starting one, its progress, refusals and secrets. */
export class ConsoleImports {
  /** Wall time per slice (tests set 0: every slice ends at its first committed page). */
  sliceMs = SLICE_MS;

  constructor(private readonly deps: ConsoleImportDeps) {}

  /** Registers the job that runs the slices. */
  register(): void {
    this.deps.jobs.register(IMPORT_JOB, (payload: { programId: string }, ctx) => this.#slice(String(payload.programId), ctx.attempt));
  }

  /** The source's programs (GET /campaigns), each marked when its id is already a program here. */
  async sourcePrograms(body: ImportSourceBody): Promise<ImportSourcePrograms> {
    const source = await this.#source(body);
    let list: unknown;
    try {
      list = await source.get('/campaigns');
    } catch (err) {
      throw sourceProblem(err, body.sourceUrl);
    }
    const raw = Array.isArray(list) ? list : Array.isArray((list as { campaigns?: unknown })?.campaigns) ? (list as { campaigns: unknown[] }).campaigns : null;
    if (!raw) throw new ValidationError(`${body.sourceUrl} does not answer as a GrowSurf v2 API does (its program list has no campaigns).`, [{ field: 'sourceUrl', code: 'NOT_A_SOURCE', message: 'This address does not answer as a GrowSurf v2 API does.' }]);
    const programs = raw
      .filter((c): c is Record<string, unknown> => !!c && typeof c === 'object' && typeof (c as { id?: unknown }).id === 'string' && (c as { status?: unknown }).status !== 'DELETED')
      .slice(0, 1000)
      .map((c) => ({
        id: String(c.id).slice(0, 64),
        name: String(c.name ?? c.id).slice(0, 255),
        type: String(c.type ?? ''),
        status: String(c.status ?? ''),
        participantCount: typeof c.participantCount === 'number' && Number.isFinite(c.participantCount) ? Math.floor(c.participantCount) : null,
      }));
    const here = new Set(programs.length ? (await this.deps.db.knex('programs').whereIn('id', programs.map((p) => p.id)).select('id')).map((r: { id: string }) => r.id) : []);
    return { programs: programs.map((p) => ({ ...p, here: here.has(p.id) })) };
  }

  /** Starts an import (or its dry run) of one source program into the caller's team: checked now, run by the job. */
  async start(caller: ImportCaller, body: ImportStartBody): Promise<ImportProgressView> {
    const { db, clock, sealer } = this.deps;
    const source = await this.#source(body);
    let campaign: { id?: unknown; name?: unknown; type?: unknown };
    try {
      campaign = await source.get(`/campaign/${encodeURIComponent(body.programId)}`);
    } catch (err) {
      if (err instanceof SourceError && err.status === 404) throw new ValidationError(`The source has no program ${body.programId}.`, [{ field: 'programId', code: 'NOT_FOUND', message: 'The source has no program with this id.' }]);
      throw sourceProblem(err, body.sourceUrl);
    }
    if (campaign?.id !== body.programId) throw new ValidationError(`${body.sourceUrl} does not answer as a GrowSurf v2 API does.`, [{ field: 'sourceUrl', code: 'NOT_A_SOURCE', message: 'This address does not answer as a GrowSurf v2 API does.' }]);
    if (campaign.type !== 'REFERRAL' && campaign.type !== 'AFFILIATE') throw new ValidationError(`Program ${body.programId} has a type refloop does not know.`, [{ field: 'programId', code: 'UNKNOWN_TYPE', message: 'This program has a type refloop does not know.' }]);
    const now = clock.now();
    const row = {
      program_id: body.programId,
      id: newId(),
      team_id: caller.teamId,
      started_by: caller.who.slice(0, 64),
      source_url: source.base.slice(0, 2048),
      source_key_enc: sealer.seal(body.apiKey),
      dry_run: body.dryRun,
      status: 'QUEUED',
      name: String(campaign.name ?? body.programId).slice(0, 255),
      type: campaign.type,
      stage: 'program',
      done: 0,
      total: null,
      slice: 0,
      message: null,
      report: null,
      secrets_enc: null,
      created_at: now,
      updated_at: now,
      finished_at: null,
    };
    await db.knex.transaction(async (trx) => {
      const current = await trx('console_imports').where({ program_id: body.programId }).first();
      if (current && current.team_id !== caller.teamId) throw new ConflictError(`Program ${body.programId} is being imported into another team of this refloop.`);
      if (current && (current.status === 'QUEUED' || current.status === 'RUNNING')) throw new ConflictError(`Program ${body.programId} is already being ${current.dry_run ? 'checked' : 'imported'}; wait for it to end.`);
      const run = await trx('import_runs').where({ program_id: body.programId }).first('team_id', 'status');
      if (run && run.team_id !== caller.teamId) throw new ConflictError(`Program ${body.programId} was imported into another team of this refloop.`);
      if (run?.status === 'DONE') throw new ConflictError(`Program ${body.programId} has already been imported here.`);
      if (!run && (await trx('programs').where({ id: body.programId }).first('id'))) throw new ConflictError(`A program with the id ${body.programId} already exists here; nothing was written.`);
      // Webhook secrets not yet read stay for their reader across a new start (a dry run after a failed import).
      const keep = current?.secrets_enc && current.started_by === row.started_by ? { secrets_enc: current.secrets_enc } : {};
      if (current) await trx('console_imports').where({ program_id: body.programId }).update({ ...row, ...keep });
      else await trx('console_imports').insert(row);
      await this.deps.jobs.enqueue(trx, IMPORT_JOB, { programId: body.programId }, { uniqueKey: `import:${row.id}:0`, maxAttempts: MAX_ATTEMPTS });
    });
    this.deps.jobs.kick();
    return this.progress(caller, body.programId);
  }

  /**
   * An import's state. Once it has ended, the webhook secrets it made are answered to the one who
   * started it, once: the read that answers them deletes them.
   */
  async progress(caller: ImportCaller, programId: string): Promise<ImportProgressView> {
    const { db, sealer } = this.deps;
    const row = await this.#row(caller, programId);
    const report = row.report ? (JSON.parse(row.report) as StoredReport) : null;
    const run = row.dry_run ? null : await db.knex('import_runs').where({ program_id: programId, team_id: caller.teamId }).first('id', 'counts');
    const counts = { ...zeroCounts(), ...(row.dry_run ? (report?.counts ?? {}) : run ? JSON.parse(run.counts) : {}) };
    const refusalCount = row.dry_run ? (report?.refusalCount ?? 0) : run ? Number((await db.knex('import_refusals').where({ run_id: run.id }).count({ n: '*' }).first())?.n ?? 0) : 0;
    let webhookSecrets: Array<{ id: string; secret: string }> = [];
    if ((row.status === 'DONE' || row.status === 'FAILED') && row.secrets_enc && row.started_by === caller.who.slice(0, 64)) {
      // Only the read that clears them answers them (two reads at once: one gets them).
      const taken = await db.knex('console_imports').where({ program_id: programId, secrets_enc: row.secrets_enc }).update({ secrets_enc: null });
      if (taken) webhookSecrets = JSON.parse(sealer.open(row.secrets_enc) ?? '[]');
    }
    return {
      programId,
      name: row.name,
      type: row.type,
      dryRun: Boolean(row.dry_run),
      status: row.status,
      stage: row.stage,
      done: Number(row.done),
      total: row.total == null ? null : Number(row.total),
      counts,
      refusalCount,
      requests: report?.requests ?? 0,
      message: row.message ?? null,
      webhookSecrets,
      startedAt: Number(row.created_at),
      finishedAt: row.finished_at == null ? null : Number(row.finished_at),
    };
  }

  /** The import's refusals as CSV: kind, source id, reason. */
  async refusalsCsv(caller: ImportCaller, programId: string): Promise<string> {
    const row = await this.#row(caller, programId);
    let refusals: Refusal[];
    if (row.dry_run) refusals = row.report ? ((JSON.parse(row.report) as StoredReport).refusals ?? []) : [];
    else {
      const run = await this.deps.db.knex('import_runs').where({ program_id: programId, team_id: caller.teamId }).first('id');
      refusals = run
        ? (await this.deps.db.knex('import_refusals').where({ run_id: run.id }).orderBy([{ column: 'kind' }, { column: 'source_id' }]).select('kind', 'source_id', 'reason')).map((r: { kind: ImportKind; source_id: string; reason: string }) => ({ kind: r.kind, sourceId: r.source_id, reason: r.reason }))
        : [];
    }
    return csvLine(['kind', 'sourceId', 'reason']) + refusals.map((r) => csvLine([r.kind, r.sourceId, r.reason])).join('');
  }

  async #row(caller: ImportCaller, programId: string): Promise<any> {
    const row = programId.length <= 64 ? await this.deps.db.knex('console_imports').where({ program_id: programId, team_id: caller.teamId }).first() : undefined;
    if (!row) throw new NotFoundError(`No import of program ${programId.slice(0, 64)} was started from this team.`);
    return row;
  }

  /** A reader of the source for a request (a dead source is a quick 400, not a minute of retries), behind the address guard. */
  async #source(body: ImportSourceBody): Promise<GrowSurfSource> {
    const lookup = await this.#guard(body.sourceUrl);
    return new GrowSurfSource({ url: body.sourceUrl, key: body.apiKey, attempts: 2, timeoutMs: 15_000, sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 1000))), ...(lookup ? { lookup } : {}) });
  }

  /**
   * The outbound address guard webhooks use (with its `WEBHOOK_ALLOW_PRIVATE` escape hatch): a refused
   * URL is a 400 on `sourceUrl`. Answers the lookup that pins the checked address (null when private
   * addresses are allowed), so the source's requests cannot be rebound to another address by DNS.
   */
  async #guard(url: string): Promise<LookupFunction | null> {
    try {
      const target = await checkTarget(url, { allowPrivate: this.deps.config.webhookAllowPrivate, requireHttps: this.deps.config.env === 'production' });
      return target.address ? pinnedLookup(target.address, target.family) : null;
    } catch (err) {
      if (!(err instanceof TargetRefusedError)) throw err;
      const message = err.code === 'PRIVATE_ADDRESS' ? 'This address is on a private network; the source must be reachable on the internet.' : err.message;
      throw new ValidationError(`Invalid sourceUrl: ${message}`, [{ field: 'sourceUrl', code: err.code, message }]);
    }
  }

  /** One slice of an import: resume the run, stop at the first committed page after `sliceMs`, queue the next slice. */
  async #slice(programId: string, attempt: number): Promise<void> {
    const { db, clock, sealer } = this.deps;
    const row = await db.knex('console_imports').where({ program_id: programId }).first();
    if (!row || (row.status !== 'QUEUED' && row.status !== 'RUNNING')) return;
    const end = (status: 'DONE' | 'FAILED', fields: Record<string, unknown>) =>
      db.knex('console_imports').where({ program_id: programId, id: row.id }).update({ status, source_key_enc: null, updated_at: clock.now(), finished_at: clock.now(), ...fields });
    const key = row.source_key_enc ? sealer.open(row.source_key_enc) : null;
    if (!key) return void (await end('FAILED', { message: 'The source’s API key could not be read; start the import again.' }));
    let lookup: LookupFunction | null;
    try {
      lookup = await this.#guard(row.source_url);
    } catch (err) {
      return void (await end('FAILED', { message: (err as Error).message.slice(0, 1000) }));
    }
    await db.knex('console_imports').where({ program_id: programId, id: row.id }).update({ status: 'RUNNING', updated_at: clock.now() });

    const started = performance.now();
    let latest: ImportProgress | null = null;
    let wait: string | null = null;
    let written = 0;
    let stop = false;
    const secrets: Array<{ id: string; secret: string }> = [];
    const flush = async () => {
      if (secrets.length) {
        const now = await db.knex('console_imports').where({ program_id: programId, id: row.id }).first('secrets_enc');
        const all = [...(now?.secrets_enc ? JSON.parse(sealer.open(now.secrets_enc) ?? '[]') : []), ...secrets.splice(0)];
        await db.knex('console_imports').where({ program_id: programId, id: row.id }).update({ secrets_enc: sealer.seal(JSON.stringify(all)) });
      }
      if (latest) {
        const p: ImportProgress = latest;
        latest = null;
        written = performance.now();
        await db.knex('console_imports').where({ program_id: programId, id: row.id }).update({ stage: p.stage, done: Math.floor(p.done), total: p.total == null ? null : Math.floor(p.total), message: wait, updated_at: clock.now() });
      }
    };
    const source = new SlicedSource(
      {
        url: row.source_url,
        key,
        ...(lookup ? { lookup } : {}),
        onWait: (reason, ms) => {
          wait = `Waiting ${Math.ceil(ms / 1000)} s: ${reason}.`.slice(0, 1000);
        },
      },
      async () => {
        if (stop || secrets.length || (latest && performance.now() - written >= PROGRESS_EVERY_MS)) await flush();
        if (stop) throw new SliceEnded();
      },
    );
    try {
      const report = await this.deps.imports.importProgram({
        source,
        programId,
        teamId: row.team_id,
        dryRun: Boolean(row.dry_run),
        resume: true,
        onProgress: (p) => {
          latest = p;
          wait = null;
          // A real run stops only at a moment it reports (a committed page or stage); a dry run writes nothing and runs whole.
          if (!row.dry_run && performance.now() - started >= this.sliceMs) stop = true;
        },
        onWebhookSecret: async (w) => {
          secrets.push({ id: w.id, secret: w.secret });
          await flush();
        },
      });
      stop = false;
      await flush();
      const stored: StoredReport = row.dry_run
        ? { counts: report.counts, refusals: report.refusals.slice(0, MAX_KEPT_REFUSALS), refusalCount: report.refusals.length, requests: report.requests }
        : { requests: report.requests };
      await end('DONE', { stage: 'done', message: null, report: JSON.stringify(stored) });
    } catch (err) {
      stop = false;
      await flush();
      if (err instanceof SliceEnded) {
        await db.knex.transaction(async (trx) => {
          await trx('console_imports').where({ program_id: programId, id: row.id }).update({ slice: Number(row.slice) + 1 });
          await this.deps.jobs.enqueue(trx, IMPORT_JOB, { programId }, { uniqueKey: `import:${row.id}:${Number(row.slice) + 1}`, maxAttempts: MAX_ATTEMPTS, runAt: clock.now() + 1 });
        });
        return;
      }
      // The source refused for good, or the program cannot come in as it stands: retrying will not help.
      const final = err instanceof AppError || (err instanceof SourceError && err.status !== null && err.status < 500 && err.status !== 429) || attempt >= MAX_ATTEMPTS;
      const message = err instanceof AppError || err instanceof SourceError ? err.message : 'The import stopped on an unexpected error.';
      if (!(err instanceof AppError) && !(err instanceof SourceError)) this.deps.log.error('console import failed', { programId, attempt, error: String((err as Error)?.message ?? err) });
      if (final) return void (await end('FAILED', { message: message.slice(0, 1000) }));
      await db.knex('console_imports').where({ program_id: programId, id: row.id }).update({ message: `${message} Trying again shortly.`.slice(0, 1000), updated_at: clock.now() });
      throw err;
    }
  }
}

/** What `console_imports.report` keeps once a run ends. */
interface StoredReport {
  counts?: Record<ImportKind, KindCounts>;
  refusals?: Refusal[];
  refusalCount?: number;
  requests: number;
}

/** A source failure while the owner waits, as a 400 in plain words on the field to fix. */
function sourceProblem(err: unknown, url: string): unknown {
  if (!(err instanceof SourceError)) return err;
  if (err.status === 401 || err.status === 403) return new ValidationError('The source refused this API key.', [{ field: 'apiKey', code: 'REFUSED', message: 'The source refused this API key.' }]);
  if (err.status === null) return new ValidationError(`${url} did not answer.`, [{ field: 'sourceUrl', code: 'UNREACHABLE', message: 'Nothing answered at this address.' }]);
  if (err.status === 404 || (err.status >= 200 && err.status < 300)) return new ValidationError(`${url} does not answer as a GrowSurf v2 API does.`, [{ field: 'sourceUrl', code: 'NOT_A_SOURCE', message: 'This address does not answer as a GrowSurf v2 API does.' }]);
  return new ValidationError(err.message, [{ field: 'sourceUrl', code: 'SOURCE_ERROR', message: err.message }]);
}
