import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, RAISED_LIMITS, startApp, verifiedAccount, type TestApp } from '../../helpers/app.ts';
import { restOk } from '../../helpers/programs.ts';
import { GrowSurfSource, retryAfterMs } from '../../../server/domain/imports/source.ts';
import { pinnedLookup } from '../../../server/domain/platform/ssrf.ts';
import { ProgramImports, type ImportProgress } from '../../../server/domain/imports/growsurf-import.ts';
import { main } from '../../../server/cli.ts';

// Issue #33: a program moved in from a server speaking the GrowSurf v2 REST API (here another
// refloop, seeded through its REST API) arrives with its id, documents, reward configurations and
// participants unchanged: every field of every participant the source lists equals the target's,
// share and vanity keys resolve to the same referrer, a second run changes nothing, a run stopped
// mid-way resumes to the same result, and a source answering 429, 500 and dropped connections
// loses and doubles nothing.

const PEOPLE = 2_000;
const INVITE_LIMITS = { ...RAISED_LIMITS, INVITES_PER_PARTICIPANT_PER_DAY: '1000000', INVITES_PER_TEAM_PER_HOUR: '1000000', WEBHOOK_ALLOW_PRIVATE: 'true' };

/** Every participant of a program as its list pages answer them, in list order. */
async function allParticipants(app: TestApp, key: string, pid: string): Promise<Array<Record<string, any>>> {
  const out: Array<Record<string, any>> = [];
  let nextId: string | null = null;
  do {
    const page: { participants: Array<Record<string, any>>; nextId: string | null } = await restOk(app, key, 'GET', `/campaign/${pid}/participants?limit=100${nextId ? `&nextId=${nextId}` : ''}`);
    out.push(...page.participants);
    nextId = page.nextId;
  } while (nextId);
  return out;
}

/** Every row of the referrals-and-invites list (RF1), in its default order. */
async function allReferrals(app: TestApp, key: string, pid: string): Promise<Array<Record<string, any>>> {
  const out: Array<Record<string, any>> = [];
  let nextId: string | null | undefined = null;
  do {
    const page: { referrals: Array<Record<string, any>>; nextId?: string | null; more: boolean } = await restOk(app, key, 'GET', `/campaign/${pid}/referrals?limit=100${nextId ? `&nextId=${nextId}` : ''}`);
    out.push(...page.referrals);
    nextId = page.more ? page.nextId : null;
  } while (nextId);
  return out;
}

/** What the target must show as the source shows it: the program, its documents, rewards, participants and top of the leaderboard. */
async function snapshot(app: TestApp, key: string, pid: string) {
  const [campaign, design, emails, options, installation, rewards, leaderboard] = await Promise.all(
    [``, '/design', '/emails', '/options', '/installation', '/reward-configs', '/leaderboard?limit=50'].map((p) => restOk(app, key, 'GET', `/campaign/${pid}${p}`)),
  );
  const resources = await restOk(app, key, 'GET', `/campaign/${pid}/resources`);
  const queue: Array<{ rewards: Array<Record<string, unknown>> }> = [];
  for (const state of ['AWAITING_APPROVAL', 'APPROVED', 'FULFILLED']) {
    const all: Array<Record<string, unknown>> = [];
    let nextId: string | null = null;
    do {
      const page: { rewards: Array<Record<string, unknown>>; nextId: string | null } = await restOk(app, key, 'GET', `/campaign/${pid}/rewards?limit=100&state=${state}${nextId ? `&nextId=${nextId}` : ''}`);
      all.push(...page.rewards);
      nextId = page.nextId;
    } while (nextId);
    queue.push({ rewards: all });
  }
  return { campaign, design, emails, options, installation, rewards, leaderboard, resources, queue, participants: await allParticipants(app, key, pid), referrals: await allReferrals(app, key, pid), analytics: await restOk(app, key, 'GET', `/campaign/${pid}/analytics`) };
}

