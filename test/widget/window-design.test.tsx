// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { addParticipant, mobileProgram, shareKey, type MobileProgramFixture } from '../helpers/mobile.ts';
import { boot } from '../../widget/window/index.tsx';
import { plain } from '../../widget/window/ui.tsx';
import { windowSuite, asServer, makeRuntime, textOf, tokenFor, until } from './window-runtime.ts';

// Issue #7: the window draws the program's design document (rest-v2 §2.18, as MW1 sends it): design
// texts replace the catalogue when set, merge tags are filled as text, markup never reaches the DOM,
// and an empty design text falls back to the catalogue.

let app: TestApp;
windowSuite((a) => (app = a), { closeWindow: true, reset: () => delete (window as any).__pwned });

const gs = () => (window as any).growsurf;
const rest = async (p: MobileProgramFixture, method: string, path: string, body?: unknown) => {
  const res = await asServer(app, () => app.request(method, `/v2/campaign/${p.pid}${path}`, { key: p.key, body }));
  expect(res.status, res.text).toBe(200);
  return res.body;
};
function element(name: string): HTMLElement {
  const el = document.createElement('div');
  el.setAttribute(`data-grsf-block-${name}`, '');
  document.body.append(el);
  return el;
}
const dialog = () => document.querySelector<HTMLElement>('[data-grsf-window]')?.shadowRoot?.querySelector<HTMLElement>('[role="dialog"]') ?? null;

