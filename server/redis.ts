// The shared fast store: one ioredis connection per process for commands (limits, in-flight locks,
// counters) and, on demand, one for pub/sub (a subscribed connection can send nothing else).
// Redis is an accelerator, never the source of truth: when it goes away the process keeps serving
// (callers fall back to their local store), logs one warning, reports it in /healthz, and picks
// Redis up again when it returns.
import { Redis } from 'ioredis';
import type { Logger } from './log.ts';

/** What a process knows of its Redis connection. */
export interface RedisHealth {
  /** `off` without REDIS_URL; `ok` while commands reach Redis; `unavailable` while they do not. */
  state: 'off' | 'ok' | 'unavailable';
  /** The last connection error while unavailable. */
  error?: string;
}

export interface SharedRedis {
  /** The command connection. Its offline queue is off: a command while disconnected fails at once (callers fall back). */
  readonly client: Redis;
  /** Every key and channel this deployment uses starts with it (REDIS_PREFIX), so deployments and tests can share one Redis. */
  readonly prefix: string;
  /** A second connection in subscriber mode, opened on first use. */
  subscriber(): Redis;
  health(): RedisHealth;
  /** True while commands reach Redis. */
  readonly ready: boolean;
  close(): Promise<void>;
}

/** How long a reconnect waits at most between attempts. */
const MAX_RECONNECT_DELAY_MS = 1000;

function connection(url: string, autoPipelining = false): Redis {
  return new Redis(url, {
    // The command connection batches every command issued within one turn of the event loop into
    // one write (ioredis flushes on setImmediate): a request's limits, claims and releases, and the
    // commands of the other requests in flight, leave in one syscall instead of one each.
    enableAutoPipelining: autoPipelining,
    // Commands never wait for a connection that may not come: the caller's fallback answers instead.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    // Keep trying for as long as the process lives, quickly at first.
    retryStrategy: (times) => Math.min(times * 50, MAX_RECONNECT_DELAY_MS),
    lazyConnect: false,
  });
}

/** Opens the shared connection; the process serves at once and uses Redis from when it answers. */
export function openRedis(url: string, prefix: string, log: Logger): SharedRedis {
  const client = connection(url, true);
  let ready = false;
  let lastError: string | undefined;
  let warned = false;
  let sub: Redis | null = null;
  client.on('ready', () => {
    ready = true;
    lastError = undefined;
    if (warned) log.info('redis reachable again; shared limits and locks are back', { redis: redact(url) });
    warned = false;
  });
  const down = (err?: Error) => {
    if (err) lastError = String(err.message ?? err).slice(0, 200);
    if (!ready && warned) return;
    ready = false;
    if (!warned) {
      warned = true;
      log.warn('redis unavailable; serving with process-local limits until it returns', { redis: redact(url), error: lastError ?? null });
    }
  };
  client.on('error', (err: Error) => down(err));
  client.on('close', () => down());
  return {
    client,
    prefix,
    subscriber() {
      if (!sub) {
        sub = connection(url);
        // Errors are the command connection's to report; without a listener ioredis would print them.
        sub.on('error', () => undefined);
      }
      return sub;
    },
    health: () => (ready ? { state: 'ok' } : { state: 'unavailable', ...(lastError ? { error: lastError } : {}) }),
    get ready() {
      return ready;
    },
    async close() {
      const all = [client, ...(sub ? [sub] : [])];
      await Promise.all(all.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}

/** The URL without its password, for logs. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'redis';
  }
}
