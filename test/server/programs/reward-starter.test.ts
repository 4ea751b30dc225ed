import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { RAISED_LIMITS, addParticipant, mobile, mobileProgram, session, shareKey } from '../../helpers/mobile.ts';
import { formatReferrerName } from '../../../shared/referrer-name.ts';

// Issue #24: a new program's starter rewards say so (`isStarter`) until the owner edits them, in
// REST and in the window payload; the referred friend's welcome asks MR1 for the referrer's name.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

const rc = (pid: string, id?: string) => `/v2/campaign/${pid}/reward-configs${id ? `/${id}` : ''}`;

describe('starter rewards (isStarter)', () => {
  it('flags every starter in the REST program and reward list, and no reward the owner sent', async () => {
    const acct = await verifiedAccount(app);
    const created = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', goal: 'SUBSCRIBERS' } });
    expect(created.status, created.text).toBe(200);
    expect(created.body.rewards).toHaveLength(4);
    for (const r of created.body.rewards) expect(r).toMatchObject({ isStarter: true, isVisible: false });
    const list = await app.request('GET', rc(created.body.id), { key: acct.key });
    expect(list.body.rewards).toEqual(created.body.rewards);
    const got = await app.request('GET', `/v2/campaign/${created.body.id}`, { key: acct.key });
    expect(got.body.rewards.map((r: any) => r.isStarter)).toEqual([true, true, true, true]);

    const own = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', rewards: [{ type: 'DOUBLE_SIDED', title: 'Main' }] } });
    expect(own.body.rewards[0]).not.toHaveProperty('isStarter');
    const added = await app.request('POST', rc(created.body.id), { key: acct.key, body: { type: 'SINGLE_SIDED', title: 'Extra' } });
    expect(added.body).not.toHaveProperty('isStarter');
  });

  it('clears the flag on any edit (the answer, the list and the stored row), and a clone keeps what it copies', async () => {
    const acct = await verifiedAccount(app);
    const p = (await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', goal: 'SUBSCRIBERS' } })).body;
    const [first, second] = p.rewards;
    const edited = await app.request('PATCH', rc(p.id, first.id), { key: acct.key, body: { metadata: { tier: 'gold' } } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).not.toHaveProperty('isStarter');
    expect(edited.body.isVisible).toBe(false);
    const list = (await app.request('GET', rc(p.id), { key: acct.key })).body.rewards;
    expect(list.map((r: any) => [r.id, r.isStarter ?? false])).toEqual([
      [first.id, false],
      [second.id, true],
      [p.rewards[2].id, true],
      [p.rewards[3].id, true],
    ]);
    // A refused edit changes nothing, the flag included.
    const bad = await app.request('PATCH', rc(p.id, second.id), { key: acct.key, body: { conversionsRequired: -3 } });
    expect(bad.status).toBe(400);
    expect((await app.deps.db.knex('reward_configs').where({ id: second.id }).first('is_starter')).is_starter).toBeTruthy();
    const clone = await app.request('POST', `/v2/campaign/${p.id}/clone`, { key: acct.key, body: {} });
    expect(clone.status, clone.text).toBe(200);
    expect(clone.body.rewards.map((r: any) => r.isStarter ?? false)).toEqual([false, true, true, true]);
  });

  it('lists the unedited starter in the window payload (not in MC1) and the enabled reward without the flag after an edit', async () => {
    const p = await mobileProgram(app);
    const s = await session(app, p);
    const starter = (await app.request('GET', rc(p.pid), { key: p.key })).body.rewards[0];
    expect(starter).toMatchObject({ type: 'DOUBLE_SIDED', isStarter: true, isVisible: false });
    const win = await mobile(app, 'GET', '/window', s);
    expect(win.status, win.text).toBe(200);
    expect(win.body.rewards).toEqual([expect.objectContaining({ id: starter.id, isStarter: true, description: starter.description })]);
    expect((await mobile(app, 'GET', '/campaign', s)).body.rewards).toEqual([]);

    const on = await app.request('PATCH', rc(p.pid, starter.id), { key: p.key, body: { isVisible: true, title: 'Both get $10', description: '$10 off for you' } });
    expect(on.status, on.text).toBe(200);
    await expect.poll(async () => (await mobile(app, 'GET', '/window', s)).body.rewards).toEqual([expect.objectContaining({ id: starter.id, title: 'Both get $10' })]);
    expect((await mobile(app, 'GET', '/window', s)).body.rewards[0]).not.toHaveProperty('isStarter');
    expect((await mobile(app, 'GET', '/campaign', s)).body.rewards.map((r: any) => r.id)).toEqual([starter.id]);
  });

  it('documents isStarter in the OpenAPI documents (REST and participant API)', async () => {
    const rest = (await app.request('GET', '/openapi/v2.json')).body;
    expect(rest.components.schemas.CampaignReward.properties.isStarter.description).toMatch(/refloop extension/);
    const mob = (await app.request('GET', '/openapi/mobile-v2.json')).body;
    expect(JSON.stringify(mob)).toContain('isStarter');
    expect(JSON.stringify(mob)).toContain('referrerName');
  });
});

describe('MR1 name extension: the referrer’s name for the welcome', () => {
  it('formats by the design (FIRST, FIRST_LAST_INITIAL, FIRST_LAST), only when asked, never for an email, null without a first name', async () => {
    const p = await mobileProgram(app);
    const ada = await addParticipant(app, p, { email: 'ada@example.com', firstName: 'Ada', lastName: 'lovelace' });
    const anon = await addParticipant(app, p, { email: 'anon@example.com' });
    const s = await session(app, p);
    const ask = async (body: Record<string, unknown>) => {
      const res = await mobile(app, 'POST', '/referrer/validate', s, { body });
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    // Without `name`, the answer is GrowSurf's: nothing about the referrer.
    expect(await ask({ referredBy: shareKey(ada) })).toEqual({ valid: true });
    expect(await ask({ referredBy: shareKey(ada), name: true })).toEqual({ valid: true, referrerName: 'Ada', referrerFirstName: 'Ada' });
    expect(await ask({ referredBy: ada.id, name: true })).toEqual({ valid: true, referredBy: ada.id, referrerName: 'Ada', referrerFirstName: 'Ada' });
    // An email is no referral code here (400), so no email buys a name.
    expect((await mobile(app, 'POST', '/referrer/validate', s, { body: { referredBy: 'ada@example.com', name: true } })).status).toBe(400);
    expect(await ask({ referredBy: shareKey(anon), name: true })).toEqual({ valid: true, referrerName: null, referrerFirstName: null });
    expect(await ask({ referredBy: 'nobody-here', name: true })).toEqual({ valid: false });
    // `name` takes only true (the body is strict).
    expect((await mobile(app, 'POST', '/referrer/validate', s, { body: { referredBy: shareKey(ada), name: 'yes' } })).status).toBe(400);

    for (const [format, name] of [
      ['FIRST_LAST_INITIAL', 'Ada L.'],
      ['FIRST_LAST', 'Ada lovelace'],
    ] as const) {
      const res = await app.request('PATCH', `/v2/campaign/${p.pid}/design`, { key: p.key, body: { referredExperience: { referrerNameFormat: format } } });
      expect(res.status, res.text).toBe(200);
      await expect.poll(async () => (await ask({ referredBy: shareKey(ada), name: true })).referrerName).toBe(name);
    }
  });

  it('formatReferrerName: trims, takes the first character of the last name whole, and has no name without a first name', () => {
    expect(formatReferrerName('  Ada  ', 'Lovelace', 'FIRST')).toBe('Ada');
    expect(formatReferrerName('Ada', 'élise', 'FIRST_LAST_INITIAL')).toBe('Ada É.');
    expect(formatReferrerName('Mary  Ann', null, 'FIRST_LAST_INITIAL')).toBe('Mary Ann');
    expect(formatReferrerName('Ada', 'Lovelace', 'FIRST_LAST')).toBe('Ada Lovelace');
    expect(formatReferrerName('', 'Lovelace', 'FIRST_LAST')).toBeNull();
    expect(formatReferrerName(null, null)).toBeNull();
  });
});
