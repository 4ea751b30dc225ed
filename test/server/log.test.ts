import { describe, expect, it } from 'vitest';
import { createLogger, logFormat } from '../../server/log.ts';

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
});