describe('refloop import growsurf (issue #33)', () => {
  let source: TestApp;
  let sourceKey = '';
  let pid = '';
  let before: Awaited<ReturnType<typeof snapshot>>;
  const targets: TestApp[] = [];

  /** A new target refloop with one verified team and its key. */
  async function target() {
    const app = await startApp(RAISED_LIMITS);
    targets.push(app);
    // Both servers on the real clock: the importer takes the month of the source's own time (its Date header).
    app.clock.current = source.clock.current;
    const acct = await verifiedAccount(app);
    await app.deps.teams.approveVerification(acct.teamId);
    return { app, key: acct.key as string, teamId: acct.teamId as string };
  }

  beforeAll(async () => {
    source = await startApp(INVITE_LIMITS);
    // The real time, as a live source answers it in its Date header.
    source.clock.current = Date.now();
    const acct = await verifiedAccount(source);
    await source.deps.teams.approveVerification(acct.teamId);
    sourceKey = acct.key;
    const created = await restOk(source, sourceKey, 'POST', '/campaigns', {
      type: 'REFERRAL',
      name: 'Bean Club',
      companyName: 'Acme Coffee',
      rewards: [{ type: 'DOUBLE_SIDED', title: 'Give a bag, get a bag', description: 'A free bag of beans', referralDescription: '$5 off', isVisible: true, conversionsRequired: 1 }],
    });
    pid = created.id;
    // Documents edited away from their defaults.
    await restOk(source, sourceKey, 'PATCH', `/campaign/${pid}/design`, { header: { preText: 'Share the beans', postText: 'Give a bag, get a bag.' } });
    await restOk(source, sourceKey, 'PATCH', `/campaign/${pid}/emails`, { settings: { design: { footerText: 'Bean Club thanks you.' } } });
    await restOk(source, sourceKey, 'PATCH', `/campaign/${pid}/options`, { requireManualRewardApproval: true });
    await restOk(source, sourceKey, 'PATCH', `/campaign/${pid}/installation`, { shareUrl: 'https://beans.example/?from=share' });
    await restOk(source, sourceKey, 'POST', `/campaign/${pid}/reward-configs`, { type: 'MILESTONE', title: 'Five friends', description: 'A mug', conversionsRequired: 5, isVisible: true });
    await restOk(source, sourceKey, 'POST', `/campaign/${pid}/webhooks`, { payloadUrl: 'http://127.0.0.1:9/refloop-hook', events: ['PARTICIPANT_REACHED_A_GOAL', 'NEW_PARTICIPANT_ADDED'], secret: 'source-secret-value' });
    // 2,000 participants over several levels of referrals (each row referred by an earlier one), vanity keys and metadata.
    const rows = ['email,firstName,referredBy,referralStatus,vanityKeys,metadata.tier'];
    for (let i = 0; i < PEOPLE; i++) {
      const referrer = i > 0 && i % 4 !== 0 ? `p${Math.floor(i / 3)}@beans.example` : '';
      const status = referrer ? (i % 3 === 0 ? 'CREDIT_AWARDED' : 'CREDIT_PENDING') : '';
      rows.push(`p${i}@beans.example,P${i},${referrer},${status},${i % 50 === 0 ? `vanity${i}` : ''},${i % 2 ? 'gold' : ''}`);
    }
    const imported = await source.request('POST', `/v2/campaign/${pid}/import/participants`, { key: sourceKey, raw: rows.join('\n'), headers: { 'content-type': 'text/csv' } });
    expect(imported.status, imported.text).toBe(200);
    await restOk(source, sourceKey, 'PATCH', `/campaign/${pid}`, { status: 'IN_PROGRESS' });
    // A few changes through the API: credits, unsubscribes, notes, a risk level.
    for (let i = 1; i < 40; i++) if (i % 4 && i % 3) await restOk(source, sourceKey, 'POST', `/campaign/${pid}/participant/p${i}@beans.example/ref`, {});
    for (let i = 5; i < 60; i += 11) await restOk(source, sourceKey, 'POST', `/campaign/${pid}/participant/p${i}@beans.example`, { unsubscribed: true, notes: `note ${i}`, fraudRiskLevel: 'MEDIUM' });
    // Issued rewards in every state: awaiting approval (the rest), approved, approved and fulfilled, deleted.
    const waiting = (await restOk(source, sourceKey, 'GET', `/campaign/${pid}/rewards?limit=3`)).rewards as Array<{ id: string }>;
    expect(waiting.length).toBeGreaterThanOrEqual(3);
    await restOk(source, sourceKey, 'POST', `/campaign/${pid}/reward/${waiting[0]!.id}/approve`, {});
    await restOk(source, sourceKey, 'POST', `/campaign/${pid}/reward/${waiting[1]!.id}/approve`, { fulfill: true });
    await restOk(source, sourceKey, 'DELETE', `/campaign/${pid}/reward/${waiting[2]!.id}`);
    // Email invites (RF3): contacts who have not joined.
    for (const [who, emails] of [['p0@beans.example', ['ivy@friends.example', 'jo@friends.example', 'kim@friends.example']], ['p7@beans.example', ['lu@friends.example', 'max@friends.example']]] as const) {
      await restOk(source, sourceKey, 'POST', `/campaign/${pid}/participant/${who}/invites`, { emailAddresses: emails, messageText: 'Join me!' });
    }
    // Resources: a link and a text come in; a file cannot (the REST API does not give its bytes).
    await restOk(source, sourceKey, 'POST', `/campaign/${pid}/resources`, { type: 'LINK', title: 'Brand kit', url: 'https://beans.example/brand', isPublished: true });
    await restOk(source, sourceKey, 'POST', `/campaign/${pid}/resources`, { type: 'TEXT', title: 'Suggested post', text: 'I love these beans!', category: 'Social' });
    await source.deps.db.knex('program_resources').insert({ id: 'filebrochure', program_id: pid, type: 'FILE', title: 'Brochure', file_key: 'x', file_name: 'brochure.pdf', file_mime_type: 'application/pdf', file_bytes: 1000, file_format: 'pdf', file_moderation_status: 'APPROVED', is_published: true, position: 2, created_at: source.clock.now(), updated_at: source.clock.now() });
    before = await snapshot(source, sourceKey, pid);
    expect(before.participants).toHaveLength(PEOPLE);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([source?.close(), ...targets.map((t) => t.close())]);
  });

  /** The target's view equals the source's, field by field, for every participant. */
  async function expectSameAsSource(app: TestApp, key: string) {
    const after = await snapshot(app, key, pid);
    expect(after.campaign).toEqual(before.campaign);
    expect(after.design).toEqual(before.design);
    expect(after.emails).toEqual(before.emails);
    expect(after.options).toEqual(before.options);
    // Documented difference (docs/migrating.md): the installation's mobile key is this refloop's own.
    const noKey = (doc: Record<string, any>) => ({ ...doc, mobile: { ...doc.mobile, publicKey: undefined } });
    expect(noKey(after.installation)).toEqual(noKey(before.installation));
    expect(after.rewards).toEqual(before.rewards);
    // The rewards queue (PR5, a refloop extension) by state: the same rewards in each state, field by field. Documented
    // difference: an issued reward's createdAt is its recipient's sign-up (the API does not list it), so the program-wide order differs.
    const queued = (q: Array<{ rewards: Array<Record<string, unknown>> }>) => q.map((page) => page.rewards.map(({ createdAt: _c, ...r }) => r).sort((a, b) => String(a.id).localeCompare(String(b.id))));
    expect(queued(after.queue)).toEqual(queued(before.queue));
    // Documented difference: a file resource cannot come in (its refusal is in the report).
    expect(after.resources).toEqual({ ...before.resources, resources: before.resources.resources.filter((r: { type: string }) => r.type !== 'FILE') });
    expect(after.referrals).toEqual(before.referrals);
    expect(after.analytics).toEqual(before.analytics);
    expect(after.leaderboard).toEqual(before.leaderboard);
    expect(after.participants.length).toBe(before.participants.length);
    for (const [i, p] of after.participants.entries()) expect(p, `participant ${i}`).toEqual(before.participants[i]);
  }

  it('imports the program with every participant, share link and count as the source lists them', async () => {
    const t = await target();
    const stages: string[] = [];
    const report = await new ProgramImports(t.app.deps).importProgram({
      source: new GrowSurfSource({ url: source.url, key: sourceKey }),
      programId: pid,
      teamId: t.teamId,
      onProgress: (p) => stages.push(p.stage),
    });
    expect(report.counts.participants).toEqual({ created: PEOPLE, skipped: 0, refused: 0 });
    expect(report.counts.rewards).toEqual({ created: 2, skipped: 0, refused: 0 });
    expect(report.refusals).toEqual([{ kind: 'resources', sourceId: 'filebrochure', reason: expect.stringMatching(/does not give its file/) }]);
    expect(report.counts.invites).toEqual({ created: 5, skipped: 0, refused: 0 });
    expect(report.counts.resources).toEqual({ created: 2, skipped: 0, refused: 1 });
    // The activity logs come only with --activity (one request per participant; the affiliate test brings them).
    expect(report.counts.activity.created).toBe(0);
    expect(new Set(stages)).toEqual(new Set(['program', 'documents', 'rewards', 'webhooks', 'resources', 'participants', 'referrals', 'done']));
    await expectSameAsSource(t.app, t.key);
    // Webhooks come in switched off, with a new secret shown once in the report.
    const [sourceHook] = (await restOk(source, sourceKey, 'GET', `/campaign/${pid}/webhooks`)).webhooks;
    const [hook] = (await restOk(t.app, t.key, 'GET', `/campaign/${pid}/webhooks`)).webhooks;
    expect(hook).toEqual({ ...sourceHook, isEnabled: false });
    expect(report.webhookSecrets).toEqual([{ id: sourceHook.id, secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{32}$/) }]);
    const stored = await t.app.deps.db.knex('webhooks').where({ program_id: pid }).first('secret_enc');
    expect(t.app.deps.sealer.open(stored.secret_enc)).toBe(report.webhookSecrets[0]!.secret);

    // A share key and a vanity key that resolved on the source resolve to the same referrer here.
    const ann = before.participants.find((p) => p.email === 'p50@beans.example')!;
    const shareKey = new URL(ann.shareUrl).searchParams.get('grsf')!;
    const byKey = await restOk(t.app, t.key, 'POST', `/campaign/${pid}/participant`, { email: 'friend1@beans.example', referredBy: shareKey });
    expect(byKey.referredBy).toBe(ann.id);
    const byVanity = await restOk(t.app, t.key, 'POST', `/campaign/${pid}/participant`, { email: 'friend2@beans.example', referredBy: 'VANITY50' });
    expect(byVanity.referredBy).toBe(ann.id);
    const landing = await fetch(`${t.app.url}/r/${pid}?grsf=${shareKey}`, { redirect: 'manual' });
    expect(landing.status).toBe(302);
    expect(landing.headers.get('location')).toContain(`grsf=${shareKey}`);

    // Run again: it finds the finished run and changes nothing.
    const again = await new ProgramImports(t.app.deps).importProgram({ source: new GrowSurfSource({ url: source.url, key: sourceKey }), programId: pid, teamId: t.teamId });
    expect(again.alreadyImported).toBe(true);
    const count = await restOk(t.app, t.key, 'GET', `/campaign/${pid}`);
    expect(count.participantCount).toBe(PEOPLE + 2);
  });

  it('resumes a run that stopped mid-way to the same result, and refuses to start over it without --resume', async () => {
    const t = await target();
    let pages = 0;
    const stop = (p: ImportProgress) => {
      if (p.stage === 'participants' && ++pages === 7) throw new Error('stopped');
    };
    const imports = new ProgramImports(t.app.deps);
    const sourceOf = () => new GrowSurfSource({ url: source.url, key: sourceKey });
    await expect(imports.importProgram({ source: sourceOf(), programId: pid, teamId: t.teamId, onProgress: stop })).rejects.toThrow('stopped');
    const run = await t.app.deps.db.knex('import_runs').where({ program_id: pid }).first();
    expect(run.stage).toBe('participants');
    await expect(imports.importProgram({ source: sourceOf(), programId: pid, teamId: t.teamId })).rejects.toThrow(/--resume/);
    const report = await imports.importProgram({ source: sourceOf(), programId: pid, teamId: t.teamId, resume: true });
    expect(report.resumed).toBe(true);
    expect(report.counts.participants).toEqual({ created: PEOPLE, skipped: 0, refused: 0 });
    await expectSameAsSource(t.app, t.key);
  });

  it('survives a source answering 429, 500 and dropping connections, losing and doubling nothing', async () => {
    const t = await target();
    // A loopback proxy in front of the source: every 5th request 429 (Retry-After: 0), every 7th a 500, every 9th cut mid-body.
    let n = 0;
    const upstream = new URL(source.url);
    const proxy = http.createServer((req, res) => {
      n++;
      if (n % 5 === 0) return void res.writeHead(429, { 'Retry-After': '0', 'content-type': 'application/json' }).end('{"message":"slow down"}');
      if (n % 7 === 0) return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"oops"}');
      const cut = n % 9 === 0;
      const up = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (ur) => {
        if (!cut) {
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          return void ur.pipe(res);
        }
        // Headers and half the body, then the connection dropped.
        const chunks: Buffer[] = [];
        ur.on('data', (c) => chunks.push(c));
        ur.on('end', () => {
          const body = Buffer.concat(chunks);
          res.writeHead(ur.statusCode ?? 502, { ...ur.headers, 'content-length': String(body.length) });
          res.write(body.subarray(0, Math.floor(body.length / 2)));
          (res.socket as net.Socket).destroy();
        });
      });
      // The cut connection makes the upstream request fail too: expected here.
      up.on('error', () => {});
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    try {
      const waits: string[] = [];
      const src = new GrowSurfSource({ url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`, key: sourceKey, sleep: () => Promise.resolve(), onWait: (reason) => waits.push(reason) });
      const report = await new ProgramImports(t.app.deps).importProgram({ source: src, programId: pid, teamId: t.teamId });
      expect(report.counts.participants).toEqual({ created: PEOPLE, skipped: 0, refused: 0 });
      expect(waits.some((w) => w.includes('rate limit'))).toBe(true);
      expect(waits.some((w) => w.includes('500'))).toBe(true);
      await expectSameAsSource(t.app, t.key);
    } finally {
      await new Promise((r) => proxy.close(r));
    }
  });

  it('resumes after the importer process is SIGKILLed mid-run, to the same result', async () => {
    const db = await freshDatabase();
    const t = await (async () => {
      const app = await startApp(RAISED_LIMITS, { databaseUrl: db.url });
      targets.push(app);
      app.clock.current = source.clock.current;
      const acct = await verifiedAccount(app);
      await app.deps.teams.approveVerification(acct.teamId);
      return { app, key: acct.key as string, teamId: acct.teamId as string };
    })();
    // A slow source (each request waits 60 ms), so the kill lands among the participant pages.
    const upstream = new URL(source.url);
    const proxy = http.createServer((req, res) => {
      setTimeout(() => {
        const up = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (ur) => {
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          ur.pipe(res);
        });
        // The importer is SIGKILLed mid-request: its connection goes, and the upstream request with it.
        up.on('error', () => {});
        res.on('error', () => {});
        req.pipe(up);
      }, 60);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    const from = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
    const cli = (extra: string[], killAfterPage?: number) =>
      new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [path.resolve('bin/refloop.js'), 'import', 'growsurf', '--from', from, '--key', sourceKey, '--program', pid, '--into', t.teamId, '--json', ...extra], {
          env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent', NODE_ENV: 'test' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let pages = 0;
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          if (killAfterPage === undefined) return;
          for (const line of c.toString().split('\n')) if (line.includes('"stage":"participants"') && ++pages === killAfterPage) child.kill('SIGKILL');
        });
        child.stderr.on('data', (c: Buffer) => (out += c.toString()));
        child.on('exit', (code, signal) => resolve({ code, signal, out }));
      });
    try {
      const killed = await cli([], 6);
      expect(killed.signal, killed.out).toBe('SIGKILL');
      const run = await t.app.deps.db.knex('import_runs').where({ program_id: pid }).first();
      expect(run.stage, 'killed among the participant pages').toBe('participants');
      const resumed = await cli(['--resume']);
      // Exit code 1: the file resource was refused (and said so), everything else came in.
      expect(resumed.code, resumed.out).toBe(1);
      const report = resumed.out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((e) => e.event === 'report');
      expect(report.counts.participants).toEqual({ created: PEOPLE, skipped: 0, refused: 0 });
      await expectSameAsSource(t.app, t.key);
    } finally {
      await new Promise((r) => proxy.close(r));
    }
  });

  it('lists in a dry run what it would create and each record it would refuse, writing nothing', async () => {
    const t = await target();
    // A participant of another program here already holds one of the source's ids: that one is refused.
    const clash = before.participants.filter((p) => !['p0@beans.example', 'p7@beans.example'].includes(p.email))[10]!;
    const other = await restOk(t.app, t.key, 'POST', '/campaigns', { type: 'REFERRAL', name: 'Other' });
    await t.app.deps.db.knex('participants').insert({ id: clash.id, program_id: other.id, email: 'x@beans.example', email_key: 'x@beans.example', share_key: 'zzzzzzzzzz', referral_source: 'DIRECT', created_at: 1, updated_at: 1 });
    const out: string[] = [];
    const code = await main(['import', 'growsurf', '--from', source.url, '--key', sourceKey, '--program', pid, '--into', t.teamId, '--dry-run', '--json'], { log: (s) => out.push(s), error: (s) => out.push(s) }, () => t.app.deps.config);
    expect(code, out.join('\n')).toBe(1);
    const report = out.map((l) => JSON.parse(l)).find((e) => e.event === 'report');
    expect(report.dryRun).toBe(true);
    expect(report.counts.participants).toEqual({ created: PEOPLE - 1, skipped: 0, refused: 1 });
    expect(report.refusals).toEqual([
      { kind: 'participants', sourceId: clash.id, reason: 'A participant of another program on this refloop has this id.' },
      { kind: 'resources', sourceId: 'filebrochure', reason: expect.stringMatching(/does not give its file/) },
    ]);
    expect(report.counts.invites).toEqual({ created: 5, skipped: 0, refused: 0 });
    expect(report.counts.webhooks).toEqual({ created: 1, skipped: 0, refused: 0 });
    expect(report.counts.rewards).toEqual({ created: 2, skipped: 0, refused: 0 });
    expect(report.counts.resources).toEqual({ created: 2, skipped: 0, refused: 1 });
    expect(await t.app.deps.db.knex('programs').where({ id: pid }).first()).toBeUndefined();
    expect(await t.app.deps.db.knex('import_runs').first()).toBeUndefined();
  });

  // Last: it changes the source.
  it('catches up with --since after the cut-over: what is new comes in, what changed is updated, a second catch-up changes nothing', async () => {
    const t = await target();
    const imports = new ProgramImports(t.app.deps);
    const src = () => new GrowSurfSource({ url: source.url, key: sourceKey });
    await imports.importProgram({ source: src(), programId: pid, teamId: t.teamId });
    // The minutes between the first run and the switch: sign-ups, credits, an approval, an unsubscribe, an invite that joins, a new reward.
    source.clock.advance(60_000);
    for (let i = 0; i < 25; i++) await restOk(source, sourceKey, 'POST', `/campaign/${pid}/participant`, { email: `late${i}@beans.example`, referredBy: i % 2 ? 'p1@beans.example' : undefined });
    for (let i = 41; i < 70; i++) if (i % 4 && i % 3) await restOk(source, sourceKey, 'POST', `/campaign/${pid}/participant/p${i}@beans.example/ref`, {});
    const [waiting] = (await restOk(source, sourceKey, 'GET', `/campaign/${pid}/participant/p1@beans.example/rewards`)).rewards.filter((r: { approved: boolean }) => !r.approved);
    await restOk(source, sourceKey, 'POST', `/campaign/${pid}/reward/${waiting.id}/approve`, {});
    await restOk(source, sourceKey, 'POST', `/campaign/${pid}/participant/p100@beans.example`, { unsubscribed: true, metadata: { tier: 'platinum' } });
    await restOk(source, sourceKey, 'POST', `/campaign/${pid}/participant`, { email: 'ivy@friends.example', referredBy: 'p0@beans.example' });
    await restOk(source, sourceKey, 'POST', `/campaign/${pid}/reward-configs`, { type: 'SINGLE_SIDED', title: 'Late reward', description: 'A sticker', isVisible: true });
    // The catch-up dates a credit by the source's Date header (its real clock); both test clocks move past
    // it, as live servers' clocks are, so the analytics window holds every credit on both sides.
    source.clock.current = Math.max(source.clock.current, Date.now()) + 120_000;
    t.app.clock.current = source.clock.current;
    before = await snapshot(source, sourceKey, pid);

    const report = await imports.importProgram({ source: src(), programId: pid, teamId: t.teamId, since: true, resume: true });
    expect(report.counts.participants.created).toBe(26);
    expect(report.counts.participants.updated).toBeGreaterThan(5);
    expect(report.counts.rewards.created).toBe(1);
    await expectSameAsSource(t.app, t.key);
    const again = await imports.importProgram({ source: src(), programId: pid, teamId: t.teamId, since: true, resume: true });
    for (const [kind, c] of Object.entries(again.counts)) expect(c.created + (c.updated ?? 0), kind).toBe(0);
    await expectSameAsSource(t.app, t.key);
  });

  it('connects only to the address its lookup answers (the console pins the address its outbound guard checked)', async () => {
    const port = new URL(source.url).port;
    const pinned = new GrowSurfSource({ url: `http://refloop-source.invalid:${port}`, key: sourceKey, attempts: 1, lookup: pinnedLookup('127.0.0.1', 4) });
    expect((await pinned.get<{ campaigns: Array<{ id: string }> }>('/campaigns')).campaigns.map((c) => c.id)).toContain(pid);
    pinned.close();
    const unpinned = new GrowSurfSource({ url: `http://refloop-source.invalid:${port}`, key: sourceKey, attempts: 1 });
    await expect(unpinned.get('/campaigns')).rejects.toThrow(/did not answer/);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
  });
});
