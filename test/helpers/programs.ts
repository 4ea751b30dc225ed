import { expect } from 'vitest';
import { verifiedAccount, type TestApp } from './app.ts';

// Programs made over REST for the suites that need a team's program and little else: a verified
// team's program with its documents patched, its participants, and its hosted pages put live.

/** A REST call (`/v2…`) with `key` that must answer 200; returns the parsed body. */
export async function restOk(app: TestApp, key: string, method: string, path: string, body?: unknown) {
  const res = await app.request(method, `/v2${path}`, { key, body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
  return res.body;
}

/**
 * A verified account's team (its verification approved unless `approved: false`) with one new
 * program of `type` (REFERRAL unless said), `body` added to the creation request, then each of
 * `docs` patched in order (`{ design: {…} }` patches `/campaign/{id}/design`).
 */
export async function newProgram(app: TestApp, opts: { type?: 'REFERRAL' | 'AFFILIATE'; approved?: boolean; body?: Record<string, unknown>; docs?: Record<string, Record<string, unknown>> } = {}) {
  const acct = await verifiedAccount(app);
  if (opts.approved !== false) await app.deps.teams.approveVerification(acct.teamId);
  const created = await restOk(app, acct.key, 'POST', '/campaigns', { type: opts.type ?? 'REFERRAL', ...opts.body });
  const pid = created.id as string;
  for (const [doc, body] of Object.entries(opts.docs ?? {})) await restOk(app, acct.key, 'PATCH', `/campaign/${pid}/${doc}`, body);
  return { ...acct, pid, rewards: created.rewards as Array<{ id: string; type: string }> };
}

/** Adds a participant over REST (it must answer 200); returns the participant as the API answers it. */
export async function addParticipant(app: TestApp, key: string, pid: string, body: Record<string, unknown>): Promise<{ id: string; email: string } & Record<string, any>> {
  return restOk(app, key, 'POST', `/campaign/${pid}/participant`, body);
}

/** Turns the program's hosted pages on (design.landingPages) and makes it live. */
export async function liveWithHostedPages(app: TestApp, key: string, pid: string): Promise<void> {
  await restOk(app, key, 'PATCH', `/campaign/${pid}/design`, { landingPages: { isEnabled: true } });
  await restOk(app, key, 'PATCH', `/campaign/${pid}`, { status: 'IN_PROGRESS' });
}
