// @vitest-environment happy-dom
// Issue #24: the starter reward's flag in the window (the rewards panel says it; progress and the
// welcome's offer ignore it; an edit over REST takes it away) and the referrer's name in the
// referred friend's welcome (the design's format, the fallback without a name). Real server.
import { describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { addParticipant, mobileProgram, shareKey, type MobileProgramFixture } from '../helpers/mobile.ts';
import { boot } from '../../widget/window/index.tsx';
import { starters } from '../../widget/window/panels/lists.tsx';
import { referrer } from '../../widget/window/state.ts';
import { windowSuite, asServer, makeRuntime, textOf, tokenFor, until } from './window-runtime.ts';

let app: TestApp;
windowSuite((a) => (app = a), { closeWindow: true, reset: () => (referrer.value = {}) });

const gs = () => (window as any).growsurf;
const rest = (p: MobileProgramFixture, method: string, path: string, body?: unknown) => asServer(app, () => app.request(method, `/v2/campaign/${p.pid}${path}`, { key: p.key, body }));
function element(name: string): HTMLElement {
  const el = document.createElement('div');
  el.setAttribute(`data-grsf-block-${name}`, '');
  document.body.append(el);
  return el;
}

describe('starter reward in the window', () => {
  it('starters() keeps only flagged rewards', () => {
    expect(starters([{ id: 'a', isStarter: true }, { id: 'b' }, { id: 'c', isStarter: false }]).map((r) => r.id)).toEqual(['a']);
  });

  it('the rewards panel says the program’s reward is its starter, not switched on; progress offers nothing for it; a REST edit takes the notice away', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    const [starter] = (await rest(p, 'GET', '/reward-configs')).body.rewards;
    expect(starter.isStarter).toBe(true);
    const ann = await tokenFor(app, p, 'ann@example.com');
    const rewards = element('rewards');
    const progress = element('progress');
    await boot(await makeRuntime(app, p.pid, { participantToken: ann.participantToken }));
    const note = await until(() => rewards.shadowRoot?.querySelector(`[data-grsf-starter="${starter.id}"]`));
    expect(note.textContent).toBe(`“${starter.description}” is this program’s starter reward. It is not switched on yet, so referrals do not earn it until the program sets it up.`);
    await until(() => textOf(progress.shadowRoot).includes('referrals so far'));
    expect(textOf(progress.shadowRoot)).not.toContain('to earn');

    const edited = await rest(p, 'PATCH', `/reward-configs/${starter.id}`, { isVisible: true, description: '$10 store credit' });
    expect(edited.status, edited.text).toBe(200);
    await gs().init();
    await until(() => !rewards.shadowRoot!.querySelector('[data-grsf-starter]') && textOf(progress.shadowRoot).includes('1 more referral to earn $10 store credit'));
    expect(textOf(rewards.shadowRoot)).not.toContain('starter');
  });
});

describe('the referrer’s name in the welcome', () => {
  async function referredVisit(p: MobileProgramFixture, referrer: { email: string; firstName?: string; lastName?: string }) {
    const who = await asServer(app, () => addParticipant(app, p, referrer));
    const design = await rest(p, 'PATCH', '/design', { referredExperience: { isBannerEnabled: true, bannerText: '{{referrerName}} invited you', isOfferPopupEnabled: false, isHeadingEnabled: false } });
    expect(design.status, design.text).toBe(200);
    await boot(await makeRuntime(app, p.pid, { pending: { referralCode: shareKey(who), capturedAt: Date.now() } }));
    await gs().welcome();
    const host = await until(() => document.querySelector<HTMLElement>('[data-grsf-banner]'));
    return until(() => host.shadowRoot?.querySelector('.bar span')?.textContent);
  }

  it('names the referrer by the design’s format (first name by default, then first name and last initial)', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    expect(await referredVisit(p, { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' })).toBe('Ada invited you');
    document.body.innerHTML = '';
    const q = await asServer(app, () => mobileProgram(app));
    expect((await rest(q, 'PATCH', '/design', { referredExperience: { referrerNameFormat: 'FIRST_LAST_INITIAL' } })).status).toBe(200);
    expect(await referredVisit(q, { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' })).toBe('Ada L. invited you');
  });

  it('falls back to the design’s referrerNameFallback when the referrer has no first name', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    expect((await rest(p, 'PATCH', '/design', { referredExperience: { referrerNameFallback: 'Your pal' } })).status).toBe(200);
    expect(await referredVisit(p, { email: 'nameless@example.com' })).toBe('Your pal invited you');
  });
});
