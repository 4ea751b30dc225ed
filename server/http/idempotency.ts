// Idempotency-Key on REST writes (issue #34 goal 5), as Stripe promises it: one key, one run.
//
// The key is claimed by inserting its row (the primary key is the API key and the Idempotency-Key),
// in the same transaction as the whole handler and the answer it records: the change and its record
// commit together or not at all, on both databases and whatever the number of processes. A request
// that finds the key claimed waits for the claimer's transaction (PostgreSQL's unique index makes
// the second insert wait; SQLite has one writer) and then answers from its record: the same answer
// for the same request, 400 IDEMPOTENCY_KEY_REUSED_ERROR for a different one. A crash before COMMIT
// leaves neither the change nor the claim, so the retry runs once.
//
// Operations that call another server while they run (`outbound`: a webhook test, the console's
// import source checks) do not hold a transaction across that call: their claim commits first
// (answer still empty: in progress), the answer is recorded after, and a claim whose request died
// is taken over after `STALE_CLAIM_MS`.
import type { Knex } from 'knex';
import type { Deps } from './deps.ts';
import { settleAfter, withinTransaction } from '../db/ambient.ts';
import { runSql, trxRows } from '../db/rows.ts';
import { IDEMPOTENCY_TTL_MS } from '../domain/platform/maintenance.ts';
import { ConflictError, ValidationError } from '../errors.ts';
import { ERROR_CODES } from '../../shared/errors.ts';

/** `status` of a claim whose answer is not recorded yet. */
const IN_PROGRESS = 0;
/** An outbound operation's claim with no answer after this long belongs to a request that died. */
export const STALE_CLAIM_MS = 120_000;
/** Longest Idempotency-Key kept (the column's width). */
const KEY_LENGTH = 255;

export interface Replay {
  status: number;
  body: unknown;
}

export type KeyedOutcome<R> = { result: R } | { replay: Replay };

// Takes the key when nobody holds it, or when its record expired or its outbound claimer died.
const CLAIM_SQL =
  'INSERT INTO idempotency_records (api_key_id, idempotency_key, fingerprint, status, body_enc, created_at) VALUES (?, ?, ?, 0, ?, ?) ' +
  'ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET fingerprint = excluded.fingerprint, status = 0, body_enc = excluded.body_enc, created_at = excluded.created_at ' +
  'WHERE idempotency_records.created_at < ? OR (idempotency_records.status = 0 AND idempotency_records.created_at < ?) ' +
  'RETURNING api_key_id';
const RECORD_SQL = 'UPDATE idempotency_records SET status = ?, body_enc = ? WHERE api_key_id = ? AND idempotency_key = ?';

async function claim(deps: Deps, q: Knex | Knex.Transaction, keyId: string, idemKey: string, fp: string): Promise<boolean> {
  const now = deps.clock.now();
  const params = [keyId, idemKey, fp, '', now, now - IDEMPOTENCY_TTL_MS, now - STALE_CLAIM_MS];
  if ((q as Knex.Transaction).isTransaction) return (await trxRows(q as Knex.Transaction, CLAIM_SQL, params)).length > 0;
  const res = await q.raw(CLAIM_SQL, params);
  return (deps.db.dialect === 'pg' ? res.rows : res).length > 0;
}

async function record(deps: Deps, q: Knex | Knex.Transaction, keyId: string, idemKey: string, body: unknown): Promise<void> {
  const params = [200, deps.sealer.seal(JSON.stringify(body)), keyId, idemKey];
  if ((q as Knex.Transaction).isTransaction) await runSql(q as Knex.Transaction, RECORD_SQL, params);
  else await q.raw(RECORD_SQL, params);
}

/**
 * The recorded answer for this key: null when none is recorded (never used, expired, or its
 * outbound claimer died); 400 when it was used for a different request; 409 while its first
 * request is still running.
 */
export async function recordedAnswer(deps: Deps, keyId: string, idemKey: string, fp: string): Promise<Replay | null> {
  const row = await deps.db.knex('idempotency_records').where({ api_key_id: keyId, idempotency_key: idemKey.slice(0, KEY_LENGTH) }).first();
  const now = deps.clock.now();
  if (!row || Number(row.created_at) + IDEMPOTENCY_TTL_MS < now) return null;
  if (row.fingerprint !== fp) {
    throw new ValidationError('This Idempotency-Key was already used with a different request.', undefined, ERROR_CODES.IDEMPOTENCY_KEY_REUSED);
  }
  if (Number(row.status) === IN_PROGRESS) {
    if (Number(row.created_at) + STALE_CLAIM_MS < now) return null;
    throw new ConflictError('A request with this Idempotency-Key is still in progress; retry it shortly.', ERROR_CODES.DUPLICATE_REQUEST);
  }
  const plain = deps.sealer.open(row.body_enc);
  return plain == null ? null : { status: Number(row.status), body: JSON.parse(plain) };
}

/**
 * Runs a keyed write once: `run` inside one transaction with the key's claim and its recorded
 * answer, or, when the key is taken, the first request's answer. `outbound` operations claim first
 * and record after (see the module comment).
 */
export async function runKeyed<R>(deps: Deps, keyId: string, idemKey: string, fp: string, outbound: boolean, run: () => Promise<R>): Promise<KeyedOutcome<R>> {
  const key = idemKey.slice(0, KEY_LENGTH);
  // A claim can lose to a record that is then pruned, or to a claimer that rolled back: try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    if (outbound) {
      if (await claim(deps, deps.db.knex, keyId, key, fp)) {
        let result: R;
        try {
          result = await run();
        } catch (err) {
          await deps.db.knex('idempotency_records').where({ api_key_id: keyId, idempotency_key: key, status: IN_PROGRESS, fingerprint: fp }).del();
          throw err;
        }
        await record(deps, deps.db.knex, keyId, key, result);
        return { result };
      }
    } else {
      let claimed = false;
      const after: Array<Promise<unknown>> = [];
      let result: R;
      try {
        result = await deps.db.knex.transaction(async (trx) => {
          claimed = await claim(deps, trx, keyId, key, fp);
          if (!claimed) return undefined as R;
          const r = await withinTransaction(trx, run, after);
          await record(deps, trx, keyId, key, r);
          return r;
        });
      } finally {
        // What the handler left for after the transaction (a refusal's access events) is stored before the answer.
        await settleAfter(after);
      }
      if (claimed) {
        // Work the handler queued (webhooks, emails) became visible only now.
        deps.jobs.kick();
        return { result };
      }
    }
    const replay = await recordedAnswer(deps, keyId, key, fp);
    if (replay) return { replay };
  }
  throw new ConflictError('A request with this Idempotency-Key is still in progress; retry it shortly.', ERROR_CODES.DUPLICATE_REQUEST);
}
