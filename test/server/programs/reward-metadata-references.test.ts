import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, RAISED_LIMITS, type TestApp } from '../../helpers/app.ts';
import { findRewardReferences, metadataRenames, renameRewardReferences } from '../../../server/domain/programs/reward-references.ts';

// rest-v2 §3.4 (and behaviour note 12), issues #3/#4: reward metadata that program copy references through
// `{{campaignReward[…]}}` cannot be removed (409 listing the fields); renamed keys are rewritten in the copy.

let app: TestApp;
beforeAll(async () => {
  app = await startApp(RAISED_LIMITS);
});
afterAll(async () => {
  await app.close();
});

const rc = (pid: string, rid = '') => `/v2/campaign/${pid}/reward-configs${rid ? `/${rid}` : ''}`;

async function setup() {
  const acct = await verifiedAccount(app);
  const created = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', rewards: [] } });
  expect(created.status, created.text).toBe(200);
  const pid = created.body.id as string;
  const reward = await app.request('POST', rc(pid), { key: acct.key, body: { type: 'SINGLE_SIDED', metadata: { code: 'GIFT10', tier: 'gold', note: 'x' } } });
  expect(reward.status, reward.text).toBe(200);
  return { key: acct.key, teamId: acct.teamId, pid, rid: reward.body.id as string };
}

async function useInCopy(key: string, pid: string, rid: string) {
  const emails = await app.request('PATCH', `/v2/campaign/${pid}/emails`, {
    key,
    body: {
      goalAchieved: { body: `<p>Your code: {{campaignReward[${rid}].metadata.code}}</p>` },
      referralLinkUsed: { subject: `Level {{ campaignReward['${rid}'].metadata['tier'] | none }}` },
    },
  });
  expect(emails.status, emails.text).toBe(200);
  const design = await app.request('PATCH', `/v2/campaign/${pid}/design`, { key, body: { referredExperience: { bannerText: `Use {{campaignReward["${rid}"].metadata.code}} at checkout` } } });
  expect(design.status, design.text).toBe(200);
}

const emails = (key: string, pid: string) => app.request('GET', `/v2/campaign/${pid}/emails`, { key }).then((r) => r.body);
const metadataOf = (key: string, pid: string, rid: string) => app.request('GET', rc(pid), { key }).then((r) => r.body.rewards.find((x: { id: string }) => x.id === rid)?.metadata);

describe('PATCH /campaign/{id}/reward-configs/{campaignRewardId} with metadata referenced by program copy', () => {
  it('answers 409 listing every referencing field when a referenced key is removed, and changes nothing', async () => {
    const { key, pid, rid } = await setup();
    await useInCopy(key, pid, rid);
    const res = await app.request('PATCH', rc(pid, rid), { key, body: { metadata: { note: 'x' } } });
    expect(res.status, res.text).toBe(409);
    expect(res.body.code).toBe('CONFLICT_ERROR');
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['design.referredExperience.bannerText', 'emails.goalAchieved.body', 'emails.referralLinkUsed.subject']);
    expect(res.body.errors).toContainEqual({ field: 'emails.goalAchieved.body', code: 'REWARD_METADATA_REFERENCED', message: `Uses {{campaignReward[${rid}].metadata.code}}.` });
    expect(await metadataOf(key, pid, rid)).toEqual({ code: 'GIFT10', tier: 'gold', note: 'x' });
  });

  it('lets an unreferenced key go, and other PATCH fields never look at copy', async () => {
    const { key, pid, rid } = await setup();
    await useInCopy(key, pid, rid);
    const res = await app.request('PATCH', rc(pid, rid), { key, body: { metadata: { code: 'GIFT10', tier: 'gold' } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.metadata).toEqual({ code: 'GIFT10', tier: 'gold' });
    expect((await app.request('PATCH', rc(pid, rid), { key, body: { title: 'Renamed reward' } })).status).toBe(200);
  });

  it('rewrites references to a renamed key (same value under a new key) in every document, keeping formatting and fallback', async () => {
    const { key, pid, rid } = await setup();
    await useInCopy(key, pid, rid);
    // The participant API's cached view of the program (MW1's design texts) is dropped by the rewrite.
    expect((await app.deps.mobilePrograms.get(pid))?.program.id).toBe(pid);
    expect(app.deps.mobilePrograms.peek(pid)).toBeDefined();
    const res = await app.request('PATCH', rc(pid, rid), { key, body: { metadata: { giftCode: 'GIFT10', 'tier level': 'gold', note: 'x' } } });
    expect(res.status, res.text).toBe(200);
    expect(app.deps.mobilePrograms.peek(pid)).toBeUndefined();
    const e = await emails(key, pid);
    expect(e.goalAchieved.body).toBe(`<p>Your code: {{campaignReward[${rid}].metadata.giftCode}}</p>`);
    expect(e.referralLinkUsed.subject).toBe(`Level {{ campaignReward['${rid}'].metadata['tier level'] | none }}`);
    const design = (await app.request('GET', `/v2/campaign/${pid}/design`, { key })).body;
    expect(design.referredExperience.bannerText).toBe(`Use {{campaignReward["${rid}"].metadata.giftCode}} at checkout`);
    // The renamed keys are now the referenced ones.
    expect((await app.request('PATCH', rc(pid, rid), { key, body: { metadata: {} } })).status).toBe(409);
  });

  it('does not block on references to another reward’s key of the same name', async () => {
    const { key, pid, rid } = await setup();
    const other = await app.request('POST', rc(pid), { key, body: { type: 'SINGLE_SIDED', metadata: { code: 'OTHER' } } });
    await useInCopy(key, pid, other.body.id);
    const res = await app.request('PATCH', rc(pid, rid), { key, body: { metadata: {} } });
    expect(res.status, res.text).toBe(200);
  });
});

describe('reward metadata in participant emails', () => {
  it('renders {{campaignReward[…].metadata.…}} with the reward’s current value, also after a rename, and the fallback for an unknown key', async () => {
    const { key, teamId, pid, rid } = await setup();
    await app.deps.teams.approveVerification(teamId);
    await useInCopy(key, pid, rid);
    await app.request('PATCH', `/v2/campaign/${pid}/emails`, {
      key,
      body: { progressUpdateMonthly: { subject: 'Tier {{campaignReward[' + rid + '].metadata.tier}}', body: `<p>Code {{campaignReward['${rid}'].metadata['code']}}; {{campaignReward[${rid}].metadata.missing|no extra}}</p>` } },
    });
    const p = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email: 'meta@example.com' } });
    const send = () => app.request('POST', `/v2/campaign/${pid}/participant/${p.body.id}/email`, { key, body: { emailType: 'progressUpdateMonthly' } });
    expect((await send()).status).toBe(200);
    let [mail] = (await app.deps.mailer.list({ to: 'meta@example.com' })).filter((m) => m.kind === 'program.progressUpdateMonthly');
    expect(mail!.subject).toBe('Tier gold');
    expect(mail!.html).toContain('<p>Code GIFT10; no extra</p>');

    expect((await app.request('PATCH', rc(pid, rid), { key, body: { metadata: { voucher: 'GIFT10', tier: 'platinum', note: 'x' } } })).status).toBe(200);
    expect((await send()).status).toBe(200);
    [mail] = (await app.deps.mailer.list({ to: 'meta@example.com' })).filter((m) => m.kind === 'program.progressUpdateMonthly' && m.subject === 'Tier platinum');
    expect(mail!.html).toContain('<p>Code GIFT10; no extra</p>');
    expect((await emails(key, pid)).progressUpdateMonthly.body).toContain(`{{campaignReward['${rid}'].metadata.voucher}}`);
  });
});

