import http from 'node:http';

// The one way the bench's bare baselines (bare-koa.ts, bare-visit.ts) serve: on 127.0.0.1 at the
// port their command line names, with the real server's keep-alive window, until SIGTERM or SIGINT.

/** The port a bare baseline script was started with (`node --import tsx bench/<script> PORT`); exits 2 on a bad one. */
export function portArgument(script: string): number {
  const port = Number(process.argv[2]);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    console.error(`Usage: node --import tsx bench/${script} PORT`);
    process.exit(2);
  }
  return port;
}

/** Serves `handler` on 127.0.0.1:`port` until SIGTERM or SIGINT, then closes every connection and exits 0. */
export function serveBare(port: number, handler: http.RequestListener): void {
  const server = http.createServer(handler);
  // Same keep-alive window as the real server (server/main.ts), so connections are reused the same way.
  server.keepAliveTimeout = 65_000;
  server.listen(port, '127.0.0.1');
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
