// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { addParticipant, mobileProgram, type MobileProgramFixture } from '../helpers/mobile.ts';
import { boot } from '../../widget/window/index.tsx';
import { STORE_KEYS } from '../../widget/runtime.ts';
import { windowSuite, PAGE, asServer, makeRuntime, textOf, until } from './window-runtime.ts';

// One-time email sign-in in the window (web-sdk.md §5): a returning participant asks for a link
// (MA2), and a page opened from that link (grsfLogin) signs them in (MA3), against a real server.

let app: TestApp;
windowSuite((a) => (app = a), { closeWindow: true });

async function program(): Promise<MobileProgramFixture> {
  return asServer(app, async () => {
    const p = await mobileProgram(app, { installation: { shareUrl: 'http://shop.test/refer', allowedDomains: ['shop.test'] } });
    await app.deps.teams.approveVerification(p.teamId);
    return p;
  });
}
const member = (p: MobileProgramFixture, email: string) => asServer(app, () => addParticipant(app, p, { email, firstName: 'Ann' }));
/** The sign-in links mailed to `to`, once the queued sends have run (JOBS=false here). */
const loginLinks = async (to: string) => (await app.deps.jobs.runDue(), await app.deps.mailer.list({ to })).filter((m) => m.kind === 'program.loginLink').flatMap((m) => m.links.filter((l) => l.includes('grsfLogin=')));

function formElement(): HTMLElement {
  const el = document.createElement('div');
  el.setAttribute('data-grsf-block-form', '');
  document.body.append(el);
  return el;
}
const submit = (form: HTMLFormElement) => form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
const buttonNamed = (root: ParentNode, name: string) => Array.from(root.querySelectorAll('button')).find((b) => b.textContent?.trim() === name);
const windowRoot = () => document.querySelector('[data-grsf-window]')?.shadowRoot;

describe('sign-in link request', () => {
  it('offers "Email me a sign-in link" when the email already exists, and the button asks the server for a link back to this page', async () => {
    const p = await program();
    await member(p, 'back@example.com');
    (window as any).happyDOM.setURL(`${PAGE}pricing?plan=pro`);
    const el = formElement();
    await boot(await makeRuntime(app, p.pid));
    const form = await until(() => el.shadowRoot?.querySelector('form'));
    form.querySelector<HTMLInputElement>('[name="email"]')!.value = 'back@example.com';
    submit(form);
    const button = await until(() => buttonNamed(el.shadowRoot!, 'Email me a sign-in link'));
    expect(button.getAttribute('type')).toBe('button');
    expect(textOf(el.shadowRoot)).toContain('This email already belongs to a participant.');
    button.click();
    // The design's login.successBody with {{email}} filled.
    await until(() => textOf(el.shadowRoot).includes('We sent a sign-in link to back@example.com. It expires soon'));
    const [link] = await loginLinks('back@example.com');
    const url = new URL(link!);
    expect(`${url.origin}${url.pathname}`).toBe(`${PAGE}pricing`);
    expect(url.searchParams.get('plan')).toBe('pro');
    expect(url.searchParams.getAll('grsfLogin')).toHaveLength(1);
  });

  it('asks for a link from the sign-up view through "Already signed up? Sign in" (the design’s loginLinkText)', async () => {
    const p = await program();
    await member(p, 'again@example.com');
    const el = formElement();
    await boot(await makeRuntime(app, p.pid));
    await until(() => el.shadowRoot?.querySelector('form'));
    expect(textOf(el.shadowRoot)).toContain('Already signed up?');
    buttonNamed(el.shadowRoot!, 'Sign in')!.click();
    const form = await until(() => (textOf(el.shadowRoot).includes('we will send you a sign-in link') ? el.shadowRoot!.querySelector('form') : null));
    form.querySelector<HTMLInputElement>('[name="email"]')!.value = 'again@example.com';
    submit(form);
    // The success view: the design's heading and body, and a resend that asks again.
    await until(() => el.shadowRoot!.querySelector('h2')?.textContent === 'Check your inbox');
    expect(textOf(el.shadowRoot)).toContain('We sent a sign-in link to again@example.com.');
    expect(textOf(el.shadowRoot)).toContain('Did not get it?');
    expect(await loginLinks('again@example.com')).toHaveLength(1);
    buttonNamed(el.shadowRoot!, 'Send it again')!.click();
    await until(() => textOf(el.shadowRoot).includes('Sent again.'));
    expect(await loginLinks('again@example.com')).toHaveLength(2);
    // Back to the sign-up form.
    buttonNamed(el.shadowRoot!, 'Back to sign-up')!.click();
    await until(() => el.shadowRoot!.querySelector('[name="firstName"]'));
  });
});

describe('page opened from a sign-in link (grsfLogin)', () => {
  it('redeems the token, stores the participant token, removes grsfLogin from the address bar and shows the signed-in portal', async () => {
    const p = await program();
    const ann = await member(p, 'link@example.com');
    // The request side has its own tests (above and test/server/participant-api/login-link.test.ts): ask the service directly.
    await app.deps.loginLinks.send((await app.deps.mobilePrograms.get(p.pid))!, 'link@example.com', `${PAGE}account?tab=2`);
    const [link] = await loginLinks('link@example.com');
    (window as any).happyDOM.setURL(link!);
    const rt = await makeRuntime(app, p.pid);
    await boot(rt);
    expect(location.href).toBe(`${PAGE}account?tab=2`);
    expect(await rt.store.get(STORE_KEYS.participantToken)).toEqual(expect.any(String));
    const share = await until(() => windowRoot()?.querySelector<HTMLInputElement>('input[readonly]'));
    expect(share.value).toBe(ann.shareUrl);
  });

  it('shows why when the link is spent or invalid, and leaves the visitor signed out', async () => {
    const p = await program();
    (window as any).happyDOM.setURL(`${PAGE}?grsfLogin=not-a-real-token`);
    const rt = await makeRuntime(app, p.pid);
    await boot(rt);
    expect(location.href).toBe(PAGE);
    expect(await rt.store.get(STORE_KEYS.participantToken)).toBeUndefined();
    // The design's login.invalidLink.
    await until(() => textOf(windowRoot()).includes('This sign-in link is invalid or has expired.'));
    expect(windowRoot()!.querySelector('[name="email"]')).not.toBeNull();
  });
});
