import type { Knex } from 'knex';
import * as m001 from './migrations/001_foundation.ts';
import * as m002 from './migrations/002_programs.ts';
import * as m003 from './migrations/003_reward_configs.ts';
import * as m004 from './migrations/004_webhooks.ts';
import * as m005 from './migrations/005_resources.ts';

/** A migration: name plus up/down, kept in code so the CLI, tests and the server share one ordered list. */
interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const migrations: Migration[] = [
  { name: '001_foundation', ...m001 },
  { name: '002_programs', ...m002 },
  { name: '003_reward_configs', ...m003 },
  { name: '004_webhooks', ...m004 },
  { name: '005_resources', ...m005 },
];

/** knex migration source over the in-code list (no file globbing, so it works under tsx and bundlers). */
export const migrationSource: Knex.MigrationSource<Migration> = {
  async getMigrations() {
    return migrations;
  },
  getMigrationName(m) {
    return m.name;
  },
  async getMigration(m) {
    return m;
  },
};
