import { parseArgs } from 'node:util';
import type { Config } from './config.ts';
import type { Deps } from './deps.ts';

// Only the help text and argument parsing load eagerly: each command imports what it needs when it
// runs, so `refloop --help` answers without loading the server, and `refloop migrate` without the
// domain services (issue #21: start-up CPU per command is in `npm run bench`).

const HELP: Record<string, string> = {
  '': `refloop: self-hosted referral and affiliate programs

Usage: refloop <command> [options]

Commands:
  serve                      Run the server (REST API, participant API, owner pages, jobs)
  migrate                    Create or update the database schema
  mail list                  Show the mail outbox with every link each message carries
  team list                  List teams
  team verify TEAM           Approve a team's verification request
  team plan TEAM             Set a team's plan and payment method
  team disable TEAM          Disable a team (its keys answer 403)
  team enable TEAM           Re-enable a team
  keys create                Create an API key (printed once)
  keys revoke PREFIX         Revoke an API key by its prefix
  payouts list               List an affiliate program's payouts
  payouts run                Group approved commissions into UPCOMING payouts
  payouts export             Write a batch file (CSV) of payouts to pay
  payouts mark PAYOUT        Report what happened to a payout's money
  export TABLE               Write a program's participants, referrals, rewards or commissions as CSV
  import participants        Add participants from a CSV file (all or nothing; --dry-run checks only)
  import growsurf            Move programs in from GrowSurf (or another refloop) with ids and share links kept
  import csv                 Move affiliates, referrals and commissions in from Rewardful, FirstPromoter or Tolt CSV exports
  audit verify               Check every team's audit trail hash chain; report the first broken link

Configuration comes only from environment variables; see .env.example.
Run 'refloop <command> --help' for a command's options.`,
  serve:
    'Usage: refloop serve\n\nRuns the server on PORT (default 8787) against DATABASE_URL (default ./data/refloop.db).\nWORKERS=N (PostgreSQL only) runs N server processes behind the one port (Node\'s cluster module).',
  migrate: 'Usage: refloop migrate\n\nApplies pending database migrations. Safe to run more than once.',
  'mail list': 'Usage: refloop mail list [--to EMAIL] [--limit N] [--json]\n\nLists the outbox, newest first, including every link each message carries.',
  'team list': 'Usage: refloop team list [--json]\n\nLists every team with its owner, plan and state.',
  'team verify': 'Usage: refloop team verify TEAM\n\nApproves the verification of team TEAM (id), making its status VERIFIED.',
  'team plan': 'Usage: refloop team plan TEAM --plan NAME [--payment-method on|off]\n\nPlans: TRIAL, FREE, STARTER, BUSINESS, ELITE, UNLIMITED. Only matters with BILLING=on.',
  'team disable': 'Usage: refloop team disable TEAM\n\nDisables a team: its API keys answer 403 account disabled.',
  'team enable': 'Usage: refloop team enable TEAM\n\nRe-enables a disabled team.',
  'keys create': 'Usage: refloop keys create --team TEAM --scopes a,b [--programs x,y] [--label TEXT] [--json]\n\nCreates an API key and prints it once. It cannot be shown again.',
  'audit verify':
    'Usage: refloop audit verify [--team TEAM] [--json]\n\nWalks each team\'s audit trail from its last retention prune (or its first entry), recomputing every entry\'s hash from its stored columns and the previous entry\'s hash, and checks the chain head. Prints each team\'s first broken link (team, entry, what does not match). Exit code 1 when any link is broken.',
  'keys revoke': 'Usage: refloop keys revoke PREFIX\n\nRevokes the API key whose display prefix is PREFIX (for example sk_AbCdEfGh).',
  'payouts list':
    'Usage: refloop payouts list --program ID [--status S] [--participant ID_OR_EMAIL] [--limit N] [--json]\n\nLists the payouts of affiliate program ID, newest first (default limit 100). Statuses: UPCOMING, QUEUED, ISSUED, FAILED, REVERSED.',
  'payouts run':
    'Usage: refloop payouts run --program ID [--json]\n\nGroups each affiliate\'s approved commissions (hold passed) into UPCOMING payouts when they reach the program\'s payout threshold. Nothing is paid.',
  'payouts export':
    'Usage: refloop payouts export --program ID [--status S] [--format generic|paypal|wise] [--currency ISO] [--out FILE]\n\nWrites a CSV of the payouts to pay (default UPCOMING and QUEUED) to FILE or standard output.\n  generic  every payout, with the affiliate and destination (the REST export)\n  paypal   PayPal Payouts web upload: confirmed PayPal and Venmo destinations, one currency per file\n  wise     Wise batch "send by email" template: confirmed Wise destinations\nPayouts left out of a provider file are listed on standard error. Pay the file, then mark each payout.',
  'payouts mark':
    'Usage: refloop payouts mark PAYOUT --program ID --status QUEUED|ISSUED|FAILED|REVERSED [--reason TEXT] [--json]\n\nReports what happened to payout PAYOUT: QUEUED (in a provider batch), ISSUED (paid: commissions PAID, affiliate notified), FAILED (commissions return to the next run), REVERSED (after ISSUED). The reason goes to the affiliate\'s activity log.',
  export:
    'Usage: refloop export participants|referrals|rewards|commissions --program ID [--out FILE]\n\nWrites the table as CSV (RFC 4180, a header row, oldest first; cells starting with = + - @ get an apostrophe; money in minor units beside its currency) to FILE (readable by you only) or standard output. Streamed: memory stays flat at any size. The same file as GET /v2/campaign/{id}/export/TABLE.csv; commissions are for affiliate programs.',
  'import participants':
    'Usage: refloop import participants --program ID --file FILE.csv [--dry-run] [--json]\n\nAdds the participants of a CSV file with a header row. Columns: email (required), firstName, lastName, referredBy (id, share key, vanity key or email of a participant in the program or on an earlier row), referralStatus, language, isAffiliate, vanityKeys (space-separated), metadata (a JSON object), metadata.KEY. At most 10,000 rows and 5 MiB.\n  --dry-run  check every row and list each problem by line and field; nothing is written\nWithout --dry-run the import is all or nothing: one problem and no row is added. Existing emails are left unchanged. Exit code 1 when the file has problems.',
  'import csv':
    'Usage: refloop import csv --format rewardful|firstpromoter|tolt|generic --program ID --file [KIND=]FILE.csv ... [--map JSON|FILE.json] [--dry-run] [--json]\n\nReads the CSV exports of another affiliate product into affiliate program ID: affiliates (enrolled), the customers they referred, and sales with their commissions (the file\'s amounts and states are kept; a sales file without commissions earns what the program\'s structure says, through AF8).\n  --file     repeat for each export; which file is which is read from its header, or named as KIND=FILE (affiliates, referrals, commissions, sales). Affiliates are imported first, then referrals, then money, whatever the order given\n  --map      generic only: a JSON object (or a JSON file) of refloop field to column header, for example {"email":"Email Address","referredBy":"Affiliate Email","saleId":"Order","saleAmount":"Total","commissionAmount":"Commission","currency":"Currency","status":"Status","date":"Date"}; keys: email, firstName, lastName, name, referredBy, saleId, saleAmount, commissionAmount, currency, status, date. A row without referredBy is an affiliate; with it, a referred customer, and a sale when it has a saleAmount\n  --dry-run  read and check everything and list every row that would be refused; nothing is written\n  --json     the report as JSON\nEach row stands alone (unlike import participants): a row that cannot be imported (bad email, unknown affiliate or customer, unknown currency, bad amount or date) is listed with its file, line and reason and nothing of it is written; the others go on. Running it again with the same files changes nothing: people match by email, sales by the product\'s own id. Headers compare without case, spaces or punctuation. Money like $12.50, 12.50 or 1,234.56 in the row\'s currency (else the program\'s); 12,50 and other readings that depend on the locale are refused. Exit code 1 when any row was refused, 2 for wrong arguments. docs/migrating.md has each product\'s columns and what does not carry over.',
  'import growsurf':
    'Usage: refloop import growsurf --from URL --key KEY [--program ID ...] [--into TEAM] [--dry-run] [--resume] [--since] [--activity] [--json]\n\nReads programs through the GrowSurf v2 REST API of the source (GrowSurf at https://api.growsurf.com/v2, or another refloop) and writes them here with their ids: the program, its design, emails, options and installation, its reward configurations, webhooks (switched off, new secrets), link and text resources, and its participants with their ids, share keys, vanity keys, referrers, counters and states, so every share link keeps resolving to the same person. Only GET requests reach the source, paced by its rate limits.\n  --program ID  a program to import (repeat for several; default: every program of the source)\n  --into TEAM   the team to import into (default: the only team here)\n  --dry-run     read everything and list what would be created and every record that would be refused; nothing is written\n  --resume      continue a run that stopped (a crash, Ctrl-C): it goes on from the last page written\n  --since       after a finished import, catch up for the cut-over: bring in what is new on the source (participants, referrals, rewards, sales, payouts) and update what changed there; the documents are left as they are here\n  --activity    also each participant’s activity log (one request per participant: hours at GrowSurf’s limits for a large program)\n  --json        one JSON line per progress event and per program report\nRunning it again after it finished changes nothing. A record that cannot be imported is reported with its source id and the reason; exit code 1 when any was refused. docs/migrating.md says what carries over.',
};

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
  to: { type: 'string' },
  limit: { type: 'string' },
  plan: { type: 'string' },
  'payment-method': { type: 'string' },
  team: { type: 'string' },
  scopes: { type: 'string' },
  programs: { type: 'string' },
  label: { type: 'string' },
  program: { type: 'string' },
  participant: { type: 'string' },
  status: { type: 'string' },
  format: { type: 'string' },
  currency: { type: 'string' },
  out: { type: 'string' },
  reason: { type: 'string' },
  file: { type: 'string' },
  'dry-run': { type: 'boolean' },
  // `import growsurf` (it parses its own arguments again: --program may repeat there).
  from: { type: 'string' },
  key: { type: 'string' },
  into: { type: 'string' },
  resume: { type: 'boolean' },
  since: { type: 'boolean' },
  activity: { type: 'boolean' },
  // `import csv` (it parses its own arguments again: --file may repeat there).
  map: { type: 'string' },
} as const;

