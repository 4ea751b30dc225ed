import { z } from 'zod';
import path from 'node:path';
import fs from 'node:fs';
import { deepFreeze } from '../shared/freeze.ts';

// The one module that reads the environment. Everything else receives a frozen Config.

const bool = z
  .enum(['true', 'false', '1', '0', 'on', 'off', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'on' || v === 'yes');
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const envSchema = z.object({
  NODE_ENV: z.enum(['production', 'development', 'test']).default('development'),
  PORT: int(0, 65535).default(8787),
  HOST: z.string().min(1).default('0.0.0.0'),
  WORKERS: int(1, 64).default(1),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.string().min(1).optional(),
  SQLITE_SYNCHRONOUS: z
    .string()
    .transform((v) => v.toUpperCase())
    .pipe(z.enum(['FULL', 'NORMAL'], { error: 'SQLITE_SYNCHRONOUS must be FULL (the default: durable through a power cut) or NORMAL' }))
    .default('FULL'),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  ALLOW_HTTP_PUBLIC_URL: bool.default(false),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().min(3).optional(),
  BILLING: z.enum(['on', 'off']).default('off'),
  TRUST_PROXY: bool.default(false),
  TLS_CERT: z.string().optional(),
  TLS_KEY: z.string().optional(),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  SECRET_KEY: z.string().min(32, 'SECRET_KEY must be at least 32 characters').optional(),
  SUPPORT_URL: z.url().optional(),
  CHROMIUM_PATH: z.string().max(1024).default('/usr/bin/chromium'),
  TERMS_VERSION: z.string().min(1).default('2026-01-01'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  JOBS: bool.default(true),
  JOB_POLL_MS: int(10, 3_600_000).default(1000),
  AUDIT_RETENTION_DAYS: int(1, 36_500).default(400),
  RATE_LIMIT_STORE: z.enum(['database', 'memory', 'redis']).optional(),
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'REDIS_URL must be a redis:// or rediss:// URL' }).optional(),
  REDIS_PREFIX: z.string().min(1).max(64).regex(/^[A-Za-z0-9:_.-]+$/, 'REDIS_PREFIX may hold letters, digits and : _ . -').default('refloop:'),
  RATE_LIMIT_SECOND: int(1, 1e9).default(50),
  RATE_LIMIT_SECOND_WINDOW: int(1, 3600).default(5),
  RATE_LIMIT_MINUTE: int(1, 1e9).default(400),
  RATE_LIMIT_HOUR: int(1, 1e9).default(20_000),
  RATE_LIMIT_IP_PER_MINUTE: int(1, 1e9).default(1200),
  CONCURRENCY_PER_IP: int(1, 1e6).default(3),
  WRITE_SLOWDOWN_AFTER: int(0, 1e9).default(60),
  WRITE_SLOWDOWN_STEP_MS: int(0, 60_000).default(100),
  ACCOUNT_CREATION_PER_HOUR: int(1, 1e9).default(5),
  VERIFICATION_EMAIL_PER_HOUR: int(1, 1e9).default(3),
  SIGNIN_ATTEMPTS_PER_15_MIN: int(1, 1e9).default(10),
  INVITES_PER_PARTICIPANT_PER_DAY: int(1, 1e9).default(50),
  INVITES_PER_TEAM_PER_HOUR: int(1, 1e9).default(500),
  PARTICIPANT_EMAILS_PER_TEAM_PER_HOUR: int(1, 1e9).default(100),
  SHUTDOWN_GRACE_MS: int(0, 600_000).default(10_000),
  MOBILE_RATE_LIMIT_PER_MINUTE: int(1, 1e9).default(600),
  MOBILE_SESSIONS_PER_IP_PER_MINUTE: int(1, 1e9).default(600),
  LOGIN_LINKS_PER_EMAIL: int(1, 1e9).default(3),
  LOGIN_LINKS_PER_IP: int(1, 1e9).default(20),
  RECAPTCHA_VERIFY_URL: z.url({ protocol: /^https?$/ }).default('https://www.google.com/recaptcha/api/siteverify'),
  GEO_COUNTRY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, 'GEO_COUNTRY_HEADER must be a header name, such as CF-IPCountry')
    .optional(),
  MOBILE_PROGRAM_RATE_LIMIT_PER_MINUTE: int(1, 1e9).default(60_000),
  MOBILE_PROGRAM_VISITS_PER_MINUTE: int(1, 1e9).default(240_000),
  MOBILE_VISIT_WAIT_MS: int(1, 60_000).default(1000),
  MOBILE_COUNTER_FLUSH_MS: int(10, 60_000).default(1000),
  MOBILE_PROGRAM_CACHE_MS: int(0, 60_000).default(5000),
  EXCHANGE_RATES_FILE: z.string().min(1).optional(),
  PADDLE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  STRIPE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  MCP_PATH: z.string().regex(/^\/[A-Za-z0-9._~\/-]*[A-Za-z0-9._~-]$/, 'MCP_PATH must start with / and name a path other than /').default('/mcp'),
  MCP_ONBOARD_PATH: z.string().regex(/^\/[A-Za-z0-9._~\/-]*[A-Za-z0-9._~-]$/, 'MCP_ONBOARD_PATH must start with / and name a path other than /').default('/mcp/onboard'),
  MCP_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  MCP_ACCESS_TOKEN_TTL_SECONDS: int(60, 86_400).default(3600),
  MCP_REFRESH_TOKEN_TTL_SECONDS: int(3600, 365 * 86_400).default(30 * 86_400),
  MCP_AUTH_CODE_TTL_SECONDS: int(10, 600).default(60),
});

