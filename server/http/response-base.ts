import type { Logger } from '../log.ts';

// What every response shares, whether Koa answers it (server/app.ts) or the visit fast path
// (server/http/mobile/visit-fast-path.ts): the base headers and the access log line.

/** The headers every response carries besides its request id (HSTS only when the public URL is https). */
export function baseHeaders(https: boolean): Record<string, string> {
  const h: Record<string, string> = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'strict-origin-when-cross-origin' };
  if (https) h['Strict-Transport-Security'] = 'max-age=31536000; includeSubDomains';
  return h;
}

/** The access log line of one request. */
export function logRequest(log: Logger, requestId: string, method: string, path: string, status: number, started: bigint): void {
  log.info('request', { requestId, method, path, status, ms: Number(process.hrtime.bigint() - started) / 1e6 });
}