type Out = { log(s: string): void; error(s: string): void };

/** How the process was started (bin/refloop.js knows). */
export interface Launch {
  /** Stop `serve` gracefully when the parent process goes away (started by npm, whose shell drops signals). */
  stopWithParent?: boolean;
}

/** Reads the process environment through server/config.ts, the one module that may. */
async function configFromEnvironment(): Promise<Config> {
  return (await import('./config.ts')).configFromProcess();
}

/** Runs one CLI command and returns the exit code (0 ok, 1 failure, 2 usage). */
export async function main(argv: string[], out: Out = console, loadConfig: () => Config | Promise<Config> = configFromEnvironment, launch: Launch = {}): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    out.error(`${(err as Error).message}\n\n${HELP['']}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [cmd = '', sub = '', arg] = positionals;
  const two = `${cmd} ${sub}`;
  const helpKey = HELP[two] ? two : HELP[cmd] ? cmd : '';
  // `export TABLE` takes its table as the second word; every other command is one or two words.
  const command = cmd === 'export' ? 'export' : two;
  if (values.help || cmd === '' || cmd === 'help') {
    out.log(HELP[helpKey]!);
    return 0;
  }
  let config: Config;
  try {
    config = await loadConfig();
  } catch (err) {
    if (err instanceof (await import('./config.ts')).ConfigError) {
      out.error(err.message);
      return 1;
    }
    throw err;
  }
  if (cmd === 'serve') {
    if (config.workers > 1) {
      const { runCluster } = await import('./cluster.ts');
      await runCluster(config, { stopWithParent: launch.stopWithParent });
      return 0;
    }
    const { runForever } = await import('./main.ts');
    await runForever(config, {}, undefined, { stopWithParent: launch.stopWithParent });
    return 0;
  }
  if (cmd === 'migrate') {
    const { openDb, migrate } = await import('./db/connect.ts');
    const db = openDb(config.database);
    try {
      await migrate(db);
      out.log('Database is up to date.');
    } finally {
      await db.close();
    }
    return 0;
  }
  if (!HELP[command]) {
    out.error(`Unknown command: ${positionals.join(' ')}\n\n${HELP['']}`);
    return 2;
  }
  const [{ createDeps }, { AppError }] = await Promise.all([import('./deps.ts'), import('./errors.ts')]);
  const deps = await createDeps({ ...config, logLevel: 'silent' } as Config);
  try {
    if (cmd === 'export') return await (await import('./cli-data.ts')).exportCommand(sub || undefined, values, deps, out, HELP.export!, out === console ? process.stdout : undefined);
    if (two === 'import csv') return await (await import('./cli-import-csv.ts')).importCsvCommand(argv, deps, out, HELP[two]!);
    if (two === 'import growsurf') return await (await import('./cli-import.ts')).importGrowsurfCommand(argv, deps, out, HELP[two]!, out === console ? { tty: !!process.stderr.isTTY, write: (s) => process.stderr.write(s) } : undefined);
    if (two === 'import participants') return await (await import('./cli-data.ts')).importCommand(sub, values, deps, out, HELP[two]!);
    return await run(two, arg, values, deps, out);
  } catch (err) {
    if (err instanceof AppError) {
      out.error(err.message);
      return 1;
    }
    throw err;
  } finally {
    await deps.close();
  }
}

async function run(cmd: string, arg: string | undefined, values: Record<string, string | boolean | undefined>, deps: Deps, out: Out): Promise<number> {
  const need = (what: string): string | null => {
    if (arg) return arg;
    out.error(`Missing ${what}.\n\n${HELP[cmd]}`);
    return null;
  };
  switch (cmd) {
    case 'mail list': {
      const limit = values.limit ? Number(values.limit) : 50;
      const messages = await deps.mailer.list({ to: values.to as string | undefined, limit });
      if (values.json) out.log(JSON.stringify(messages, null, 2));
      else if (messages.length === 0) out.log('The outbox is empty.');
      else
        for (const m of messages) {
          out.log(`${new Date(m.createdAt).toISOString()}  ${m.status.padEnd(6)}  to ${m.to}\n  ${m.subject}`);
          for (const link of m.links) out.log(`  ${link}`);
          out.log('');
        }
      return 0;
    }
    case 'team list': {
      const teams = await deps.teams.list();
      if (values.json) out.log(JSON.stringify(teams, null, 2));
      else if (teams.length === 0) out.log('No teams yet.');
      else
        for (const t of teams)
          out.log(`${t.id}  ${String(t.name)}  owner=${t.ownerEmail ?? '-'}  verified-email=${t.ownerEmailVerified}  verification=${t.verificationStatus}  plan=${t.plan}${t.disabled ? '  DISABLED' : ''}`);
      return 0;
    }
    case 'team verify': {
      const id = need('TEAM');
      if (!id) return 2;
      const team = await deps.teams.approveVerification(id);
      out.log(`Team ${id} is ${team.verificationStatus}.`);
      return 0;
    }
    case 'team plan': {
      const id = need('TEAM');
      if (!id) return 2;
      if (!values.plan) {
        out.error(`Missing --plan.\n\n${HELP[cmd]}`);
        return 2;
      }
      const pm = values['payment-method'];
      if (pm !== undefined && pm !== 'on' && pm !== 'off') {
        out.error('--payment-method takes on or off.');
        return 2;
      }
      await deps.teams.setPlan(id, String(values.plan).toUpperCase(), pm === undefined ? undefined : pm === 'on');
      out.log(`Team ${id} is on plan ${String(values.plan).toUpperCase()}${pm ? ` with payment method ${pm}` : ''}.`);
      return 0;
    }
    case 'team disable':
    case 'team enable': {
      const id = need('TEAM');
      if (!id) return 2;
      await deps.teams.setDisabled(id, cmd === 'team disable');
      out.log(`Team ${id} is ${cmd === 'team disable' ? 'disabled' : 'enabled'}.`);
      return 0;
    }
    case 'keys create': {
      if (!values.team || !values.scopes) {
        out.error(`Missing --team or --scopes.\n\n${HELP[cmd]}`);
        return 2;
      }
      const team = await deps.db.knex('teams').where({ id: values.team }).first('id');
      if (!team) {
        out.error(`No team ${values.team}.`);
        return 1;
      }
      const { parseScopes } = await import('./domain/platform/keys.ts');
      const scopes = parseScopes(String(values.scopes));
      const programIds = values.programs ? String(values.programs).split(',').map((s) => s.trim()).filter(Boolean) : null;
      const key = await deps.keys.create(deps.db.knex, { teamId: String(values.team), scopes, programIds, origin: 'CLI', label: (values.label as string) ?? 'CLI' });
      if (values.json) out.log(JSON.stringify({ apiKey: key.secret, prefix: key.prefix, scopes, programIds }));
      else out.log(`${key.secret}\n\nThis key is shown once. Its prefix is ${key.prefix}.`);
      return 0;
    }
    case 'keys revoke': {
      const prefix = need('PREFIX');
      if (!prefix) return 2;
      if (!(await deps.keys.revokeByPrefix(prefix))) {
        out.error(`No active key with prefix ${prefix}.`);
        return 1;
      }
      out.log(`Key ${prefix} is revoked.`);
      return 0;
    }
    case 'audit verify': {
      const report = await deps.audit.verify(values.team ? String(values.team) : undefined);
      if (values.json) out.log(JSON.stringify(report, null, 2));
      else {
        for (const b of report.breaks) out.error(`BROKEN team ${b.teamId} entry ${b.seq}: ${b.problem}`);
        out.log(`${report.teams} team${report.teams === 1 ? '' : 's'}, ${report.entries} entries checked, ${report.breaks.length === 0 ? 'every chain intact' : `${report.breaks.length} broken`}.`);
      }
      return report.breaks.length ? 1 : 0;
    }
    case 'payouts list':
    case 'payouts run':
    case 'payouts export':
    case 'payouts mark':
      return (await import('./cli-payouts.ts')).payoutsCommand(cmd, arg, values, deps, out, HELP[cmd]!);
  }
  return 2;
}
