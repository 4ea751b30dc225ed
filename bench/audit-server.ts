import http from 'node:http';
import { loadConfig } from '../server/config.ts';
import { createDeps } from '../server/deps.ts';
import { createHandler } from '../server/app.ts';

// `node --import tsx bench/audit-server.ts on|off`: the real app for the bench's audit rows (audit-rows.ts),
// built as `refloop serve` builds it (createDeps, createHandler) from the environment the bench gives
// it, listening on HOST:PORT until SIGTERM. `off` is the baseline: this process replaces
// `deps.audit.append` with a no-op before serving, so every write does all its work except the
// audit entry. The product has no setting that turns the trail off; only this bench process does.

const mode = process.argv[2];
if (mode !== 'on' && mode !== 'off') {
  console.error('Usage: node --import tsx bench/audit-server.ts on|off');
  process.exit(2);
}
const config = loadConfig(process.env);
const deps = await createDeps(config);
deps.invalidation.listen();
if (mode === 'off') deps.audit.append = async () => undefined;
const server = http.createServer(createHandler(deps));
server.keepAliveTimeout = 65_000;
server.listen(config.port, config.host);
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void deps.close().then(() => process.exit(0)));
});
