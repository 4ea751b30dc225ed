import http from 'node:http';
import https from 'node:https';
import fs from 'node:fs';
import type Koa from 'koa';
import type { Config } from './config.ts';
import { createDeps, type Deps } from './deps.ts';
import { createHandler } from './app.ts';
import { createLogger, logFormat, quietStartup, readyBlock, type StartupLogger } from './log.ts';

/** A running server: its address and a graceful stop. */
export interface Running {
  url: string;
  deps: Deps;
  server: http.Server;
  stop(): Promise<void>;
  /** Ends the quiet start of readable logs (`quietStartup`): how many request lines went to debug. */
  settle(): number;
}

/** What an embedding entry point (the demo) adds. */
export interface ServeOptions {
  /** Extra routes mounted in front of ours. */
  routes?: (deps: Deps) => Koa.Middleware[];
}

/** Builds everything, listens on the configured port and runs the job runner. */
export async function serve(config: Config, opts: ServeOptions = {}): Promise<Running> {
  // JSON logs keep every line as it is; a terminal gets the start-up's request lines at debug level.
  const format = logFormat(config.logFormat, process.stdout.isTTY);
  const base = createLogger(config.logLevel, undefined, format);
  const log: StartupLogger = format === 'pretty' ? quietStartup(base) : { ...base, settle: () => 0 };
  const deps = await createDeps(config, { log });
  // Subscribed before the first request, so the key and program caches are in use from the start.
  deps.invalidation.listen();
  const app = createHandler(deps, opts.routes?.(deps) ?? []);
  let draining = false;
  // While draining, every answer closes its connection, so keep-alive clients (a load balancer, the
  // demo's own seeding) cannot hold the server open with one request after another until the grace ends.
  const handler: http.RequestListener = (req, res) => {
    if (draining) res.setHeader('connection', 'close');
    return app(req, res);
  };
  const server = config.tls ? https.createServer({ cert: fs.readFileSync(config.tls.cert), key: fs.readFileSync(config.tls.key) }, handler) : http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  if (config.jobs.enabled) {
    await deps.maintenance.schedule();
    await deps.teamNotifications.schedule();
    await deps.unmatchedRefunds.schedule();
    deps.jobs.start();
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `${config.tls ? 'https' : 'http'}://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`;
  // Headless Chromium photographs preview pages of this very process.
  deps.screenshots.localBase = `${config.tls ? 'https' : 'http'}://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`;
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop accepting, let in-flight requests finish (up to the grace period), then close the rest.
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A request that began before the drain leaves its keep-alive connection idle when it ends
      // (its answer went out without `connection: close`): close such connections as they go idle.
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
      await closed;
      clearInterval(idle);
      clearTimeout(timer);
      await deps.close();
    })());
  return { url, deps, server, stop, settle: () => log.settle() };
}

/** How the process runs until it is told to stop. */
export interface Lifecycle {
  /**
   * Also stop gracefully when the parent process goes away. `npx refloop serve` runs us under
   * `sh -c`, and dash does not pass on the SIGTERM npm forwards to it: it exits and leaves us behind.
   */
  stopWithParent?: boolean;
}

/** Links shown once the server is ready (the demo adds its store). */
export type ReadyLinks = Record<string, string>;

/**
 * `refloop serve` (and the demo): runs until SIGTERM or SIGINT, then drains and exits cleanly; `ready`
 * runs once it listens and may return links to show first in the ready line.
 */
export async function runForever(config: Config, opts: ServeOptions = {}, ready?: (running: Running) => Promise<ReadyLinks | void>, lifecycle: Lifecycle = {}): Promise<void> {
  let signalled: string | null = null;
  let wake!: () => void;
  const stopRequested = new Promise<void>((resolve) => (wake = resolve));
  // Signals that arrive while the server starts (migrations, seeding) are remembered, not lost.
  const onSignal = (signal: string) => {
    signalled ??= signal;
    wake();
  };
  const onTerm = () => onSignal('SIGTERM');
  const onInt = () => onSignal('SIGINT');
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  const parent = process.ppid;
  const watch = lifecycle.stopWithParent ? setInterval(() => process.ppid !== parent && onSignal('parent exited'), 200) : null;
  watch?.unref();
  try {
    const running = await serve(config, opts);
    try {
      // A stop request does not wait for `ready` (the demo's seeding): its calls fail once we close.
      const links = await Promise.race([(ready?.(running) ?? Promise.resolve()).catch((err: Error) => void running.deps.log.error('start-up step failed', { error: err.message })), stopRequested]);
      const quiet = running.settle();
      running.deps.log.info('listening', { url: running.url, publicUrl: config.publicUrl, database: config.database.client });
      if (!signalled && config.env !== 'production') announce(running, { ...(links ?? { home: `${config.publicUrl}/` }), outbox: `${config.publicUrl}/_dev/mail`, docs: `${config.publicUrl}/docs` }, quiet);
      await stopRequested;
      running.deps.log.info('shutting down', { signal: signalled });
    } finally {
      await running.stop();
    }
  } finally {
    if (watch) clearInterval(watch);
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
  }
}

/** What a developer reads after start-up: where to go. JSON logs get it as a `ready` entry; a terminal, a short block. */
function announce(running: Running, links: ReadyLinks, quiet: number): void {
  if (logFormat(running.deps.config.logFormat, process.stdout.isTTY) === 'json') {
    running.deps.log.info('ready', links);
    return;
  }
  process.stdout.write(readyBlock(links, quiet, process.stdout.isTTY === true));
}