describe('design texts in the window', () => {
  it('fills merge tags from the participant and the program as text; unknown tags give their fallback or nothing', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    await rest(p, 'PATCH', '', { companyName: 'Acme Store' });
    await rest(p, 'PATCH', '/design', {
      header: { postText: 'Hi {{firstName}}, you have {{referralCount}} referrals at {{companyName}}.' },
      share: { description: 'Your link: {{shareUrl}} {{campaignReward[crw_x].metadata.code|no code yet}}{{ nonsense }}' },
    });
    // Participant data in a tag stays text: this first name is shown as typed, never parsed.
    const ann = await tokenFor(app, p, 'ann@example.com', { firstName: '<b>Ann</b>' });
    await boot(await makeRuntime(app, p.pid, { participantToken: ann.participantToken }));
    gs().open();
    const d = await until(dialog);
    await until(() => d.querySelector('input[readonly]'));
    // A participant's header.postText is the offer their home opens with (issue #32).
    expect(d.querySelector('[data-grsf-home] > p.of')!.textContent).toBe('Hi <b>Ann</b>, you have 0 referrals at Acme Store.');
    // The first name stayed text: no element came of it (the home's figures are <b> tiles of their own).
    expect([...d.querySelectorAll('b')].map((b) => b.textContent)).not.toContain('Ann');
    expect(textOf(d)).toContain(`Your link: ${ann.participant.shareUrl} no code yet`);
    expect(textOf(d)).not.toContain('{{');
  });

  it('renders markup in a design text as plain text: no element, no script, entities read as characters', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    await rest(p, 'PATCH', '/design', {
      header: { preText: '<script>window.__pwned=1</script>Tom &amp; Jerry <i>welcome</i> you' },
      signup: { buttonText: 'Join <img src=x onerror="window.__pwned=1">now' },
      referredExperience: { bannerText: '<a href="javascript:window.__pwned=1">{{referrerName}}</a> says hi &lt;3' },
    });
    await asServer(app, () => addParticipant(app, p, { email: 'ann@example.com' }));
    const ann = (await rest(p, 'GET', '/participant/ann@example.com')) as { shareUrl: string };
    const el = element('form');
    await boot(await makeRuntime(app, p.pid, { pending: { referralCode: shareKey(ann), capturedAt: Date.now() } }));
    const form = await until(() => el.shadowRoot?.querySelector('form'));
    expect(form.querySelector('button[type="submit"]')!.textContent).toBe('Join now');
    expect(textOf(el.shadowRoot)).toContain('Tom & Jerry welcome you');
    expect(el.shadowRoot!.querySelector('.ban')!.textContent).toBe('A friend says hi <3');
    expect(el.shadowRoot!.querySelectorAll('img, script, a, i').length).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    expect((window as any).__pwned).toBeUndefined();
  });

  it('falls back to the catalogue for an empty design text, and for one whose only tag has no value', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    await rest(p, 'PATCH', '/design', { header: { preText: '' }, share: { message: '', description: '{{firstName}}' }, referralStatus: { emptyState: '  ' } });
    const visitor = element('form');
    await boot(await makeRuntime(app, p.pid));
    await until(() => visitor.shadowRoot?.querySelector('form'));
    expect(textOf(visitor.shadowRoot)).toContain('Invite your friends and earn rewards.');

    document.body.innerHTML = '';
    const ann = await tokenFor(app, p, 'ann@example.com');
    const share = element('form');
    const status = element('referral-status');
    await boot(await makeRuntime(app, p.pid, { participantToken: ann.participantToken }));
    await until(() => share.shadowRoot?.querySelector('input[readonly]'));
    const mail = new URL(share.shadowRoot!.querySelector<HTMLAnchorElement>('a[href^="mailto:"]')!.href);
    expect(mail.searchParams.get('body')).toBe(`Join me: ${ann.participant.shareUrl}`);
    // A description that is only an empty tag is no description at all.
    expect(share.shadowRoot!.querySelectorAll('h2 ~ p.m').length).toBe(0);
    await until(() => textOf(status.shadowRoot).includes('No referrals yet.'));
  });

  it('names the tabs with the design’s section titles and shows only the sections the design turns on', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    const before = await rest(p, 'GET', '/design');
    expect(before.referralSummary.isEnabled).toBe(false);
    await rest(p, 'PATCH', '/design', { rewards: { title: 'Prizes' }, referralStatus: { title: 'Friends' }, referralSummary: { isEnabled: true, title: 'Stats' }, share: { invite: { isEnabled: false } } });
    const ann = await tokenFor(app, p, 'ann@example.com');
    await boot(await makeRuntime(app, p.pid, { participantToken: ann.participantToken }));
    gs().open();
    const d = await until(dialog);
    const names = await until(() => {
      const t = [...d.querySelectorAll('[role="tab"]')].map((x) => x.textContent);
      return t.length > 1 && t;
    });
    // The progress panel (issue #24) takes the design's `stats` title.
    // The first is the participant's home (issue #32), which holds the share section.
    expect(names).toEqual(['Home', before.stats.title, 'Prizes', 'Friends', 'Stats']);
    [...d.querySelectorAll<HTMLElement>('[role="tab"]')].find((x) => x.textContent === 'Prizes')!.click();
    await until(() => [...d.querySelectorAll('h2')].some((h) => h.textContent === 'Prizes'));
    await until(() => textOf(d).includes(before.rewards.emptyState));
  });
});

describe('plain (design text → text)', () => {
  it('strips markup, reads entities, keeps a lone "<", and drops the space before punctuation for an empty tag', () => {
    expect(plain('a < b and <b>bold</b>', {})).toBe('a < b and bold');
    expect(plain('Hi {{firstName}}, welcome', {})).toBe('Hi, welcome');
    expect(plain('Hi {{ firstName | friend }}!', {})).toBe('Hi friend!');
    expect(plain('&lt;img src=x onerror=alert(1)&gt;', {})).toBe('<img src=x onerror=alert(1)>');
    expect(plain('{{x}}', { x: '<i>y</i>' })).toBe('<i>y</i>');
    // Issue #21: a value that ends its own sentence does not double the text's punctuation.
    expect(plain('Earn {{reward}}. Share now!', { reward: 'A $10 credit for each order.' })).toBe('Earn A $10 credit for each order. Share now!');
    expect(plain('Earn {{reward}}.', { reward: '$10 off' })).toBe('Earn $10 off.');
    expect(plain('{{constructor}}{{__proto__}}{{toString|fallback}}', {})).toBe('fallback');
    expect(plain('<style>.x{}</style><SCRIPT src="a.js"></SCRIPT>ok', {})).toBe('ok');
  });
});
