import { describe, expect, it } from 'vitest';
import { createLogger, logFormat, quietStartup, readyBlock } from '../../server/log.ts';

describe('issue #21: log format', () => {
  it('is readable in a terminal and JSON otherwise, unless LOG_FORMAT says', () => {
    expect(logFormat('auto', true)).toBe('pretty');
    expect(logFormat('auto', false)).toBe('json');
    expect(logFormat('auto', undefined)).toBe('json');
    expect(logFormat('json', true)).toBe('json');
    expect(logFormat('pretty', false)).toBe('pretty');
  });

  it('writes a request as one readable line with method, path, status and time, and still redacts secrets', () => {
    const lines: string[] = [];
    const log = createLogger('info', (l) => void lines.push(l), 'pretty');
    log.info('request', { requestId: 'r1', method: 'GET', path: '/v2/team', status: 200, ms: 1.234 });
    log.warn('odd', { apiKey: 'sk_secret', count: 2 });
    log.debug('hidden');
    const plain = lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
    expect(plain[0]).toMatch(/^\d\d:\d\d:\d\d GET \/v2\/team 200 1\.2 ms\n$/);
    expect(plain[1]).toMatch(/^\d\d:\d\d:\d\d WARN odd apiKey=\[redacted\] count=2\n$/);
    expect(lines).toHaveLength(2);
  });

  it('writes JSON lines by default', () => {
    const lines: string[] = [];
    createLogger('info', (l) => void lines.push(l)).info('listening', { url: 'http://x' });
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', msg: 'listening', url: 'http://x' });
  });

  it('keeps JSON lines exactly as they were: one object per entry, every field kept', () => {
    const lines: string[] = [];
    const log = createLogger('info', (l) => void lines.push(l), 'json');
    log.info('request', { requestId: 'r1', method: 'GET', path: '/v2/team', status: 200, ms: 1.5 });
    log.info('ready', { store: 'http://x/', outbox: 'http://x/_dev/mail' });
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { time: expect.any(String), level: 'info', msg: 'request', requestId: 'r1', method: 'GET', path: '/v2/team', status: 200, ms: 1.5 },
      { time: expect.any(String), level: 'info', msg: 'ready', store: 'http://x/', outbox: 'http://x/_dev/mail' },
    ]);
    expect(lines.every((l) => l.endsWith('}\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
  });
});

describe('issue #32: a quiet start in a terminal', () => {
  const plain = (lines: string[]) => lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));

  it('logs the start-up\'s answered requests at debug level and counts them; refusals, errors and other entries keep their level', () => {
    const lines: string[] = [];
    const log = quietStartup(createLogger('info', (l) => void lines.push(l), 'pretty'));
    for (let i = 0; i < 70; i++) log.info('request', { method: 'POST', path: '/v2/campaigns', status: 200, ms: 3 });
    log.info('request', { method: 'POST', path: '/v2/campaigns', status: 429, ms: 1 });
    log.info('demo store ready');
    log.warn('odd');
    expect(plain(lines).map((l) => l.replace(/^\d\d:\d\d:\d\d /, ''))).toEqual(['POST /v2/campaigns 429 1.0 ms\n', 'demo store ready\n', 'WARN odd\n']);
    expect(log.settle()).toBe(70);
    // Once ready, every request is a line again.
    log.info('request', { method: 'GET', path: '/healthz', status: 200, ms: 2 });
    expect(plain(lines).at(-1)).toMatch(/^\d\d:\d\d:\d\d GET \/healthz 200 2\.0 ms\n$/);
  });

  it('shows the start-up requests with LOG_LEVEL=debug', () => {
    const lines: string[] = [];
    const log = quietStartup(createLogger('debug', (l) => void lines.push(l), 'pretty'));
    log.info('request', { method: 'GET', path: '/verify', status: 200, ms: 3 });
    expect(plain(lines)).toEqual([expect.stringMatching(/^\d\d:\d\d:\d\d DEBUG GET \/verify 200 3\.0 ms\n$/)]);
  });

  it('prints where to go as a short block: one aligned line per place, then how many start-up requests were quiet and how to stop', () => {
    const block = readyBlock({ store: 'http://localhost:8787/', console: 'http://localhost:8787/console', 'console sign-in (once)': 'http://localhost:8787/demo/console-sign-in?token=abc', outbox: 'http://localhost:8787/_dev/mail', docs: 'http://localhost:8787/docs' }, 72, false);
    expect(block).toBe(
      [
        '',
        '  refloop is ready',
        '',
        '    Store                   http://localhost:8787/',
        '    Console                 http://localhost:8787/console',
        '    Console sign-in (once)  http://localhost:8787/demo/console-sign-in?token=abc',
        '    Outbox                  http://localhost:8787/_dev/mail',
        '    Docs                    http://localhost:8787/docs',
        '',
        '  The 72 requests made while starting are logged at debug level (LOG_LEVEL=debug shows them). Ctrl+C stops the server.',
        '',
        '',
      ].join('\n'),
    );
    expect(readyBlock({ home: 'http://x/' }, 0, false)).not.toContain('requests');
    expect(readyBlock({ home: 'http://x/' }, 0, true)).toContain('\x1b[1mrefloop is ready\x1b[0m');
  });
});
