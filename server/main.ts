import http from 'node:http';
import https from 'node:https';
import fs from 'node:fs';
import type Koa from 'koa';
import type { Config } from './config.ts';
import { createDeps, type Deps } from './deps.ts';
import { createHandler } from './app.ts';

/** A running server: its address and a graceful stop. */
export interface Running {
  url: string;
  deps: Deps;
  server: http.Server;
  stop(): Promise<void>;
}

/** What an embedding entry point (the demo) adds. */
export interface ServeOptions {
  /** Extra routes mounted in front of ours. */
  routes?: (deps: Deps) => Koa.Middleware[];
}

/** Builds everything, listens on the configured port and runs the job runner. */
export async function serve(config: Config, opts: ServeOptions = {}): Promise<Running> {
  const deps = await createDeps(config);
  const handler = createHandler(deps, opts.routes?.(deps) ?? []);
  const server = config.tls ? https.createServer({ cert: fs.readFileSync(config.tls.cert), key: fs.readFileSync(config.tls.key) }, handler) : http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  if (config.jobs.enabled) {
    await deps.maintenance.schedule();
    await deps.teamNotifications.schedule();
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
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
      await closed;
      clearTimeout(timer);
      await deps.close();
    })());
  return { url, deps, server, stop };
}

/** `refloop serve` (and the demo): runs until SIGTERM or SIGINT, then drains and exits cleanly; `ready` runs once it listens. */
export async function runForever(config: Config, opts: ServeOptions = {}, ready?: (running: Running) => Promise<void>): Promise<void> {
  const running = await serve(config, opts);
  if (ready) await ready(running);
  running.deps.log.info('listening', { url: running.url, publicUrl: config.publicUrl, database: config.database.client });
  await new Promise<void>((resolve) => {
    const onSignal = (signal: string) => {
      running.deps.log.info('shutting down', { signal });
      running.stop().then(resolve, resolve);
    };
    process.once('SIGTERM', () => onSignal('SIGTERM'));
    process.once('SIGINT', () => onSignal('SIGINT'));
  });
}
