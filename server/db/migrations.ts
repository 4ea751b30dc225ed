import type { Knex } from 'knex';
import * as m001 from './migrations/001_foundation.ts';
import * as m002 from './migrations/002_programs.ts';

/** A migration: name plus up/down, kept in code so the CLI, tests and the server share one ordered list. */
interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const migrations: Migration[] = [
  { name: '001_foundation', ...m001 },
  { name: '002_programs', ...m002 },
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
