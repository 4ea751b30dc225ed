// @vitest-environment happy-dom
// Form capture (installation FORM_DETECTION, issue #24): which fields of a site's own form are read
// (passwords never), and, against a real server, that a submitted sign-up form adds the participant
// credited to the pending referrer without touching the site's own submit.
import { describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { addParticipant, mobileProgram, shareKey } from '../helpers/mobile.ts';
import { isSecret, pick, watch } from '../../widget/attribution/form.ts';
import { STORE_KEYS } from '../../widget/runtime.ts';
import { asServer, makeRuntime, windowSuite } from './window-runtime.ts';

const form = (html: string): HTMLFormElement => {
  document.body.innerHTML = `<form>${html}</form>`;
  return document.querySelector('form')!;
};

describe('which fields form capture reads', () => {
  it('detects the email by type, autocomplete, then name or id, and the names by autocomplete or name', () => {
    expect(pick(form('<input type="email" value=" ann@example.com ">'))).toEqual({ email: 'ann@example.com' });
    expect(pick(form('<input type="text" autocomplete="username email" value="bo@example.com">'))).toEqual({ email: 'bo@example.com' });
    expect(pick(form('<input name="work_email" value="cy@example.com"><input name="first_name" value="Cy"><input id="lastName" value="Young">'))).toEqual({
      email: 'cy@example.com',
      firstName: 'Cy',
      lastName: 'Young',
    });
    expect(pick(form('<input autocomplete="given-name" name="a" value="Di"><input autocomplete="family-name" name="b" value="Lu"><input type="email" value="di@example.com">'))).toEqual({
      email: 'di@example.com',
      firstName: 'Di',
      lastName: 'Lu',
    });
    // One full-name field: its first word is the first name.
    expect(pick(form('<input name="name" value="Eve van Dijk"><input type="email" value="eve@example.com">'))).toEqual({ email: 'eve@example.com', firstName: 'Eve', lastName: 'van Dijk' });
  });

  it('leaves a sign-in form alone unless it is the configured form', () => {
    const signIn = form('<input type="email" value="back@example.com"><input type="password" autocomplete="current-password" value="pw">');
    expect(pick(signIn)).toBeNull();
    signIn.id = 'account';
    expect(pick(signIn, { form: '#account' })).toEqual({ email: 'back@example.com' });
    // A sign-up form asks for a new password: detected as usual.
    expect(pick(form('<input type="email" value="new@example.com"><input type="password" autocomplete="new-password" value="pw">'))).toEqual({ email: 'new@example.com' });
  });

  it('reads nothing from a form without a valid email (a search form, a typo)', () => {
    expect(pick(form('<input type="search" name="q" value="shoes">'))).toBeNull();
    expect(pick(form('<input type="email" value="not-an-email">'))).toBeNull();
    expect(pick(form('<input type="email" value="">'))).toBeNull();
    // Hidden fields and checkboxes are not the visitor's typing.
    expect(pick(form('<input type="hidden" name="email" value="planted@example.com">'))).toBeNull();
  });

  it('never reads a password field, by type or by autocomplete, even when a selector names it', () => {
    const f = form(
      '<input type="password" name="email" value="secret@example.com"><input type="text" name="mail" autocomplete="new-password" value="hunter2@example.com"><input type="email" id="real" value="real@example.com">',
    );
    expect(isSecret(f.querySelector('[type=password]')!)).toBe(true);
    expect(isSecret(f.querySelector('[autocomplete=new-password]')!)).toBe(true);
    expect(isSecret(f.querySelector('#real')!)).toBe(false);
    expect(pick(f)).toEqual({ email: 'real@example.com' });
    expect(pick(f, { email: '[name=email]' })).toBeNull();
    expect(pick(f, { email: '[name=mail]' })).toBeNull();
    const names = form('<input type="email" value="x@example.com"><input type="password" name="firstName" value="pw1"><input name="lastName" autocomplete="new-password" value="pw2">');
    expect(pick(names)).toEqual({ email: 'x@example.com' });
    expect(pick(names, { firstName: '[name=firstName]', lastName: '[name=lastName]' })).toEqual({ email: 'x@example.com' });
  });

  it('follows the configured selectors: the form, the email and the name fields', () => {
    document.body.innerHTML = `<form id="newsletter"><input type="email" value="news@example.com"></form>
      <form id="signup"><input class="who" value="sam@example.com"><input type="email" name="backup" value="other@example.com"><input data-f value="Sam"><input data-l value="Stone"></form>`;
    const [news, signup] = [...document.querySelectorAll('form')] as HTMLFormElement[];
    const cfg = { form: '#signup', email: '.who', firstName: '[data-f]', lastName: '[data-l]' };
    expect(pick(news!, cfg)).toBeNull();
    expect(pick(signup!, cfg)).toEqual({ email: 'sam@example.com', firstName: 'Sam', lastName: 'Stone' });
    // Only the form configured: its detected email.
    expect(pick(signup!, { form: '#signup' })).toEqual({ email: 'other@example.com' });
    // A selector naming nothing in the form reads nothing (no fall-back to another field).
    expect(pick(signup!, { email: '#nowhere' })).toBeNull();
  });
});

describe('a submitted sign-up form against a real server', () => {
  let app: TestApp;
  windowSuite((a) => (app = a));
  const rest = (p: { pid: string; key: string }, who: string) => asServer(app, () => app.request('GET', `/v2/campaign/${p.pid}/participant/${encodeURIComponent(who)}`, { key: p.key }));

  it('adds the participant credited to the pending referrer; the site’s own submit runs, unprevented; forms in a shadow root are left alone', async () => {
    const p = await asServer(app, () => mobileProgram(app, { installation: { signupEvent: 'FORM_DETECTION' } }));
    const referrer = await asServer(app, () => addParticipant(app, p, { email: 'ref@example.com' }));
    const rt = await makeRuntime(app, p.pid, { pending: { referralCode: shareKey(referrer), capturedAt: Date.now() } });
    await watch(rt, { form: null, email: null, firstName: null, lastName: null });

    // Added after watch started: the listener is on document.
    document.body.innerHTML = `<form action="/thanks"><label>Email <input type="email" name="email"></label><label>First name <input name="firstName"></label>
      <label>Password <input type="password" name="password"></label><button>Sign up</button></form>`;
    const f = document.querySelector('form')!;
    (f.querySelector('[name=email]') as HTMLInputElement).value = 'friend@example.com';
    (f.querySelector('[name=firstName]') as HTMLInputElement).value = 'Fran';
    (f.querySelector('[name=password]') as HTMLInputElement).value = 'correct horse';
    const seen: boolean[] = [];
    // The site's own handler (a single-page app's): it sees an unprevented event, then handles it itself.
    f.addEventListener('submit', (e) => {
      seen.push(e.defaultPrevented);
      e.preventDefault();
    });
    f.requestSubmit();
    expect(seen).toEqual([false]);
    await expect.poll(async () => (await rest(p, 'friend@example.com')).body, { timeout: 10_000 }).toMatchObject({ email: 'friend@example.com', firstName: 'Fran' });
    const body = (await rest(p, 'friend@example.com')).body;
    expect(body.referrer?.id ?? body.referredBy).toBe(referrer.id);
    expect(JSON.stringify(body)).not.toContain('correct horse');
    // Signed in as addParticipant does.
    await expect.poll(() => rt.store.get(STORE_KEYS.participantToken)).toBeTruthy();
    expect(rt.fired.some((e) => e.name === 'grsfFormCapture')).toBe(true);

    // A form in a shadow root (as our own sign-up form is drawn) never reaches the listener.
    const host = document.createElement('div');
    document.body.append(host);
    const root = host.attachShadow({ mode: 'open' });
    root.innerHTML = '<form><input type="email" value="shadow@example.com"><button>Go</button></form>';
    const inner = root.querySelector('form')!;
    inner.addEventListener('submit', (e) => e.preventDefault());
    inner.requestSubmit();
    // A light-DOM submit after it is sent; once it is there, the shadow one would have been too.
    document.body.insertAdjacentHTML('beforeend', '<form id="later"><input type="email" value="later@example.com"></form>');
    const later = document.getElementById('later') as HTMLFormElement;
    later.addEventListener('submit', (e) => e.preventDefault());
    later.requestSubmit();
    await expect.poll(async () => (await rest(p, 'later@example.com')).status, { timeout: 10_000 }).toBe(200);
    // GET participant answers 400 for an email that is no participant.
    expect((await rest(p, 'shadow@example.com')).status).toBe(400);
  });
});
