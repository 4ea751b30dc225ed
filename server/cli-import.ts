import { parseArgs } from 'node:util';
import type { Deps } from './deps.ts';
import { AppError } from './errors.ts';
import { GrowSurfSource, SourceError } from './domain/imports/source.ts';
import { ProgramImports, type ImportProgress, type ProgramImportReport } from './domain/imports/growsurf-import.ts';

// `refloop import growsurf`: moves programs in from a server that speaks the GrowSurf v2 REST API
// (issue #33), through the same domain code the console's import page uses.

type Out = { log(s: string): void; error(s: string): void };

const OPTIONS = {
  from: { type: 'string' },
  key: { type: 'string' },
  program: { type: 'string', multiple: true },
  into: { type: 'string' },
  'dry-run': { type: 'boolean' },
  resume: { type: 'boolean' },
  since: { type: 'boolean' },
  activity: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/** Where progress goes: a redrawn bar on a terminal, a line per stage otherwise, JSON lines with --json. */
export interface ProgressSink {
  tty: boolean;
  write(s: string): void;
}

/** `refloop import growsurf --from URL --key KEY [--program ID ...] [--into TEAM] [--dry-run] [--resume] [--json]`. */
export async function importGrowsurfCommand(argv: string[], deps: Deps, out: Out, help: string, sink?: ProgressSink): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: false }));
  } catch (err) {
    out.error(`${(err as Error).message}\n\n${help}`);
    return 2;
  }
  const from = typeof values.from === 'string' ? values.from : '';
  const key = typeof values.key === 'string' ? values.key : '';
  if (!from || !key) {
    out.error(`${!from ? 'Missing --from (the source API, e.g. https://api.growsurf.com/v2).' : 'Missing --key (an API key of the source team).'}\n\n${help}`);
    return 2;
  }
  try {
    new URL(from);
  } catch {
    out.error(`--from ${from} is not a URL.\n\n${help}`);
    return 2;
  }
  const json = !!values.json;
  const teamId = await targetTeam(deps, typeof values.into === 'string' ? values.into : undefined);
  let lastStage = '';
  const progress = (p: ImportProgress) => {
    if (json) return out.log(JSON.stringify({ event: 'progress', ...p }));
    const line = `${p.programId}: ${p.stage}${p.total ? ` ${p.done.toLocaleString('en')}/${p.total.toLocaleString('en')}` : p.stage === 'participants' ? ` ${p.done.toLocaleString('en')}` : ''}${p.message ? ` (${p.message})` : ''}`;
    if (sink?.tty) {
      const width = 24;
      const bar = p.total ? `[${'#'.repeat(Math.min(width, Math.round((p.done / p.total) * width))).padEnd(width, '.')}] ` : '';
      sink.write(`\r\x1b[2K${bar}${line}`);
      if (p.stage === 'done') sink.write('\n');
    } else if (p.stage !== lastStage) out.error(line);
    lastStage = p.stage;
  };
  const source = new GrowSurfSource({
    url: from,
    key,
    onWait: (reason, ms) => (json ? out.log(JSON.stringify({ event: 'wait', reason, ms })) : out.error(`waiting ${Math.ceil(ms / 1000)} s: ${reason}`)),
  });
  const imports = new ProgramImports(deps);
  let programs = (values.program as string[] | undefined)?.filter(Boolean) ?? [];
  let failed = 0;
  try {
    if (!programs.length) {
      const list = await source.get<{ campaigns?: Array<{ id: string; status?: string }> } | Array<{ id: string; status?: string }>>('/campaigns');
      programs = (Array.isArray(list) ? list : (list.campaigns ?? [])).filter((c) => c.status !== 'DELETED').map((c) => c.id);
      if (!programs.length) {
        out.error('The source has no programs to import.');
        return 1;
      }
    }
    const reports: ProgramImportReport[] = [];
    for (const programId of programs) {
      try {
        const report = await imports.importProgram({
          source,
          programId,
          teamId,
          dryRun: !!values['dry-run'],
          resume: !!values.resume || !!values.since,
          since: !!values.since,
          activity: !!values.activity,
          onProgress: progress,
          // Printed at once: a run stopped later has still shown each secret (it is shown nowhere else).
          onWebhookSecret: (w) => (json ? out.log(JSON.stringify({ event: 'webhookSecret', ...w })) : out.log(`${w.programId}: webhook ${w.id} came in switched off; its new signing secret (shown this once): ${w.secret}`)),
        });
        reports.push(report);
        if (json) out.log(JSON.stringify({ event: 'report', ...report }));
        else out.log(describe(report));
      } catch (err) {
        if (!(err instanceof AppError) && !(err instanceof SourceError)) throw err;
        failed++;
        if (json) out.log(JSON.stringify({ event: 'error', programId, message: err.message }));
        else out.error(`${programId}: ${err.message}`);
      }
    }
    const refused = reports.reduce((n, r) => n + Object.values(r.counts).reduce((m, c) => m + c.refused, 0), 0);
    return failed || refused ? 1 : 0;
  } catch (err) {
    if (err instanceof SourceError) {
      out.error(err.message);
      return 1;
    }
    throw err;
  }
}

/** The team to import into: `--into`, else the instance's only team. */
async function targetTeam(deps: Deps, into: string | undefined): Promise<string> {
  if (into) {
    const team = await deps.db.knex('teams').where({ id: into }).first('id');
    if (!team) throw new AppError(404, 'NOT_FOUND', 'NotFoundError', `No team ${into.slice(0, 64)} on this refloop (see \`refloop team list\`).`);
    return into;
  }
  const teams = await deps.db.knex('teams').select('id').limit(2);
  if (teams.length === 1) return teams[0].id;
  throw new AppError(400, 'BAD_REQUEST', 'BadRequestError', teams.length ? 'This refloop has several teams: name the one to import into with --into TEAM (see `refloop team list`).' : 'This refloop has no team yet: create an account first (`npm start`, then sign up), or name one with --into.');
}

/** The human summary of one program's import. */
export function describe(r: ProgramImportReport): string {
  const verb = r.dryRun ? 'would create' : 'created';
  const lines = [
    r.alreadyImported
      ? `${r.programId} (${r.name}): already imported; nothing to do.`
      : `${r.programId} (${r.name}, ${r.type.toLowerCase()})${r.dryRun ? ': dry run, nothing written' : r.resumed ? ': resumed and finished' : ': imported'}.`,
  ];
  for (const [kind, c] of Object.entries(r.counts)) {
    if (!c.created && !c.skipped && !c.refused && !c.updated) continue;
    lines.push(`  ${kind}: ${verb} ${c.created.toLocaleString('en')}${c.updated ? `, updated ${c.updated.toLocaleString('en')}` : ''}${c.skipped ? `, already here ${c.skipped.toLocaleString('en')}` : ''}${c.refused ? `, refused ${c.refused.toLocaleString('en')}` : ''}`);
  }
  if (r.webhookSecrets.length) lines.push(`  ${r.webhookSecrets.length} webhook(s) came in switched off (their secrets are printed above): switch each on in the console once the source's are off`);
  for (const f of r.refusals.slice(0, 50)) lines.push(`  refused ${f.kind} ${f.sourceId}: ${f.reason}`);
  if (r.refusals.length > 50) lines.push(`  … and ${(r.refusals.length - 50).toLocaleString('en')} more (--json lists them all)`);
  lines.push(`  ${r.requests.toLocaleString('en')} requests to the source`);
  return lines.join('\n');
}
