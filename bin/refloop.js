#!/usr/bin/env node
// The refloop CLI. TypeScript sources run through tsx's loader, so there is no separate build step for the server.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../server/cli.ts');
process.exitCode = await main(process.argv.slice(2));
