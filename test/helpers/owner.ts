import crypto from 'node:crypto';
import { expect } from 'vitest';
import { RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from './app.ts';

// An owner in front of the owner pages, over HTTP: a cookie-carrying client that never follows
// redirects, and the steps every owner takes (set password, sign in, invite a teammate).

export const PASSWORD = 'correct horse battery';

/** A minimal browser: carries the session cookie by hand and never follows redirects. */
export class Browser {
  cookie = '';
  lastSetCookie: string[] = [];
  constructor(
    private readonly app: TestApp,
    private readonly baseHeaders: Record<string, string> = {},
  ) {}

  async #fetch(path: string, init: { method: string; body?: string; headers?: Record<string, string> }) {
    const url = path.startsWith('http') ? path : this.app.url + path;
    const headers: Record<string, string> = { ...this.baseHeaders, ...(init.headers ?? {}) };
    if (this.cookie) headers.cookie = this.cookie;
    const res = await fetch(url, { method: init.method, body: init.body, headers, redirect: 'manual' });
    this.lastSetCookie = res.headers.getSetCookie();
    for (const c of this.lastSetCookie) {
      const m = /^refloop_session=([^;]*)/.exec(c);
      if (m) this.cookie = /Max-Age=0/i.test(c) || !m[1] ? '' : `refloop_session=${m[1]}`;
    }
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, location: res.headers.get('location') };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.#fetch(path, { method: 'GET', headers });
  }

  post(path: string, fields: Record<string, string | string[]>, headers?: Record<string, string>) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    return this.#fetch(path, { method: 'POST', body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...(headers ?? {}) } });
  }

  /** A JSON request (the console's kind): the parsed body with the status. */
  async json(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
    const res = await this.#fetch(path, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(headers ?? {}) } });
    return { status: res.status, headers: res.headers, body: res.text ? JSON.parse(res.text) : null };
  }
  /** The csrf value of the page's forms. */
  async csrf(path = '/team/members'): Promise<string> {
    const page = await this.get(path);
    const m = /name="csrf" value="([^"]+)"/.exec(page.text);
    if (!m) throw new Error(`no csrf field on ${path} (status ${page.status})`);
    return m[1]!;
  }
}

/** Every secret shown on a page (new keys are shown once in `<code class="secret">`). */
export function shownKeys(html: string): string[] {
  return [...html.matchAll(/<code class="secret"[^>]*>(sk_[^<]+)<\/code>/g)].map((m) => m[1]!);
}

/** The newest email to an address, and its link containing `part`. */
export async function mailLink(app: TestApp, to: string, part: string): Promise<string> {
  const [mail] = await app.deps.mailer.list({ to, limit: 1 });
  const link = mail?.links.find((l) => l.includes(part));
  if (!link) throw new Error(`no ${part} link mailed to ${to}`);
  return app.local(link);
}

/** Sets the owner's password through the welcome email's link. */
export async function setPassword(app: TestApp, passwordLink: string, password = PASSWORD) {
  const b = new Browser(app);
  const res = await b.post(app.local(passwordLink), { password, confirm: password });
  if (res.status !== 303) throw new Error(`set password failed: ${res.status} ${res.text}`);
}

/** Signs in and returns the browser and the sign-in response. */
export async function signIn(app: TestApp, email: string, password = PASSWORD, headers?: Record<string, string>) {
  const b = new Browser(app, headers);
  const res = await b.post('/signin', { email, password });
  return { b, res };
}

export async function teamStatus(app: TestApp, key: string): Promise<{ status: number; code?: string }> {
  const res = await app.request('GET', '/v2/team', { key });
  return { status: res.status, code: res.body?.code };
}

/** Invites `email` into the inviter's current team and returns the accept link. */
export async function invite(app: TestApp, inviter: Browser, email: string, role: 'ADMIN' | 'MEMBER', manageApi = false): Promise<string> {
  const fields: Record<string, string> = { csrf: await inviter.csrf(), email, role };
  if (manageApi) fields.manageApi = 'on';
  const res = await inviter.post('/team/members/invite', fields);
  if (res.status !== 303) throw new Error(`invite failed: ${res.status} ${res.text}`);
  return mailLink(app, email, '/invite/accept?');
}

/** An owner with a password, signed in once (so their account-creation key is already replaced). */
export async function signedInOwner(app: TestApp) {
  const acct = await verifiedAccount(app);
  await setPassword(app, acct.passwordLink);
  const { b, res } = await signIn(app, acct.email);
  expect(res.status).toBe(303);
  const keysPage = await b.get('/keys');
  const [key] = shownKeys(keysPage.text);
  return { ...acct, b, key: key! };
}

/** The CSRF value the console sends with every change, as its session endpoint gives it. */
export async function consoleCsrf(b: Browser): Promise<string> {
  return (await b.json('GET', '/console/api/session')).body.csrf as string;
}

/** A console API call (`/console/api/v2…`) from a signed-in browser; a change carries the CSRF value `token`. */
export function consoleCall(b: Browser, token: string, method: string, path: string, body?: unknown) {
  return b.json(method, `/console/api/v2${path}`, body, method === 'GET' ? {} : { 'x-csrf-token': token });
}

/** An app with raised limits and a signed-in owner, with the owner's console CSRF value. */
export async function consoleOwnerApp() {
  const app = await startApp(RAISED_LIMITS);
  const owner = await signedInOwner(app);
  return { app, owner, csrf: await consoleCsrf(owner.b) };
}

/** An invitee who accepts the invitation `link` with a new password (as its form posts it) and signs in: their browser and console CSRF value. */
export async function joinedTeammate(app: TestApp, email: string, link: string) {
  expect((await new Browser(app).post(link, { password: PASSWORD, confirm: PASSWORD })).status).toBe(303);
  const { b } = await signIn(app, email);
  return { email, b, csrf: await consoleCsrf(b) };
}

export function newEmail(tag: string): string {
  return `${tag}-${crypto.randomBytes(4).toString('hex')}@acme-widgets.com`;
}
