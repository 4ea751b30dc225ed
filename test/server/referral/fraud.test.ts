import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { canonicalEmail, canonicalIp, ipInEntry } from '../../../server/domain/referral/fraud-addresses.ts';

// Anti-fraud (issue #4 "Fraud"): screening on P3 and on referral changes, the P5 owner override,
// the decisions table and PARTICIPANT_FRAUD_STATUS_UPDATED.

// Budgets raised: these tests make many calls per team; the limits have their own tests.
const ENV = {
  ...RAISED_LIMITS,
  WEBHOOK_ALLOW_PRIVATE: 'true',
};

let app: TestApp;
beforeAll(async () => {
  app = await startApp(ENV);
});
afterAll(async () => {
  await app.close();
});

/** A verified team with one referral program whose options get `options` (through the real PATCH). */
async function setup(options: Record<string, unknown> = {}) {
  const acct = await verifiedAccount(app);
  const res = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } });
  expect(res.status, res.text).toBe(200);
  const pid = res.body.id as string;
  if (Object.keys(options).length) {
    const patched = await app.request('PATCH', `/v2/campaign/${pid}/options`, { key: acct.key, body: options });
    expect(patched.status, patched.text).toBe(200);
  }
  return { key: acct.key, teamId: acct.teamId, pid };
}

const add = (key: string, pid: string, body: Record<string, unknown>) => app.request('POST', `/v2/campaign/${pid}/participant`, { key, body });
const get = (key: string, pid: string, who: string) => app.request('GET', `/v2/campaign/${pid}/participant/${who}`, { key });
const update = (key: string, pid: string, who: string, body: unknown) => app.request('POST', `/v2/campaign/${pid}/participant/${who}`, { key, body });

async function added(key: string, pid: string, body: Record<string, unknown>) {
  const res = await add(key, pid, body);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function expectBlocked(key: string, pid: string, body: Record<string, unknown>, reasonCode: string) {
  const res = await add(key, pid, body);
  expect(res.status, res.text).toBe(422);
  expect(res.body).toMatchObject({ code: 'PARTICIPANT_BLOCKED_ERROR' });
  expect(res.body.message).toContain(reasonCode);
  return res;
}

/** Rows a program holds in every table a sign-up writes to. */
async function footprint(pid: string) {
  const knex = app.deps.db.knex;
  const count = async (table: string) => Number((await knex(table).where({ program_id: pid }).count({ n: '*' }).first())?.n ?? 0);
  const program = await knex('program_counters').where({ program_id: pid }).first('participant_count');
  return {
    participants: await count('participants'),
    decisions: await count('fraud_decisions'),
    activity: await count('activity_logs'),
    events: await count('webhook_events'),
    participantCount: Number(program.participant_count),
  };
}

const decisionsOf = (pid: string, participantId: string) => app.deps.fraud.decisions(pid, participantId);

async function limitedKey(teamId: string, scopes: string[], programIds: string[] | null = null) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds, origin: 'CLI' })).secret;
}

/** Subscribes a webhook (no receiver needed: jobs are off in tests, deliveries stay queued). */
async function subscribe(key: string, pid: string) {
  const res = await app.request('POST', `/v2/campaign/${pid}/webhooks`, { key, body: { payloadUrl: 'http://127.0.0.1:9/fraud-hook', events: ['PARTICIPANT_FRAUD_STATUS_UPDATED'] } });
  expect(res.status, res.text).toBe(200);
}

async function fraudDeliveries(pid: string) {
  return app.deps.db
    .knex('webhook_deliveries as d')
    .join('webhook_events as e', 'e.id', 'd.event_id')
    .where({ 'd.program_id': pid, 'd.event': 'PARTICIPANT_FRAUD_STATUS_UPDATED' })
    .orderBy('d.seq')
    .select('d.status', 'e.payload');
}

const UUID = '5f7d0f4c-3e7c-4aa9-8c41-d81d998f0bb1';

