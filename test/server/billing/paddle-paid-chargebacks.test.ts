import { describe, expect, it } from 'vitest';
import { verifiedAccount } from '../../helpers/app.ts';
import { addParticipant, commissionsOf, moneyProgram, type MoneyProgram } from '../../helpers/money.ts';
import { PADDLE_API_KEY, PADDLE_SECRET, connectPaddle, deliverPaddle, paddleSuite, paddleEvent, paddleLog } from './paddle-helpers.ts';

// Issue #25, the last gaps of the Paddle integration: transaction.paid records the sale as
// transaction.completed does (one sale whichever arrives first, or both), and chargeback
// adjustments go through the refund path (a chargeback_reverse takes one back). Notifications are
// signed as Paddle signs them; customers' emails come from a local stand-in of Paddle's API.

const suite = paddleSuite();
const { customers } = suite;

let seq = 0;
/** An affiliate program connected to Paddle with the API key, and a fresh Paddle customer whose email is the program's referred customer's. */
async function connected(): Promise<MoneyProgram & { endpoint: string; ctm: string }> {
  const p = await moneyProgram(suite.app);
  const { path: endpoint } = await connectPaddle(suite.app, p.key, p.pid, { webhookSecretKey: PADDLE_SECRET, apiKey: PADDLE_API_KEY });
  seq += 1;
  const ctm = `ctm_01hvpaidchargeback${String(seq).padStart(9, '0')}`;
  customers.set(ctm, { email: p.customer.email, name: null });
  return { ...p, endpoint, ctm };
}

const paid = (ctm: string) => paddleEvent('transaction.paid', (_e, d) => (d.customer_id = ctm));
const completed = (ctm: string) => paddleEvent('transaction.completed', (_e, d) => (d.customer_id = ctm));

/** An adjustment of the fixture's transaction (9900 with 900 tax) with action `action`, created approved as Paddle does for disputes. */
function adjustment(action: string, id: string, total = '9900') {
  return paddleEvent('adjustment.created', (e, d) => {
    e.event_id = `evt_${id}`;
    d.id = `adj_${id}`;
    d.action = action;
    d.status = 'approved';
    d.reason = action === 'chargeback' ? 'Customer disputed the charge with their card issuer.' : 'Paddle won the dispute.';
    d.totals.total = total;
    for (const item of d.items) item.type = 'full';
  });
}

describe('POST /integrations/paddle/:connectionId/webhook: transaction.paid', () => {
  it('records the sale from transaction.paid; transaction.completed of the same transaction is then a DUPLICATE', async () => {
    const p = await connected();
    const first = await deliverPaddle(suite.app, p.endpoint, paid(p.ctm));
    expect(first.body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(suite.app, p)).map((c) => [c.amount, c.saleAmount])).toEqual([[900, 9000]]);
    expect((await deliverPaddle(suite.app, p.endpoint, completed(p.ctm))).body.outcome).toBe('DUPLICATE');
    expect((await commissionsOf(suite.app, p)).length).toBe(1);
    const log = await paddleLog(suite.app, p.key, p.pid);
    expect(log.map((e) => [e.type, e.outcome])).toEqual([
      ['transaction.completed', 'DUPLICATE'],
      ['transaction.paid', 'ACCEPTED'],
    ]);
    expect(log[0]!.transactionId).toBe(log[1]!.transactionId);
  });

  it('counts the transaction once when transaction.completed comes first, and when both arrive at once', async () => {
    const p = await connected();
    expect((await deliverPaddle(suite.app, p.endpoint, completed(p.ctm))).body.outcome).toBe('ACCEPTED');
    expect((await deliverPaddle(suite.app, p.endpoint, paid(p.ctm))).body.outcome).toBe('DUPLICATE');
    expect((await commissionsOf(suite.app, p)).length).toBe(1);

    const q = await connected();
    const outcomes = (await Promise.all([deliverPaddle(suite.app, q.endpoint, paid(q.ctm)), deliverPaddle(suite.app, q.endpoint, completed(q.ctm))])).map((r) => r.body.outcome);
    expect(outcomes.sort()).toEqual(['ACCEPTED', 'DUPLICATE']);
    expect((await commissionsOf(suite.app, q)).length).toBe(1);
  });

  it('credits a REFERRAL program’s referral once from transaction.paid and transaction.completed', async () => {
    const acct = await verifiedAccount(suite.app);
    const pid = (await suite.app.request('POST', '/v2/campaigns', { key: acct.key, body: { type: 'REFERRAL' } })).body.id;
    const referrer = await addParticipant(suite.app, acct.key, pid, { email: `referrer-${pid}@example.com` });
    const { path: endpoint } = await connectPaddle(suite.app, acct.key, pid, { webhookSecretKey: PADDLE_SECRET, apiKey: PADDLE_API_KEY });
    const ctm = 'ctm_01hvpaidreferralfriend0000';
    customers.set(ctm, { email: `friend-${pid}@example.com`, name: 'Fran Friend' });
    const withReferral = (e: any) => ((e.data.customer_id = ctm), (e.data.custom_data = { refloop_referral: referrer.id }), e);
    expect((await deliverPaddle(suite.app, endpoint, withReferral(paid(ctm)))).body.outcome).toBe('ACCEPTED');
    await deliverPaddle(suite.app, endpoint, withReferral(completed(ctm)));
    const list = await suite.app.request('GET', `/v2/campaign/${pid}/participant/${referrer.id}`, { key: acct.key });
    expect(list.body.referralCount).toBe(1);
  });
});

