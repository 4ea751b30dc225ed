import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import fc from 'fast-check';
import { csvCell, majorUnits } from '../../../server/domain/affiliate/payout-export.ts';
import { TEN_PERCENT, addParticipant, commissionsOf, limitedKey, moneyProgram, referralProgram, refund, sale, type MoneyProgram } from '../../helpers/money.ts';

// Payouts (AF14, AF15) and the manual payout provider (PO1 run, PO2 status, PO3 CSV export), issue #6.

const DAY = 86_400_000;
let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS, WEBHOOK_ALLOW_PRIVATE: 'true' });
});
afterAll(async () => {
  await app.close();
});

const run = (p: MoneyProgram, key = p.key) => app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key, body: {} });
const setStatus = (p: MoneyProgram, id: string, status: string, key = p.key) => app.request('POST', `/v2/campaign/${p.pid}/payouts/${id}/status`, { key, body: { status } });
const csv = (p: MoneyProgram, query = '', key = p.key) => app.request('GET', `/v2/campaign/${p.pid}/payouts/export.csv${query}`, { key });
const payoutsOf = async (p: MoneyProgram, who?: string, query = '') => {
  const res = await app.request('GET', who ? `/v2/campaign/${p.pid}/participant/${who}/payouts${query}` : `/v2/campaign/${p.pid}/payouts${query}`, { key: p.key });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

/** Parses our CSV (every cell quoted). */
function parseCsv(text: string): string[][] {
  return text
    .trim()
    .split('\r\n')
    .map((line) => [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!.replace(/""/g, '"')));
}

describe('POST /campaign/:id/payouts/run', () => {
  it('groups approved commissions per affiliate above the threshold into UPCOMING payouts', async () => {
    const p = await moneyProgram(app, TEN_PERCENT, { options: { payoutThreshold: 2000 } });
    const small = await addParticipant(app, p.key, p.pid, { email: 'small-aff@example.com' });
    const smallCustomer = await addParticipant(app, p.key, p.pid, { email: 'small-cust@example.com', referredBy: small.id });
    await sale(app, p, { grossAmount: 15_000, orderId: 'a1' });
    await sale(app, p, { grossAmount: 10_000, orderId: 'a2' });
    await sale(app, p, { grossAmount: 10_000, orderId: 'b1' }, smallCustomer.id); // 1000 < threshold
    const res = await run(p);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, payoutsCreated: 1 });
    const [payout] = res.body.payouts;
    const ids = (await commissionsOf(app, p)).map((c) => c.id);
    expect(payout).toMatchObject({ participantId: p.affiliate.id, status: 'UPCOMING', amount: 2500, currencyISO: 'USD', amountInCampaignCurrency: 2500, campaignCurrencyISO: 'USD', issuedAt: null });
    expect([...payout.commissionIds].sort()).toEqual([...ids].sort());
    // Nothing is paid twice: a second run finds nothing new.
    expect((await run(p)).body.payoutsCreated).toBe(0);
    expect((await payoutsOf(p)).payouts).toHaveLength(1);
  });

  it('waits for the hold and for manual approval', async () => {
    const p = await moneyProgram(app, { ...TEN_PERCENT, holdDuration: 14 });
    await sale(app, p, { grossAmount: 10_000, orderId: 'h' });
    expect((await run(p)).body.payoutsCreated).toBe(0);
    app.clock.advance(14 * DAY);
    expect((await run(p)).body.payoutsCreated).toBe(1);
    const q = await moneyProgram(app, { ...TEN_PERCENT, approvalRequired: true });
    await sale(app, q, { grossAmount: 10_000, orderId: 'm' });
    expect((await run(q)).body.payoutsCreated).toBe(0);
    const [c] = await commissionsOf(app, q);
    await app.request('POST', `/v2/campaign/${q.pid}/commission/${c!.id}/approve`, { key: q.key });
    expect((await run(q)).body.payoutsCreated).toBe(1);
  });

  it('needs reward:write (403) and an affiliate program (422)', async () => {
    const p = await moneyProgram(app);
    const key = await limitedKey(app, p.teamId, ['reward:read']);
    expect((await run(p, key)).status).toBe(403);
    const r = await referralProgram(app);
    expect((await app.request('POST', `/v2/campaign/${r.pid}/payouts/run`, { key: r.key, body: {} })).status).toBe(422);
    expect((await app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key: p.key, body: { now: 1 } })).status).toBe(400);
  });
});