describe('fraud helpers', () => {
  it('folds Gmail dots, googlemail.com and +tags into one mailbox', () => {
    expect(canonicalEmail('Jane.Doe+promo@GoogleMail.com')).toBe('janedoe@gmail.com');
    expect(canonicalEmail('jane.doe+x@example.com')).toBe('jane.doe@example.com');
    fc.assert(
      fc.property(fc.emailAddress(), (email) => {
        const once = canonicalEmail(email);
        expect(canonicalEmail(once)).toBe(once);
      }),
    );
  });

  it('matches addresses against single entries and CIDR ranges of both families', () => {
    expect(ipInEntry('203.0.113.77', '203.0.113.0/24')).toBe(true);
    expect(ipInEntry('203.0.114.1', '203.0.113.0/24')).toBe(false);
    expect(ipInEntry('2001:db8::5', '2001:db8::/32')).toBe(true);
    expect(ipInEntry(canonicalIp('::ffff:203.0.113.9')!, '203.0.113.0/24')).toBe(true);
    expect(canonicalIp('2001:0DB8:0:0::1')).toBe('2001:db8::1');
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(ipInEntry(ip, ip)).toBe(true);
        expect(ipInEntry(ip, `${ip}/0`)).toBe(true);
      }),
    );
  });
});

describe('POST /campaign/{id}/participant (anti-fraud screening)', () => {
  it('refuses a blocklisted email, also as a dot or +tag variant, with 422 and writes nothing', async () => {
    const { key, pid } = await setup({ fraud: { blockedEmails: ['bad.actor@gmail.com'] } });
    await expectBlocked(key, pid, { email: 'Bad.Actor@gmail.com' }, 'BLOCKED_EMAIL');
    await expectBlocked(key, pid, { email: 'badactor+again@googlemail.com', ipAddress: '198.51.100.7', fingerprint: 'fp' }, 'BLOCKED_EMAIL');
    expect(await footprint(pid)).toEqual({ participants: 0, decisions: 0, activity: 0, events: 0, participantCount: 0 });
  });

  it('refuses addresses at a blocked email domain and its subdomains', async () => {
    const { key, pid } = await setup({ fraud: { blockedEmailDomains: ['spam.example'] } });
    await expectBlocked(key, pid, { email: 'a@spam.example' }, 'BLOCKED_EMAIL_DOMAIN');
    await expectBlocked(key, pid, { email: 'b@mx.spam.example' }, 'BLOCKED_EMAIL_DOMAIN');
    expect((await footprint(pid)).participants).toBe(0);
    expect((await added(key, pid, { email: 'c@notspam.example' })).fraudRiskLevel).toBe('LOW');
  });

  it('refuses IP addresses inside blocked entries and CIDR ranges of both families', async () => {
    const { key, pid } = await setup({ fraud: { blockedIps: ['203.0.113.0/24', '2001:db8::/32', '192.0.2.9'] } });
    await expectBlocked(key, pid, { email: 'v4@example.com', ipAddress: '203.0.113.77' }, 'BLOCKED_IP');
    await expectBlocked(key, pid, { email: 'v6@example.com', ipAddress: '2001:db8:ffff::5' }, 'BLOCKED_IP');
    await expectBlocked(key, pid, { email: 'one@example.com', ipAddress: '192.0.2.9' }, 'BLOCKED_IP');
    expect(await footprint(pid)).toMatchObject({ participants: 0, decisions: 0 });
    expect((await added(key, pid, { email: 'ok@example.com', ipAddress: '198.51.100.1' })).fraudRiskLevel).toBe('LOW');
  });

  it('refuses burner email providers while blockBurnerEmails is on, and accepts them when it is off', async () => {
    const on = await setup();
    await expectBlocked(on.key, on.pid, { email: 'temp@mailinator.com' }, 'BURNER_EMAIL');
    const off = await setup({ fraud: { blockBurnerEmails: false } });
    expect((await added(off.key, off.pid, { email: 'temp@mailinator.com' })).fraudRiskLevel).toBe('LOW');
  });

  it('lets allowed emails and allowed IPs through the block lists', async () => {
    const { key, pid } = await setup({
      fraud: { blockedEmailDomains: ['corp.example'], allowedEmails: ['ceo@corp.example'], blockedIps: ['203.0.113.0/24'], allowedIps: ['203.0.113.10'] },
    });
    const ceo = await added(key, pid, { email: 'ceo@corp.example' });
    expect(ceo).toMatchObject({ fraudRiskLevel: 'LOW', fraudReasonCode: 'ALLOWLISTED' });
    expect((await added(key, pid, { email: 'kiosk@example.com', ipAddress: '203.0.113.10' })).fraudRiskLevel).toBe('LOW');
    await expectBlocked(key, pid, { email: 'other@example.com', ipAddress: '203.0.113.11' }, 'BLOCKED_IP');
  });

  it('with autoBlockHighRiskIps refuses new sign-ups from the IP of a HIGH-risk participant, and only then', async () => {
    const off = await setup();
    const on = await setup({ fraud: { autoBlockHighRiskIps: true, allowedIps: ['192.0.2.50'] } });
    for (const { key, pid } of [off, on]) {
      const bad = await added(key, pid, { email: 'bad@example.com', ipAddress: '198.51.100.40' });
      const flagged = await update(key, pid, bad.id, { fraudRiskLevel: 'HIGH' });
      expect(flagged.status, flagged.text).toBe(200);
      const kiosk = await added(key, pid, { email: 'kiosk@example.com', ipAddress: '192.0.2.50' });
      expect((await update(key, pid, kiosk.id, { fraudRiskLevel: 'HIGH' })).status).toBe(200);
    }
    // Off (the default): the same IP signs up as usual.
    expect((await added(off.key, off.pid, { email: 'next@example.com', ipAddress: '198.51.100.40' })).fraudRiskLevel).toBe('LOW');
    // On: refused, IPv4-mapped IPv6 included, with nothing written; another IP and an allowed IP pass.
    const before = await footprint(on.pid);
    await expectBlocked(on.key, on.pid, { email: 'next@example.com', ipAddress: '198.51.100.40' }, 'HIGH_RISK_IP');
    await expectBlocked(on.key, on.pid, { email: 'mapped@example.com', ipAddress: '::ffff:198.51.100.40' }, 'HIGH_RISK_IP');
    expect(await footprint(on.pid)).toEqual(before);
    expect((await added(on.key, on.pid, { email: 'elsewhere@example.com', ipAddress: '198.51.100.41' })).fraudRiskLevel).toBe('LOW');
    expect((await added(on.key, on.pid, { email: 'kiosk2@example.com', ipAddress: '192.0.2.50' })).fraudRiskLevel).toBe('LOW');
    // Cleared by the owner: the IP is welcome again.
    const bad = await get(on.key, on.pid, 'bad@example.com');
    expect((await update(on.key, on.pid, bad.body.id, { fraudRiskLevel: 'LOW' })).status).toBe(200);
    expect((await added(on.key, on.pid, { email: 'next@example.com', ipAddress: '198.51.100.40' })).fraudRiskLevel).toBe('LOW');
  });

  it('refuses sign-ups from one IP beyond the per-IP limits and accepts them again once the window passed', async () => {
    const { key, pid } = await setup({ fraud: { maxSignupsPerIp2Min: 2, maxSignupsPerIp10Min: 3 } });
    const ip = '198.51.100.20';
    await added(key, pid, { email: 'r1@example.com', ipAddress: ip });
    await added(key, pid, { email: 'r2@example.com', ipAddress: ip });
    await expectBlocked(key, pid, { email: 'r3@example.com', ipAddress: ip }, 'IP_SIGNUP_RATE');
    expect((await added(key, pid, { email: 'other-ip@example.com', ipAddress: '198.51.100.21' })).fraudRiskLevel).toBe('LOW');
    app.clock.advance(3 * 60_000);
    await added(key, pid, { email: 'r3@example.com', ipAddress: ip });
    await expectBlocked(key, pid, { email: 'r4@example.com', ipAddress: ip }, 'IP_SIGNUP_RATE');
    app.clock.advance(10 * 60_000);
    await added(key, pid, { email: 'r4@example.com', ipAddress: ip });
  });

  it('creates a participant without matches LOW with UNIQUE_IDENTITY, credits its referral and records the decision', async () => {
    const { key, pid } = await setup();
    const ref = await added(key, pid, { email: 'honest@example.com', ipAddress: '198.51.100.1', fingerprint: 'fp-a' });
    const friend = await added(key, pid, { email: 'friend@example.org', referredBy: ref.id, ipAddress: '198.51.100.2', fingerprint: 'fp-b' });
    expect(friend).toMatchObject({ fraudRiskLevel: 'LOW', fraudReasonCode: 'UNIQUE_IDENTITY', allMatchingFraudsters: [], referralStatus: 'CREDIT_AWARDED' });
    const [decision] = await decisionsOf(pid, friend.id);
    expect(decision).toMatchObject({ riskLevel: 'LOW', reasonCode: 'UNIQUE_IDENTITY', source: 'AUTOMATIC', context: 'SIGNUP', matches: [], applied: true });
    expect(decision!.reasons[0]).toMatch(/No blocked email/);
    // A clean sign-up leaves no FRAUD activity row.
    expect(await app.deps.db.knex('activity_logs').where({ participant_id: friend.id, type: 'FRAUD' })).toHaveLength(0);
  });

  it('flags a sign-up with the referrer’s IP address and fingerprint as a self-referral, lists the reasons and holds the credit', async () => {
    const { key, pid } = await setup({ requireManualFraudApproval: true });
    await subscribe(key, pid);
    const ref = await added(key, pid, { email: 'ref@example.com', ipAddress: '198.51.100.5', fingerprint: 'fp-same' });
    const alt = await added(key, pid, { email: 'alt@example.org', referredBy: ref.id, ipAddress: '198.51.100.5', fingerprint: 'fp-same' });
    expect(alt).toMatchObject({
      fraudRiskLevel: 'HIGH',
      fraudReasonCode: 'SELF_REFERRAL',
      allMatchingFraudsters: [{ id: ref.id, email: 'ref@example.com' }],
      referralStatus: 'CREDIT_PENDING',
      referredBy: ref.id,
    });
    const [decision] = await decisionsOf(pid, alt.id);
    expect(decision).toMatchObject({ riskLevel: 'HIGH', reasonCode: 'SELF_REFERRAL', matches: [ref.id], source: 'AUTOMATIC', context: 'SIGNUP' });
    expect(decision!.reasons).toEqual(expect.arrayContaining(['Same browser fingerprint as the referrer.', 'Same IP address as the referrer.']));
    expect(decision!.reasons.join(' ')).toMatch(/not credited automatically/);
    // Both sides show the match; the referrer was not credited.
    const refNow = (await get(key, pid, ref.id)).body;
    expect(refNow).toMatchObject({ referralCount: 0, allMatchingFraudsters: [{ id: alt.id, email: 'alt@example.org' }], fraudRiskLevel: 'LOW' });
    const log = await app.deps.db.knex('activity_logs').where({ participant_id: alt.id, type: 'FRAUD' });
    expect(log).toHaveLength(1);
    expect(log[0].text).toMatch(/Flagged HIGH fraud risk at sign-up \(SELF_REFERRAL\)/);
    const deliveries = await fraudDeliveries(pid);
    expect(deliveries).toHaveLength(1);
    expect(JSON.parse(deliveries[0].payload).data.participant).toMatchObject({ id: alt.id, fraudRiskLevel: 'HIGH', fraudReasonCode: 'SELF_REFERRAL' });
  });

  it('blocks the same self-referral under the default STANDARD strictness', async () => {
    const { key, pid } = await setup();
    const ref = await added(key, pid, { email: 'ref@example.com', ipAddress: '198.51.100.5', fingerprint: 'fp-same' });
    const before = await footprint(pid);
    await expectBlocked(key, pid, { email: 'alt@example.org', referredBy: ref.id, ipAddress: '198.51.100.5', fingerprint: 'fp-same' }, 'SELF_REFERRAL');
    expect(await footprint(pid)).toEqual(before);
    expect((await get(key, pid, ref.id)).body).toMatchObject({ referralCount: 0, allMatchingFraudsters: [] });
  });

  it('flags a Gmail dot and +tag variant of the referrer’s address as a self-referral (LENIENT lets a single signal through)', async () => {
    const { key, pid } = await setup({ fraud: { strictness: 'LENIENT' } });
    const ref = await added(key, pid, { email: 'jane.doe@gmail.com' });
    const alt = await added(key, pid, { email: 'janedoe+promo@googlemail.com', referredBy: ref.id });
    expect(alt).toMatchObject({ fraudRiskLevel: 'HIGH', fraudReasonCode: 'DUPLICATE_EMAIL', referralStatus: 'CREDIT_PENDING', allMatchingFraudsters: [{ id: ref.id, email: 'jane.doe@gmail.com' }] });
    const [decision] = await decisionsOf(pid, alt.id);
    expect(decision!.reasons[0]).toMatch(/same mailbox as the referrer/);
    // Under STANDARD the same variant is refused.
    const standard = await setup();
    const ref2 = await added(standard.key, standard.pid, { email: 'jane.doe@gmail.com' });
    await expectBlocked(standard.key, standard.pid, { email: 'j.a.n.e.d.o.e@gmail.com', referredBy: ref2.id }, 'DUPLICATE_EMAIL');
  });

  it('lets STANDARD create a MEDIUM sign-up flagged while STRICT refuses it', async () => {
    const standard = await setup();
    const ref = await added(standard.key, standard.pid, { email: 'ref@example.com', ipAddress: '198.51.100.9' });
    const flatmate = await added(standard.key, standard.pid, { email: 'flatmate@example.org', referredBy: ref.id, ipAddress: '198.51.100.9' });
    expect(flatmate).toMatchObject({ fraudRiskLevel: 'MEDIUM', fraudReasonCode: 'SAME_IP', referralStatus: 'CREDIT_PENDING' });
    const strict = await setup({ fraud: { strictness: 'STRICT' } });
    const ref2 = await added(strict.key, strict.pid, { email: 'ref@example.com', ipAddress: '198.51.100.9' });
    await expectBlocked(strict.key, strict.pid, { email: 'flatmate@example.org', referredBy: ref2.id, ipAddress: '198.51.100.9' }, 'SAME_IP');
  });

  it('with autoBlockFraud off creates even a HIGH self-referral, flagged, without crediting it', async () => {
    const { key, pid } = await setup({ autoBlockFraud: false });
    const ref = await added(key, pid, { email: 'ref@example.com', mobileInstanceId: UUID });
    const alt = await added(key, pid, { email: 'alt@example.org', referredBy: ref.id, mobileInstanceId: UUID.toUpperCase() });
    expect(alt).toMatchObject({ fraudRiskLevel: 'HIGH', fraudReasonCode: 'SAME_DEVICE', referralStatus: 'CREDIT_PENDING' });
    // Owner rules still apply: they are not "auto" blocking.
    const off = await setup({ autoBlockFraud: false, fraud: { blockedEmails: ['no@example.com'] } });
    await expectBlocked(off.key, off.pid, { email: 'no@example.com' }, 'BLOCKED_EMAIL');
  });

  it('flags a second participant on the same app install as a duplicate device and lists both ways', async () => {
    const { key, pid } = await setup();
    const first = await added(key, pid, { email: 'first@example.com', mobileInstanceId: UUID });
    const second = await added(key, pid, { email: 'second@example.com', mobileInstanceId: UUID });
    expect(second).toMatchObject({ fraudRiskLevel: 'MEDIUM', fraudReasonCode: 'DUPLICATE_DEVICE', allMatchingFraudsters: [{ id: first.id, email: 'first@example.com' }] });
    expect((await get(key, pid, first.id)).body.allMatchingFraudsters).toEqual([{ id: second.id, email: 'second@example.com' }]);
    // Deleting a match drops it from the list.
    expect((await app.request('DELETE', `/v2/campaign/${pid}/participant/${first.id}`, { key })).status).toBe(200);
    expect((await get(key, pid, second.id)).body.allMatchingFraudsters).toEqual([]);
  });

  it('in GDPR mode stores no IP address or fingerprint but still blocks blocklisted emails and IPs sent with the request', async () => {
    const { key, pid } = await setup({ enforceGdprCompliance: true, fraud: { blockedEmails: ['banned@example.com'], blockedIps: ['203.0.113.0/24'] } });
    await expectBlocked(key, pid, { email: 'banned@example.com' }, 'BLOCKED_EMAIL');
    await expectBlocked(key, pid, { email: 'fresh@example.com', ipAddress: '203.0.113.4' }, 'BLOCKED_IP');
    const ref = await added(key, pid, { email: 'ref@example.com', ipAddress: '198.51.100.5', fingerprint: 'fp-g', mobileInstanceId: UUID });
    expect(ref).toMatchObject({ ipAddress: null, fingerprint: null, mobileInstanceId: null });
    // Nothing stored to compare with: the same device reads LOW, and the decision says why.
    const friend = await added(key, pid, { email: 'friend@example.org', referredBy: ref.id, ipAddress: '198.51.100.5', fingerprint: 'fp-g' });
    expect(friend).toMatchObject({ fraudRiskLevel: 'LOW', ipAddress: null, fingerprint: null });
    const row = await app.deps.db.knex('participants').where({ id: friend.id }).first();
    expect([row.ip_address, row.fingerprint, row.mobile_instance_id]).toEqual([null, null, null]);
    const [decision] = await decisionsOf(pid, friend.id);
    expect(decision!.reasons.join(' ')).toMatch(/GDPR mode/);
    expect(JSON.stringify(await app.deps.db.knex('fraud_decisions').where({ program_id: pid }))).not.toContain('198.51.100.5');
  });

  it('answers 403, not 422, to a key without participant:write', async () => {
    const { key, teamId, pid } = await setup({ fraud: { blockedEmails: ['bad@example.com'] } });
    const readOnly = await limitedKey(teamId, ['participant:read']);
    expect((await add(readOnly, pid, { email: 'bad@example.com' })).status).toBe(403);
    expect((await add(key, pid, { email: 'bad@example.com' })).status).toBe(422);
  });
});

