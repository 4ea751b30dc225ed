// @vitest-environment happy-dom
import axe from 'axe-core';
import { describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { mobileProgram } from '../helpers/mobile.ts';
import { boot } from '../../widget/window/index.tsx';
import { windowSuite, asServer, makeRuntime, textOf, tokenFor, until } from './window-runtime.ts';

// Issue #7: the participant window is a modal dialog in a shadow root, keyboard-complete.

let app: TestApp;
windowSuite((a) => (app = a), { closeWindow: true });

const gs = () => (window as any).growsurf;
/** The program's design document as REST shows it (GET /v2/campaign/{id}/design): what the window must draw. */
const designOf = async (p: { pid: string; key: string }) => (await asServer(app, () => app.request('GET', `/v2/campaign/${p.pid}/design`, { key: p.key }))).body;
const patchDesign = async (p: { pid: string; key: string }, body: unknown) => {
  const res = await asServer(app, () => app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body }));
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const host = () => document.querySelector<HTMLElement>('[data-grsf-window]');
const dialog = () => host()?.shadowRoot?.querySelector<HTMLElement>('[role="dialog"]') ?? null;
const key = (el: Element, k: string, shiftKey = false) => el.dispatchEvent(new KeyboardEvent('keydown', { key: k, shiftKey, bubbles: true, composed: true, cancelable: true }));

async function signedIn() {
  const p = await asServer(app, () => mobileProgram(app));
  const ann = await tokenFor(app, p, 'ann@example.com');
  const rt = await makeRuntime(app, p.pid, { participantToken: ann.participantToken });
  await boot(rt);
  return { p, ann, rt };
}

