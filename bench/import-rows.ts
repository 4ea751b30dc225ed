// Row (y): `refloop import growsurf` (issue #33) from a loopback source: a `refloop serve` (SQLite)
// with its published rate limits (the defaults: RATE_LIMIT_SECOND per RATE_LIMIT_SECOND_WINDOW,
// RATE_LIMIT_MINUTE, RATE_LIMIT_HOUR) holding BENCH_PARTICIPANTS participants with their referrals
// (scripts/seed.ts), imported by the CLI as a child process into a second `refloop serve`'s
// database. Measured: participants per second end to end, the source's requests per second, and
// the CPU the importer and each server spent against the wall time: the importer must not be the
// bottleneck (its CPU share stays far below one core while the source answers at its limit).
import { spawn } from 'node:child_process';
import { BIN, PARTICIPANTS, RAISED_LIMITS, ROOT } from './settings.ts';
import { call, startRefloop, stopChild, verifiedKey } from './processes.ts';
import { CLK_TCK, cpuTicks } from './load.ts';

/** Seeds the source, imports once, prints the row; returns participants per second. */
export async function importRow(count = PARTICIPANTS || 100_000): Promise<number> {
  console.log(`\n(y) refloop import growsurf from a loopback source (\`refloop serve\`, SQLite, default rate limits) with ${count.toLocaleString('en')} participants`);
  const source = await startRefloop('source (GrowSurf v2 API)', {});
  const target = await startRefloop('target', { ...RAISED_LIMITS });
  try {
    const key = await verifiedKey(source, 'bench-import-source@acme-widgets.com');
    const program = await call(source, 'POST', '/v2/campaigns', key, { type: 'REFERRAL', name: 'Imported program' });
    const { openDb } = await import('../server/db/connect.ts');
    const { seedParticipants } = await import('../scripts/seed.ts');
    const seedDb = openDb({ client: 'better-sqlite3', filename: String(source.env.DATABASE_URL) });
    let referrals = 0;
    try {
      const seeded = await seedParticipants(seedDb, { programId: program.id, count, now: Date.now(), seed: 7 });
      referrals = seeded.referrals;
      console.log(`  seeded ${seeded.participants.toLocaleString('en')} participants (${seeded.referrals.toLocaleString('en')} referred) in ${(seeded.ms / 1000).toFixed(1)} s`);
    } finally {
      await seedDb.close();
    }
    // The target's one team (the CLI imports into the only team when --into is not given).
    await verifiedKey(target, 'bench-import-target@acme-widgets.com');

    const sourceBefore = cpuTicks(source.child.pid!);
    const targetBefore = cpuTicks(target.child.pid!);
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'import', 'growsurf', '--from', source.base, '--key', key, '--program', program.id, '--json'], { cwd: ROOT, env: target.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let importerTicks = 0;
    const sampler = setInterval(() => {
      try {
        importerTicks = cpuTicks(child.pid!);
      } catch {
        // gone: the last reading stands (at most one interval short)
      }
    }, 50);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearInterval(sampler);
    const seconds = (performance.now() - started) / 1000;
    const events = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, any>);
    const report = events.find((e) => e.event === 'report');
    if (code !== 0 || !report) throw new Error(`the import exited ${code}:\n${out.slice(-2000)}`);
    if (report.counts.participants.created !== count) throw new Error(`imported ${report.counts.participants.created} participants, expected ${count}`);
    const waits = events.filter((e) => e.event === 'wait');
    const limitWaits = waits.filter((w) => String(w.reason).includes('rate limit'));
    const waitedSeconds = limitWaits.reduce((n, w) => n + Number(w.ms), 0) / 1000;
    const share = (ticks: number) => `${((ticks / CLK_TCK / seconds) * 100).toFixed(0)} %`;
    const perSec = count / seconds;
    console.log('\n| What | participants (referred) | seconds | participants/s | source requests | requests/s | waited for the source’s limit | importer CPU | source CPU | target CPU |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    console.log(
      `| (y) import growsurf, loopback source | ${count.toLocaleString('en')} (${referrals.toLocaleString('en')}) | ${seconds.toFixed(1)} | ${perSec.toFixed(0)} | ${report.requests.toLocaleString('en')} | ${(report.requests / seconds).toFixed(1)} | ${limitWaits.length} waits, ${waitedSeconds.toFixed(0)} s | ${share(importerTicks)} | ${share(cpuTicks(source.child.pid!) - sourceBefore)} | ${share(cpuTicks(target.child.pid!) - targetBefore)} |`,
    );
    console.log('  CPU as a share of one core over the wall time; the source answers at its published limits (400 requests a minute by default), so its limit, not the importer, sets the pace');
    return perSec;
  } finally {
    await stopChild(source.child);
    await stopChild(target.child);
  }
}
