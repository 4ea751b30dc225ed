import crypto from 'node:crypto';
import { verifiedAccount, type TestApp } from './app.ts';

export { RAISED_LIMITS } from './app.ts';


/** A program set up for the participant API over REST; `publicKey` is null unless the mobile SDK is on. */
export interface MobileProgramFixture {
  key: string;
  teamId: string;
  pid: string;
  publicKey: string | null;
}

/** Creates an account and a program, then configures installation and options through REST. */
export async function mobileProgram(
  app: TestApp,
  opts: { type?: 'REFERRAL' | 'AFFILIATE'; mobile?: boolean; installation?: Record<string, unknown>; options?: Record<string, unknown> } = {},
): Promise<MobileProgramFixture> {
  const acct = await verifiedAccount(app);
  const created = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: opts.type ?? 'REFERRAL' } });
  if (created.status !== 200) throw new Error(created.text);
  const pid = created.body.id as string;
  const installation = { ...(opts.installation ?? {}), ...(opts.mobile === false ? {} : { mobile: { isEnabled: true } }) };
  let publicKey: string | null = null;
  if (Object.keys(installation).length) {
    const res = await app.request('PATCH', `/v2/campaign/${pid}/installation`, { key: acct.key, body: installation });
    if (res.status !== 200) throw new Error(res.text);
    publicKey = res.body.mobile.isEnabled ? res.body.mobile.publicKey : null;
  }
  if (opts.options) {
    const res = await app.request('PATCH', `/v2/campaign/${pid}/options`, { key: acct.key, body: opts.options });
    if (res.status !== 200) throw new Error(res.text);
  }
  return { key: acct.key, teamId: acct.teamId, pid, publicKey };
}

/** Adds a participant over REST and returns it. */
export async function addParticipant(app: TestApp, p: MobileProgramFixture, body: Record<string, unknown>) {
  const res = await app.request('POST', `/v2/campaign/${p.pid}/participant`, { key: p.key, body });
  if (res.status !== 200) throw new Error(res.text);
  return res.body as { id: string; email: string; shareUrl: string; impressionCount: number; uniqueImpressionCount: number };
}

/** A session for a native client (public key) or, with `origin`, a page. */
export async function session(app: TestApp, p: MobileProgramFixture, opts: { instanceId?: string; origin?: string } = {}): Promise<{ token: string; instanceId: string }> {
  const instanceId = opts.instanceId ?? crypto.randomUUID();
  const headers: Record<string, string> = { 'x-program-id': p.pid };
  if (opts.origin) headers.origin = opts.origin;
  else headers['x-public-key'] = p.publicKey ?? '';
  const res = await app.request('POST', '/mobile/v2/sessions', { headers, body: { instanceId } });
  if (res.status !== 200) throw new Error(res.text);
  return { token: res.body.sessionToken, instanceId };
}

/** Calls the participant API with a session token (and a participant token when given). */
export function mobile(app: TestApp, method: string, path: string, s: { token: string }, opts: { body?: unknown; participantToken?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { 'x-session-token': s.token, ...(opts.headers ?? {}) };
  if (opts.participantToken) headers.authorization = `Bearer ${opts.participantToken}`;
  return app.request(method, `/mobile/v2${path}`, { headers, body: opts.body });
}

/** The share key in a participant's share URL. */
export function shareKey(p: { shareUrl: string }): string {
  return new URL(p.shareUrl).searchParams.get('grsf')!;
}
