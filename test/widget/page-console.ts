// The page's console, kept apart from the test output (issue #21). Vitest's happy-dom environment
// hands the page the runner's own console, so everything a browser would list in the page's
// console — failed requests ("GET … 422 (Unprocessable Entity)"), CORS refusals, fetches aborted
// when a suite ends, scripts that tests do not load, and the widget's development-build notes —
// was printed on every passing run. A browser keeps those in the tab; so do we: messages whose
// caller is happy-dom or the widget's source are kept for the current test and printed only if it
// fails. Everything else (the tests' own output, real errors from our server code) prints as before.
import nodeConsole from 'node:console';
import { beforeEach } from 'vitest';

const PAGE_CALLER = /[\\/]node_modules[\\/]happy-dom[\\/]|[\\/]widget[\\/](attribution|window)[\\/]/;
const LEVELS = ['log', 'info', 'warn', 'error', 'debug'] as const;
const installed = Symbol.for('refloop.pageConsole');

/** What the page said during the current test, in order. */
export const pageMessages: { level: (typeof LEVELS)[number]; args: unknown[] }[] = [];

/** Diverts the page's messages written to `target`; anything else goes through unchanged. */
function keepPageMessages(target: Console): void {
  const marked = target as unknown as Record<symbol, unknown>;
  if (marked[installed]) return;
  marked[installed] = true;
  for (const level of LEVELS) {
    const through = target[level].bind(target);
    target[level] = (...args: unknown[]) => {
      // Frame 0 is the Error, 1 this wrapper, 2 whoever called console.* (a spy may sit in between).
      const callers = (new Error().stack ?? '').split('\n').slice(2, 5).join('\n');
      if (PAGE_CALLER.test(callers)) pageMessages.push({ level, args });
      else through(...args);
    };
  }
}

// The widget's code calls the test's console (Vitest's); happy-dom holds Node's own, which the
// environment passed it before Vitest replaced the global.
keepPageMessages(console);
keepPageMessages(nodeConsole);

beforeEach((ctx) => {
  pageMessages.length = 0;
  ctx.onTestFailed(() => {
    for (const { level, args } of pageMessages.splice(0)) process.stderr.write(`[page console.${level}] ${args.map((a) => (a instanceof Error ? (a.stack ?? a.message) : typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}\n`);
  });
});
