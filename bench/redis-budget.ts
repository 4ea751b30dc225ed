// What one per-program participant-API charge costs with REDIS_URL: rate-limiter-flexible's Redis
// store charged on every call, against the same store behind `SharedBudget`'s batching, and the
// process-memory store for scale. Prints calls per second and this process's CPU per call at 50
// calls in flight on one key (one busy program). A standalone probe, not a row of `npm run bench`:
// node --import tsx bench/redis-budget.ts [redis://127.0.0.1:6379]  (keys under bench:<pid>:, removed after)
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { SharedBudget } from '../server/http/mobile/shared-budget.ts';

const url = process.argv[2] ?? 'redis://127.0.0.1:6379';
const CALLS = 100_000;
const IN_FLIGHT = 50;
const POINTS = 10_000_000;

async function run(name: string, charge: (key: string) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 2000; i++) await charge('warm');
  const key = `p${Math.random().toString(36).slice(2)}`;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let left = CALLS;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (left-- > 0) await charge(key);
    }),
  );
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const perCallUs = (cpu.user + cpu.system) / CALLS;
  console.log(`${name.padEnd(34)} ${Math.round((CALLS / ms) * 1000).toLocaleString('en').padStart(9)} calls/s  ${perCallUs.toFixed(1).padStart(6)} µs CPU per call`);
}

const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
await new Promise<void>((r) => client.once('ready', () => r()));
const prefix = `bench:${process.pid}:`;
const redisLimiter = (keyPrefix: string): RateLimiterAbstract => new RateLimiterRedis({ storeClient: client, useRedisPackage: false, keyPrefix: prefix + keyPrefix, points: POINTS, duration: 60 });
const memory = new RateLimiterMemory({ keyPrefix: 'm', points: POINTS, duration: 60 });
await run('memory (one process)', (k) => memory.consume(k));
const exact = redisLimiter('exact');
await run('redis, every call', (k) => exact.consume(k));
const batched = new SharedBudget(redisLimiter('batch'), { points: POINTS });
await run('redis, SharedBudget batches', (k) => batched.charge(k));
const t0 = performance.now();
for (let i = 0; i < 2000; i++) await exact.consume('serial');
console.log(`redis, one call at a time          ${((performance.now() - t0) / 2000 * 1000).toFixed(0)} µs per call (round trip)`);
const keys = await client.keys(`${prefix}*`);
if (keys.length) await client.del(...keys);
client.disconnect();