describe('POST /campaign/:id/payouts/:payoutId/status', () => {
  it('ISSUED marks the commissions PAID, counts an unread payout and emits NEW_PAYOUT_ISSUED', async () => {
    const p = await moneyProgram(app);
    await app.request('POST', `/v2/campaign/${p.pid}/webhooks`, { key: p.key, body: { payloadUrl: 'http://127.0.0.1:9/hook', events: ['NEW_PAYOUT_ISSUED'] } });
    await sale(app, p, { grossAmount: 10_000, orderId: 'i' });
    const payout = (await run(p)).body.payouts[0];
    const queued = await setStatus(p, payout.id, 'QUEUED');
    expect(queued.body).toMatchObject({ status: 'QUEUED', queuedAt: app.clock.now() });
    expect((await commissionsOf(app, p))[0]).toMatchObject({ status: 'APPROVED', payoutQueuedAt: app.clock.now() });
    app.clock.advance(1000);
    const issued = await setStatus(p, payout.id, 'ISSUED');
    expect(issued.status, issued.text).toBe(200);
    expect(issued.body).toMatchObject({ status: 'ISSUED', issuedAt: app.clock.now() });
    expect((await commissionsOf(app, p))[0]).toMatchObject({ status: 'PAID', paidAt: app.clock.now() });
    const affiliate = (await app.request('GET', `/v2/campaign/${p.pid}/participant/${p.affiliate.id}`, { key: p.key })).body;
    expect(affiliate.unreadPayoutsCount).toBe(1);
    const events = await app.deps.db.knex('webhook_events').where({ program_id: p.pid, event: 'NEW_PAYOUT_ISSUED' });
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload).data).toMatchObject({ campaign: { id: p.pid }, participant: { id: p.affiliate.id }, payout: { id: payout.id, status: 'ISSUED' } });
    expect((await setStatus(p, payout.id, 'ISSUED')).status).toBe(200); // same status: no change
    expect((await setStatus(p, payout.id, 'FAILED')).status).toBe(406);
    expect((await setStatus(p, payout.id, 'QUEUED')).status).toBe(406);
  });

  it('keeps a reason, when given, in the affiliate’s activity log; an empty or overlong one is 400', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'r' });
    const payout = (await run(p)).body.payouts[0];
    const status = (body: unknown) => app.request('POST', `/v2/campaign/${p.pid}/payouts/${payout.id}/status`, { key: p.key, body });
    const empty = await status({ status: 'FAILED', reason: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].field).toBe('reason');
    expect((await status({ status: 'FAILED', reason: 'x'.repeat(501) })).status).toBe(400);
    const failed = await status({ status: 'FAILED', reason: '  PayPal: receiver account unconfirmed ' });
    expect(failed.status, failed.text).toBe(200);
    const log = await app.deps.db.knex('activity_logs').where({ participant_id: p.affiliate.id, action: 'payout.status' });
    expect(log).toHaveLength(1);
    expect(log[0].text).toBe(`Payout ${payout.id} FAILED: PayPal: receiver account unconfirmed`);
    expect(JSON.parse(log[0].data)).toEqual({ payoutId: payout.id, status: 'FAILED', reason: 'PayPal: receiver account unconfirmed' });
  });

  it('FAILED releases the commissions for the next run', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'f' });
    const first = (await run(p)).body.payouts[0];
    expect((await setStatus(p, first.id, 'FAILED')).body).toMatchObject({ status: 'FAILED', failedAt: app.clock.now() });
    expect((await commissionsOf(app, p))[0]).toMatchObject({ status: 'APPROVED', payoutQueuedAt: null });
    const second = (await run(p)).body.payouts[0];
    expect(second).toMatchObject({ amount: 1000, commissionIds: first.commissionIds });
    expect((await setStatus(p, first.id, 'ISSUED')).status).toBe(406);
    expect((await payoutsOf(p, undefined, '?status=FAILED')).payouts.map((x: { id: string }) => x.id)).toEqual([first.id]);
  });

  it('answers 404 for unknown payouts and 400 for unknown statuses', async () => {
    const p = await moneyProgram(app);
    expect((await setStatus(p, 'nope', 'ISSUED')).status).toBe(404);
    expect((await setStatus(p, 'nope', 'UPCOMING')).status).toBe(400);
  });
});

