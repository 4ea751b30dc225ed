import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, verifiedAccount, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { addParticipant, newProgram } from '../../helpers/programs.ts';

// Budgets raised: these tests make many calls per team; the limits have their own tests.
const LIMITS = {
  ...RAISED_LIMITS,
  PARTICIPANT_EMAILS_PER_TEAM_PER_HOUR: '1000000',
};

let app: TestApp;
beforeAll(async () => {
  app = await startApp(LIMITS);
});
afterAll(async () => {
  await app.close();
});

const setup = (opts: { verified?: boolean; type?: 'REFERRAL' | 'AFFILIATE'; a?: TestApp; companyName?: string } = {}) =>
  newProgram(opts.a ?? app, { type: opts.type, approved: opts.verified !== false, body: opts.companyName ? { companyName: opts.companyName } : {} });

const add = (key: string, pid: string, body: Record<string, unknown>, a: TestApp = app) => addParticipant(a, key, pid, body);

const email = (key: string, pid: string, who: string, body: unknown, a: TestApp = app) =>
  a.request('POST', `/v2/campaign/${pid}/participant/${encodeURIComponent(who)}/email`, { key, body });

const mails = (to: string, kind?: string) => app.deps.mailer.list({ to }).then((list) => list.filter((m) => !kind || m.kind === kind));

const activity = (participantId: string, action?: string) =>
  app.deps.db
    .knex('activity_logs')
    .where({ participant_id: participantId, ...(action ? { action } : {}) })
    .orderBy('seq')
    .then((rows) => rows.map((r) => ({ type: r.type, action: r.action, text: r.text, data: r.data ? JSON.parse(r.data) : null })));

async function limitedKey(teamId: string, scopes: string[]) {
  return (await app.deps.keys.create(app.deps.db.knex, { teamId, scopes: scopes as never, programIds: null, origin: 'CLI' })).secret;
}

/** The unsubscribe link of a message, on this test server. */
const unsubscribeLink = (html: string) => app.local(/href="(http:\/\/refloop\.test\/unsubscribe\?token=[^"]+)"/.exec(html)![1]!);

