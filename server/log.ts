/** Structured logger (JSON lines, or readable lines in a terminal). Never pass secrets: fields named like credentials are redacted anyway. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
const SECRET_FIELD = /authorization|api.?key|password|secret|token|cookie/i;

/** Replaces credential-looking fields so a careless call cannot leak a secret into the logs. */
function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = SECRET_FIELD.test(k) ? '[redacted]' : v;
  return out;
}

/** How log lines are written: JSON objects, or readable text for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT's choice, where `auto` means readable text when stdout is a terminal and JSON otherwise. */
export function logFormat(setting: 'json' | 'pretty' | 'auto', isTTY: boolean | undefined): LogFormat {
  return setting === 'auto' ? (isTTY ? 'pretty' : 'json') : setting;
}

const COLOR = { debug: '\x1b[2m', info: '\x1b[36m', warn: '\x1b[33m', error: '\x1b[31m' } as const;

/** One readable line: time, level, then the request's method, path, status and time, or the message and its fields. */
function prettyLine(lvl: keyof typeof COLOR, msg: string, fields: Record<string, unknown>): string {
  const time = new Date().toISOString().slice(11, 19);
  const { method, path, status, ms, requestId, ...rest } = fields;
  const head = msg === 'request' && method && path ? `${String(method)} ${String(path)} ${String(status)} ${typeof ms === 'number' ? ms.toFixed(1) : String(ms)} ms` : msg;
  const shown = msg === 'request' ? rest : fields;
  const tail = Object.entries(shown)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  const level = lvl === 'info' ? '' : ` ${COLOR[lvl]}${lvl.toUpperCase()}\x1b[0m`;
  return `\x1b[2m${time}\x1b[0m${level} ${head}${tail ? ` \x1b[2m${tail}\x1b[0m` : ''}\n`;
}

/** Creates a logger writing one line per entry to `write` (stdout by default): a JSON object, or readable text. */
export function createLogger(level: keyof typeof LEVELS, write: (line: string) => void = (l) => process.stdout.write(l), format: LogFormat = 'json'): Logger {
  const min = LEVELS[level];
  const emit = (lvl: Exclude<keyof typeof LEVELS, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < min) return;
    const safe = fields ? redact(fields) : {};
    write(format === 'pretty' ? prettyLine(lvl, msg, safe) : JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...safe }) + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

/** A logger that keeps start-up quiet in a terminal: see `quietStartup`. */
export interface StartupLogger extends Logger {
  /** Ends the quiet start; answers how many request lines went to debug level meanwhile. */
  settle(): number;
}

/**
 * For readable logs: until `settle()` (the server is ready), each answered request (status below
 * 400) is logged at debug level, so the demo's seeding does not flood the terminal with request
 * lines; refusals and errors, and everything else, keep their level. JSON logs do not use this.
 */
export function quietStartup(log: Logger): StartupLogger {
  let quiet = true;
  let held = 0;
  return {
    debug: (m, f) => log.debug(m, f),
    info: (m, f) => {
      if (quiet && m === 'request' && typeof f?.status === 'number' && f.status < 400) {
        held++;
        return log.debug(m, f);
      }
      log.info(m, f);
    },
    warn: (m, f) => log.warn(m, f),
    error: (m, f) => log.error(m, f),
    settle() {
      quiet = false;
      return held;
    },
  };
}

/**
 * The block a person reads once the server is ready in a terminal: one line per place to go
 * (`console sign-in (once)` becomes "Console sign-in (once)"), labels aligned, then how many
 * start-up requests were logged at debug level (`quiet`), and how to stop.
 */
export function readyBlock(links: Record<string, string>, quiet = 0, color = true): string {
  const paint = (code: string, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const rows = Object.entries(links).map(([name, url]) => [name.charAt(0).toUpperCase() + name.slice(1), url] as const);
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  const lines = rows.map(([label, url]) => `    ${paint('2', label.padEnd(width))}  ${url}`);
  const note = quiet > 0 ? `The ${quiet} requests made while starting are logged at debug level (LOG_LEVEL=debug shows them). ` : '';
  return `\n  ${paint('1', 'refloop is ready')}\n\n${lines.join('\n')}\n\n  ${note}Ctrl+C stops the server.\n\n`;
}