describe('payout emails and the monthly run', () => {
  it('emails payoutPending on the run and payoutSentSuccess when issued, once the team is VERIFIED', async () => {
    const p = await moneyProgram(app);
    await app.deps.db.knex('teams').where({ id: p.teamId }).update({ verification_status: 'VERIFIED' });
    await sale(app, p, { grossAmount: 12_345, orderId: 'mail' });
    const payout = (await run(p)).body.payouts[0];
    await setStatus(p, payout.id, 'ISSUED');
    const subjects = (await app.deps.mailer.list({ to: p.affiliate.email })).map((m) => m.subject);
    expect(subjects).toEqual(expect.arrayContaining(['A payout of $12.35 is on its way', 'We sent you $12.35', 'You earned a $12.35 commission']));
  });

  it('sends nothing while the team is not VERIFIED', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 1000, orderId: 'quiet' });
    await setStatus(p, (await run(p)).body.payouts[0].id, 'ISSUED');
    expect(await app.deps.mailer.list({ to: p.affiliate.email })).toEqual([]);
  });

  it('runs payouts on the first day of the next month through the job runner', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'monthly' });
    await sale(app, p, { grossAmount: 10_000, orderId: 'monthly-2' });
    const jobs = await app.deps.db.knex('jobs').where({ type: 'payouts.monthly-run' }).where('payload', 'like', `%${p.pid}%`);
    expect(jobs).toHaveLength(1);
    const d = new Date(app.clock.now());
    app.clock.current = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    await app.deps.jobs.runDue(100);
    const list = await payoutsOf(p);
    expect(list.payouts).toEqual([expect.objectContaining({ status: 'UPCOMING', amount: 2000 })]);
  });
});

describe('refunds after payout', () => {
  it('carries a negative adjustment into the next payout', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'paid-1' });
    const payout = (await run(p)).body.payouts[0];
    await setStatus(p, payout.id, 'ISSUED');
    const res = await refund(app, p, { orderId: 'paid-1', amountRefunded: 4000 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, matched: 1, adjusted: 1, reversed: 0 });
    expect((await commissionsOf(app, p))[0]).toMatchObject({ status: 'PAID', amount: 600 });
    // The next sale's commission (2000) pays out less the 400 already paid for the refunded part.
    await sale(app, p, { grossAmount: 20_000, orderId: 'paid-2' });
    const next = (await run(p)).body.payouts[0];
    expect(next).toMatchObject({ amount: 1600, amountInCampaignCurrency: 1600 });
    // Cancelling part of the refund later (cumulative down) would need its refundId: 409.
    expect((await refund(app, p, { orderId: 'paid-1', amountRefunded: 1000 })).status).toBe(409);
  });

  it('keeps an upcoming payout as created and carries a refund made meanwhile into the next one', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'open-1' });
    const payout = (await run(p)).body.payouts[0];
    expect((await refund(app, p, { orderId: 'open-1', amountRefunded: 5000 })).body).toMatchObject({ adjusted: 1 });
    expect((await setStatus(p, payout.id, 'ISSUED')).body).toMatchObject({ amount: 1000 });
    await sale(app, p, { grossAmount: 10_000, orderId: 'open-2' });
    expect((await run(p)).body.payouts[0]).toMatchObject({ amount: 500 });
  });

  it('forgets adjustments of a failed payout’s commissions: they are paid at their new amount', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'fail-1' });
    const payout = (await run(p)).body.payouts[0];
    await refund(app, p, { orderId: 'fail-1', amountRefunded: 5000 });
    await setStatus(p, payout.id, 'FAILED');
    expect((await run(p)).body.payouts[0]).toMatchObject({ amount: 500 });
  });

  it('pays nothing while adjustments outweigh new commissions', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 'x1' });
    await setStatus(p, (await run(p)).body.payouts[0].id, 'ISSUED');
    await refund(app, p, { orderId: 'x1' });
    await sale(app, p, { grossAmount: 5000, orderId: 'x2' });
    expect((await run(p)).body.payoutsCreated).toBe(0); // 500 − 1000 < 0
    await sale(app, p, { grossAmount: 10_000, orderId: 'x3' });
    expect((await run(p)).body.payouts[0]).toMatchObject({ amount: 500 });
  });
});