/** Every environment variable refloop reads (the bench clears them so each row's settings are exactly its own). */
export const CONFIG_VARIABLES: readonly string[] = Object.freeze(Object.keys(envSchema.shape));

/** SQLite's `synchronous` pragma as refloop offers it: FULL (the default) or NORMAL (an explicit opt-in). */
export type SqliteSynchronous = 'FULL' | 'NORMAL';

/** Validated, frozen runtime configuration. */
export interface Config {
  env: 'production' | 'development' | 'test';
  port: number;
  host: string;
  /**
   * Server processes `refloop serve` runs behind one port (Node's cluster: a primary forks this many
   * workers that share the listening socket). More than one needs PostgreSQL.
   */
  workers: number;
  dataDir: string;
  /**
   * SQLite: `synchronous` is FULL unless SQLITE_SYNCHRONOUS=NORMAL opts out (an acknowledged write
   * then survives a process crash but not an OS crash or power cut); absent means FULL.
   */
  database: { client: 'better-sqlite3'; filename: string; synchronous?: SqliteSynchronous } | { client: 'pg'; url: string };
  publicUrl: string;
  secureCookies: boolean;
  smtpUrl: string | null;
  mailFrom: string;
  billing: boolean;
  trustProxy: boolean;
  tls: { cert: string; key: string } | null;
  webhookAllowPrivate: boolean;
  secretKey: string | null;
  supportUrl: string | null;
  /** Headless Chromium for referral-flow screenshots (C6); missing on disk → C6 answers 503. */
  chromiumPath: string;
  termsVersion: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** JSON lines, readable lines, or `auto`: readable when stdout is a terminal. */
  logFormat: 'auto' | 'json' | 'pretty';
  jobs: { enabled: boolean; pollMs: number };
  /** Days the team audit trail keeps an entry (issue #35; server/domain/platform/audit.ts). */
  auditRetentionDays: number;
  /** The shared fast store (limits, in-flight locks, cache invalidation between processes); null without REDIS_URL. */
  redisUrl: string | null;
  /** Start of every Redis key and channel (REDIS_PREFIX), so deployments can share one Redis. */
  redisPrefix: string;
  limits: {
    /** `redis` when REDIS_URL is set (the default then), else `database` on PostgreSQL and `memory` on SQLite. */
    store: 'database' | 'memory' | 'redis';
    second: { points: number; windowSeconds: number };
    minute: number;
    hour: number;
    ipPerMinute: number;
    concurrencyPerIp: number;
    writeSlowdownAfter: number;
    writeSlowdownStepMs: number;
    accountCreationPerHour: number;
    verificationEmailPerHour: number;
    signInPerEmail15m: number;
    /** Invitation emails (one point per address) per sender per day, and per team per hour. */
    invitesPerParticipantPerDay: number;
    invitesPerTeamPerHour: number;
    /** `POST …/participant/{p}/email` calls per team per hour. */
    participantEmailsPerTeamPerHour: number;
  };
  shutdownGraceMs: number;
  /** The participant API (/mobile/v2). */
  mobile: {
    /** Calls per minute per IP address and client instance. */
    ratePerMinute: number;
    /** Session creations per minute per IP address. */
    sessionsPerIpPerMinute: number;
    /** One-time sign-in link requests per email address (per program) per 15 minutes. */
    loginLinksPerEmail: number;
    /** One-time sign-in link requests per IP address per 15 minutes. */
    loginLinksPerIp: number;
    /** Where reCAPTCHA tokens of web sign-ups are checked (options.fraud.recaptcha). */
    recaptchaVerifyUrl: string;
    /**
     * The request header a trusted proxy sets to the visitor's ISO 3166-1 country (CF-IPCountry, …),
     * lower-cased; null: the country is unknown and options.fraud country lists are not applied.
     */
    countryHeader: string | null;
    /** Calls other than visits (sessions included) per minute per program, all processes together with a database store. */
    programCallsPerMinute: number;
    /** Visits per minute per program. */
    programVisitsPerMinute: number;
    /** How long a visit waits for its commit before answering PROCESSING. */
    visitWaitMs: number;
    /** Longest time impression counts wait in memory (≤ 1 s). */
    counterFlushMs: number;
    /** How long a process reuses a program's settings. */
    programCacheMs: number;
  };
  /**
   * The operator's currency table for affiliate sales in other currencies (EXCHANGE_RATES_FILE):
   * `rates[C]` = units of C per one unit of `base`, as of `asOf` (epoch ms). Null: no conversion.
   */
  exchangeRates: { base: string; asOf: number; rates: Record<string, number> } | null;
  /** Paddle's API for customer look-ups (PADDLE_API_URL, e.g. a proxy); unset: Paddle's sandbox or live API by the key's kind. */
  paddleApiUrl: string | null;
  /** Stripe's API for look-ups with a connection's restricted key (STRIPE_API_URL, e.g. a proxy); unset: https://api.stripe.com. */
  stripeApiUrl: string | null;
  /** The hosted MCP endpoint and its OAuth authorization server (docs/mcp.md). */
  mcp: {
    /** Origin the MCP endpoint and OAuth server are published on (MCP_PUBLIC_URL, else PUBLIC_URL). */
    publicUrl: string;
    path: string;
    onboardPath: string;
    accessTokenTtlMs: number;
    refreshTokenTtlMs: number;
    authCodeTtlMs: number;
  };
}

