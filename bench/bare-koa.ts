import http from 'node:http';
import Koa from 'koa';

// The baseline for `npm run bench`: a bare Koa app answering one JSON route, nothing else.
// Usage: node --import tsx bench/bare-koa.ts PORT

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error('Usage: node --import tsx bench/bare-koa.ts PORT');
  process.exit(2);
}

const app = new Koa();
app.use(async (ctx, next) => {
  if (ctx.method === 'GET' && ctx.path === '/ok') {
    ctx.body = { ok: true };
    return;
  }
  return next();
});

const server = http.createServer(app.callback());
// Same keep-alive window as the real server (server/main.ts), so connections are reused the same way.
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1');

const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
