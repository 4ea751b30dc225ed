import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp, RAISED_LIMITS } from '../../helpers/app.ts';
import { PayoutProviders, manualProvider, type PayoutProvider, type SendOutcome } from '../../../server/domain/affiliate/payout-providers.ts';
import type { PayoutLine } from '../../../server/domain/affiliate/payout-export.ts';
import { addParticipant, commissionsOf, moneyProgram, sale, type MoneyProgram } from '../../helpers/money.ts';
import type { Program } from '../../../server/domain/programs/programs.ts';

// The payout provider interface and registry, and the manual provider's batch files (issue #6).

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ ...RAISED_LIMITS });
});
afterAll(async () => {
  await app.close();
});

let seq = 0;
/** Stores a payout destination for the affiliate, as the confirmation flow leaves it. */
async function destination(p: MoneyProgram, participantId: string, d: { provider: string; account: string; status?: string; country?: string; legalName?: string; legalEntityType?: string }) {
  await app.deps.db.knex('payout_destinations').insert({
    id: `dst${++seq}${p.pid.slice(0, 8)}`,
    program_id: p.pid,
    participant_id: participantId,
    provider: d.provider,
    account: d.account,
    country: d.country ?? 'US',
    status: d.status ?? 'CONFIRMED',
    legal_name: d.legalName ?? null,
    legal_entity_type: d.legalEntityType ?? null,
    created_at: app.clock.now(),
    updated_at: app.clock.now(),
  });
}

/** An affiliate with one referred customer. */
async function affiliate(p: MoneyProgram, name: string) {
  const a = await addParticipant(app, p.key, p.pid, { email: `${name}-${p.pid}@example.com`, firstName: name, lastName: 'Doe' });
  const c = await addParticipant(app, p.key, p.pid, { email: `${name}-cust-${p.pid}@example.com`, referredBy: a.id });
  return { ...a, customer: c.id };
}

const programOf = async (p: MoneyProgram): Promise<Program> => (await import('../../../server/domain/programs/programs.ts')).toProgram(await app.deps.db.knex('programs').where({ id: p.pid }).first());
const run = (p: MoneyProgram) => app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key: p.key, body: {} });

/** Splits our CSV (every cell quoted) into rows of cells. */
function parseCsv(text: string): string[][] {
  return text
    .split('\r\n')
    .filter(Boolean)
    .map((line) => [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!.replace(/""/g, '"')));
}

describe('PayoutProviders registry', () => {
  it('has the manual provider, which exports and lets the owner mark but never sends', () => {
    const r = new PayoutProviders();
    expect(r.names()).toEqual(['manual']);
    expect(r.get('manual').capabilities).toEqual({ export: true, send: false, ownerMarks: true });
    expect(manualProvider.send).toBeUndefined();
    expect(() => r.get('paypal')).toThrow(/No payout provider paypal/);
  });

  it('refuses adapters whose capability flags do not match what they implement', () => {
    const r = new PayoutProviders();
    const liar: PayoutProvider = { name: 'liar', capabilities: { export: false, send: true, ownerMarks: false }, exportFormats: [] };
    expect(() => r.register(liar)).toThrow(/claims capabilities/);
    const mute: PayoutProvider = { name: 'mute', capabilities: { export: false, send: false, ownerMarks: false }, exportFormats: [] };
    expect(() => r.register(mute)).toThrow(/neither send nor/);
    expect(() => r.register({ ...manualProvider })).toThrow(/already registered/);
    expect(() => r.register({ ...manualProvider, name: 'Bad Name' })).toThrow(/lower-case/);
  });
});