/** Thrown when the environment is invalid; its message lists every problem, one per line. */
export class ConfigError extends Error {}

/** Parses a DATABASE_URL into a knex client choice; anything not postgres is a SQLite file path. */
function parseDatabase(url: string | undefined, dataDir: string, synchronous: SqliteSynchronous): Config['database'] {
  if (!url) return { client: 'better-sqlite3', filename: path.resolve(dataDir, 'refloop.db'), synchronous };
  if (/^postgres(ql)?:\/\//.test(url)) return { client: 'pg', url };
  const file = url.replace(/^sqlite:(\/\/)?/, '').replace(/^file:(\/\/)?/, '');
  if (!file) throw new ConfigError('DATABASE_URL: expected postgres://… or a SQLite file path');
  return { client: 'better-sqlite3', filename: file === ':memory:' ? file : path.resolve(file), synchronous };
}

const CURRENCY = /^[A-Z]{3}$/;
const rateTable = z.strictObject({
  base: z.string().regex(CURRENCY),
  asOf: z.number().int().min(0),
  rates: z.record(z.string().regex(CURRENCY), z.number().positive().finite()),
});

/** Reads and checks the rate table file named by EXCHANGE_RATES_FILE. */
function loadRates(file: string | undefined): Config['exchangeRates'] {
  if (!file) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  EXCHANGE_RATES_FILE: cannot read ${file} as JSON (${(err as Error).message})`);
  }
  const r = rateTable.safeParse(raw);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `EXCHANGE_RATES_FILE ${i.path.join('.') || 'file'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}\n  expected {"base":"USD","asOf":<epoch ms>,"rates":{"EUR":0.92,…}}`);
  }
  return r.data;
}

/** Reads and validates configuration from an environment map (process.env in production). */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || 'env'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if ((e.TLS_CERT && !e.TLS_KEY) || (!e.TLS_CERT && e.TLS_KEY)) {
    throw new ConfigError('Invalid configuration:\n  TLS_CERT and TLS_KEY must be set together');
  }
  const publicUrl = (e.PUBLIC_URL ?? `${e.TLS_CERT ? 'https' : 'http'}://localhost:${e.PORT}`).replace(/\/+$/, '');
  const https = publicUrl.startsWith('https:');
  if (e.NODE_ENV === 'production' && !https && !e.ALLOW_HTTP_PUBLIC_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  PUBLIC_URL must be https:// in production (set ALLOW_HTTP_PUBLIC_URL=true to run over plain HTTP on purpose)',
    );
  }
  const host = new URL(publicUrl).hostname;
  const database = parseDatabase(e.DATABASE_URL, e.DATA_DIR, e.SQLITE_SYNCHRONOUS);
  if (e.WORKERS > 1 && database.client !== 'pg') {
    throw new ConfigError(
      `Invalid configuration:\n  WORKERS=${e.WORKERS} needs PostgreSQL (DATABASE_URL=postgres://…): a SQLite file has one writer process, so refloop runs one process on SQLite (WORKERS=1)`,
    );
  }
  if (e.RATE_LIMIT_STORE === 'redis' && !e.REDIS_URL) {
    throw new ConfigError('Invalid configuration:\n  RATE_LIMIT_STORE=redis needs REDIS_URL=redis://…');
  }
  const config: Config = {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    workers: e.WORKERS,
    dataDir: path.resolve(e.DATA_DIR),
    database,
    publicUrl,
    secureCookies: https,
    smtpUrl: e.SMTP_URL ?? null,
    mailFrom: e.MAIL_FROM ?? `refloop <no-reply@${host}>`,
    billing: e.BILLING === 'on',
    trustProxy: e.TRUST_PROXY,
    tls: e.TLS_CERT && e.TLS_KEY ? { cert: e.TLS_CERT, key: e.TLS_KEY } : null,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    secretKey: e.SECRET_KEY ?? null,
    supportUrl: e.SUPPORT_URL ?? null,
    chromiumPath: e.CHROMIUM_PATH,
    termsVersion: e.TERMS_VERSION,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    jobs: { enabled: e.JOBS, pollMs: e.JOB_POLL_MS },
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    redisUrl: e.REDIS_URL ?? null,
    redisPrefix: e.REDIS_PREFIX,
    limits: {
      // PostgreSQL deployments may run several processes that must share budgets; an embedded SQLite
      // deployment is one process, where the in-memory store costs a tenth of a database write.
      store: e.RATE_LIMIT_STORE ?? (e.REDIS_URL ? 'redis' : database.client === 'pg' ? 'database' : 'memory'),
      second: { points: e.RATE_LIMIT_SECOND, windowSeconds: e.RATE_LIMIT_SECOND_WINDOW },
      minute: e.RATE_LIMIT_MINUTE,
      hour: e.RATE_LIMIT_HOUR,
      ipPerMinute: e.RATE_LIMIT_IP_PER_MINUTE,
      concurrencyPerIp: e.CONCURRENCY_PER_IP,
      writeSlowdownAfter: e.WRITE_SLOWDOWN_AFTER,
      writeSlowdownStepMs: e.WRITE_SLOWDOWN_STEP_MS,
      accountCreationPerHour: e.ACCOUNT_CREATION_PER_HOUR,
      verificationEmailPerHour: e.VERIFICATION_EMAIL_PER_HOUR,
      signInPerEmail15m: e.SIGNIN_ATTEMPTS_PER_15_MIN,
      invitesPerParticipantPerDay: e.INVITES_PER_PARTICIPANT_PER_DAY,
      invitesPerTeamPerHour: e.INVITES_PER_TEAM_PER_HOUR,
      participantEmailsPerTeamPerHour: e.PARTICIPANT_EMAILS_PER_TEAM_PER_HOUR,
    },
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    mobile: {
      ratePerMinute: e.MOBILE_RATE_LIMIT_PER_MINUTE,
      sessionsPerIpPerMinute: e.MOBILE_SESSIONS_PER_IP_PER_MINUTE,
      loginLinksPerEmail: e.LOGIN_LINKS_PER_EMAIL,
      loginLinksPerIp: e.LOGIN_LINKS_PER_IP,
      recaptchaVerifyUrl: e.RECAPTCHA_VERIFY_URL,
      countryHeader: e.GEO_COUNTRY_HEADER?.toLowerCase() ?? null,
      programCallsPerMinute: e.MOBILE_PROGRAM_RATE_LIMIT_PER_MINUTE,
      programVisitsPerMinute: e.MOBILE_PROGRAM_VISITS_PER_MINUTE,
      visitWaitMs: e.MOBILE_VISIT_WAIT_MS,
      counterFlushMs: e.MOBILE_COUNTER_FLUSH_MS,
      programCacheMs: e.MOBILE_PROGRAM_CACHE_MS,
    },
    exchangeRates: loadRates(e.EXCHANGE_RATES_FILE),
    paddleApiUrl: e.PADDLE_API_URL ? e.PADDLE_API_URL.replace(/\/+$/, '') : null,
    stripeApiUrl: e.STRIPE_API_URL ? e.STRIPE_API_URL.replace(/\/+$/, '') : null,
    mcp: {
      publicUrl: e.MCP_PUBLIC_URL ? new URL(e.MCP_PUBLIC_URL).origin : new URL(publicUrl).origin,
      path: e.MCP_PATH,
      onboardPath: e.MCP_ONBOARD_PATH,
      accessTokenTtlMs: e.MCP_ACCESS_TOKEN_TTL_SECONDS * 1000,
      refreshTokenTtlMs: e.MCP_REFRESH_TOKEN_TTL_SECONDS * 1000,
      authCodeTtlMs: e.MCP_AUTH_CODE_TTL_SECONDS * 1000,
    },
  };
  return deepFreeze(config);
}

/** The process environment, read here and nowhere else. */
export function configFromProcess(): Config {
  return loadConfig(process.env);
}
