import { expect } from 'vitest';
import { onPostgres, type TestApp } from './app.ts';

// The audit trail's SYSTEM entries as the suites of issue #35 read them: straight from audit_log,
// and a database trigger that refuses one action's entries, so a test can show a change and its
// entry commit together or not at all (a real failure of the real INSERT, not a stand-in).

/** A team's SYSTEM entries after entry `afterSeq`, oldest first, `changes` parsed. */
export async function systemEntries(app: TestApp, teamId: string, afterSeq = 0): Promise<Array<Record<string, any>>> {
  const rows = await app.deps.db.knex('audit_log').where({ team_id: teamId, actor_type: 'SYSTEM' }).where('seq', '>', afterSeq).orderBy('seq');
  return rows.map((r) => ({ ...r, seq: Number(r.seq), changes: JSON.parse(r.changes) }));
}

/** The team's newest entry number (0 without entries). */
export async function lastSeq(app: TestApp, teamId: string): Promise<number> {
  const r = await app.deps.db.knex('audit_log').where({ team_id: teamId }).max({ seq: 'seq' }).first();
  return Number(r?.seq ?? 0);
}

/** Every entry of the team still chains (what `refloop audit verify --team` checks). */
export async function expectChainIntact(app: TestApp, teamId: string): Promise<void> {
  expect((await app.deps.audit.verify(teamId)).breaks).toEqual([]);
}

let refusals = 0;
/**
 * Makes the database refuse every audit entry with `action` until the returned function is called:
 * the change whose transaction carries that entry must then fail whole.
 */
export async function refuseAuditAction(app: TestApp, action: string): Promise<() => Promise<void>> {
  const k = app.deps.db.knex;
  const name = `test_refuse_audit_${++refusals}`;
  const literal = `'${action.replace(/'/g, "''")}'`;
  if (onPostgres) {
    await k.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit entry refused by the test'; END $$`);
    await k.raw(`CREATE TRIGGER ${name} BEFORE INSERT ON audit_log FOR EACH ROW WHEN (NEW.action = ${literal}) EXECUTE FUNCTION ${name}()`);
    return async () => {
      await k.raw(`DROP TRIGGER ${name} ON audit_log`);
      await k.raw(`DROP FUNCTION ${name}()`);
    };
  }
  await k.raw(`CREATE TRIGGER ${name} BEFORE INSERT ON audit_log WHEN NEW.action = ${literal} BEGIN SELECT RAISE(ABORT, 'audit entry refused by the test'); END`);
  return async () => {
    await k.raw(`DROP TRIGGER ${name}`);
  };
}
