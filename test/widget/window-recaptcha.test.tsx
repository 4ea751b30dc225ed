// @vitest-environment happy-dom
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { addParticipant, mobileProgram, shareKey, type MobileProgramFixture } from '../helpers/mobile.ts';
import { boot } from '../../widget/window/index.tsx';
import { asServer, makeRuntime, windowSuite } from './window-runtime.ts';
import { startVerifier, type Verifier } from '../helpers/recaptcha.ts';

// options.fraud.recaptcha in the widget: with the program's site key in the window payload, every
// sign-up call carries its own reCAPTCHA token (action `signup`) from the page's grecaptcha, which
// the server checks with the verification service (here on loopback).

let verifier: Verifier;
const verified: string[] = [];
beforeAll(async () => {
  verifier = await startVerifier((form) => {
    const token = form.get('response') ?? '';
    // Single use, as at Google: a token seen before fails.
    const fresh = token.startsWith('tok-') && !verified.includes(token);
    verified.push(token);
    return { body: fresh ? { success: true, score: 0.9, action: 'signup' } : { success: false, 'error-codes': ['timeout-or-duplicate'] } };
  });
});
// After hooks run in reverse: the verifier closes after windowSuite's server.
afterAll(() => verifier.close());

const executed: Array<{ key: string; action: string }> = [];
let app: TestApp;
windowSuite((a) => (app = a), {
  env: () => ({ RECAPTCHA_VERIFY_URL: verifier.url }),
  reset: () => {
    verified.length = 0;
    executed.length = 0;
    (window as any).grecaptcha = {
      ready: (cb: () => void) => cb(),
      execute: async (key: string, opts: { action: string }) => {
        executed.push({ key, action: opts.action });
        return `tok-${Math.random().toString(36).slice(2)}`;
      },
    };
  },
});

const gs = () => (window as any).growsurf;
const program = () => asServer(app, () => mobileProgram(app, { options: { fraud: { recaptcha: { isEnabled: true, siteKey: 'the-site-key', secretKey: 's3cret' } } } }));
const participant = (p: MobileProgramFixture, body: Record<string, unknown>) => asServer(app, () => addParticipant(app, p, body));

describe('sign-ups with reCAPTCHA on', () => {
  it('sends a fresh token with the site key and the signup action on each sign-up call', async () => {
    const p = await program();
    // A pending code that names nobody: the referred call is refused first, then a plain sign-up, each with its own token.
    const rt = await makeRuntime(app, p.pid, { pending: { referralCode: 'nobody-at-all', capturedAt: Date.now() } as any });
    await boot(rt);
    const created = await gs().addParticipant({ email: 'bob@example.com' });
    expect(created).toMatchObject({ email: 'bob@example.com' });
    expect(executed.length).toBe(2);
    expect(executed.every((e) => e.key === 'the-site-key' && e.action === 'signup')).toBe(true);
    expect(verified).toHaveLength(1);
    // Checked and passed, not let through unverified.
    expect((await asServer(app, () => app.request('GET', `/v2/campaign/${p.pid}/participant/bob@example.com`, { key: p.key }))).body).toMatchObject({ fraudRiskLevel: 'LOW' });
  });

  it('adds a referred friend through addReferredParticipant', async () => {
    const p = await program();
    const ann = await participant(p, { email: 'ann@example.com' });
    const rt = await makeRuntime(app, p.pid);
    await boot(rt);
    const r = await gs().addReferredParticipant({ email: 'friend@example.com', referredBy: shareKey(ann) });
    expect(r).toMatchObject({ added: true, validReferral: true });
    expect(verified).toHaveLength(1);
  });

  it('is refused by the server when the page cannot produce a token', async () => {
    const p = await program();
    (window as any).grecaptcha = { ready: (cb: () => void) => cb(), execute: async () => Promise.reject(new Error('blocked')) };
    const rt = await makeRuntime(app, p.pid);
    await boot(rt);
    await expect(gs().addParticipant({ email: 'nobody@example.com' })).rejects.toThrow();
    expect(verified).toHaveLength(0);
  });
});
