// Reading a program from a server that speaks the GrowSurf v2 REST API (GrowSurf itself, or another
// refloop): GET only, so an import can never change its source; paced by the source's own limit
// headers and `Retry-After`; a 5xx, a dropped connection or a body cut short is asked again after a
// growing pause, so a flaky source costs time, never records. Requests go over node:http(s) with a
// keep-alive agent, and connect only to `lookup`'s answer when one is given (the console pins the
// address its outbound guard checked, as webhook deliveries do).
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

/** What the source answered when it refused for good (a bad key, an unknown program). */
export class SourceError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** What the reader needs from its surroundings; tests pass a fast `sleep`. */
export interface SourceOptions {
  /** The source's API base, e.g. `https://api.growsurf.com/v2` (a trailing `/v2` is added when missing). */
  url: string;
  key: string;
  /** Attempts per request before giving up on a source that keeps failing (5xx, dropped connections). */
  attempts?: number;
  sleep?: (ms: number) => Promise<void>;
  /** How host names resolve (`pinnedLookup` from the outbound address guard); the system's when absent. */
  lookup?: LookupFunction;
  /** The longest one request may take, in milliseconds (default 60 s): a source that stops answering is asked again. */
  timeoutMs?: number;
  /** Called when the reader waits: a limit reached, or a failure retried (the progress line says so). */
  onWait?: (reason: string, ms: number) => void;
}

/** The longest pause a `Retry-After` may ask for before the reader gives up on the source. */
const MAX_RETRY_AFTER_MS = 15 * 60_000;

/** A read-only client of one source. */
export class GrowSurfSource {
  readonly base: string;
  readonly #key: string;
  readonly #attempts: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #onWait: (reason: string, ms: number) => void;
  readonly #lookup: LookupFunction | undefined;
  readonly #timeoutMs: number;
  readonly #agents = { 'http:': new http.Agent({ keepAlive: true, maxSockets: 4 }), 'https:': new https.Agent({ keepAlive: true, maxSockets: 4 }) };
  /** Requests answered (for the progress line and the bench). */
  requests = 0;
  /** The source's own time (its `Date` header) at its last answer: which month its monthly counts belong to. */
  lastDate: number | null = null;

  constructor(opts: SourceOptions) {
    const trimmed = opts.url.replace(/\/+$/, '');
    this.base = /\/v2$/.test(trimmed) ? trimmed : `${trimmed}/v2`;
    this.#key = opts.key;
    this.#attempts = opts.attempts ?? 8;
    this.#sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.#onWait = opts.onWait ?? (() => {});
    this.#lookup = opts.lookup;
    this.#timeoutMs = opts.timeoutMs ?? 60_000;
  }

  /** Closes the kept-alive connections (the process may exit without it; tests and jobs call it). */
  close(): void {
    this.#agents['http:'].destroy();
    this.#agents['https:'].destroy();
  }

  /** One GET: status, headers and the whole body, or a rejection when the connection fails or the body is cut short. */
  #request(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
    const u = new URL(url);
    const transport = u.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(
        u,
        {
          method: 'GET',
          headers: { Authorization: `Bearer ${this.#key}`, Accept: 'application/json' },
          agent: this.#agents[u.protocol === 'https:' ? 'https:' : 'http:'],
          timeout: this.#timeoutMs,
          ...(this.#lookup ? { lookup: this.#lookup } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          // A connection dropped mid-body ends in 'aborted'/'error', never 'end' with a short body.
          res.on('error', reject);
          res.on('aborted', () => reject(new Error('the connection closed before the whole answer came')));
          res.on('end', () => {
            if (!res.complete) return reject(new Error('the connection closed before the whole answer came'));
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${Math.round(this.#timeoutMs / 1000)} s`)));
      req.on('error', reject);
      req.end();
    });
  }

  /** GET `path` (under the base) with `query`; the parsed JSON body. */
  async get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const qs = Object.entries(query)
      .filter(([, v]) => v !== undefined && v !== '')
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
      .join('&');
    const url = `${this.base}${path}${qs ? `?${qs}` : ''}`;
    let pause = 500;
    for (let attempt = 1; ; attempt++) {
      let res: { status: number; headers: http.IncomingHttpHeaders };
      let text: string;
      try {
        ({ text, ...res } = await this.#request(url));
      } catch (err) {
        if (attempt >= this.#attempts) throw new SourceError(`The source did not answer ${path}: ${(err as Error).message}`, null);
        this.#onWait(`connection failed (${(err as Error).message}), retrying`, pause);
        await this.#sleep(pause);
        pause = Math.min(pause * 2, 30_000);
        continue;
      }
      if (res.status === 429) {
        const wait = retryAfterMs(header(res.headers, 'retry-after')) ?? pause;
        if (wait > MAX_RETRY_AFTER_MS) throw new SourceError(`The source asks to wait ${Math.round(wait / 60_000)} minutes; run again later with --resume.`, 429);
        this.#onWait('the source’s rate limit was reached', wait);
        await this.#sleep(wait);
        pause = Math.min(pause * 2, 30_000);
        continue;
      }
      if (res.status >= 500) {
        if (attempt >= this.#attempts) throw new SourceError(`The source kept failing on ${path} (HTTP ${res.status}).`, res.status);
        this.#onWait(`the source answered ${res.status}, retrying`, pause);
        await this.#sleep(pause);
        pause = Math.min(pause * 2, 30_000);
        continue;
      }
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // A 200 whose body is not JSON was cut short or mangled on the way: ask again.
        if (attempt >= this.#attempts) throw new SourceError(`The source's answer to ${path} is not JSON.`, res.status);
        await this.#sleep(pause);
        continue;
      }
      if (res.status >= 400) {
        const message = (body as { message?: string } | null)?.message ?? `HTTP ${res.status}`;
        throw new SourceError(`The source refused ${path}: ${message}`, res.status);
      }
      this.requests++;
      const date = Date.parse(header(res.headers, 'date') ?? '');
      if (Number.isFinite(date)) this.lastDate = date;
      await this.#pace(res.headers);
      return body as T;
    }
  }

  /** Waits out a budget the answer says is spent (`…-RateLimit-Second-Remaining: 0` and the like), before the next request hits it. */
  async #pace(headers: http.IncomingHttpHeaders): Promise<void> {
    let wait = 0;
    for (const [name, raw] of Object.entries(headers)) {
      const value = Array.isArray(raw) ? raw[0] : raw;
      const m = /ratelimit-(second|minute|hour)-remaining$/i.exec(name);
      if (!m || Number(value) > 0) continue;
      const unit = m[1]!.toLowerCase();
      // Only the one-second window is waited out here; a spent minute or hour budget is answered
      // with 429 and `Retry-After`, which says exactly how long.
      if (unit === 'second') wait = Math.max(wait, 1000);
    }
    if (wait) {
      this.#onWait('pacing to the source’s rate limit', wait);
      await this.#sleep(wait);
    }
  }
}

/** One header's value (the first when repeated), or null. */
function header(headers: http.IncomingHttpHeaders, name: string): string | null {
  const v = headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? null;
}

/** `Retry-After` in milliseconds: delta seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}
