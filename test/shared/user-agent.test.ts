import { describe, expect, it } from 'vitest';
import { userAgentSummary } from '../../shared/user-agent.ts';

describe('userAgentSummary', () => {
  it('names browsers by their brand before the engines they carry, with the system', () => {
    const cases: Array<[string, string, string | null]> = [
      ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36', 'Chrome 156', 'Linux'],
      ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86', 'Edge 131', 'Windows'],
      ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.2 Safari/605.1.15', 'Safari 18', 'macOS'],
      ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.2 Mobile/15E148 Safari/604.1', 'Safari 18', 'iOS'],
      ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36', 'Chrome 131', 'Android'],
      ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox 133', 'Linux'],
      ['curl/8.5.0', 'curl 8.5', null],
      ['python-requests/2.32.3', 'Python requests 2.32', null],
      ['node', 'Node.js', null],
      ['growsurf-ruby/1.2 (+https://example.com)', 'growsurf-ruby', null],
    ];
    for (const [ua, client, system] of cases) expect(userAgentSummary(ua), ua).toEqual({ client, system });
  });

  it('has nothing to say of an empty header', () => {
    expect(userAgentSummary('')).toBeNull();
    expect(userAgentSummary(null)).toBeNull();
  });
});