describe('manual provider batch files', () => {
  it('writes a PayPal Payouts upload for confirmed PayPal and Venmo destinations and lists what it left out', async () => {
    const p = await moneyProgram(app);
    const pal = await affiliate(p, 'pal');
    const ven = await affiliate(p, 'ven');
    const wise = await affiliate(p, 'wiz');
    const pending = await affiliate(p, 'pend');
    await destination(p, pal.id, { provider: 'PAYPAL', account: 'pal@pay.example.com' });
    await destination(p, ven.id, { provider: 'VENMO', account: 'ven@pay.example.com' });
    await destination(p, wise.id, { provider: 'WISECOM', account: 'wiz@pay.example.com', country: 'DE' });
    await destination(p, pending.id, { provider: 'PAYPAL', account: 'pend@pay.example.com', status: 'PENDING' });
    for (const [who, gross] of [[pal, 12_345], [ven, 5000], [wise, 7000], [pending, 1000]] as const) {
      expect((await sale(app, p, { grossAmount: gross, orderId: `o-${who.id}` }, who.customer)).status).toBe(200);
    }
    await sale(app, p, { grossAmount: 3000, orderId: 'no-dest' }); // the fixture's affiliate has no destination
    const payouts = (await run(p)).body.payouts as Array<{ id: string; participantId: string }>;
    expect(payouts).toHaveLength(5);
    const idOf = (pid: string) => payouts.find((x) => x.participantId === pid)!.id;
    const program = await programOf(p);

    const file = await app.deps.payouts.exportBatch(program, { format: 'paypal' });
    expect(file.fileName).toBe('payouts-paypal.csv');
    // No header row: PayPal reads the first line as a payment. One run: rows in payout id order.
    const rows = parseCsv(file.body);
    expect(rows).toHaveLength(2);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['pal@pay.example.com', '12.35', 'USD', idOf(pal.id), 'Affiliate commission payout', 'PAYPAL'],
        ['ven@pay.example.com', '5.00', 'USD', idOf(ven.id), 'Affiliate commission payout', 'VENMO'],
      ]),
    );
    expect(file.payoutIds).toEqual(rows.map((r) => r[3]));
    expect(file.skipped).toEqual(
      expect.arrayContaining([
        { payoutId: idOf(wise.id), reason: 'destination is WISECOM' },
        { payoutId: idOf(pending.id), reason: 'destination is PENDING' },
        { payoutId: idOf(p.affiliate.id), reason: 'destination is missing' },
      ]),
    );
    expect(file.skipped).toHaveLength(3);
    // The generic CSV (REST PO3) still lists every payout.
    expect(parseCsv(await app.deps.payouts.exportCsv(program))).toHaveLength(6);
  });

  it('writes Wise’s send-by-email template with the legal name and recipient type', async () => {
    const p = await moneyProgram(app);
    const biz = await affiliate(p, 'biz');
    const person = await affiliate(p, 'per');
    await destination(p, biz.id, { provider: 'WISECOM', account: 'acc@biz.example.com', country: 'DE', legalName: 'Biz GmbH', legalEntityType: 'BUSINESS' });
    await destination(p, person.id, { provider: 'WISECOM', account: 'per@wise.example.com', country: 'FR' });
    await sale(app, p, { grossAmount: 20_000, orderId: 'w1' }, biz.customer);
    await sale(app, p, { grossAmount: 999, orderId: 'w2' }, person.customer);
    const payouts = (await run(p)).body.payouts as Array<{ id: string; participantId: string }>;
    const idOf = (pid: string) => payouts.find((x) => x.participantId === pid)!.id;
    const file = await app.deps.payouts.exportBatch(await programOf(p), { format: 'wise' });
    const [header, ...rows] = parseCsv(file.body);
    expect(header).toEqual(['name', 'recipientEmail', 'paymentReference', 'receiverType', 'amountCurrency', 'amount', 'sourceCurrency', 'targetCurrency']);
    expect(rows).toHaveLength(2);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['Biz GmbH', 'acc@biz.example.com', idOf(biz.id), 'BUSINESS', 'target', '20.00', 'USD', 'USD'],
        ['per Doe', 'per@wise.example.com', idOf(person.id), 'PERSON', 'target', '1.00', 'USD', 'USD'],
      ]),
    );
  });

  it('asks for one currency in a PayPal file when payouts span several', async () => {
    const p = await moneyProgram(app);
    await destination(p, p.affiliate.id, { provider: 'PAYPAL', account: 'multi@pay.example.com' });
    const program = await programOf(p);
    const now = app.clock.now();
    // Two payouts of one affiliate in two currencies, as a run over EUR and USD sales leaves them.
    for (const [id, cur] of [['px-usd-' + p.pid.slice(0, 6), 'USD'], ['px-eur-' + p.pid.slice(0, 6), 'EUR']]) {
      await app.deps.db.knex('payouts').insert({
        id,
        program_id: p.pid,
        participant_id: p.affiliate.id,
        status: 'UPCOMING',
        currency_iso: cur,
        amount: 1000,
        campaign_currency_iso: 'USD',
        amount_in_campaign_currency: 1000,
        commission_ids: '[]',
        created_at: now,
        updated_at: now,
      });
    }
    await expect(app.deps.payouts.exportBatch(program, { format: 'paypal' })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/one currency/) });
    const eur = await app.deps.payouts.exportBatch(program, { format: 'paypal', currency: 'EUR' });
    expect(parseCsv(eur.body)).toEqual([['multi@pay.example.com', '10.00', 'EUR', 'px-eur-' + p.pid.slice(0, 6), 'Affiliate commission payout', 'PAYPAL']]);
    expect(eur.fileName).toBe('payouts-paypal-EUR.csv');
  });
});