describe('POST /campaign/{id}/participant/{participantIdOrEmail}/email', () => {
  it('sends a template with merge tags, the footer and an unsubscribe link, and logs it', async () => {
    const { key, pid } = await setup({ companyName: 'Acme & Co' });
    await app.request('PATCH', `/v2/campaign/${pid}/emails`, {
      key,
      body: { settings: { contact: { addressLine1: '1 Main St', city: 'Springfield', postalCode: '12345' } } },
    });
    const p = await add(key, pid, { email: 'tpl@example.com', firstName: '<b>Ann</b>' });
    const res = await email(key, pid, p.id, { emailType: 'progressUpdateMonthly' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, status: 'queued' });
    const [mail] = await mails('tpl@example.com', 'program.progressUpdateMonthly');
    expect(mail!.subject).toBe('Your monthly update');
    expect(mail!.html).toContain('Hi &lt;b&gt;Ann&lt;/b&gt;,');
    expect(mail!.html).toContain(p.shareUrl.replace(/&/g, '&amp;'));
    expect(mail!.html).toContain('Acme &amp; Co');
    expect(mail!.html).toContain('1 Main St, 12345 Springfield');
    expect(mail!.html).toMatch(/<a href="http:\/\/refloop\.test\/unsubscribe\?token=[^"]+"[^>]*>Unsubscribe<\/a>/);
    expect(mail!.text).toContain('Hi <b>Ann</b>,');
    expect(mail!.text).toMatch(/Unsubscribe: http:\/\/refloop\.test\/unsubscribe\?token=/);
    expect(mail!.headers).toEqual({
      'List-Unsubscribe': expect.stringMatching(/^<http:\/\/refloop\.test\/unsubscribe\?token=.+>$/),
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    expect(mail!.from).toContain('"Acme & Co" <');
    const logged = await activity(p.id, 'email.sent');
    expect(logged.at(-1)).toMatchObject({ type: 'EMAIL', data: { emailType: 'progressUpdateMonthly', manual: true } });
  });

  it('sends a template even when it is switched off for automatic sending', async () => {
    const { key, pid } = await setup();
    await app.request('PATCH', `/v2/campaign/${pid}/emails`, { key, body: { goalAchieved: { isEnabled: false } } });
    const p = await add(key, pid, { email: 'off@example.com' });
    expect((await email(key, pid, 'off@example.com', { emailType: 'goalAchieved' })).status).toBe(200);
    expect(await mails('off@example.com', 'program.goalAchieved')).toHaveLength(1);
    expect(p.id).toBeTruthy();
  });

  it('sends free-form mail with escaped merge tags, the preheader, company name and unsubscribe link', async () => {
    const { key, pid } = await setup({ companyName: 'Globex' });
    const p = await add(key, pid, { email: 'free@example.com', firstName: 'Bo"b' });
    const res = await email(key, pid, p.id, { subject: 'News for {{firstName}}', body: '<h1>Hello {{firstName}}</h1><p>{{unknownTag|friend}}</p>', preheader: 'Short {{companyName}}' });
    expect(res.status, res.text).toBe(200);
    const [mail] = await mails('free@example.com', 'program.freeForm');
    expect(mail!.subject).toBe('News for Bo"b');
    expect(mail!.html).toContain('<h1>Hello Bo&quot;b</h1><p>friend</p>');
    expect(mail!.html).toContain('Short Globex');
    expect(mail!.html).toContain('Globex');
    expect(mail!.html).toContain('/unsubscribe?token=');
    expect((await activity(p.id, 'email.sent')).at(-1)).toMatchObject({ type: 'EMAIL', data: { emailType: 'freeForm' } });
  });

  it('uses the participant’s language for the footer', async () => {
    const { key, pid } = await setup();
    await app.request('PATCH', `/v2/campaign/${pid}/options`, { key, body: { languages: { additionalLanguages: ['de'] } } });
    const p = await add(key, pid, { email: 'de@example.com', language: 'de' });
    await email(key, pid, p.id, { subject: 'Hallo', body: '<p>Hallo</p>' });
    const [mail] = await mails('de@example.com', 'program.freeForm');
    expect(mail!.html).toContain('<html lang="de">');
    expect(mail!.html).toContain('>Abmelden</a>');
  });

  it('answers 400 for both modes at once, neither, or half of free-form', async () => {
    const { key, pid } = await setup();
    const p = await add(key, pid, { email: 'modes@example.com' });
    const cases: Array<[unknown, string]> = [
      [{ emailType: 'welcomeNonReferred', subject: 'x', body: 'y' }, 'subject'],
      [{ emailType: 'welcomeNonReferred', preheader: 'x' }, 'preheader'],
      [{}, 'emailType'],
      [{ subject: 'only subject' }, 'body'],
      [{ body: '<p>only body</p>' }, 'subject'],
      [{ subject: 's'.repeat(256), body: 'x' }, 'subject'],
      [{ subject: 's', body: 'x'.repeat(50_001) }, 'body'],
      [{ emailType: 'invite' }, 'emailType'],
      [{ emailType: 'loginLink' }, 'emailType'],
      [{ emailType: 'commissionGenerated' }, 'emailType'], // affiliate-only on a referral program
      [{ emailType: 'welcomeNonReferred', extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await email(key, pid, p.id, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field), JSON.stringify(body).slice(0, 60)).toContain(field);
    }
    expect(await mails('modes@example.com', 'program.freeForm')).toEqual([]);
  });

  it('answers 400 for an unsubscribed participant', async () => {
    const { key, pid } = await setup();
    const p = await add(key, pid, { email: 'gone@example.com' });
    await app.request('POST', `/v2/campaign/${pid}/participant/${p.id}`, { key, body: { unsubscribed: true } });
    const res = await email(key, pid, p.id, { subject: 'Hi', body: '<p>x</p>' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe('PARTICIPANT_UNSUBSCRIBED');
    expect(await mails('gone@example.com', 'program.freeForm')).toEqual([]);
  });

  it('answers 403 TEAM_NOT_VERIFIED_ERROR while the team is not verified', async () => {
    const { key, pid } = await setup({ verified: false });
    const p = await add(key, pid, { email: 'unverified@example.com' });
    const res = await email(key, pid, p.id, { emailType: 'welcomeNonReferred' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('TEAM_NOT_VERIFIED_ERROR');
    expect(await mails('unverified@example.com')).toEqual([]);
  });

  it('answers 400 for an unknown participant', async () => {
    const { key, pid } = await setup();
    const res = await email(key, pid, 'nobody@example.com', { emailType: 'welcomeNonReferred' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe('PARTICIPANT_NOT_FOUND');
  });

  it('answers 403 without participant:write', async () => {
    const { key, pid, teamId } = await setup();
    const p = await add(key, pid, { email: 'scope@example.com' });
    const readOnly = await limitedKey(teamId, ['participant:read']);
    expect((await email(readOnly, pid, p.id, { emailType: 'welcomeNonReferred' })).status).toBe(403);
  });

  it('answers 404 for an unknown program', async () => {
    const { key } = await setup();
    expect((await email(key, 'nosuchprogram', 'a@example.com', { emailType: 'welcomeNonReferred' })).status).toBe(404);
  });

  it('accepts the affiliate template list on affiliate programs', async () => {
    const { key, pid } = await setup({ type: 'AFFILIATE' });
    const p = await add(key, pid, { email: 'aff@example.com' });
    expect((await email(key, pid, p.id, { emailType: 'commissionGenerated' })).status).toBe(200);
    const res = await email(key, pid, p.id, { emailType: 'goalAchieved' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('emailType');
  });

  it('answers 429 past its own per-team limit', async () => {
    const small = await startApp({ ...LIMITS, PARTICIPANT_EMAILS_PER_TEAM_PER_HOUR: '2' });
    try {
      const { key, pid } = await setup({ a: small });
      const p = await add(key, pid, { email: 'lim@example.com' }, small);
      expect((await email(key, pid, p.id, { emailType: 'welcomeNonReferred' }, small)).status).toBe(200);
      expect((await email(key, pid, p.id, { emailType: 'welcomeNonReferred' }, small)).status).toBe(200);
      const res = await email(key, pid, p.id, { emailType: 'welcomeNonReferred' }, small);
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ code: 'RATE_LIMIT', policyName: 'PARTICIPANT_EMAIL' });
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await small.close();
    }
  });
});

describe('GET and POST /unsubscribe', () => {
  it('shows a confirmation page on GET and unsubscribes on POST', async () => {
    const { key, pid } = await setup();
    const p = await add(key, pid, { email: 'leave@example.com' });
    const [welcome] = await mails('leave@example.com', 'program.welcomeNonReferred');
    const link = unsubscribeLink(welcome!.html!);

    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).toContain('l***@example.com');
    expect(html).toContain('<form method="post"');
    expect((await app.request('GET', `/v2/campaign/${pid}/participant/${p.id}`, { key })).body.unsubscribed).toBe(false);

    const post = await fetch(link, { method: 'POST' });
    expect(post.status).toBe(200);
    expect(await post.text()).toContain('You are unsubscribed');
    expect((await app.request('GET', `/v2/campaign/${pid}/participant/${p.id}`, { key })).body.unsubscribed).toBe(true);
    expect(await activity(p.id, 'email.unsubscribed')).toHaveLength(1);
    // Again: nothing changes, still a success.
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);
    expect(await activity(p.id, 'email.unsubscribed')).toHaveLength(1);
    expect(await (await fetch(link)).text()).toContain('no longer receives');
  });

  it('honours RFC 8058 one-click unsubscribe from the List-Unsubscribe header', async () => {
    const { key, pid } = await setup();
    const p = await add(key, pid, { email: 'oneclick@example.com' });
    const [welcome] = await mails('oneclick@example.com');
    const url = app.local(/^<(.+)>$/.exec(welcome!.headers['List-Unsubscribe']!)![1]!);
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: welcome!.headers['List-Unsubscribe-Post'] });
    expect(res.status).toBe(200);
    expect((await app.request('GET', `/v2/campaign/${pid}/participant/${p.id}`, { key })).body.unsubscribed).toBe(true);
  });

  it('answers 400 for a tampered or malformed token', async () => {
    const { key, pid } = await setup();
    const p = await add(key, pid, { email: 'tamper@example.com' });
    const [welcome] = await mails('tamper@example.com');
    const link = unsubscribeLink(welcome!.html!);
    const tampered = link.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await fetch(tampered)).status).toBe(400);
    expect((await fetch(tampered, { method: 'POST' })).status).toBe(400);
    expect((await fetch(`${app.url}/unsubscribe`)).status).toBe(400);
    expect((await fetch(`${app.url}/unsubscribe?token=${pid}.${p.id}`)).status).toBe(400);
    expect((await app.request('GET', `/v2/campaign/${pid}/participant/${p.id}`, { key })).body.unsubscribed).toBe(false);
  });

  it('stops automatic program emails to an unsubscribed participant and logs the skip', async () => {
    const { key, pid } = await setup();
    const referrer = await add(key, pid, { email: 'quiet@example.com' });
    const [welcome] = await mails('quiet@example.com');
    await fetch(unsubscribeLink(welcome!.html!), { method: 'POST' });
    await add(key, pid, { email: 'friend-of-quiet@example.com', referredBy: referrer.id });
    expect(await mails('quiet@example.com', 'program.referralLinkUsed')).toEqual([]);
    expect(await activity(referrer.id, 'email.skipped')).toEqual([
      expect.objectContaining({ type: 'EMAIL', text: 'The “a friend used your link” email was not sent: the participant unsubscribed from program emails.', data: { emailType: 'referralLinkUsed', reason: 'UNSUBSCRIBED' } }),
    ]);
  });
});

describe('program emails on participant events', () => {
  it('welcomes a new participant only when the team is verified, and logs the skip otherwise', async () => {
    const unverified = await setup({ verified: false });
    const a = await add(unverified.key, unverified.pid, { email: 'w-unverified@example.com' });
    expect(await mails('w-unverified@example.com')).toEqual([]);
    expect(await activity(a.id, 'email.skipped')).toEqual([
      // In the owner's words (issue #32): which email, and what to do, never the template's key.
      expect.objectContaining({
        type: 'EMAIL',
        text: 'The “welcome (joined on their own)” email was not sent: the team is not verified yet. Program emails are held until an owner requests verification on the Team page and it is approved.',
        data: { emailType: 'welcomeNonReferred', reason: 'TEAM_NOT_VERIFIED' },
      }),
    ]);

    const verified = await setup({ companyName: 'Initech' });
    const b = await add(verified.key, verified.pid, { email: 'w-verified@example.com', firstName: 'Wu' });
    const [mail, ...rest] = await mails('w-verified@example.com');
    expect(rest).toEqual([]);
    expect(mail!.kind).toBe('program.welcomeNonReferred');
    expect(mail!.subject).toBe('Your Initech referral link');
    expect(mail!.html).toContain('Hi Wu,');
    expect(await activity(b.id, 'email.skipped')).toEqual([]);
    // Returning an existing participant sends nothing again.
    await add(verified.key, verified.pid, { email: 'w-verified@example.com' });
    expect(await mails('w-verified@example.com')).toHaveLength(1);
  });

  it('sends welcomeReferred to the friend and referralLinkUsed to the referrer when credit is awarded at sign-up', async () => {
    const { key, pid } = await setup();
    const referrer = await add(key, pid, { email: 'ref@example.com', firstName: 'Rae' });
    await add(key, pid, { email: 'friend@example.com', firstName: 'Fin', referredBy: referrer.id });
    const [friendMail] = await mails('friend@example.com');
    expect(friendMail!.kind).toBe('program.welcomeReferred');
    expect(friendMail!.subject).toBe('Welcome! Rae referred you');
    const toReferrer = (await mails('ref@example.com')).map((m) => m.kind);
    expect(toReferrer).toEqual(['program.referralLinkUsed', 'program.welcomeNonReferred']);
    const [used] = await mails('ref@example.com', 'program.referralLinkUsed');
    expect(used!.html).toContain('Fin joined through your link');
    expect(used!.html).toContain('Friends referred so far: 1');
  });

  it('sends one email for one completed referral: "You earned a reward!" when the credit earns the referrer a reward, else "Your referral counts" (issue #21)', async () => {
    const acct = await verifiedAccount(app);
    await app.deps.teams.approveVerification(acct.teamId);
    // A reward for the second referral: the first credit earns nothing yet, the second earns the reward.
    const rewards = [{ type: 'MILESTONE', title: 'Free month', description: 'A free month of the Pro plan.', conversionsRequired: 2 }];
    const created = await app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL', rewards } });
    expect(created.status, created.text).toBe(200);
    const { key, id: pid } = { key: acct.key, id: created.body.id as string };
    const referrer = await add(key, pid, { email: 'one-mail@example.com', firstName: 'Omar' });
    await add(key, pid, { email: 'one-mail-f1@example.com', firstName: 'Fay', referredBy: referrer.id });
    const kinds = async () => (await mails('one-mail@example.com')).map((m) => m.kind).filter((k) => k !== 'program.welcomeNonReferred');
    expect(await kinds()).toEqual(['program.referralLinkUsed']);
    await add(key, pid, { email: 'one-mail-f2@example.com', firstName: 'Gus', referredBy: referrer.id });
    expect(await kinds()).toEqual(['program.goalAchieved', 'program.referralLinkUsed']);
    const [reward] = await mails('one-mail@example.com', 'program.goalAchieved');
    expect(reward!.subject).toBe('You earned a reward!');
    expect(reward!.text).toContain('A free month of the Pro plan.\n');
    expect(reward!.text).not.toContain('..');

    // With the reward email switched off, the credit email still tells the referrer.
    await app.request('PATCH', `/v2/campaign/${pid}/emails`, { key, body: { goalAchieved: { isEnabled: false } } });
    await add(key, pid, { email: 'one-mail-f3@example.com', referredBy: referrer.id });
    await add(key, pid, { email: 'one-mail-f4@example.com', referredBy: referrer.id });
    expect((await kinds()).filter((k) => k === 'program.referralLinkUsed')).toHaveLength(3);
  });

  it('sends referredSignup to the referrer when credit waits for the trigger, and masks a friend without a name', async () => {
    const { key, pid } = await setup();
    const referrer = await add(key, pid, { email: 'ref2@example.com' });
    await add(key, pid, { email: 'pending@example.com', referredBy: referrer.id, referralStatus: 'CREDIT_PENDING' });
    const [signup] = await mails('ref2@example.com', 'program.referredSignup');
    expect(signup!.subject).toBe('p***@example.com signed up with your link');
    expect(await mails('ref2@example.com', 'program.referralLinkUsed')).toEqual([]);
  });

  it('does not send a template that is switched off', async () => {
    const { key, pid } = await setup();
    await app.request('PATCH', `/v2/campaign/${pid}/emails`, { key, body: { welcomeNonReferred: { isEnabled: false } } });
    const p = await add(key, pid, { email: 'nowelcome@example.com' });
    expect(await mails('nowelcome@example.com')).toEqual([]);
    expect(await activity(p.id, 'email.skipped')).toEqual([]);
  });

  it('welcomes only enrolled affiliates on affiliate programs and tells the affiliate about a referred customer', async () => {
    const { key, pid } = await setup({ type: 'AFFILIATE' });
    const affiliate = await add(key, pid, { email: 'affy@example.com' });
    await add(key, pid, { email: 'customer@example.com', referredBy: affiliate.id });
    expect(await mails('customer@example.com')).toEqual([]);
    expect((await mails('affy@example.com')).map((m) => m.kind)).toEqual(['program.referredSignup', 'program.welcomeNonReferred']);
  });
});
