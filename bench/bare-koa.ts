import Koa from 'koa';
import { portArgument, serveBare } from './bare-server.ts';

// The baseline for `npm run bench`: a bare Koa app answering one JSON route, nothing else.
// Usage: node --import tsx bench/bare-koa.ts PORT

const port = portArgument('bare-koa.ts');

const app = new Koa();
app.use(async (ctx, next) => {
  if (ctx.method === 'GET' && ctx.path === '/ok') {
    ctx.body = { ok: true };
    return;
  }
  return next();
});

serveBare(port, app.callback());
