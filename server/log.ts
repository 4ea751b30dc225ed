/** Structured JSON logger. Never pass secrets: fields named like credentials are redacted anyway. */
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

/** Creates a logger writing one JSON object per line to `write` (stdout by default). */
export function createLogger(level: keyof typeof LEVELS, write: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  const min = LEVELS[level];
  const emit = (lvl: Exclude<keyof typeof LEVELS, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...(fields ? redact(fields) : {}) }) + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}
