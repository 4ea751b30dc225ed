import { ConfigError, configFromProcess, type Config } from '../server/config.ts';
import { runForever } from '../server/main.ts';
import { demoRoutes } from './routes.ts';
import { abortSeeding, ensureDemo, type DemoState } from './seed.ts';
import { devSignIn } from './dev-sign-in.ts';

// `npm start`: the real server (`refloop serve`) plus the demo store at `/`, seeded on first start
// through the REST API with a referral program, an affiliate program and a few participants.
// Production installs run `refloop serve` and get no demo.

let config: Config;
try {
  config = configFromProcess();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(1);
}
let state: DemoState | null = null;
let base = '';
let signIn: ReturnType<typeof devSignIn> | null = null;
const routes = (deps: Parameters<typeof devSignIn>[0]) => {
  signIn = devSignIn(deps, () => state);
  return [signIn.routes, demoRoutes(deps, () => state, () => base)];
};
// A stop signal during seeding ends the seeding's requests, so the server's drain does not wait on them.
process.once('SIGTERM', abortSeeding);
process.once('SIGINT', abortSeeding);
await runForever(config, { routes }, async (running) => {
  base = running.url;
  try {
    state = await ensureDemo(running.deps, running.url);
  } catch (err) {
    // Stopped while seeding (a signal): nothing to report. Otherwise the server itself is fine: keep
    // serving it without the demo store.
    if (!running.server.listening) return;
    running.deps.log.error('demo seeding failed; serving without the demo store', { error: (err as Error).message });
    return;
  }
  running.deps.log.debug('demo store ready', { referralProgram: state.referralProgramId, affiliateProgram: state.affiliateProgramId });
  // The console, and outside production a one-click sign-in to it as the demo team's owner.
  const oneClick = signIn?.link(running.deps.config.publicUrl);
  return { store: `${running.deps.config.publicUrl}/`, console: `${running.deps.config.publicUrl}/console`, ...(oneClick ? { 'console sign-in (once)': oneClick } : {}) };
});
// Drained and closed. Whatever the interrupted seeding still waits on (a retry timer) must not keep us.
setTimeout(() => process.exit(), 1000).unref();