describe('GET /campaign/:id/payouts/export.csv', () => {
  it('lists one row per payout with the destination, defusing formula cells', async () => {
    const p = await moneyProgram(app);
    await app.request('POST', `/v2/campaign/${p.pid}/participant/${p.affiliate.id}`, { key: p.key, body: { firstName: '=HYPERLINK("http://evil")', lastName: '+1-2' } });
    await app.deps.db.knex('payout_destinations').insert({
      id: 'dest1',
      program_id: p.pid,
      participant_id: p.affiliate.id,
      provider: 'PAYPAL',
      account: '@pay@example.com',
      country: 'US',
      status: 'CONFIRMED',
      created_at: app.clock.now(),
      updated_at: app.clock.now(),
    });
    await sale(app, p, { grossAmount: 12_345, orderId: 'c1' });
    const payout = (await run(p)).body.payouts[0];
    expect(payout.provider).toBe('PAYPAL');
    const res = await csv(p);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = parseCsv(res.text);
    expect(rows[0]).toEqual(['payout_id', 'participant_id', 'email', 'first_name', 'last_name', 'status', 'amount', 'currency', 'amount_minor', 'provider', 'account', 'country', 'destination_status', 'commission_count', 'created_at', 'codes']);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toEqual([
      payout.id,
      p.affiliate.id,
      p.affiliate.email,
      `'=HYPERLINK(""http://evil"")`.replace(/""/g, '"'),
      "'+1-2",
      'UPCOMING',
      '12.35',
      'USD',
      '1235',
      'PAYPAL',
      "'@pay@example.com",
      'US',
      'CONFIRMED',
      '1',
      new Date(payout.createdAt).toISOString(),
      '',
    ]);
    await setStatus(p, payout.id, 'ISSUED');
    expect(parseCsv((await csv(p)).text)).toHaveLength(1);
    expect(parseCsv((await csv(p, '?status=ISSUED')).text)).toHaveLength(2);
  });

  it('leaves the destination empty when the affiliate has none, needs reward:read, and is affiliate-only', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 1000, orderId: 'n' });
    await run(p);
    const rows = parseCsv((await csv(p)).text);
    expect(rows[1]!.slice(9, 13)).toEqual(['', '', '', '']);
    // A destination confirmed after the run is what the CSV pays to.
    const affiliateId = rows[1]![1]!;
    await app.deps.db.knex('payout_destinations').insert({ id: 'dest2', program_id: p.pid, participant_id: affiliateId, provider: 'WISECOM', account: 'wise@example.com', country: 'DE', status: 'CONFIRMED', created_at: 1, updated_at: 1 });
    expect(parseCsv((await csv(p)).text)[1]!.slice(9, 13)).toEqual(['WISECOM', 'wise@example.com', 'DE', 'CONFIRMED']);
    const key = await limitedKey(app, p.teamId, ['participant:read']);
    expect((await csv(p, '', key)).status).toBe(403);
    expect((await csv(p, '?status=LOST')).status).toBe(400);
    const r = await referralProgram(app);
    expect((await app.request('GET', `/v2/campaign/${r.pid}/payouts/export.csv`, { key: r.key })).status).toBe(422);
  });

  it('writes the PayPal and Wise upload files with ?format=, one currency with ?currency= (refloop extension, issue #23)', async () => {
    const p = await moneyProgram(app);
    await app.deps.db.knex('payout_destinations').insert({ id: `pp-${p.pid}`, program_id: p.pid, participant_id: p.affiliate.id, provider: 'PAYPAL', account: 'paid@pay.example.com', country: 'US', status: 'CONFIRMED', created_at: 1, updated_at: 1 });
    await sale(app, p, { grossAmount: 12_345, orderId: 'f1' });
    const payout = (await run(p)).body.payouts[0];
    const paypal = await csv(p, '?format=paypal');
    expect(paypal.status, paypal.text).toBe(200);
    expect(paypal.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(parseCsv(paypal.text)).toEqual([['paid@pay.example.com', '12.35', 'USD', payout.id, 'Affiliate commission payout', 'PAYPAL']]);
    // The Wise file has its header and leaves out the PayPal affiliate.
    expect(parseCsv((await csv(p, '?format=wise')).text)).toEqual([['name', 'recipientEmail', 'paymentReference', 'receiverType', 'amountCurrency', 'amount', 'sourceCurrency', 'targetCurrency']]);
    // The generic file is the default, and a currency filter (any case) keeps only that currency.
    expect((await csv(p, '?format=generic')).text).toBe((await csv(p)).text);
    expect(parseCsv((await csv(p, '?currency=usd')).text)).toHaveLength(2);
    expect(parseCsv((await csv(p, '?currency=EUR')).text)).toHaveLength(1);
    const bad = await csv(p, '?format=xml&currency=dollars');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['query.currency', 'query.format']);
  });
});

