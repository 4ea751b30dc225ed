import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, mobile, mobileProgram, session } from '../../helpers/mobile.ts';

// The participant API caches each program's settings per process (docs/decisions.md, "Caches"): a change
// made through this process (the console, REST) drops the cached copy at once instead of waiting out the ttl.

describe('the participant API after a program change in the same process', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ ...RAISED_LIMITS, MOBILE_PROGRAM_CACHE_MS: '60000' });
  });
  afterAll(() => app?.close());

  it('serves a renamed program and a changed design at once, though the cache would keep them for a minute', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    const before = await mobile(app, 'GET', '/campaign', s);
    expect(before.status, before.text).toBe(200);
    const renamed = await app.request('PATCH', `/v2/campaign/${p.pid}`, { key: p.key, body: { name: 'Bakery friends' } });
    expect(renamed.status, renamed.text).toBe(200);
    const afterName = await mobile(app, 'GET', '/campaign', s);
    expect(afterName.body.name).toBe('Bakery friends');
    const window = await mobile(app, 'GET', '/window', s);
    expect(window.status, window.text).toBe(200);
    expect(JSON.stringify(window.body)).not.toContain('#123456');
    const designed = await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { theme: { primaryColor: '#123456' } } });
    expect(designed.status, designed.text).toBe(200);
    const afterDesign = await mobile(app, 'GET', '/window', s);
    expect(JSON.stringify(afterDesign.body)).toContain('#123456');
  });
});