describe('DELETE /campaign/{id}/reward-configs/{campaignRewardId} referenced by program copy', () => {
  it('answers 409 with the referencing fields while copy uses its metadata, and deletes once the copy no longer does', async () => {
    const { key, pid, rid } = await setup();
    await useInCopy(key, pid, rid);
    const refused = await app.request('DELETE', rc(pid, rid), { key });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['design.referredExperience.bannerText', 'emails.goalAchieved.body', 'emails.referralLinkUsed.subject']);
    expect(await metadataOf(key, pid, rid)).toBeDefined();

    await app.request('PATCH', `/v2/campaign/${pid}/emails`, { key, body: { goalAchieved: { body: '<p>Thanks!</p>' }, referralLinkUsed: { subject: 'Thanks' } } });
    await app.request('PATCH', `/v2/campaign/${pid}/design`, { key, body: { referredExperience: { bannerText: null } } });
    const ok = await app.request('DELETE', rc(pid, rid), { key });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toEqual({ id: rid, success: true });
    expect((await app.request('DELETE', rc(pid, rid), { key })).status).toBe(404);
  });
});

describe('reward metadata references (pure rules)', () => {
  it('finds every accepted form and ignores look-alikes', () => {
    const docs = {
      emails: {
        a: { body: '{{campaignReward[crew_1].metadata.k1}} {{campaignReward[crew_2].metadata.k1}}' },
        list: ['{{campaignReward[ "crew_1" ].metadata[ "k 2" ] | fallback}}', '{{ campaignReward[crew_1].title }}', 'campaignReward[crew_1].metadata.k3'],
      },
    };
    expect(findRewardReferences(docs, 'crew_1')).toEqual([
      { field: 'emails.a.body', rewardId: 'crew_1', key: 'k1' },
      { field: 'emails.list.0', rewardId: 'crew_1', key: 'k 2' },
    ]);
    expect(renameRewardReferences(docs, 'crew_1', new Map([['nope', 'x']]))).toBeNull();
  });

  it('treats a removed key as renamed only when its value moved to exactly one new key', () => {
    expect(metadataRenames({ a: '1', b: '2' }, { c: '1', b: '2' })).toEqual({ renames: new Map([['a', 'c']]), removed: [] });
    expect(metadataRenames({ a: '1' }, { c: '1', d: '1' })).toEqual({ renames: new Map(), removed: ['a'] });
    expect(metadataRenames({ a: '1', b: '1' }, { c: '1' })).toEqual({ renames: new Map(), removed: ['a', 'b'] });
    expect(metadataRenames({ a: '1' }, { c: '2' })).toEqual({ renames: new Map(), removed: ['a'] });
  });
});
