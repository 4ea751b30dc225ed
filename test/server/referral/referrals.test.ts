import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { addParticipant, newProgram } from '../../helpers/programs.ts';

// Budgets raised: these tests make many calls per team; the limits have their own tests.
const LIMITS = {
  ...RAISED_LIMITS,
  INVITES_PER_PARTICIPANT_PER_DAY: '1000000',
  INVITES_PER_TEAM_PER_HOUR: '1000000',
};
const DAY = 86_400_000;

let app: TestApp;
beforeAll(async () => {
  app = await startApp(LIMITS);
});
afterAll(async () => {
  await app.close();
});

const setup = (opts: { verified?: boolean; type?: 'REFERRAL' | 'AFFILIATE'; a?: TestApp } = {}) => newProgram(opts.a ?? app, { type: opts.type, approved: opts.verified !== false });

const add = (key: string, pid: string, body: Record<string, unknown>, a: TestApp = app) => addParticipant(a, key, pid, body);

const invite = (key: string, pid: string, who: string, body: unknown, a: TestApp = app) =>
  a.request('POST', `/v2/campaign/${pid}/participant/${encodeURIComponent(who)}/invites`, { key, body });

async function invited(key: string, pid: string, who: string, emailAddresses: string[], extra: Record<string, unknown> = {}) {
  const res = await invite(key, pid, who, { emailAddresses, messageText: 'Join me!', ...extra });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function limitedKey(teamId: string, scopes: string[], programIds: string[] | null = null, a: TestApp = app) {
  return (await a.deps.keys.create(a.deps.db.knex, { teamId, scopes: scopes as never, programIds, origin: 'CLI' })).secret;
}

const list = (key: string, pid: string, query = '') => app.request('GET', `/v2/campaign/${pid}/referrals${query ? `?${query}` : ''}`, { key });

/**
 * A program with two referrers: A referred 9 participants (names with ties, three statuses, some
 * sharing a creation time) and invited 5 contacts; B referred 2 and invited 2.
 */
async function referralFixture() {
  const ctx = await setup();
  const { key, pid } = ctx;
  const a = await add(key, pid, { email: 'alice@example.com', firstName: 'Alice' });
  const b = await add(key, pid, { email: 'bob@example.com', firstName: 'Bob' });
  const people: Array<[string, string | undefined, string | undefined, string]> = [
    ['Zed@Example.com', 'Zed', 'Young', 'CREDIT_AWARDED'],
    ['amy@example.com', 'amy', 'Stone', 'CREDIT_PENDING'],
    ['ben@example.com', 'Ben', undefined, 'CREDIT_AWARDED'],
    ['cat@example.com', undefined, 'Stone', 'CREDIT_PENDING'],
    ['dan@example.com', 'Dan', 'Young', 'CREDIT_AWARDED'],
    ['eve@example.com', 'Amy', 'Ng', 'CREDIT_EXPIRED'],
    ['fay@example.com', 'Fay', 'Ng', 'CREDIT_AWARDED'],
    ['gus@example.com', 'Gus', 'Ng', 'CREDIT_PENDING'],
    ['hal@example.com', 'Hal', 'Ng', 'CREDIT_AWARDED'],
  ];
  for (const [i, [email, firstName, lastName, status]] of people.entries()) {
    if (i % 3 !== 2) app.clock.advance(1000); // every third shares its creation time with the one before
    const p = await add(key, pid, { email, firstName, lastName, referredBy: a.id, referralStatus: status === 'CREDIT_EXPIRED' ? 'CREDIT_AWARDED' : status });
    if (status === 'CREDIT_EXPIRED') {
      const res = await app.request('POST', `/v2/campaign/${pid}/participant/${p.id}`, { key, body: { referralStatus: 'CREDIT_EXPIRED' } });
      expect(res.status, res.text).toBe(200);
    }
  }
  app.clock.advance(1000);
  await add(key, pid, { email: 'bo1@example.com', firstName: 'Ivy', referredBy: b.id });
  await add(key, pid, { email: 'bo2@example.com', firstName: 'Jo', referredBy: b.id, referralStatus: 'CREDIT_PENDING' });
  app.clock.advance(1000);
  await invited(key, pid, a.id, ['inv1@example.org', 'inv2@example.org']);
  app.clock.advance(1000);
  await invited(key, pid, a.id, ['Inv3@Example.org', 'inv4@example.org', 'inv5@example.org']);
  await invited(key, pid, b.id, ['binv1@example.org', 'binv2@example.org']);
  return { ...ctx, a, b };
}

type Row = { id: string; email: string; firstName?: string; lastName?: string; referralStatus: string; referredBy: string; createdAt: number; updatedAt: number };

async function all(key: string, pid: string, query = ''): Promise<Row[]> {
  const res = await list(key, pid, `limit=100${query ? `&${query}` : ''}`);
  expect(res.status, res.text).toBe(200);
  expect(res.body.more).toBe(false);
  return res.body.referrals;
}

describe('GET /campaign/{id}/referrals', () => {
  let fx: Awaited<ReturnType<typeof referralFixture>>;
  beforeAll(async () => {
    fx = await referralFixture();
  });

  it('lists referred participants and open invitations as Referral rows, newest first by default', async () => {
    const res = await list(fx.key, fx.pid);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ limit: 20, more: false, nextId: null, nextOffset: null });
    const rows: Row[] = res.body.referrals;
    expect(rows).toHaveLength(18);
    for (let i = 1; i < rows.length; i++) expect(rows[i - 1]!.createdAt).toBeGreaterThanOrEqual(rows[i]!.createdAt);
    const zed = rows.find((r) => r.email === 'Zed@Example.com')!;
    expect(zed).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{20}$/),
      email: 'Zed@Example.com',
      firstName: 'Zed',
      lastName: 'Young',
      referralStatus: 'CREDIT_AWARDED',
      referredBy: fx.a.id,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const inv = rows.find((r) => r.email === 'Inv3@Example.org')!;
    expect(inv).toEqual({
      id: expect.stringMatching(/^inv_[a-z0-9]{20}$/),
      email: 'Inv3@Example.org',
      referralStatus: 'INVITE_SENT',
      referredBy: fx.a.id,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    // The referrers themselves were not referred.
    expect(rows.some((r) => r.email === 'alice@example.com')).toBe(false);
    expect(rows.filter((r) => r.referralStatus === 'CREDIT_EXPIRED').map((r) => r.email)).toEqual(['eve@example.com']);
  });

  it('filters by email, firstName and lastName (exact, case-insensitive) and by referralStatus', async () => {
    expect((await all(fx.key, fx.pid, 'email=ZED%40example.COM')).map((r) => r.firstName)).toEqual(['Zed']);
    expect((await all(fx.key, fx.pid, 'email=inv3%40example.org')).map((r) => r.referralStatus)).toEqual(['INVITE_SENT']);
    expect((await all(fx.key, fx.pid, 'firstName=AMY')).map((r) => r.email).sort()).toEqual(['amy@example.com', 'eve@example.com']);
    expect((await all(fx.key, fx.pid, 'lastName=ng&firstName=fay')).map((r) => r.email)).toEqual(['fay@example.com']);
    const pending = await all(fx.key, fx.pid, 'referralStatus=CREDIT_PENDING');
    expect(pending.map((r) => r.email).sort()).toEqual(['amy@example.com', 'bo2@example.com', 'cat@example.com', 'gus@example.com']);
    const invites = await all(fx.key, fx.pid, 'referralStatus=INVITE_SENT');
    expect(invites).toHaveLength(7);
    expect(await all(fx.key, fx.pid, 'referralStatus=INVITE_SENT&firstName=Zed')).toEqual([]);
    expect(await all(fx.key, fx.pid, 'email=nobody%40example.com')).toEqual([]);
  });

  const value = (r: Row, sortBy: string): string | number => {
    if (sortBy === 'email') return r.email.toLowerCase();
    if (sortBy === 'firstName') return (r.firstName ?? '').toLowerCase();
    if (sortBy === 'lastName') return (r.lastName ?? '').toLowerCase();
    if (sortBy === 'referralStatus') return r.referralStatus;
    return r[sortBy as 'createdAt' | 'updatedAt'];
  };
  const cmp = (x: string | number, y: string | number) => (x < y ? -1 : x > y ? 1 : 0);

  for (const sortBy of ['createdAt', 'updatedAt', 'email', 'firstName', 'lastName', 'referralStatus']) {
    for (const desc of [false, true]) {
      it(`sorts by ${sortBy}${desc ? ' descending' : ' ascending'} with ties broken by id`, async () => {
        const rows = await all(fx.key, fx.pid, `sortBy=${sortBy}&desc=${desc}`);
        const expected = [...rows].sort((x, y) => cmp(value(x, sortBy), value(y, sortBy)) || cmp(x.id, y.id));
        if (desc) expected.reverse();
        expect(rows.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      });
    }
  }

  it('sorts by referralTriggeredAt: never-credited rows first, then by credit time', async () => {
    const rows = await all(fx.key, fx.pid, 'sortBy=referralTriggeredAt');
    // eve was credited, then expired: she keeps her trigger time.
    const firstCredited = rows.findIndex((r) => r.referralStatus === 'CREDIT_AWARDED' || r.referralStatus === 'CREDIT_EXPIRED');
    const credited = rows.slice(firstCredited);
    expect(credited.every((r) => r.referralStatus === 'CREDIT_AWARDED' || r.referralStatus === 'CREDIT_EXPIRED')).toBe(true);
    expect(credited).toHaveLength(7);
    for (let i = 1; i < credited.length; i++) expect(credited[i - 1]!.createdAt).toBeLessThanOrEqual(credited[i]!.createdAt);
    const rev = await all(fx.key, fx.pid, 'sortBy=referralTriggeredAt&desc=true');
    expect(rev.map((r) => r.id)).toEqual(rows.map((r) => r.id).reverse());
  });

  for (const sortBy of ['createdAt', 'email', 'lastName', 'referralStatus', 'referralTriggeredAt']) {
    it(`pages by nextId through every row once, sorted by ${sortBy}`, async () => {
      for (const desc of [false, true]) {
        const full = (await all(fx.key, fx.pid, `sortBy=${sortBy}&desc=${desc}`)).map((r) => r.id);
        const seen: string[] = [];
        let nextId: string | null = null;
        for (let guard = 0; guard < 10; guard++) {
          const res = await list(fx.key, fx.pid, `sortBy=${sortBy}&desc=${desc}&limit=4${nextId ? `&nextId=${nextId}` : ''}`);
          expect(res.status, res.text).toBe(200);
          seen.push(...res.body.referrals.map((r: Row) => r.id));
          if (nextId) expect(res.body).not.toHaveProperty('nextOffset');
          expect(res.body.more).toBe(res.body.nextId !== null);
          nextId = res.body.nextId;
          if (!nextId) break;
          // The cursor names the first row of the next page.
          expect(full[seen.length]).toBe(nextId);
        }
        expect(seen).toEqual(full);
      }
    });
  }

  it('pages by offset with nextOffset through every row once', async () => {
    const full = (await all(fx.key, fx.pid, 'sortBy=firstName')).map((r) => r.id);
    const seen: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const res = await list(fx.key, fx.pid, `sortBy=firstName&limit=5&offset=${offset}`);
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.referrals.map((r: Row) => r.id));
      expect(res.body.limit).toBe(5);
      expect(res.body.more).toBe(res.body.nextOffset !== null);
      if (res.body.more) expect(res.body.nextOffset).toBe(offset + 5);
      offset = res.body.nextOffset;
    }
    expect(seen).toEqual(full);
  });

  it('follows nextId over offset when both are sent', async () => {
    const first = await list(fx.key, fx.pid, 'limit=3');
    const byCursor = await list(fx.key, fx.pid, `limit=3&nextId=${first.body.nextId}&offset=10`);
    const byOffset = await list(fx.key, fx.pid, 'limit=3&offset=3');
    expect(byCursor.body.referrals).toEqual(byOffset.body.referrals);
  });

  it('answers 400 for a bad limit, sortBy, offset, referralStatus or an unknown nextId', async () => {
    for (const q of ['limit=101', 'limit=0', 'sortBy=rank', 'offset=-1', 'referralStatus=DONE', 'desc=yes', 'nextId=nope']) {
      const res = await list(fx.key, fx.pid, q);
      expect(res.status, q).toBe(400);
      expect(res.body.errors[0].field).toMatch(/^query\./);
    }
  });

  it('answers 403 without participant:read or for a program outside the key’s grant', async () => {
    const noScope = await limitedKey(fx.teamId, ['participant:write']);
    expect((await list(noScope, fx.pid)).status).toBe(403);
    const other = await limitedKey(fx.teamId, ['participant:read'], ['someotherprogram']);
    const res = await list(other, fx.pid);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('NOT_AUTHORIZED_ERROR');
    const granted = await limitedKey(fx.teamId, ['participant:read'], [fx.pid]);
    expect((await list(granted, fx.pid)).status).toBe(200);
  });

  it('answers 404 for an unknown program', async () => {
    expect((await list(fx.key, 'nosuchprogram')).status).toBe(404);
  });
});

