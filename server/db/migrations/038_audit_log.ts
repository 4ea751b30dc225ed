import type { Knex } from 'knex';

// The team audit trail (issue #35 part 1; server/domain/platform/audit.ts, docs/decisions.md). One
// chain of entries per team, each hash = sha256(previous hash, seq, canonical entry), appended in
// the transaction of the change it records. The database itself refuses UPDATE on `audit_log` and
// `audit_prunes`, DELETE on `audit_prunes`, and DELETE on `audit_log` unless a prune record covers
// the entry: the retention prune first appends an `audit_prunes` row naming the last entry it removes
// and that entry's hash (checked against the stored entry; never a live team's newest entry, so its
// chain head stays readable, but all of a purged team's), which is where `audit verify` starts.
// `audit_heads` holds each chain's head: PostgreSQL writers serialize per team on its row (the
// append's upsert locks it until COMMIT); on SQLite (one writer) a trigger moves it.

const APPEND_ONLY = 'audit_log is append-only';

/** Creates audit_log, audit_prunes, audit_heads and their guard triggers. */
export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg';
  if (!(await knex.schema.hasTable('audit_log'))) {
    await knex.schema.createTable('audit_log', (t) => {
      // No foreign key to teams: a purged team's cascade must not reach its audit trail.
      t.string('team_id', 32).notNullable();
      t.bigInteger('seq').notNullable();
      t.bigInteger('at').notNullable();
      t.string('actor_type', 16).notNullable(); // MEMBER | API_KEY | SYSTEM | ANONYMOUS
      t.string('actor_id', 64).nullable(); // user id, API key id, job name
      t.string('actor_label', 320).nullable(); // member email, API key prefix, job name
      t.string('ip', 64).nullable();
      t.string('user_agent', 512).nullable();
      t.string('action', 64).notNullable(); // the routes table's operation id, or an access event name
      t.string('resource_type', 64).nullable();
      t.string('resource_id', 320).nullable();
      t.text('changes').notNullable(); // JSON text, hashed as stored
      t.string('prev_hash', 64).notNullable();
      t.string('hash', 64).notNullable();
      t.primary(['team_id', 'seq']);
    });
    await knex.raw('CREATE INDEX IF NOT EXISTS audit_log_team_at ON audit_log (team_id, at)');
  }
  if (!(await knex.schema.hasTable('audit_prunes'))) {
    await knex.schema.createTable('audit_prunes', (t) => {
      t.string('team_id', 32).notNullable();
      t.bigInteger('through_seq').notNullable(); // the last entry removed
      t.string('anchor_hash', 64).notNullable(); // its hash: the prev_hash of the first entry kept
      t.bigInteger('at').notNullable();
      t.primary(['team_id', 'through_seq']);
    });
  }
  if (!(await knex.schema.hasTable('audit_heads'))) {
    await knex.schema.createTable('audit_heads', (t) => {
      t.string('team_id', 32).primary();
      t.bigInteger('seq').notNullable();
      t.string('prev_hash', 64).notNullable();
      t.string('hash', 64).notNullable();
    });
  }
  if (pg) {
    await knex.raw(`CREATE OR REPLACE FUNCTION audit_log_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF EXISTS (SELECT 1 FROM audit_prunes p WHERE p.team_id = OLD.team_id AND p.through_seq >= OLD.seq) THEN
      RETURN OLD;
    END IF;
  END IF;
  RAISE EXCEPTION '${APPEND_ONLY}: % refused', TG_OP USING ERRCODE = 'P0001';
END $$`);
    await knex.raw(`CREATE OR REPLACE FUNCTION audit_prunes_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.anchor_hash IS DISTINCT FROM (SELECT hash FROM audit_log WHERE team_id = NEW.team_id AND seq = NEW.through_seq)
       OR (NEW.through_seq >= (SELECT max(seq) FROM audit_log WHERE team_id = NEW.team_id) AND EXISTS (SELECT 1 FROM teams WHERE id = NEW.team_id)) THEN
      RAISE EXCEPTION 'audit_prunes: the anchor must be a stored entry older than the newest (all of a purged team''s)' USING ERRCODE = 'P0001';
    END IF;
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_prunes is append-only: % refused', TG_OP USING ERRCODE = 'P0001';
END $$`);
    await knex.raw('DROP TRIGGER IF EXISTS audit_log_guard ON audit_log');
    await knex.raw('CREATE TRIGGER audit_log_guard BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_guard()');
    await knex.raw('DROP TRIGGER IF EXISTS audit_log_no_truncate ON audit_log');
    await knex.raw('CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_guard()');
    await knex.raw('DROP TRIGGER IF EXISTS audit_prunes_guard ON audit_prunes');
    await knex.raw('CREATE TRIGGER audit_prunes_guard BEFORE INSERT OR UPDATE OR DELETE ON audit_prunes FOR EACH ROW EXECUTE FUNCTION audit_prunes_guard()');
    await knex.raw('DROP TRIGGER IF EXISTS audit_prunes_no_truncate ON audit_prunes');
    await knex.raw('CREATE TRIGGER audit_prunes_no_truncate BEFORE TRUNCATE ON audit_prunes FOR EACH STATEMENT EXECUTE FUNCTION audit_prunes_guard()');
    return;
  }
  // SQLite's append reads the head; this trigger moves it in the same statement (PostgreSQL's append moves it itself).
  await knex.raw(`CREATE TRIGGER IF NOT EXISTS audit_log_head AFTER INSERT ON audit_log BEGIN
    INSERT INTO audit_heads (team_id, seq, prev_hash, hash) VALUES (NEW.team_id, NEW.seq, NEW.prev_hash, NEW.hash)
    ON CONFLICT (team_id) DO UPDATE SET seq = excluded.seq, prev_hash = excluded.prev_hash, hash = excluded.hash; END`);
  await knex.raw(`CREATE TRIGGER IF NOT EXISTS audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, '${APPEND_ONLY}: UPDATE refused'); END`);
  await knex.raw(`CREATE TRIGGER IF NOT EXISTS audit_log_no_delete BEFORE DELETE ON audit_log
    WHEN NOT EXISTS (SELECT 1 FROM audit_prunes p WHERE p.team_id = OLD.team_id AND p.through_seq >= OLD.seq)
    BEGIN SELECT RAISE(ABORT, '${APPEND_ONLY}: DELETE refused'); END`);
  await knex.raw(`CREATE TRIGGER IF NOT EXISTS audit_prunes_anchor BEFORE INSERT ON audit_prunes
    WHEN NEW.anchor_hash IS NOT (SELECT hash FROM audit_log WHERE team_id = NEW.team_id AND seq = NEW.through_seq)
      OR (NEW.through_seq >= (SELECT max(seq) FROM audit_log WHERE team_id = NEW.team_id) AND EXISTS (SELECT 1 FROM teams WHERE id = NEW.team_id))
    BEGIN SELECT RAISE(ABORT, 'audit_prunes: the anchor must be a stored entry older than the newest'); END`);
  await knex.raw(`CREATE TRIGGER IF NOT EXISTS audit_prunes_no_update BEFORE UPDATE ON audit_prunes BEGIN SELECT RAISE(ABORT, 'audit_prunes is append-only: UPDATE refused'); END`);
  await knex.raw(`CREATE TRIGGER IF NOT EXISTS audit_prunes_no_delete BEFORE DELETE ON audit_prunes BEGIN SELECT RAISE(ABORT, 'audit_prunes is append-only: DELETE refused'); END`);
}

/** Drops the audit tables and their triggers. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_heads');
  await knex.schema.dropTableIfExists('audit_prunes');
  await knex.schema.dropTableIfExists('audit_log');
  if (knex.client.config.client === 'pg') {
    await knex.raw('DROP FUNCTION IF EXISTS audit_log_guard()');
    await knex.raw('DROP FUNCTION IF EXISTS audit_prunes_guard()');
  }
}