describe('sending through a provider', () => {
  it('the manual provider cannot send (406); nothing changes', async () => {
    const p = await moneyProgram(app);
    await sale(app, p, { grossAmount: 10_000, orderId: 's1' });
    const payout = (await run(p)).body.payouts[0];
    await expect(app.deps.payouts.send(await programOf(p), payout.id, 'manual')).rejects.toMatchObject({ status: 406 });
    expect((await commissionsOf(app, p))[0]).toMatchObject({ status: 'APPROVED' });
  });

  it('applies what a sending adapter answers: UNKNOWN changes nothing, ISSUED pays, FAILED releases', async () => {
    const answers: SendOutcome[] = [];
    const seen: PayoutLine[] = [];
    const name = `test-sender-${++seq}`;
    app.deps.payouts.providers.register({
      name,
      capabilities: { export: false, send: true, ownerMarks: false },
      exportFormats: [],
      async send(line) {
        seen.push(line);
        return answers.shift()!;
      },
    });
    const p = await moneyProgram(app);
    await destination(p, p.affiliate.id, { provider: 'PAYPAL', account: 'send@pay.example.com' });
    await sale(app, p, { grossAmount: 10_000, orderId: 'send-1' });
    const program = await programOf(p);
    const payout = (await run(p)).body.payouts[0];

    answers.push({ outcome: 'UNKNOWN', reason: 'timeout' });
    expect((await app.deps.payouts.send(program, payout.id, name)).payout.status).toBe('UPCOMING');
    expect(seen[0]!.destination).toMatchObject({ provider: 'PAYPAL', account: 'send@pay.example.com', status: 'CONFIRMED' });

    answers.push({ outcome: 'ISSUED', reference: 'PP-123' });
    expect((await app.deps.payouts.send(program, payout.id, name)).payout).toMatchObject({ status: 'ISSUED', issuedAt: app.clock.now() });
    expect((await commissionsOf(app, p))[0]).toMatchObject({ status: 'PAID' });
    // An issued payout is not sent again.
    await expect(app.deps.payouts.send(program, payout.id, name)).rejects.toMatchObject({ status: 406 });
    expect(seen).toHaveLength(2);

    await sale(app, p, { grossAmount: 10_000, orderId: 'send-2' });
    const second = (await run(p)).body.payouts[0];
    answers.push({ outcome: 'FAILED', reason: 'recipient unconfirmed' });
    expect((await app.deps.payouts.send(program, second.id, name)).payout.status).toBe('FAILED');
    expect((await commissionsOf(app, p))[0]).toMatchObject({ status: 'APPROVED', payoutQueuedAt: null });
    const log = await app.deps.db.knex('activity_logs').where({ participant_id: p.affiliate.id, action: 'payout.status' }).orderBy('seq');
    expect(log.map((r: { text: string }) => r.text)).toEqual([`Payout ${payout.id} ISSUED: ${name}: reference PP-123`, `Payout ${second.id} FAILED: ${name}: recipient unconfirmed`]);
    await expect(app.deps.payouts.send(program, 'nope', name)).rejects.toMatchObject({ status: 404 });
    await expect(app.deps.payouts.send(program, payout.id, 'no-such')).rejects.toMatchObject({ status: 400 });
  });
});