describe('GET /campaign/:id/payouts and …/participant/:p/payouts', () => {
  it('pages newest first per program and per affiliate, with a status filter', async () => {
    const p = await moneyProgram(app);
    const other = await addParticipant(app, p.key, p.pid, { email: 'other-aff@example.com' });
    const otherCustomer = await addParticipant(app, p.key, p.pid, { email: 'other-cust@example.com', referredBy: other.id });
    for (let i = 1; i <= 3; i++) {
      await sale(app, p, { grossAmount: 1000 * i, orderId: `p${i}` });
      await run(p);
    }
    await sale(app, p, { grossAmount: 1000, orderId: 'o1' }, otherCustomer.id);
    await run(p);
    const page1 = await payoutsOf(p, p.affiliate.id, '?limit=2');
    expect(page1.payouts.map((x: { amount: number }) => x.amount)).toEqual([300, 200]);
    const page2 = await payoutsOf(p, p.affiliate.id, `?limit=2&nextId=${page1.nextId}`);
    expect(page2).toMatchObject({ limit: 2, nextId: null });
    expect(page2.payouts.map((x: { amount: number }) => x.amount)).toEqual([100]);
    expect((await payoutsOf(p)).payouts).toHaveLength(4);
    expect((await payoutsOf(p, undefined, '?status=ISSUED')).payouts).toHaveLength(0);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/payouts?nextId=zzz`, { key: p.key })).status).toBe(400);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/participant/ghost@example.com/payouts`, { key: p.key })).status).toBe(400);
    const key = await limitedKey(app, p.teamId, ['participant:read']);
    expect((await app.request('GET', `/v2/campaign/${p.pid}/payouts`, { key })).status).toBe(403);
    const r = await referralProgram(app);
    expect((await app.request('GET', `/v2/campaign/${r.pid}/participant/${r.participantId}/payouts`, { key: r.key })).status).toBe(422);
  });
});

describe('CSV cells', () => {
  it('never lets a cell start with a formula character and round-trips the text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const cell = csvCell(text);
        const inner = cell.slice(1, -1).replace(/""/g, '"');
        const dangerous = /^[=+\-@\t\r]/.test(text);
        return !/^[=+\-@\t\r]/.test(inner) && inner === (dangerous ? `'${text}` : text) && cell.startsWith('"') && cell.endsWith('"');
      }),
    );
  });

  it('writes major units with the currency’s digits', () => {
    expect(majorUnits(1235, 'USD')).toBe('12.35');
    expect(majorUnits(5, 'USD')).toBe('0.05');
    expect(majorUnits(1500, 'JPY')).toBe('1500');
    expect(majorUnits(12345, 'KWD')).toBe('12.345');
    expect(majorUnits(-250, 'EUR')).toBe('-2.50');
  });
});

