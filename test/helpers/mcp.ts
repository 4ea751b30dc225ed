import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import crypto from 'node:crypto';
import { expect } from 'vitest';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { RAISED_LIMITS, createAccount, startApp, type TestApp } from './app.ts';

/** The public origin the test app is configured with (PUBLIC_URL in startApp). */
export const PUBLIC = 'http://refloop.test';
/** The MCP endpoint as clients see it. */
export const MCP_URL = `${PUBLIC}/mcp`;

/** A fetch that sends requests for the configured public origin to the running test server. */
export function appFetch(app: TestApp): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return fetch(url.replace(PUBLIC, app.url), init);
  };
}

/** An SDK client connected to the MCP endpoint (or onboarding) with a static bearer or none. */
export async function connect(app: TestApp, bearer: string | null, path = '/mcp'): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(PUBLIC + path), {
    fetch: appFetch(app),
    requestInit: bearer ? { headers: { Authorization: `Bearer ${bearer}` } } : undefined,
  });
  const client = new Client({ name: 'refloop-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** An in-memory OAuth client provider (what an MCP host keeps), recording where it was sent to authorize. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | null = null;
  constructor(
    readonly redirect = 'http://127.0.0.1:9999/callback',
    readonly scope?: string,
  ) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Test Host', redirect_uris: [this.redirect], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...(this.scope ? { scope: this.scope } : {}) };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A browser for the owner pages: keeps the session cookie, follows nothing on its own. */
export class Browser {
  cookie = '';
  constructor(readonly app: TestApp) {}
  async go(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set('cookie', this.cookie);
    const res = await fetch(url.replace(PUBLIC, this.app.url), { ...init, headers, redirect: 'manual' });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!;
    return res;
  }
  async post(url: string, form: Record<string, string>): Promise<Response> {
    return this.go(url, { method: 'POST', body: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }
}

/** Sets the owner's password through the welcome email link, so they can sign in. */
export async function setPassword(app: TestApp, passwordLink: string, password = 'correct horse battery'): Promise<string> {
  const link = app.local(passwordLink);
  const res = await fetch(link, { method: 'POST', body: new URLSearchParams({ password, confirm: password }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
  if (res.status !== 303) throw new Error(`set password failed: ${res.status}`);
  return password;
}

/** Pulls a hidden field's value out of a page. */
export function hidden(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`no hidden field ${name}`);
  return m[1]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

export const VERIFIER = 'v'.repeat(20) + '-verifier-for-refloop-tests-0123456789';
export const CHALLENGE = crypto.createHash('sha256').update(VERIFIER).digest('base64url');
export const REDIRECT = 'https://host.example/callback';

/** Someone who can sign in on the consent page. */
export interface Signer {
  email: string;
  password: string;
  teamId: string;
}

/** An app with raised limits and the OAuth kit of it, for a suite's `beforeAll`. */
export async function oauthApp(): Promise<{ app: TestApp; kit: ReturnType<typeof oauthKit> }> {
  const app = await startApp({ ...RAISED_LIMITS });
  return { app, kit: oauthKit(app) };
}

/** The OAuth steps of a test against one app: owners, registration, consent, token calls. */
export function oauthKit(app: TestApp) {
  /** An owner with a password, signed in through the consent page's sign-in form on first use. */
  async function owner() {
    const acct = await createAccount(app);
    await fetch(app.local(acct.verifyLink));
    const password = await setPassword(app, acct.passwordLink);
    return { ...acct, password };
  }
  /** Runs the browser part: authorization URL → consent page (sign in) → approve or deny; returns the redirect. */
  async function consent(url: URL, who: Signer, decision: 'approve' | 'deny' = 'approve', browser = new Browser(app)): Promise<URL> {
    const a = await browser.go(url.href);
    expect(a.status).toBe(302);
    const consentUrl = a.headers.get('location')!;
    expect(consentUrl.startsWith(`${PUBLIC}/oauth/consent?request=`)).toBe(true);
    let page = await browser.go(consentUrl);
    let html = await page.text();
    if (html.includes('name="password"')) {
      const signin = await browser.post(`${PUBLIC}/oauth/consent`, { action: 'signin', request: hidden(html, 'request'), email: who.email, password: who.password });
      expect(signin.status).toBe(303);
      page = await browser.go(PUBLIC + signin.headers.get('location')!);
      html = await page.text();
    }
    expect(page.status).toBe(200);
    const done = await browser.post(`${PUBLIC}/oauth/consent`, { csrf: hidden(html, 'csrf'), request: hidden(html, 'request'), teamId: who.teamId, decision });
    expect(done.status).toBe(303);
    return new URL(done.headers.get('location')!);
  }
  /** Registration → authorization → consent → code → tokens, all through the SDK's client `auth()`. */
  async function authorize(who: Signer, scope?: string) {
    const provider = new MemoryOAuthProvider(undefined, scope);
    const fetchFn = appFetch(app);
    expect(await auth(provider, { serverUrl: MCP_URL, fetchFn, scope })).toBe('REDIRECT');
    const back = await consent(provider.authorizationUrl!, who);
    const code = back.searchParams.get('code')!;
    expect(code).toBeTruthy();
    expect(await auth(provider, { serverUrl: MCP_URL, fetchFn, authorizationCode: code })).toBe('AUTHORIZED');
    return { provider, code };
  }
  /** Registers a public client by hand. */
  async function register(redirectUris = [REDIRECT]) {
    const res = await app.request('POST', '/oauth/register', { body: { client_name: 'Manual host', redirect_uris: redirectUris, token_endpoint_auth_method: 'none' } });
    return res;
  }

  function authorizeUrl(clientId: string, extra: Record<string, string> = {}): URL {
    const u = new URL(`${PUBLIC}/oauth/authorize`);
    const params = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 'st-1', scope: 'program:read', ...extra };
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return u;
  }

  async function token(form: Record<string, string>) {
    const res = await fetch(`${app.url}/oauth/token`, { method: 'POST', body: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    return { status: res.status, body: (await res.json()) as any };
  }

  /** A registered client and a fresh code for `who`. */
  async function codeFor(who: Signer, scope = 'program:read') {
    const reg = await register();
    expect(reg.status).toBe(201);
    const back = await consent(authorizeUrl(reg.body.client_id, { scope }), who);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('st-1');
    return { clientId: reg.body.client_id as string, code: back.searchParams.get('code')! };
  }

  async function mcpStatus(accessToken: string) {
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    return res.status;
  }

  return { owner, consent, authorize, register, authorizeUrl, token, codeFor, mcpStatus };
}
