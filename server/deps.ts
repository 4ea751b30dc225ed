import type { Config } from './config.ts';
import { openDb, migrate, type Db } from './db/connect.ts';
import { systemClock, type Clock } from './clock.ts';
import { createLogger, type Logger } from './log.ts';
import { Jobs } from './domain/jobs.ts';
import { Mailer } from './domain/mail.ts';
import { Keys } from './domain/keys.ts';
import { Accounts } from './domain/accounts.ts';
import { Teams } from './domain/teams.ts';
import { Programs } from './domain/programs.ts';
import { Maintenance } from './domain/maintenance.ts';
import { Owners } from './domain/owners.ts';
import { Sealer, newSecret } from './crypto.ts';
import { Limits } from './http/limits.ts';

/** Everything the app is built from; tests build the same thing on a fresh database. */
export interface Deps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  jobs: Jobs;
  mailer: Mailer;
  keys: Keys;
  accounts: Accounts;
  teams: Teams;
  programs: Programs;
  maintenance: Maintenance;
  owners: Owners;
  limits: Limits;
  sealer: Sealer;
  close(): Promise<void>;
}

/** Options for building dependencies. */
export interface DepsOptions {
  clock?: Clock;
  log?: Logger;
  /** PostgreSQL schema to use (tests isolate each app in its own schema). */
  searchPath?: string;
  /** Run migrations first (default true). */
  migrate?: boolean;
}

/** Opens the database, migrates it and wires the domain services. */
export async function createDeps(config: Config, opts: DepsOptions = {}): Promise<Deps> {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? createLogger(config.logLevel);
  const db = openDb(config.database, { searchPath: opts.searchPath });
  if (opts.migrate !== false) await migrate(db);
  const sealer = new Sealer(config.secretKey ?? (await instanceSecret(db)));
  const jobs = new Jobs(db, clock, log, config.jobs.pollMs);
  const mailer = new Mailer(db, clock, jobs, config.mailFrom, config.smtpUrl);
  const keys = new Keys(db, clock);
  const accounts = new Accounts(db, clock, config, mailer, jobs, keys);
  const teams = new Teams(db, clock, mailer, accounts, keys);
  const programs = new Programs(db, clock, config);
  const maintenance = new Maintenance(db, clock, jobs);
  const owners = new Owners(db, clock, config, mailer, accounts, keys, sealer);
  const limits = new Limits(config, db);
  return {
    config,
    db,
    clock,
    log,
    jobs,
    mailer,
    keys,
    accounts,
    teams,
    programs,
    maintenance,
    owners,
    limits,
    sealer,
    async close() {
      await jobs.stop();
      mailer.close();
      await db.close();
    },
  };
}

/** A per-installation secret generated once and kept in the database (used when SECRET_KEY is unset). */
async function instanceSecret(db: Db): Promise<string> {
  await db.knex('instance_secrets').insert({ name: 'seal', value: newSecret(32) }).onConflict('name').ignore();
  const row = await db.knex('instance_secrets').where({ name: 'seal' }).first('value');
  return row.value;
}
