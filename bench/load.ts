// The load generator: keep-alive HTTP workers driving requests at a server until a deadline, and
// the server's CPU time read from /proc.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import { CONNECTIONS, REQUEST_TIMEOUT_MS, WARMUP_CAP_MS, WARMUP_REQUESTS } from './settings.ts';

// --- measuring ----------------------------------------------------------------------------------

export const CLK_TCK = (() => {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process, in clock ticks, from /proc/<pid>/stat (fields 14 and 15). */
export function cpuTicks(pid: number): number {
  const [user, system] = cpuSplit(pid);
  return user + system;
}

/** Clock ticks of several processes together; one that has exited counts nothing. */
export function cpuTicksOf(pids: number[]): number {
  return pids.reduce((n, pid) => {
    try {
      return n + cpuTicks(pid);
    } catch {
      return n;
    }
  }, 0);
}

/** Microseconds of CPU per operation from clock ticks over `n` operations (NaN for none). */
export function usPerOp(ticks: number, n: number): number {
  return n ? ((ticks / CLK_TCK) * 1e6) / n : NaN;
}

/** [user, system] clock ticks of a process: system time is the kernel's share (sockets, file writes). */
export function cpuSplit(pid: number): [number, number] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]), Number(fields[12])];
}

/** "user U µs + system S µs" per request between two `cpuSplit` readings. */
export function splitNote(before: [number, number], after: [number, number], requests: number): string {
  const us = (ticks: number) => (requests ? ((ticks / CLK_TCK) * 1e6) / requests : NaN).toFixed(0);
  return `user ${us(after[0] - before[0])} µs + system ${us(after[1] - before[1])} µs`;
}

export interface LoadResult {
  completed: number;
  errors: number;
  statuses: Map<number, number>;
  seconds: number;
  latencies: number[];
  /** What the answers said, when the load classified them (`outcome`): e.g. RECORDED and PROCESSING visits. */
  outcomes: Map<string, number>;
}

/** One request of a load: `content-length` is added for a body. */
export interface BenchRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** Names an answer by its status and body (read only when a load passes one), e.g. a visit's RECORDED or PROCESSING. */
export type Outcome = (status: number, body: string) => string;

/**
 * CONNECTIONS workers (or `connections`), each with one request in flight at a time over a shared keep-alive agent,
 * until the deadline or until `next` has nothing more to send (null). A failed request is counted
 * and its worker pauses 10 ms (a refused connection fails at once; don't spin on it). With
 * `outcome`, every answer's body is read and counted under the name `outcome` gives it.
 */
export async function drive(ms: number, next: (worker: number) => BenchRequest | null, connections = CONNECTIONS, outcome?: Outcome): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const outcomes = new Map<string, number>();
  let errors = 0;
  const once = (r: BenchRequest) =>
    new Promise<number>((resolve, reject) => {
      const headers = r.body === undefined ? r.headers : { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) };
      const req = http.request(r.url, { method: r.method, agent, headers }, (res) => {
        res.on('error', reject);
        if (outcome) {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => {
            const name = outcome(res.statusCode ?? 0, body);
            outcomes.set(name, (outcomes.get(name) ?? 0) + 1);
            resolve(res.statusCode ?? 0);
          });
          return;
        }
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.resume();
      });
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('request timed out')));
      req.on('error', reject);
      req.end(r.body);
    });
  const start = performance.now();
  const deadline = start + ms;
  const worker = async (i: number) => {
    while (performance.now() < deadline) {
      const r = next(i);
      if (!r) return;
      const t0 = performance.now();
      try {
        const status = await once(r);
        latencies.push(performance.now() - t0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      } catch {
        errors++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, (_, i) => worker(i)));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { completed: latencies.length, errors, statuses, seconds, latencies, outcomes };
}

/**
 * The warm-up of a row: `count` requests (BENCH_WARMUP_REQUESTS) from `next`, over the row's
 * connections, however long they take (up to WARMUP_CAP_MS); `next` may run out first (null).
 */
export function warmUp(next: (i: number) => BenchRequest | null, count = WARMUP_REQUESTS, connections = CONNECTIONS): Promise<LoadResult> {
  let sent = 0;
  return drive(WARMUP_CAP_MS, () => (sent < count ? next(sent++) : null), connections);
}

/** GET `url` until the deadline. */
export function load(url: string, headers: Record<string, string>, ms: number): Promise<LoadResult> {
  return drive(ms, () => ({ url, method: 'GET', headers }));
}

/** POST `{}` to each path once, in order, until the paths or the time run out. */
export function loadOnce(base: string, paths: string[], headers: Record<string, string>, ms: number): Promise<LoadResult> {
  const json = { ...headers, 'content-type': 'application/json' };
  let n = 0;
  return drive(ms, () => (n < paths.length ? { url: base + paths[n++]!, method: 'POST', headers: json, body: '{}' } : null));
}

/** POST `make(i)` (a fresh path and JSON body per request) until the deadline. */
export function loadPosts(base: string, make: (i: number) => { pathname: string; body: string }, headers: Record<string, string>, ms: number): Promise<LoadResult> {
  const json = { ...headers, 'content-type': 'application/json' };
  let n = 0;
  return drive(ms, () => {
    const { pathname, body } = make(n++);
    return { url: base + pathname, method: 'POST', headers: json, body };
  });
}