// Issue #32 (counts per state): AF17 counts the very rows AF14 lists.
describe('GET /campaign/:id/payouts/counts (AF17)', () => {
  const counts = (p: { pid: string; key: string }, query = '', key = p.key) => app.request('GET', `/v2/campaign/${p.pid}/payouts/counts${query}`, { key });
  /** Every payout AF14 lists for `status` (none: no filter), paged two at a time. */
  const listed = async (p: MoneyProgram, status?: string) => {
    let n = 0;
    let nextId: string | null = null;
    do {
      const body: { payouts: unknown[]; nextId: string | null } = await payoutsOf(p, undefined, `?${['limit=2', ...(status ? [`status=${status}`] : []), ...(nextId ? [`nextId=${nextId}`] : [])].join('&')}`);
      n += body.payouts.length;
      nextId = body.nextId;
    } while (nextId);
    return n;
  };

  it('counts the payouts in each status and ALL, each equal to the rows AF14 lists', async () => {
    const p = await moneyProgram(app);
    const other = await addParticipant(app, p.key, p.pid, { email: 'counts-aff2@example.com' });
    const otherCustomer = await addParticipant(app, p.key, p.pid, { email: 'counts-cust2@example.com', referredBy: other.id });
    const ids: string[] = [];
    for (let i = 1; i <= 7; i++) {
      await sale(app, p, { grossAmount: 1000 * i, orderId: `k${i}` }, i === 7 ? otherCustomer.id : p.customer.id);
      const created = await run(p);
      expect(created.body.payoutsCreated, created.text).toBe(1);
      ids.push(created.body.payouts[0].id);
    }
    // ids[0] QUEUED; ids[1] ISSUED; ids[2] ISSUED then REVERSED; ids[3] FAILED; ids[4..6] UPCOMING.
    for (const [i, statuses] of [[0, ['QUEUED']], [1, ['ISSUED']], [2, ['ISSUED', 'REVERSED']], [3, ['FAILED']]] as const) {
      for (const s of statuses) expect((await setStatus(p, ids[i]!, s)).status).toBe(200);
    }
    // Another program's payouts are not counted.
    const elsewhere = await moneyProgram(app);
    await sale(app, elsewhere, { grossAmount: 1000, orderId: 'x' });
    await run(elsewhere);

    const res = await counts(p);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ UPCOMING: 3, QUEUED: 1, ISSUED: 1, FAILED: 1, REVERSED: 1, ALL: 7 });
    for (const s of ['UPCOMING', 'QUEUED', 'ISSUED', 'FAILED', 'REVERSED']) expect(res.body[s], s).toBe(await listed(p, s));
    expect(res.body.ALL).toBe(await listed(p));
  });

  it('answers zeros without payouts, 400 for a query parameter, 403 without reward:read, and 422 on referral programs as AF14 does', async () => {
    const p = await moneyProgram(app);
    expect((await counts(p)).body).toEqual({ UPCOMING: 0, QUEUED: 0, ISSUED: 0, FAILED: 0, REVERSED: 0, ALL: 0 });
    expect((await counts(p, '?status=UPCOMING')).status).toBe(400);
    const denied = await counts(p, '', await limitedKey(app, p.teamId, ['participant:read']));
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('NOT_AUTHORIZED_ERROR');
    expect((await counts(p, '', await limitedKey(app, p.teamId, ['reward:read']))).status).toBe(200);
    const r = await referralProgram(app);
    const list = await app.request('GET', `/v2/campaign/${r.pid}/payouts`, { key: r.key });
    const wrong = await counts(r);
    expect(wrong.status).toBe(422);
    expect({ ...wrong.body, timestamp: undefined }).toEqual({ ...list.body, timestamp: undefined });
  });
});
