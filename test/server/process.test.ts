import { describe, expect, it } from 'vitest';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import https from 'node:https';
import { freshDatabase } from '../helpers/app.ts';
import { loadConfig } from '../../server/config.ts';
import { serve } from '../../server/main.ts';
import { freePort } from '../../scripts/free-port.ts';

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

/** True while something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** The live (not yet reaped zombies excluded) processes of the group led by `pid`: npm, its shell, node. */
function groupMembers(pid: number): string[] {
  try {
    return execFileSync('ps', ['-o', 'stat=,args=', '-g', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('Z'));
  } catch {
    return []; // ps exits 1 when the group is empty
  }
}

/** The environment of a started command: ours without npm's own variables, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_') && k !== 'VITEST' && k !== 'NODE_OPTIONS')), ...env };
}

/** Starts a documented command in its own process group and waits until /healthz answers. */
async function startCommand(command: string, args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const port = await freePort();
  const child = spawn(command, args, { cwd: root, env: childEnv({ LOG_FORMAT: 'json', ...env, PORT: String(port), HOST: '127.0.0.1', JOBS: 'false' }), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited early:\n${output}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`${command} ${args.join(' ')} never answered /healthz:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, port, output: () => output };
}

/** Waits up to `ms` for the whole process group to be gone and the port to be free. */
async function stoppedWithin(child: ChildProcess, port: number, ms: number): Promise<{ left: string[]; listening: boolean }> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && (groupMembers(child.pid!).length > 0 || (await listening(port)))) await new Promise((r) => setTimeout(r, 100));
  return { left: groupMembers(child.pid!), listening: await listening(port) };
}

describe('issue #21: a signal to the started pid stops the server of every documented command', () => {
  const cases: { name: string; command: string; args: string[]; signal: NodeJS.Signals }[] = [
    { name: 'npm start', command: 'npm', args: ['start', '--silent'], signal: 'SIGTERM' },
    { name: 'npx refloop serve', command: 'npx', args: ['refloop', 'serve'], signal: 'SIGTERM' },
    { name: 'node bin/refloop.js serve', command: process.execPath, args: ['bin/refloop.js', 'serve'], signal: 'SIGINT' },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.signal} to its pid drains, releases the port and leaves no process behind`, async () => {
      const db = await freshDatabase();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-signal-'));
      const { child, port, output } = await startCommand(c.command, c.args, { NODE_ENV: 'development', DATA_DIR: dataDir, DATABASE_URL: db.url });
      try {
        child.kill(c.signal);
        const stopped = await stoppedWithin(child, port, 5000);
        expect(stopped, output()).toEqual({ left: [], listening: false });
        expect(output()).toContain('"shutting down"');
        expect(output()).not.toMatch(/Error|ERR_/);
      } finally {
        if (groupMembers(child.pid!).length > 0) process.kill(-child.pid!, 'SIGKILL');
        await db.cleanup();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }, 120_000);
  }
});

describe('issue #21: where to go after start-up', () => {
  it('npm start seeds the demo without one 429 and then logs one ready entry with the store, outbox and docs links', async () => {
    const db = await freshDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-ready-'));
    const { child, port, output } = await startCommand('npm', ['start', '--silent'], { NODE_ENV: 'development', DATA_DIR: dataDir, DATABASE_URL: db.url });
    try {
      const deadline = Date.now() + 90_000;
      while (!output().includes('"msg":"ready"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      const entries = output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      const ready = entries.find((e) => e.msg === 'ready');
      expect(ready, output()).toMatchObject({ store: expect.stringMatching(/\/$/), outbox: expect.stringMatching(/\/_dev\/mail$/), docs: expect.stringMatching(/\/docs$/) });
      expect(entries.filter((e) => e.msg === 'request' && e.status === 429)).toEqual([]);
      expect(entries.filter((e) => e.level === 'error')).toEqual([]);
    } finally {
      child.kill('SIGTERM');
      await stoppedWithin(child, port, 5000);
      if (groupMembers(child.pid!).length > 0) process.kill(-child.pid!, 'SIGKILL');
      await db.cleanup();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('npm start in a terminal (LOG_FORMAT=pretty) seeds quietly, then prints where the store, the console and its one-time sign-in, the outbox and the docs are', async () => {
    const db = await freshDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-ready-'));
    const { child, port, output } = await startCommand('npm', ['start', '--silent'], { NODE_ENV: 'development', DATA_DIR: dataDir, DATABASE_URL: db.url, LOG_FORMAT: 'pretty' });
    try {
      const plain = () => output().replace(/\x1b\[[0-9;]*m/g, '');
      const deadline = Date.now() + 90_000;
      while (!plain().includes('Ctrl+C stops the server.') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      const base = `http://localhost:${port}`;
      const block = plain().slice(plain().indexOf('  refloop is ready'));
      expect(block, plain()).toMatch(new RegExp(`^  refloop is ready\\n\\n    Store                   ${base}/\\n    Console                 ${base}/console\\n    Console sign-in \\(once\\)  ${base}/demo/console-sign-in\\?token=[\\w-]+\\n    Outbox                  ${base}/_dev/mail\\n    Docs                    ${base}/docs\\n\\n  The \\d+ requests made while starting are logged at debug level`));
      // The seeding's requests (dozens of them) are not on the terminal; what is there fits a screen.
      expect(plain()).not.toMatch(/POST \/v2\/campaign/);
      expect(plain().trim().split('\n').length, plain()).toBeLessThan(20);
      expect(plain()).not.toContain('{"time"');
    } finally {
      child.kill('SIGTERM');
      await stoppedWithin(child, port, 5000);
      if (groupMembers(child.pid!).length > 0) process.kill(-child.pid!, 'SIGKILL');
      await db.cleanup();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refloop serve in development prints a short readable ready block and readable request lines with LOG_FORMAT=pretty', async () => {
    const db = await freshDatabase();
    const { child, port, output } = await startCommand(process.execPath, ['bin/refloop.js', 'serve'], { NODE_ENV: 'development', DATABASE_URL: db.url, LOG_FORMAT: 'pretty' });
    try {
      const plain = () => output().replace(/\x1b\[[0-9;]*m/g, '');
      let deadline = Date.now() + 10_000;
      while (!plain().includes('Ctrl+C stops the server.') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const base = `http://localhost:${port}`;
      expect(plain()).toMatch(new RegExp(`\\n  refloop is ready\\n\\n    Home    ${base}/\\n    Outbox  ${base}/_dev/mail\\n    Docs    ${base}/docs\\n\\n  (The \\d+ requests made while starting are logged at debug level \\(LOG_LEVEL=debug shows them\\)\\. )?Ctrl\\+C stops the server\\.\\n`));
      // Once ready, each request is one readable line.
      await fetch(`${base}/healthz`);
      deadline = Date.now() + 5_000;
      while (!/GET \/healthz 200/.test(plain()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(plain()).toMatch(/^\d\d:\d\d:\d\d GET \/healthz 200 [\d.]+ ms$/m);
      expect(plain()).not.toContain('{"time"');
    } finally {
      child.kill('SIGTERM');
      await stoppedWithin(child, port, 5000);
      if (groupMembers(child.pid!).length > 0) process.kill(-child.pid!, 'SIGKILL');
      await db.cleanup();
    }
  }, 60_000);
});
