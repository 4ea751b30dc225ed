import { describe, expect, it } from 'vitest';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import https from 'node:https';
import { freshDatabase } from '../helpers/app.ts';
import { loadConfig } from '../../server/config.ts';
import { serve } from '../../server/main.ts';

const root = path.resolve(import.meta.dirname, '../..');

describe('refloop serve process', () => {
  it('logs JSON with request ids and no secrets, and on SIGTERM drains in-flight requests then exits 0', async () => {
    const db = await freshDatabase();
    const child = spawn(process.execPath, [path.join(root, 'bin/refloop.js'), 'serve'], {
      env: { ...process.env, NODE_ENV: 'development', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: db.url, PUBLIC_URL: 'http://refloop.test', WRITE_SLOWDOWN_AFTER: '0', WRITE_SLOWDOWN_STEP_MS: '1500', JOBS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stdout.on('data', (c) => (logs += c));
    child.stderr.on('data', (c) => (logs += c));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      for (let i = 0; i < 200 && !logs.includes('"listening"'); i++) await new Promise((r) => setTimeout(r, 50));
      const listening = JSON.parse(logs.split('\n').find((l) => l.includes('"listening"'))!);
      const base = listening.url as string;
      const created = await (await fetch(`${base}/v2/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'sig@acme-proc.com' }) })).json();
      const outbox = await (await fetch(`${base}/_dev/mail`, { headers: { accept: 'application/json' } })).json();
      const verify = outbox.messages[0].links.find((l: string) => l.includes('/verify?')).replace('http://refloop.test', base);
      expect((await fetch(verify)).status).toBe(200);
      const inFlight = fetch(`${base}/v2/team`, { method: 'PATCH', headers: { authorization: `Bearer ${created.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Draining' }) });
      await new Promise((r) => setTimeout(r, 300));
      child.kill('SIGTERM');
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect((await res.json()).name).toBe('Draining');
      expect(await exited).toBe(0);
      const lines = logs.trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.filter((l) => l.msg === 'request').every((l) => typeof l.requestId === 'string')).toBe(true);
      expect(logs).not.toContain(created.apiKey);
      expect(logs).not.toContain(verify.split('token=')[1]);
      expect(lines.some((l) => l.msg === 'shutting down')).toBe(true);
    } finally {
      child.kill('SIGKILL');
      await db.cleanup();
    }
  });

  it('serves TLS itself with TLS_CERT and TLS_KEY, sending HSTS for an https PUBLIC_URL', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-tls-'));
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    const db = await freshDatabase();
    const running = await serve(loadConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: db.url, TLS_CERT: cert, TLS_KEY: key, PUBLIC_URL: 'https://refloop.test', LOG_LEVEL: 'silent', JOBS: 'false' }));
    try {
      expect(running.url).toMatch(/^https:/);
      const { status, hsts } = await new Promise<{ status: number; hsts: string | undefined }>((resolve, reject) => {
        https
          .get(`${running.url}/healthz`, { rejectUnauthorized: false }, (res) => {
            res.resume();
            resolve({ status: res.statusCode!, hsts: res.headers['strict-transport-security'] as string | undefined });
          })
          .on('error', reject);
      });
      expect(status).toBe(200);
      expect(hsts).toMatch(/max-age=\d+/);
    } finally {
      await running.stop();
      await db.cleanup();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
