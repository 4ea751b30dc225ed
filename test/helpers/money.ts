import { expect } from 'vitest';
import { verifiedAccount, type TestApp } from './app.ts';
import { addParticipant } from './programs.ts';

/** Adds a participant over REST. */
export { addParticipant };

// Shared set-up of the affiliate-money suites (issue #6): an affiliate program with one commission
// structure, an affiliate, and a customer they referred, all made over REST.

/** A commission structure as the reward-config endpoint takes it. */
export type Structure = Record<string, unknown>;

/** The default structure: 10 % of every sale, no hold, approved at once. */
export const TEN_PERCENT: Structure = { type: 'PERCENT', percent: 10, event: 'SALE', duration: 'FOREVER', holdDuration: 0 };

/** An affiliate program set up for money tests. */
export interface MoneyProgram {
  key: string;
  teamId: string;
  pid: string;
  configId: string;
  affiliate: { id: string; email: string };
  customer: { id: string; email: string };
}

/** Creates an account, an AFFILIATE program whose single reward config has `structure`, an affiliate and a referred customer. */
export async function moneyProgram(app: TestApp, structure: Structure = TEN_PERCENT, opts: { currencyISO?: string; options?: Record<string, unknown> } = {}): Promise<MoneyProgram> {
  const acct = await verifiedAccount(app);
  const created = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'AFFILIATE', ...(opts.currencyISO ? { currencyISO: opts.currencyISO } : {}) } });
  expect(created.status, created.text).toBe(200);
  const pid = created.body.id as string;
  const configId = (created.body.rewards as Array<{ id: string }>)[0]!.id;
  const patched = await app.request('PATCH', `/v2/campaign/${pid}/reward-configs/${configId}`, { key: acct.key, body: { commissionStructure: structure } });
  expect(patched.status, patched.text).toBe(200);
  if (opts.options) {
    const res = await app.request('PATCH', `/v2/campaign/${pid}/options`, { key: acct.key, body: opts.options });
    expect(res.status, res.text).toBe(200);
  }
  const affiliate = await addParticipant(app, acct.key, pid, { email: `aff-${pid}@example.com` });
  const customer = await addParticipant(app, acct.key, pid, { email: `cust-${pid}@example.com`, referredBy: affiliate.id });
  return { key: acct.key, teamId: acct.teamId, pid, configId, affiliate, customer };
}

/** Records a sale (AF8) for `customer`, a second after the previous call (lists order by creation time). */
export function sale(app: TestApp, p: MoneyProgram, body: Record<string, unknown>, customer = p.customer.id) {
  app.clock.advance(1000);
  return app.request('POST', `/v2/campaign/${p.pid}/participant/${encodeURIComponent(customer)}/transaction`, { key: p.key, body: { currency: 'USD', ...body } });
}

/** Amends a sale (AF9) of `customer`. */
export function refund(app: TestApp, p: MoneyProgram, body: Record<string, unknown>, customer = p.customer.id) {
  return app.request('POST', `/v2/campaign/${p.pid}/participant/${encodeURIComponent(customer)}/transaction/refund`, { key: p.key, body });
}

/** The affiliate's commissions (AF11), newest first. */
export async function commissionsOf(app: TestApp, p: MoneyProgram, query = '') {
  const res = await app.request('GET', `/v2/campaign/${p.pid}/participant/${p.affiliate.id}/commissions${query}`, { key: p.key });
  expect(res.status, res.text).toBe(200);
  return res.body.commissions as Array<Record<string, any>>;
}

/** A key with only the given scopes. */
export async function limitedKey(app: TestApp, teamId: string, scopes: string[]): Promise<string> {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds: null, origin: 'CLI' })).secret;
}

/** A key of a referral program's team and the program, for the 422 checks. */
export async function referralProgram(app: TestApp): Promise<{ key: string; pid: string; participantId: string }> {
  const acct = await verifiedAccount(app);
  const created = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } });
  expect(created.status, created.text).toBe(200);
  const p = await addParticipant(app, acct.key, created.body.id, { email: 'someone@example.com' });
  return { key: acct.key, pid: created.body.id, participantId: p.id };
}
