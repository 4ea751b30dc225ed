import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

// The container recipe (issue #21): Dockerfile, compose.yaml. The static checks always run; the image
// build needs a Docker engine, which a machine with only the docker client (or none) does not have.

const root = path.resolve(import.meta.dirname, '../..');
const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const compose = fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8');

/** The Dockerfile's instructions (continuations joined, comments dropped) of its last stage. */
function finalStage(text: string): { op: string; args: string }[] {
  const joined = text.replace(/\\\n/g, ' ');
  const instructions = joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
  const from = instructions.map((i) => i.op).lastIndexOf('FROM');
  return instructions.slice(from);
}

/** The lines of a YAML block under `keys` (by indentation), enough for our compose file's plain subset. */
function block(text: string, keys: string[]): string[] {
  let lines = text.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
  for (const key of keys) {
    const at = lines.findIndex((l) => l.trim() === `${key}:` || l.trim().startsWith(`${key}: `));
    if (at < 0) return [];
    const indent = lines[at]!.search(/\S/);
    const end = lines.findIndex((l, i) => i > at && l.search(/\S/) <= indent);
    lines = [lines[at]!, ...lines.slice(at + 1, end < 0 ? undefined : end)];
    if (lines[0]!.trim() !== `${key}:`) return lines;
    lines = lines.slice(1);
  }
  return lines;
}

describe('issue #21: container recipe', () => {
  const stage = finalStage(dockerfile);
  const last = (op: string) => stage.filter((i) => i.op === op).at(-1)?.args;

  it('runs as an unprivileged user', () => {
    const user = last('USER');
    expect(user).toBeTruthy();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
  });

  it('keeps its data on a volume at DATA_DIR', () => {
    const env = stage.filter((i) => i.op === 'ENV').map((i) => i.args).join(' ');
    const dataDir = /DATA_DIR=(\S+)/.exec(env)?.[1];
    expect(dataDir).toBeTruthy();
    expect(JSON.parse(last('VOLUME')!)).toContain(dataDir);
  });

  it('checks its health on /healthz', () => {
    expect(last('HEALTHCHECK')).toMatch(/CMD .*\/healthz/);
  });

  it('lets docker stop reach node: exec-form CMD starting node directly, SIGTERM as stop signal', () => {
    const cmd = JSON.parse(last('CMD')!) as string[];
    expect(cmd[0]).toBe('node');
    expect(cmd).toEqual(['node', 'bin/refloop.js', 'serve']);
    expect(last('ENTRYPOINT')).toBeUndefined();
    expect(last('STOPSIGNAL') ?? 'SIGTERM').toBe('SIGTERM');
  });

  it('compose runs refloop on PostgreSQL with a health check, and starts refloop once it is healthy', () => {
    const postgres = block(compose, ['services', 'postgres']);
    expect(postgres.join('\n')).toMatch(/image:\s*postgres:/);
    expect(block(compose, ['services', 'postgres', 'healthcheck']).join('\n')).toMatch(/pg_isready/);
    const refloop = block(compose, ['services', 'refloop']).join('\n');
    expect(refloop).toMatch(/DATABASE_URL:\s*postgres:\/\/[^\s]*@postgres:5432\//);
    expect(block(compose, ['services', 'refloop', 'depends_on', 'postgres']).join('\n')).toMatch(/condition:\s*service_healthy/);
    expect(refloop).toMatch(/build:\s*\./);
  });

  it('compose runs Redis beside PostgreSQL without persistence, with a health check, and points refloop at it (issue #34)', () => {
    const redis = block(compose, ['services', 'redis']).join('\n');
    expect(redis).toMatch(/image:\s*redis:/);
    expect(redis).toMatch(/"--save", ""/);
    expect(block(compose, ['services', 'redis', 'healthcheck']).join('\n')).toMatch(/redis-cli", "ping/);
    expect(block(compose, ['services', 'refloop']).join('\n')).toMatch(/REDIS_URL:\s*redis:\/\/redis:6379/);
    expect(block(compose, ['services', 'refloop', 'depends_on', 'redis']).join('\n')).toMatch(/condition:\s*service_healthy/);
  });

  const engine = spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 }).status === 0;
  it.skipIf(!engine)(
    engine
      ? 'the image builds, reports healthy, runs as a non-root user and stops gracefully (exit 0) on docker stop'
      : 'SKIPPED, cannot be done here: no Docker engine answers `docker info` (image build, health and docker stop need one)',
    async () => {
      const tag = `refloop-test:${crypto.randomBytes(4).toString('hex')}`;
      const docker = (...args: string[]) => execFileSync('docker', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
      docker('build', '-q', '-t', tag, '.');
      const id = docker('run', '-d', '-p', '127.0.0.1::8787', '-e', 'PUBLIC_URL=http://localhost:8787', '-e', 'ALLOW_HTTP_PUBLIC_URL=true', '--health-interval', '1s', tag);
      try {
        const port = docker('port', id, '8787/tcp').split('\n')[0]!.split(':').at(-1);
        let health = '';
        for (let i = 0; i < 120 && health !== 'healthy'; i++) {
          await new Promise((r) => setTimeout(r, 500));
          health = docker('inspect', '-f', '{{.State.Health.Status}}', id);
        }
        expect(health).toBe('healthy');
        expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
        expect(docker('exec', id, 'id', '-u')).not.toBe('0');
        const started = Date.now();
        docker('stop', '-t', '20', id);
        expect(Date.now() - started).toBeLessThan(15_000);
        expect(docker('inspect', '-f', '{{.State.ExitCode}}', id)).toBe('0');
      } finally {
        spawnSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
        spawnSync('docker', ['rmi', '-f', tag], { stdio: 'ignore' });
      }
    },
    600_000,
  );
});