describe('POST /campaign/{id}/participant/{participantIdOrEmail} (fraudRiskLevel override)', () => {
  it('sets the owner’s level, records MANUAL_UPDATE with the actor and emits PARTICIPANT_FRAUD_STATUS_UPDATED', async () => {
    const { key, pid } = await setup();
    await subscribe(key, pid);
    const p = await added(key, pid, { email: 'suspect@example.com' });
    const res = await update(key, pid, p.id, { fraudRiskLevel: 'HIGH' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ fraudRiskLevel: 'HIGH', fraudReasonCode: 'MANUAL_UPDATE' });
    expect((await get(key, pid, 'suspect@example.com')).body).toMatchObject({ fraudRiskLevel: 'HIGH', fraudReasonCode: 'MANUAL_UPDATE' });

    const [manual, signup] = await decisionsOf(pid, p.id);
    expect(manual).toMatchObject({ riskLevel: 'HIGH', previousRiskLevel: 'LOW', reasonCode: 'MANUAL_UPDATE', source: 'MANUAL', context: 'OWNER_UPDATE', actor: expect.stringMatching(/^key:/) });
    expect(manual!.reasons).toEqual(['Changed from LOW to HIGH by the program owner.']);
    expect(signup).toMatchObject({ source: 'AUTOMATIC', context: 'SIGNUP' });

    const deliveries = await fraudDeliveries(pid);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0].status).toBe('PENDING');
    const envelope = JSON.parse(deliveries[0].payload);
    expect(envelope).toMatchObject({ event: 'PARTICIPANT_FRAUD_STATUS_UPDATED', data: { campaign: { id: pid }, participant: { id: p.id, fraudRiskLevel: 'HIGH', fraudReasonCode: 'MANUAL_UPDATE' } } });
    const log = await app.deps.db.knex('activity_logs').where({ participant_id: p.id, type: 'FRAUD' });
    expect(log.map((r: any) => r.text)).toEqual(['Fraud risk set to HIGH by the program owner (was LOW).']);

    // The same level again is recorded but is no change: no second event.
    expect((await update(key, pid, p.id, { fraudRiskLevel: 'HIGH' })).status).toBe(200);
    expect(await fraudDeliveries(pid)).toHaveLength(1);
    expect(await decisionsOf(pid, p.id)).toHaveLength(3);
    // Back to LOW is a change.
    expect((await update(key, pid, p.id, { fraudRiskLevel: 'LOW' })).body.fraudRiskLevel).toBe('LOW');
    expect(await fraudDeliveries(pid)).toHaveLength(2);
  });

  it('screens a referral change: a new referrer on the same browser and IP flags the participant without blocking and holds the credit', async () => {
    const { key, pid } = await setup();
    await subscribe(key, pid);
    const p = await added(key, pid, { email: 'mover@example.com', ipAddress: '198.51.100.30', fingerprint: 'fp-m' });
    const other = await added(key, pid, { email: 'other@example.net', ipAddress: '198.51.100.30', fingerprint: 'fp-m' });
    expect(other).toMatchObject({ fraudRiskLevel: 'MEDIUM', fraudReasonCode: 'DUPLICATE_FINGERPRINT' });
    const res = await update(key, pid, p.id, { referredBy: other.id });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ referredBy: other.id, referralStatus: 'CREDIT_PENDING', fraudRiskLevel: 'HIGH', fraudReasonCode: 'SELF_REFERRAL' });
    const [decision] = await decisionsOf(pid, p.id);
    expect(decision).toMatchObject({ context: 'REFERRAL_CHANGE', previousRiskLevel: 'LOW', riskLevel: 'HIGH', applied: true });
    // other's sign-up (MEDIUM) and p's change (LOW → HIGH) were both changes.
    expect((await fraudDeliveries(pid)).map((d: any) => JSON.parse(d.payload).data.participant.id)).toEqual([other.id, p.id]);
  });

  it('keeps the owner’s level when a later referral change is screened, and records that screening', async () => {
    const { key, pid } = await setup();
    const p = await added(key, pid, { email: 'trusted@example.com', ipAddress: '198.51.100.40', fingerprint: 'fp-t' });
    expect((await update(key, pid, p.id, { fraudRiskLevel: 'LOW' })).body.fraudReasonCode).toBe('MANUAL_UPDATE');
    const ref = await added(key, pid, { email: 'colleague@example.net', ipAddress: '198.51.100.40', fingerprint: 'fp-t' });
    const res = await update(key, pid, p.id, { referredBy: ref.id });
    expect(res.body).toMatchObject({ fraudRiskLevel: 'LOW', fraudReasonCode: 'MANUAL_UPDATE', referralStatus: 'CREDIT_AWARDED' });
    const [screened] = await decisionsOf(pid, p.id);
    expect(screened).toMatchObject({ riskLevel: 'HIGH', context: 'REFERRAL_CHANGE', applied: false });
    // The override and a referral change in one request: the override wins.
    const q = await added(key, pid, { email: 'both@example.org', ipAddress: '198.51.100.40', fingerprint: 'fp-t' });
    const both = await update(key, pid, q.id, { referredBy: ref.id, fraudRiskLevel: 'MEDIUM' });
    expect(both.body).toMatchObject({ fraudRiskLevel: 'MEDIUM', fraudReasonCode: 'MANUAL_UPDATE' });
  });

  it('rejects an unknown level and the other fraud fields with 400', async () => {
    const { key, pid } = await setup();
    const p = await added(key, pid, { email: 'ro@example.com' });
    const bad = await update(key, pid, p.id, { fraudRiskLevel: 'EXTREME' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ field: 'fraudRiskLevel' });
    for (const field of ['fraudReasonCode', 'allMatchingFraudsters']) {
      const res = await update(key, pid, p.id, { [field]: field === 'allMatchingFraudsters' ? [] : 'X' });
      expect(res.status, field).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ field });
    }
    expect((await get(key, pid, p.id)).body.fraudRiskLevel).toBe('LOW');
  });

  it('answers 403 without participant:write or outside the key’s programs', async () => {
    const { key, teamId, pid } = await setup();
    const p = await added(key, pid, { email: 'perm@example.com' });
    const readOnly = await limitedKey(teamId, ['participant:read']);
    expect((await update(readOnly, pid, p.id, { fraudRiskLevel: 'HIGH' })).status).toBe(403);
    const otherProgram = await limitedKey(teamId, ['participant:write'], ['someotherprogram']);
    expect((await update(otherProgram, pid, p.id, { fraudRiskLevel: 'HIGH' })).status).toBe(403);
    expect((await get(key, pid, p.id)).body.fraudRiskLevel).toBe('LOW');
  });

  it('answers 400 for an unknown participant and 404 for an unknown program', async () => {
    const { key, pid } = await setup();
    const unknown = await update(key, pid, 'nobody@example.com', { fraudRiskLevel: 'HIGH' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ field: 'participantIdOrEmail' });
    expect((await update(key, 'nosuchprogram', 'nobody@example.com', { fraudRiskLevel: 'HIGH' })).status).toBe(404);
  });
});