describe('POST /integrations/paddle/:connectionId/webhook: chargebacks', () => {
  it('applies a chargeback through the refund path once, and a chargeback_reverse restores the commission once', async () => {
    const p = await connected();
    await deliverPaddle(suite.app, p.endpoint, completed(p.ctm));
    const chargeback = adjustment('chargeback', `01hvchargeback${p.pid}`);
    expect((await deliverPaddle(suite.app, p.endpoint, chargeback)).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(suite.app, p, '?status=REVERSED'))[0]).toMatchObject({ amount: 0, status: 'REVERSED' });
    // The same adjustment in another notification: already applied.
    const again = adjustment('chargeback', `01hvchargeback${p.pid}`);
    again.event_id = `evt_01hvchargebackagain${p.pid}`;
    expect((await deliverPaddle(suite.app, p.endpoint, again)).body.outcome).toBe('DUPLICATE');
    expect((await paddleLog(suite.app, p.key, p.pid))[1]!.reason).toContain('Chargeback adj_01hvchargeback');
    // Paddle won the dispute.
    const reverse = adjustment('chargeback_reverse', `01hvchargebackreverse${p.pid}`);
    expect((await deliverPaddle(suite.app, p.endpoint, reverse)).body.outcome).toBe('ACCEPTED');
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 900, status: 'APPROVED' });
    const reverseAgain = adjustment('chargeback_reverse', `01hvchargebackreverse${p.pid}`);
    reverseAgain.event_id = `evt_01hvreverseagain${p.pid}`;
    expect((await deliverPaddle(suite.app, p.endpoint, reverseAgain)).body.outcome).toBe('DUPLICATE');
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 900 });
  });

  it('applies a partial chargeback in proportion, holds one that arrives before its sale, and ignores warnings', async () => {
    const p = await connected();
    const early = await deliverPaddle(suite.app, p.endpoint, adjustment('chargeback', `01hvearlycb${p.pid}`, '3300'));
    expect(early.body.outcome).toBe('DEFERRED');
    const warning = await deliverPaddle(suite.app, p.endpoint, adjustment('chargeback_warning', `01hvwarning${p.pid}`));
    expect(warning.body.outcome).toBe('IGNORED');
    expect((await paddleLog(suite.app, p.key, p.pid))[0]!.reason).toContain('a warning');
    expect((await deliverPaddle(suite.app, p.endpoint, adjustment('chargeback_reverse', `01hvnothing${p.pid}`))).body.outcome).toBe('IGNORED');
    suite.app.clock.advance(1000);
    expect((await deliverPaddle(suite.app, p.endpoint, completed(p.ctm))).body.outcome).toBe('ACCEPTED');
    // 3300 of 9900: the commission goes down by a third.
    expect((await commissionsOf(suite.app, p))[0]).toMatchObject({ amount: 600 });
    const log = await paddleLog(suite.app, p.key, p.pid);
    expect(log.find((e) => e.eventId === `evt_01hvearlycb${p.pid}`)).toMatchObject({ outcome: 'ACCEPTED', reason: expect.stringContaining('applied when its sale arrived') });
  });
});
