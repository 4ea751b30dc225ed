import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { freePort } from '../../scripts/free-port.ts';
import { call } from '../../scripts/probes.ts';
import { RAISED_LIMITS } from './app.ts';

export { call, type Answer } from '../../scripts/probes.ts';

// `refloop serve` as a separate process, the way a host runs it: for tests where processes share
// nothing but the database (and Redis), and for SIGKILL.

const root = path.resolve(import.meta.dirname, '../..');
const PUBLIC_URL = 'http://refloop.test';

/** Limits high enough that a test's own load never meets them. */
export const UNLIMITED: Record<string, string> = { ...RAISED_LIMITS, ACCOUNT_CREATION_PER_HOUR: '10000' };

export interface Served {
  base: string;
  port: number;
  /** What the process printed (last 20 kB). */
  output(): string;
  /** SIGKILL, and wait for the exit. */
  kill9(): Promise<void>;
  /** SIGTERM (SIGKILL after 20 s), and wait for the exit. */
  stop(): Promise<void>;
}


/** Starts `refloop serve` on a free port (or `port`) and resolves once /healthz answers. */
export async function serve(env: Record<string, string>, port?: number): Promise<Served> {
  port ??= await freePort();
  const proc: ChildProcess = spawn(process.execPath, [path.join(root, 'bin/refloop.js'), 'serve'], {
    env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'warn', LOG_FORMAT: 'json', HOST: '127.0.0.1', PUBLIC_URL, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (c: Buffer) => (out = (out + c.toString()).slice(-20_000));
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`refloop serve did not start:\n${out}`);
    try {
      if ((await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(1000) })).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const kill9 = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
  };
  return {
    base,
    port,
    output: () => out,
    kill9,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000)).then(kill9)]);
    },
  };
}

/** A verified owner's REST key, made over HTTP (account, the welcome email's link from /_dev/mail). */
export async function ownerKey(base: string): Promise<string> {
  const email = `owner-${crypto.randomBytes(4).toString('hex')}@acme-widgets.com`;
  const created = await call(base, 'POST', '/v2/accounts', { body: { email } });
  if (created.status !== 200) throw new Error(`account: ${created.status} ${JSON.stringify(created.body)}`);
  const outbox = await call(base, 'GET', '/_dev/mail', { headers: { accept: 'application/json' } });
  const message = outbox.body.messages.find((m: { to: string }) => String(m.to).includes(email));
  const verify = (message.links as string[]).find((l) => l.includes('/verify?'))!.replace(PUBLIC_URL, base);
  if (!(await fetch(verify)).ok) throw new Error('could not verify the account');
  return created.body.apiKey as string;
}