describe('growsurf.open()', () => {
  it('renders a labelled modal dialog inside a shadow root, hidden from host CSS', async () => {
    const { rt } = await signedIn();
    const style = document.createElement('style');
    style.textContent = 'button, h2, [role=dialog] { display: none !important; }';
    document.head.append(style);
    gs().open();
    const d = await until(dialog);
    expect(d.getAttribute('aria-modal')).toBe('true');
    const title = host()!.shadowRoot!.getElementById(d.getAttribute('aria-labelledby')!);
    expect(title?.textContent).toBe('Refer friends');
    // The page's stylesheet does not reach into the shadow root.
    expect(document.querySelector('[role="dialog"]')).toBeNull();
    expect(getComputedStyle(d).display).not.toBe('none');
    expect(rt.fired.map((f) => f.name)).toContain('grsfOpen');
    style.remove();
  });

  it('traps focus, closes on Escape and gives focus back to the opener', async () => {
    const { rt } = await signedIn();
    const opener = document.createElement('button');
    opener.textContent = 'Refer';
    document.body.append(opener);
    opener.focus();
    gs().open();
    const d = await until(dialog);
    await until(() => textOf(d).includes('Your referral link'));
    const root = host()!.shadowRoot!;
    const focusables = [...d.querySelectorAll<HTMLElement>('a[href],button:not([disabled]),input:not([disabled]),select,textarea,[tabindex]:not([tabindex="-1"])')];
    expect(focusables.length).toBeGreaterThan(2);
    // Focus moves into the dialog once it has rendered.
    await until(() => d.contains(root.activeElement));
    focusables.at(-1)!.focus();
    key(focusables.at(-1)!, 'Tab');
    expect(root.activeElement).toBe(focusables[0]);
    key(focusables[0]!, 'Tab', true);
    expect(root.activeElement).toBe(focusables.at(-1));
    key(focusables[0]!, 'Escape');
    expect(host()).toBeNull();
    expect(document.activeElement).toBe(opener);
    expect(rt.fired.map((f) => f.name)).toContain('grsfClose');
  });

  it('gives every control an accessible name and moves between tabs with the arrow keys', async () => {
    await signedIn();
    gs().open();
    const d = await until(dialog);
    await until(() => d.querySelectorAll('[role="tab"]').length > 1 && d);
    for (const b of d.querySelectorAll('button, a')) expect((b.getAttribute('aria-label') ?? b.textContent ?? '').trim()).not.toBe('');
    for (const input of d.querySelectorAll('input, textarea')) expect(input.closest('label') ?? d.querySelector(`label[for="${input.id}"]`), input.outerHTML).not.toBeNull();
    const tabs = () => [...d.querySelectorAll<HTMLElement>('[role="tab"]')];
    expect(tabs()[0]!.getAttribute('aria-selected')).toBe('true');
    key(tabs()[0]!, 'ArrowRight');
    await until(() => tabs()[1]!.getAttribute('aria-selected') === 'true');
    expect(d.querySelector('[role="tabpanel"]')!.getAttribute('aria-labelledby')).toBe(tabs()[1]!.id);
    key(tabs()[1]!, 'ArrowLeft');
    await until(() => tabs()[0]!.getAttribute('aria-selected') === 'true');
  });

  it('applies the theme argument as custom properties and honours reduced motion in its stylesheet', async () => {
    await signedIn();
    gs().open({ theme: { primaryColor: '#ff0000' } });
    await until(dialog);
    const root = host()!.shadowRoot!;
    expect(root.querySelector<HTMLElement>('.r')!.style.getPropertyValue('--p')).toBe('#ff0000');
    // The window's stylesheet (the share panel's icon chunk adds a style element of its own).
    expect([...root.querySelectorAll('style')].some((s) => s.textContent!.includes('prefers-reduced-motion'))).toBe(true);
  });

  it('follows the program’s design document from MW1: LIST navigation, section titles and theme colours', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    await patchDesign(p, {
      window: { navigationMode: 'LIST' },
      share: { title: 'Spread the word' },
      theme: { primaryColor: '#123456', textColor: '#222222', backgroundColor: '#fafafa', buttonTextColor: '#fefefe', borderRadius: '4px', fontFamily: 'SERIF', isShadowEnabled: false },
    });
    const ann = await tokenFor(app, p, 'ann@example.com');
    await boot(await makeRuntime(app, p.pid, { participantToken: ann.participantToken }));
    gs().open();
    const d = await until(dialog);
    await until(() => d.querySelector('nav'));
    expect(d.querySelector('[role="tablist"]')).toBeNull();
    const nav = d.querySelector('nav')!;
    expect(nav.getAttribute('aria-label')).toBe('Sections');
    // The home (issue #32) is shown above the list: the share section with the design's title; the list holds the others.
    await until(() => [...d.querySelectorAll('h2')].some((h) => h.textContent === 'Spread the word'));
    const first = nav.querySelector('button')!;
    expect(first.textContent).toBe('Your progress');
    first.click();
    // The chosen section replaces the home: the share section is gone, Back takes focus.
    await until(() => ![...d.querySelectorAll('h2')].some((h) => h.textContent === 'Spread the word'));
    const root = host()!.shadowRoot!;
    await until(() => root.activeElement?.textContent === 'Back');
    const r = root.querySelector<HTMLElement>('.r')!;
    expect(r.style.getPropertyValue('--p')).toBe('#123456');
    expect(r.style.getPropertyValue('--t')).toBe('#222222');
    expect(r.style.getPropertyValue('--b')).toBe('#fafafa');
    expect(r.style.getPropertyValue('--bt')).toBe('#fefefe');
    expect(r.style.getPropertyValue('--r')).toBe('4px');
    expect(r.style.getPropertyValue('--f')).toBe('Georgia,serif');
    expect(r.classList.contains('sh')).toBe(false);
    const back = [...d.querySelectorAll('button')].find((b) => b.textContent === 'Back')!;
    back.click();
    await until(() => d.querySelector('nav'));
    await until(() => root.activeElement === d.querySelector('nav button'));
  });

  it('refloop.open({identity, callbacks}) signs in and reports open, share and close', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    const { share } = await designOf(p);
    const ann = await tokenFor(app, p, 'ann@example.com');
    await boot(await makeRuntime(app, p.pid));
    const calls: string[] = [];
    const controller = (window as any).refloop.open({
      identity: { participantToken: ann.participantToken },
      callbacks: { onOpen: () => calls.push('open'), onShare: (type: string) => calls.push(`share:${type}`), onClose: () => calls.push('close'), onError: () => calls.push('error') },
    });
    const d = await until(dialog);
    const copy = await until(() => [...d.querySelectorAll('button')].find((b) => b.textContent === share.copyButtonText));
    expect(gs().currentParticipantId()).toBe(ann.participant.id);
    copy.click();
    await until(() => calls.includes('share:copyRefLink'));
    controller.close();
    expect(host()).toBeNull();
    expect(calls).toEqual(['open', 'share:copyRefLink', 'close']);
  });

  it('has no serious or critical axe-core violations in the open window, for each tab and for a visitor', async () => {
    document.documentElement.lang = 'en';
    document.title = 'Shop';
    const serious = async () => {
      const res = await axe.run(document, { resultTypes: ['violations'] } as axe.RunOptions);
      return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
    };
    for (const type of ['REFERRAL', 'AFFILIATE'] as const) {
      const p = await asServer(app, () => mobileProgram(app, { type }));
      const { participantToken } = await tokenFor(app, p, 'ann@example.com');
      await boot(await makeRuntime(app, p.pid, { participantToken }));
      gs().open();
      const d = await until(dialog);
      const tabs = await until(() => {
        const t = [...d.querySelectorAll<HTMLElement>('[role="tab"]')];
        return t.length > 1 && t;
      });
      for (const tab of tabs) {
        tab.click();
        await until(() => tab.getAttribute('aria-selected') === 'true' && !textOf(d).includes('Loading'));
        expect(await serious(), `${type} ${tab.textContent}`).toEqual([]);
      }
      gs().close();
    }
    const p = await asServer(app, () => mobileProgram(app));
    await boot(await makeRuntime(app, p.pid));
    gs().open();
    await until(() => dialog()?.querySelector('form'));
    expect(await serious()).toEqual([]);
  });

  it('opens from any element with the growsurf-open-window class', async () => {
    await signedIn();
    const a = document.createElement('a');
    a.className = 'growsurf-open-window';
    a.href = '#';
    document.body.append(a);
    a.click();
    await until(dialog);
  });

  it('shows the sign-up form to a visitor who is not signed in, in the design’s words', async () => {
    const p = await asServer(app, () => mobileProgram(app));
    const { signup, header } = await designOf(p);
    await boot(await makeRuntime(app, p.pid));
    gs().open();
    const d = await until(dialog);
    await until(() => d.querySelector('form input[name="email"]'));
    expect(d.querySelector('button[type="submit"]')!.textContent).toBe(signup.buttonText);
    expect(d.querySelector<HTMLInputElement>('input[name="email"]')!.placeholder).toBe(signup.fields[0].placeholder);
    expect(d.querySelector('input[name="email"]')!.closest('label')!.textContent).toBe(signup.fields[0].label);
    // header.preText is the window's header; the form inside the window does not repeat it.
    expect(textOf(d).split(header.preText).length - 1).toBe(1);
  });
});
