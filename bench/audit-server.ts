import http from 'node:http';
import { loadConfig } from '../server/config.ts';
import { createDeps } from '../server/deps.ts';
import { createHandler } from '../server/app.ts';

// `node --import tsx bench/audit-server.ts`: the real app for the bench's audit rows (audit-rows.ts),
// built as `refloop serve` builds it (createDeps, createHandler) from the environment the bench gives
// it, listening on HOST:PORT until SIGTERM. The baseline lives in this process only: SIGUSR2 switches
// between the real `deps.audit.append` and a no-op in its place (every write then does all its work
// but the entry), and the bench alternates blocks of load between the two. The product has no setting
// that turns the trail off.

const config = loadConfig(process.env);
const deps = await createDeps(config);
deps.invalidation.listen();
const append = deps.audit.append.bind(deps.audit);
const noop: typeof append = async () => undefined;
let auditing = true;
process.on('SIGUSR2', () => {
  auditing = !auditing;
  deps.audit.append = auditing ? append : noop;
});
const server = http.createServer(createHandler(deps));
server.keepAliveTimeout = 65_000;
server.listen(config.port, config.host);
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void deps.close().then(() => process.exit(0)));
});
