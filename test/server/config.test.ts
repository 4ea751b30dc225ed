import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../server/config.ts';

describe('configuration', () => {
  it('defaults to port 8787, the SQLite file under ./data, billing off and the seed limits', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8787);
    expect(c.database).toMatchObject({ client: 'better-sqlite3' });
    expect((c.database as { filename: string }).filename).toMatch(/data\/refloop\.db$/);
    expect(c.publicUrl).toBe('http://localhost:8787');
    expect(c.billing).toBe(false);
    expect(c.limits).toMatchObject({ second: { points: 50, windowSeconds: 5 }, minute: 400, hour: 20_000, concurrencyPerIp: 3, writeSlowdownAfter: 60, writeSlowdownStepMs: 100, accountCreationPerHour: 5 });
    expect(Object.isFrozen(c) && Object.isFrozen(c.limits)).toBe(true);
  });

  it('chooses PostgreSQL for postgres:// URLs, where rate limits live in the database by default', () => {
    const pg = loadConfig({ DATABASE_URL: 'postgres://u@h/db' });
    expect(pg.database).toEqual({ client: 'pg', url: 'postgres://u@h/db' });
    expect(pg.limits.store).toBe('database');
    expect(loadConfig({}).limits.store).toBe('memory');
    expect(loadConfig({ RATE_LIMIT_STORE: 'database' }).limits.store).toBe('database');
  });

  it('lists every invalid variable in one clear message', () => {
    expect(() => loadConfig({ PORT: 'eighty', BILLING: 'maybe' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', BILLING: 'maybe' });
    } catch (err) {
      expect((err as Error).message).toMatch(/PORT/);
      expect((err as Error).message).toMatch(/BILLING/);
    }
  });

  it('refuses an http PUBLIC_URL in production unless explicitly allowed', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'http://refloop.example' })).toThrow(/https/);
    expect(loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'http://refloop.example', ALLOW_HTTP_PUBLIC_URL: 'true' }).publicUrl).toBe('http://refloop.example');
    expect(loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://refloop.example/' })).toMatchObject({ publicUrl: 'https://refloop.example', secureCookies: true });
  });

  it('needs TLS_CERT and TLS_KEY together', () => {
    expect(() => loadConfig({ TLS_CERT: '/tmp/c.pem' })).toThrow(/TLS_CERT and TLS_KEY/);
  });
});