describe('GET /campaign/{id}/participant/{participantIdOrEmail}/referrals', () => {
  let fx: Awaited<ReturnType<typeof referralFixture>>;
  beforeAll(async () => {
    fx = await referralFixture();
  });
  const forOne = (who: string, query = '', key = fx.key) => app.request('GET', `/v2/campaign/${fx.pid}/participant/${who}/referrals${query ? `?${query}` : ''}`, { key });

  it('lists only the referrals and invitations of that participant, by id or email', async () => {
    const res = await forOne(fx.b.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.referrals.map((r: Row) => r.email).sort()).toEqual(['binv1@example.org', 'binv2@example.org', 'bo1@example.com', 'bo2@example.com']);
    expect(res.body.referrals.every((r: Row) => r.referredBy === fx.b.id)).toBe(true);
    const byEmail = await forOne('BOB%40example.com', 'sortBy=email');
    expect(byEmail.body.referrals.map((r: Row) => r.email)).toEqual(['binv1@example.org', 'binv2@example.org', 'bo1@example.com', 'bo2@example.com']);
    const alice = await forOne(fx.a.id, 'limit=100');
    expect(alice.body.referrals).toHaveLength(14);
  });

  it('pages one participant’s rows by nextId and by offset', async () => {
    const full = (await forOne(fx.a.id, 'limit=100&sortBy=email')).body.referrals.map((r: Row) => r.id);
    const byCursor: string[] = [];
    let nextId: string | null = null;
    do {
      const res = await forOne(fx.a.id, `limit=5&sortBy=email${nextId ? `&nextId=${nextId}` : ''}`);
      byCursor.push(...res.body.referrals.map((r: Row) => r.id));
      nextId = res.body.nextId;
    } while (nextId);
    expect(byCursor).toEqual(full);
    const page2 = await forOne(fx.a.id, 'limit=5&sortBy=email&offset=5');
    expect(page2.body.referrals.map((r: Row) => r.id)).toEqual(full.slice(5, 10));
    expect(page2.body.nextOffset).toBe(10);
  });

  it('answers 400 for an unknown participant', async () => {
    const res = await forOne('nobody%40example.com');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe('PARTICIPANT_NOT_FOUND');
  });

  it('answers 400 for a bad query', async () => {
    expect((await forOne(fx.a.id, 'limit=1000')).status).toBe(400);
  });

  it('answers 403 without participant:read', async () => {
    const key = await limitedKey(fx.teamId, ['participant:write', 'participant:delete']);
    expect((await forOne(fx.a.id, '', key)).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    expect((await app.request('GET', `/v2/campaign/nosuchprogram/participant/${fx.a.id}/referrals`, { key: fx.key })).status).toBe(404);
  });
});

describe('POST /campaign/{id}/participant/{participantIdOrEmail}/invites', () => {
  it('emails each contact the invite template and records INVITE_SENT rows, counts and activity', async () => {
    const { key, pid } = await setup();
    const sender = await add(key, pid, { email: 'sam@example.com', firstName: 'Sam' });
    const res = await invite(key, pid, sender.id, { emailAddresses: ['pat@example.org', 'Lee@Example.org'], messageText: 'You will <love> this\nreally', subjectText: 'Try {{companyName}}' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, invitesSent: 2, messageType: 'EMAIL' });

    const [mail] = await app.deps.mailer.list({ to: 'pat@example.org' });
    expect(mail!.kind).toBe('program.invite');
    expect(mail!.subject).toBe('Try {{companyName}}'); // the sender's subject is sent as written
    expect(mail!.html).toContain("Sam thinks you'll like");
    expect(mail!.html).toContain('You will &lt;love&gt; this<br>really');
    expect(mail!.html).toContain(`grsf=`);
    expect(mail!.replyTo).toBe('sam@example.com'); // useCompanyReplyTo is off by default
    expect(mail!.html).not.toContain('/unsubscribe?'); // the contact is not a participant
    expect(mail!.text).toContain('You will <love> this');
    // Sent to the address as written.
    expect((await app.deps.mailer.list()).filter((m) => m.to === 'Lee@Example.org')).toHaveLength(1);

    const rows = await app.deps.db.knex('invites').where({ program_id: pid }).orderBy('email_key');
    expect(rows.map((r) => [r.email, r.email_key, r.status, r.participant_id])).toEqual([
      ['Lee@Example.org', 'lee@example.org', 'INVITE_SENT', sender.id],
      ['pat@example.org', 'pat@example.org', 'INVITE_SENT', sender.id],
    ]);
    const p = await app.request('GET', `/v2/campaign/${pid}/participant/${sender.id}`, { key });
    expect(p.body.inviteCount).toBe(2);
    const c = await app.request('GET', `/v2/campaign/${pid}`, { key });
    expect(c.body.inviteCount).toBe(2);
    const acts = await app.deps.db.knex('activity_logs').where({ participant_id: sender.id, action: 'invite.sent' });
    expect(acts.map((a) => a.type)).toEqual(['INVITE', 'INVITE']);
  });

  it('uses the invite template’s subject when subjectText is omitted', async () => {
    const { key, pid } = await setup();
    await app.request('PATCH', `/v2/campaign/${pid}`, { key, body: { companyName: 'Acme' } });
    const sender = await add(key, pid, { email: 'sue@example.com', firstName: 'Sue' });
    await invited(key, pid, sender.id, ['kim@example.org']);
    const [mail] = await app.deps.mailer.list({ to: 'kim@example.org' });
    expect(mail!.subject).toBe('Sue invited you to Acme');
    expect(mail!.from).toContain('"Acme" <');
  });

  it('skips addresses sign-up screening would refuse, with the same matching: mailbox aliases, wildcard domains, burners, and the allowed list first', async () => {
    const { key, pid } = await setup();
    const opts = await app.request('PATCH', `/v2/campaign/${pid}/options`, {
      key,
      body: { fraud: { blockedEmails: ['bad.actor@gmail.com'], blockedEmailDomains: ['*.spam.test', 'corp.test'], allowedEmails: ['ceo@corp.test'], blockBurnerEmails: true } },
    });
    expect(opts.status, opts.text).toBe(200);
    await add(key, pid, { email: 'sam@example.com' });
    const res = await invite(key, pid, 'sam@example.com', {
      emailAddresses: ['Bad.Actor+promo@googlemail.com', 'badactor@gmail.com', 'x@mail.spam.test', 'ok@spam.test', 'someone@corp.test', 'ceo@corp.test', 'temp@mailinator.com'],
      messageText: '',
    });
    expect(res.status, res.text).toBe(200);
    const rows = await app.deps.db.knex('invites').where({ program_id: pid }).orderBy('email_key');
    // `*.spam.test` names subdomains only; the allowed list wins over a blocked domain.
    expect(rows.map((r: { email_key: string }) => r.email_key)).toEqual(['ceo@corp.test', 'ok@spam.test']);
    expect(res.body.invitesSent).toBe(2);
    // Sign-up screening agrees: the same addresses are refused there.
    for (const email of ['badactor+x@gmail.com', 'y@mail.spam.test', 'temp@mailinator.com']) {
      const signUp = await app.request('POST', `/v2/campaign/${pid}/participant`, { key, body: { email } });
      expect(signUp.status, `${email}: ${signUp.text}`).toBe(422);
    }
  });

  it('skips the sender, repeats, existing participants, blocked addresses and contacts invited within a day', async () => {
    const { key, pid } = await setup();
    await app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { fraud: { blockedEmailDomains: ['blocked.test'] } } });
    const sender = await add(key, pid, { email: 'tom@example.com' });
    await add(key, pid, { email: 'member@example.com' });
    const res = await invite(key, pid, 'tom@example.com', {
      emailAddresses: ['TOM@example.com', 'new@example.org', 'NEW@example.org', 'member@example.com', 'x@sub.blocked.test'],
      messageText: '',
    });
    expect(res.body.invitesSent).toBe(1);
    expect((await invite(key, pid, sender.id, { emailAddresses: ['new@example.org'], messageText: 'again' })).body.invitesSent).toBe(0);
    app.clock.advance(DAY + 1);
    const again = await invite(key, pid, sender.id, { emailAddresses: ['new@example.org'], messageText: 'again' });
    expect(again.body.invitesSent).toBe(1);
    const rows = await app.deps.db.knex('invites').where({ program_id: pid });
    expect(rows).toHaveLength(1);
    expect(rows[0].send_count).toBe(2);
    expect(rows[0].message).toBe('again');
    expect((await app.deps.mailer.list({ to: 'new@example.org' })).length).toBe(2);
    // A re-sent invitation is not a new invite.
    expect((await app.request('GET', `/v2/campaign/${pid}/participant/${sender.id}`, { key })).body.inviteCount).toBe(1);
  });

  it('moves an invitation out of INVITE_SENT when the contact signs up', async () => {
    const { key, pid } = await setup();
    const sender = await add(key, pid, { email: 'ann@example.com' });
    await invited(key, pid, sender.id, ['joiner@example.org', 'waiter@example.org']);
    const joiner = await add(key, pid, { email: 'Joiner@example.org', referredBy: sender.id });
    const rows = (await app.request('GET', `/v2/campaign/${pid}/participant/${sender.id}/referrals?sortBy=email`, { key })).body.referrals;
    expect(rows.map((r: Row) => [r.id, r.referralStatus])).toEqual([
      [joiner.id, 'CREDIT_AWARDED'],
      [expect.stringMatching(/^inv_/), 'INVITE_SENT'],
    ]);
    const inv = await app.deps.db.knex('invites').where({ program_id: pid, email_key: 'joiner@example.org' }).first();
    expect([inv.status, inv.joined_participant_id]).toEqual(['JOINED', joiner.id]);
  });

  it('forgets a contact who joined and was then deleted, in the invitations and the inviter’s activity', async () => {
    const { key, pid } = await setup();
    const sender = await add(key, pid, { email: 'keeper@example.com' });
    await invited(key, pid, sender.id, ['erased@example.org']);
    const joined = await add(key, pid, { email: 'erased@example.org' });
    expect((await app.request('DELETE', `/v2/campaign/${pid}/participant/${joined.id}`, { key })).status).toBe(200);
    expect(await app.deps.db.knex('invites').where({ program_id: pid })).toEqual([]);
    const texts = (await app.deps.db.knex('activity_logs').where({ participant_id: sender.id, type: 'INVITE' })).map((r) => r.text);
    expect(texts).toHaveLength(2);
    expect(texts.join(' ')).not.toContain('erased@example.org');
  });

  it('answers 403 TEAM_NOT_VERIFIED_ERROR and sends nothing while the team is not verified', async () => {
    const { key, pid } = await setup({ verified: false });
    const sender = await add(key, pid, { email: 'una@example.com' });
    const res = await invite(key, pid, sender.id, { emailAddresses: ['friend-unverified@example.org'], messageText: 'hi' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('TEAM_NOT_VERIFIED_ERROR');
    expect(await app.deps.mailer.list({ to: 'friend-unverified@example.org' })).toEqual([]);
    expect(await app.deps.db.knex('invites').where({ program_id: pid })).toEqual([]);
  });

  it('answers 400 for bad bodies', async () => {
    const { key, pid } = await setup();
    const sender = await add(key, pid, { email: 'val@example.com' });
    const bodies: unknown[] = [
      {},
      { emailAddresses: [], messageText: 'x' },
      { emailAddresses: ['not-an-email'], messageText: 'x' },
      { emailAddresses: Array.from({ length: 51 }, (_, i) => `p${i}@example.org`), messageText: 'x' },
      { emailAddresses: ['a@example.org'] },
      { emailAddresses: ['a@example.org'], messageText: 'x'.repeat(2001) },
      { emailAddresses: ['a@example.org'], messageText: 'x', subjectText: 's'.repeat(256) },
      { emailAddresses: ['a@example.org'], messageText: 'x', extra: true },
    ];
    for (const body of bodies) {
      const res = await invite(key, pid, sender.id, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
  });

  it('answers 400 for an unknown participant', async () => {
    const { key, pid } = await setup();
    const res = await invite(key, pid, 'ghost@example.com', { emailAddresses: ['a@example.org'], messageText: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe('PARTICIPANT_NOT_FOUND');
  });

  it('answers 403 without participant:write', async () => {
    const { key, pid, teamId } = await setup();
    const sender = await add(key, pid, { email: 'wes@example.com' });
    const readOnly = await limitedKey(teamId, ['participant:read']);
    expect((await invite(readOnly, pid, sender.id, { emailAddresses: ['a@example.org'], messageText: 'x' })).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const { key } = await setup();
    expect((await invite(key, 'nosuchprogram', 'a@example.com', { emailAddresses: ['a@example.org'], messageText: 'x' })).status).toBe(404);
  });

  it('answers 429 past the per-participant and per-team invitation limits, and a refused batch costs nothing', async () => {
    const small = await startApp({ ...LIMITS, INVITES_PER_PARTICIPANT_PER_DAY: '3', INVITES_PER_TEAM_PER_HOUR: '5' });
    try {
      const { key, pid } = await setup({ a: small });
      const x = await add(key, pid, { email: 'x@example.com' }, small);
      const y = await add(key, pid, { email: 'y@example.com' }, small);
      const send = (who: string, addrs: string[]) => invite(key, pid, who, { emailAddresses: addrs, messageText: 'hi' }, small);
      expect((await send(x.id, ['a1@example.org', 'a2@example.org'])).status).toBe(200);
      const over = await send(x.id, ['a3@example.org', 'a4@example.org']);
      expect(over.status).toBe(429);
      expect(over.body.policyName).toBe('INVITES_PER_PARTICIPANT');
      expect(await small.deps.mailer.list({ to: 'a3@example.org' })).toEqual([]);
      expect((await send(x.id, ['a3@example.org'])).status).toBe(200); // the refused two were given back
      expect((await send(y.id, ['b1@example.org', 'b2@example.org'])).status).toBe(200);
      const team = await send(y.id, ['b3@example.org']);
      expect(team.status).toBe(429);
      expect(team.body.policyName).toBe('INVITES_PER_TEAM');
    } finally {
      await small.close();
    }
  });
});

describe('follow-up reminders', () => {
  async function enableReminder(key: string, pid: string, delayDays = 3) {
    const res = await app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { followUpReminder: { isEnabled: true, delayDays } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.followUpReminder.enabledAt).toBe(app.clock.now());
  }
  const reminders = async (to: string) => (await app.deps.mailer.list({ to })).filter((m) => m.kind === 'program.followUpReminder');

  it('emails the referrer once about contacts who have not joined after the delay', async () => {
    const { key, pid } = await setup();
    await enableReminder(key, pid);
    const sender = await add(key, pid, { email: 'rita@example.com', firstName: 'Rita' });
    await invited(key, pid, sender.id, ['c1@example.org', 'c2@example.org', 'c3@example.org']);
    app.clock.advance(DAY);
    await add(key, pid, { email: 'c3@example.org' }); // joined: no reminder about them
    app.clock.advance(2 * DAY - 60_000);
    await app.deps.jobs.runDue();
    expect(await reminders('rita@example.com')).toEqual([]);
    app.clock.advance(60_000);
    await app.deps.jobs.runDue();
    const [mail, ...rest] = await reminders('rita@example.com');
    expect(rest).toEqual([]);
    expect(mail!.subject).toBe('2 of your invitations have not been accepted yet');
    expect(mail!.text).toContain('You invited 2 friends to ');
    expect(mail!.html).toContain('<li>c1@example.org</li>');
    expect(mail!.html).toContain('<li>c2@example.org</li>');
    expect(mail!.html).not.toContain('c3@example.org');
    expect(mail!.headers['List-Unsubscribe']).toMatch(/^<http:\/\/refloop\.test\/unsubscribe\?token=/);
    const rows = await app.deps.db.knex('invites').where({ program_id: pid, status: 'INVITE_SENT' });
    expect(rows.every((r) => Number(r.reminder_sent_at) === app.clock.now())).toBe(true);

    // Each contact once: later runs, and a later invitation's reminder, never name them again.
    app.clock.advance(DAY);
    await invited(key, pid, sender.id, ['c4@example.org']);
    app.clock.advance(3 * DAY);
    await app.deps.jobs.runDue();
    const all = await reminders('rita@example.com');
    expect(all).toHaveLength(2);
    expect(all[0]!.html).toContain('c4@example.org');
    expect(all[0]!.html).not.toContain('c1@example.org');
    app.clock.advance(30 * DAY);
    await app.deps.jobs.runDue();
    expect(await reminders('rita@example.com')).toHaveLength(2);
  });

  it('never reminds about invitations made before the reminder was enabled', async () => {
    const { key, pid } = await setup();
    const sender = await add(key, pid, { email: 'otto@example.com' });
    await invited(key, pid, sender.id, ['old@example.org']);
    app.clock.advance(DAY);
    await enableReminder(key, pid, 2);
    app.clock.advance(60_000);
    await invited(key, pid, sender.id, ['fresh@example.org']);
    app.clock.advance(2 * DAY);
    await app.deps.jobs.runDue();
    const [mail, ...rest] = await reminders('otto@example.com');
    expect(rest).toEqual([]);
    expect(mail!.html).toContain('fresh@example.org');
    expect(mail!.html).not.toContain('old@example.org');
  });

  it('skips and logs a reminder while the team is not verified, keeping its contacts for a later reminder', async () => {
    const { key, pid, teamId } = await setup();
    await enableReminder(key, pid);
    const sender = await add(key, pid, { email: 'vera@example.com' });
    await invited(key, pid, sender.id, ['v1@example.org']);
    await app.deps.db.knex('teams').where({ id: teamId }).update({ verification_status: 'REQUESTED' });
    app.clock.advance(3 * DAY);
    await app.deps.jobs.runDue();
    expect(await reminders('vera@example.com')).toEqual([]);
    const skipped = await app.deps.db.knex('activity_logs').where({ participant_id: sender.id, action: 'email.skipped' });
    expect(skipped.map((r) => JSON.parse(r.data))).toEqual([expect.objectContaining({ emailType: 'followUpReminder', reason: 'TEAM_NOT_VERIFIED' })]);
    await app.deps.teams.approveVerification(teamId);
    await invited(key, pid, sender.id, ['v2@example.org']);
    app.clock.advance(3 * DAY);
    await app.deps.jobs.runDue();
    const [mail, ...rest] = await reminders('vera@example.com');
    expect(rest).toEqual([]);
    expect(mail!.html).toContain('v1@example.org');
    expect(mail!.html).toContain('v2@example.org');
  });

  it('sends nothing once the reminder is switched off', async () => {
    const { key, pid } = await setup();
    await enableReminder(key, pid);
    const sender = await add(key, pid, { email: 'ivan@example.com' });
    await invited(key, pid, sender.id, ['z1@example.org']);
    await app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { followUpReminder: { isEnabled: false } } });
    app.clock.advance(4 * DAY);
    await app.deps.jobs.runDue();
    expect(await reminders('ivan@example.com')).toEqual([]);
  });

  it('waits for a delay that grew after the invitation was sent', async () => {
    const { key, pid } = await setup();
    await enableReminder(key, pid, 3);
    const sender = await add(key, pid, { email: 'gale@example.com' });
    await invited(key, pid, sender.id, ['late@example.org']);
    await app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { followUpReminder: { delayDays: 5 } } });
    app.clock.advance(3 * DAY);
    await app.deps.jobs.runDue();
    expect(await reminders('gale@example.com')).toEqual([]);
    app.clock.advance(2 * DAY);
    await app.deps.jobs.runDue();
    expect(await reminders('gale@example.com')).toHaveLength(1);
  });
});
