import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { newProgram } from '../../helpers/programs.ts';
import { PAGE_POLICY } from '../../../server/http/page-policy.ts';

// Issue #35 part 4: every HTML response carries a Content-Security-Policy from one policy source
// (server/http/page-policy.ts), nosniff and a referrer policy, and HSTS when PUBLIC_URL is https;
// /docs and /_dev/mail sent none before.

let app: TestApp;
let pid = '';
beforeAll(async () => {
  app = await startApp({ PUBLIC_URL: 'https://refloop.test' });
  pid = (await newProgram(app)).pid;
});
afterAll(async () => {
  await app.close();
});

describe('HTML responses', () => {
  it('all carry a Content-Security-Policy, nosniff, a referrer policy and HSTS', async () => {
    const paths = ['/', '/docs', '/_dev/mail', '/console', '/console/programs', '/signin', '/keys', '/r/nosuchprogram', `/r/${pid}`, `/p/${pid}`, '/unsubscribe?token=nope', '/nosuchpage'];
    const seen: string[] = [];
    for (const p of paths) {
      const res = await fetch(`${app.url}${p}`, { redirect: 'manual', headers: { accept: 'text/html' } });
      await res.arrayBuffer();
      if (!/^text\/html/.test(res.headers.get('content-type') ?? '')) continue;
      seen.push(p);
      expect(res.headers.get('content-security-policy'), p).toMatch(/default-src '(none|self)'/);
      expect(res.headers.get('content-security-policy'), p).toMatch(/frame-ancestors 'none'|sandbox|frame-ancestors 'self'/);
      expect(res.headers.get('x-content-type-options'), p).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), p).toBeTruthy();
      expect(res.headers.get('strict-transport-security'), p).toBe('max-age=31536000; includeSubDomains');
    }
    // The two pages that had no policy, and the console, are among them.
    expect(seen).toEqual(expect.arrayContaining(['/docs', '/_dev/mail', '/console', '/signin']));
  });

  it('gives the API reference and the outbox the default page policy, the console its own', async () => {
    for (const [p, policy] of [['/docs', PAGE_POLICY.page], ['/_dev/mail', PAGE_POLICY.page], ['/console', PAGE_POLICY.console]] as const) {
      const res = await fetch(`${app.url}${p}`, { headers: { accept: 'text/html' } });
      await res.arrayBuffer();
      expect(res.headers.get('content-security-policy'), p).toBe(policy);
    }
  });
});
