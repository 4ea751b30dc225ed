// `node --import tsx bench/audit-append.ts`: what one audit entry adds to a write transaction
// (issue #35): N transactions of one INSERT each (a stand-in for the change), then N with the change
// and `AuditLog.append` (the entry as the pipeline builds it: redacted changes, one statement that
// numbers, chains and hashes it), all on one team's chain, in interleaved blocks of 100. Prints the
// median block's app CPU (this process) and wall time per transaction for both, and the difference.
//
//   BENCH_DATABASE_URL / DATABASE_URL  postgres://… (a fresh schema is made and dropped); without it, a SQLite file
//   BENCH_APPENDS                      transactions per run (default 2,000), after 200 unmeasured ones
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import knexFactory from 'knex';
import { migrate, openDb } from '../server/db/connect.ts';
import { AuditLog, changesOf } from '../server/domain/platform/audit.ts';
import { PG_URL } from './settings.ts';

const N = Number(process.env.BENCH_APPENDS ?? 2000);
const WARMUP = 200;

async function main(): Promise<void> {
  const tag = `bench_audit_${crypto.randomBytes(4).toString('hex')}`;
  let url: string;
  let cleanup: () => Promise<void>;
  if (PG_URL) {
    const admin = knexFactory({ client: 'pg', connection: PG_URL });
    await admin.raw(`CREATE SCHEMA "${tag}"`);
    url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${tag}`)}`;
    cleanup = async () => {
      await admin.raw(`DROP SCHEMA "${tag}" CASCADE`);
      await admin.destroy();
    };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-bench-'));
    url = path.join(dir, 'bench.db');
    cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  const db = openDb(PG_URL ? { client: 'pg', url } : { client: 'better-sqlite3', filename: url });
  try {
    await migrate(db);
    await db.knex.schema.createTable('bench_changes', (t) => {
      t.increments('id');
      t.string('team_id', 32);
      t.text('body');
    });
    const audit = new AuditLog(db, { now: () => Date.now(), sleep: async () => {} } as never);
    const body = { email: 'friend@example.com', referredBy: 'abcdefghij0123456789', firstName: 'Ann', metadata: { plan: 'pro' } };
    const change = (trx: never) => (trx as unknown as import('knex').Knex.Transaction)('bench_changes').insert({ team_id: 'bench-team', body: JSON.stringify(body) });
    const run = async (withAudit: boolean, n: number) => {
      const cpu = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        await db.knex.transaction(async (trx) => {
          await change(trx as never);
          if (withAudit) {
            await audit.append(trx, {
              teamId: 'bench-team',
              actor: { type: 'API_KEY', id: 'k0123456789abcdefghi', label: 'sk_AbCdEfGh' },
              ip: '203.0.113.7',
              userAgent: 'bench/1.0',
              action: 'P3',
              resourceType: 'participants',
              resourceId: `p${i}`,
              changes: changesOf({ params: { id: 'prog0123456789abcdef' }, body, result: { ...body, id: `p${i}` } }),
            });
          }
        });
      }
      const wall = Number(process.hrtime.bigint() - t0) / 1e3 / n;
      const used = process.cpuUsage(cpu);
      return { appUs: (used.user + used.system) / n, wallUs: wall };
    };
    await run(false, WARMUP);
    await run(true, WARMUP);
    // Interleaved blocks, each kind's median block: the order of two long runs (JIT, caches, the
    // database's own warm-up) otherwise decides more than the entry does.
    const BLOCK = 100;
    const plainBlocks: Array<{ appUs: number; wallUs: number }> = [];
    const auditedBlocks: Array<{ appUs: number; wallUs: number }> = [];
    for (let done = 0; done < N; done += BLOCK) {
      plainBlocks.push(await run(false, BLOCK));
      auditedBlocks.push(await run(true, BLOCK));
    }
    const median = (xs: Array<{ appUs: number; wallUs: number }>) => {
      const at = (k: 'appUs' | 'wallUs') => xs.map((x) => x[k]).sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      return { appUs: at('appUs'), wallUs: at('wallUs') };
    };
    const plain = median(plainBlocks);
    const audited = median(auditedBlocks);
    const fmt = (r: { appUs: number; wallUs: number }) => `${r.appUs.toFixed(0)} µs app CPU, ${r.wallUs.toFixed(0)} µs wall`;
    console.log(`${db.dialect}: ${N} transactions each`);
    console.log(`  change only          ${fmt(plain)}`);
    console.log(`  change + audit entry ${fmt(audited)}`);
    console.log(`  the entry adds       ${(audited.appUs - plain.appUs).toFixed(0)} µs app CPU, ${(audited.wallUs - plain.wallUs).toFixed(0)} µs wall per transaction`);
    const verify = await audit.verify('bench-team');
    console.log(`  chain: ${verify.entries} entries, ${verify.breaks.length} broken`);
  } finally {
    await db.close();
    await cleanup();
  }
}

await main();
