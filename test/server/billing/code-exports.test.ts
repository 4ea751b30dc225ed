import { describe, expect, it } from 'vitest';
import { addParticipant, moneyProgram, sale } from '../../helpers/money.ts';
import { parseCsv } from '../../../shared/csv.ts';
import { PARTICIPANT_EXPORT_HEADER } from '../../../server/domain/participants/participant-export.ts';
import { COMMISSION_EXPORT_HEADER } from '../../../server/domain/affiliate/commission-export.ts';
import { GENERIC_CSV_HEADER } from '../../../server/domain/affiliate/payout-export.ts';
import { connectStripe, deliver, stripeEvent } from './stripe-helpers.ts';
import { PADDLE_API_KEY, PADDLE_SECRET, connectPaddle, deliverPaddle, paddleSuite, paddleEvent } from './paddle-helpers.ts';

// Codes in the CSV exports (issue #25): the participants export (DX1), the commissions export (DX4)
// and the payouts' generic CSV (PO3) end with the participant's coupon and promotion codes; a
// commission's row names the code that attributed its sale. The existing columns stay as they were.

const suite = paddleSuite();
const { customers } = suite;

/** A CSV as objects keyed by its header row, after checking the header. */
function rows(text: string, header: readonly string[]): Array<Record<string, string>> {
  const [head, ...rest] = parseCsv(text);
  expect(head!.cells).toEqual([...header]);
  return rest.map((r) => Object.fromEntries(header.map((h, i) => [h, r.cells[i]!])));
}

describe('codes in the CSV exports', () => {
  it('appends each participant’s codes to DX1, the affiliate’s codes and the attributing code to DX4, and the codes to PO3', async () => {
    const p = await moneyProgram(suite.app);
    const codes = `/v2/campaign/${p.pid}/participant/${p.affiliate.id}/codes`;
    expect((await suite.app.request('POST', codes, { key: p.key, body: { code: 'JANE20', stripePromotionCodeId: 'promo_1PqJane20' } })).status).toBe(200);
    expect((await suite.app.request('POST', codes, { key: p.key, body: { code: 'jane-vip', paddleDiscountId: 'dsc_01hvjanevip' } })).status).toBe(200);

    // A sale the promotion code attributed (a new customer, no referral), and one recorded over REST.
    const { path: endpoint } = await connectStripe(suite.app, p.key, p.pid);
    const byCode = stripeEvent('checkout.session.completed.payment', (e, o) => {
      e.id = 'evt_code_sale';
      o.client_reference_id = null;
      o.customer_details.email = `coded-${p.pid}@example.com`;
      o.discounts = [{ coupon: null, promotion_code: 'promo_1PqJane20' }];
    });
    expect((await deliver(suite.app, endpoint, byCode)).body.outcome).toBe('ACCEPTED');
    suite.app.clock.advance(1000);
    expect((await sale(suite.app, p, { grossAmount: 5000, orderId: 'plain-1' })).status).toBe(200);

    const dx1 = await suite.app.request('GET', `/v2/campaign/${p.pid}/export/participants.csv`, { key: p.key });
    expect(dx1.status, dx1.text).toBe(200);
    const participants = rows(dx1.text, [...PARTICIPANT_EXPORT_HEADER, 'codes']);
    const byId = Object.fromEntries(participants.map((r) => [r.id, r]));
    expect(byId[p.affiliate.id]!.codes).toBe('JANE20 jane-vip');
    expect(byId[p.customer.id]!.codes).toBe('');
    expect(participants.find((r) => r.email === `coded-${p.pid}@example.com`)).toMatchObject({ referrerId: p.affiliate.id, codes: '' });

    const dx4 = await suite.app.request('GET', `/v2/campaign/${p.pid}/export/commissions.csv`, { key: p.key });
    expect(dx4.status, dx4.text).toBe(200);
    const commissions = rows(dx4.text, [...COMMISSION_EXPORT_HEADER, 'affiliateCodes', 'attributedCode']);
    expect(commissions.map((c) => [c.saleAmount, c.affiliateCodes, c.attributedCode])).toEqual([
      ['10000', 'JANE20 jane-vip', 'JANE20'],
      ['5000', 'JANE20 jane-vip', ''],
    ]);

    // The code deleted later: the sale still says which code attributed it.
    const list = await suite.app.request('GET', `/v2/campaign/${p.pid}/codes`, { key: p.key });
    const jane = list.body.codes.find((c: { code: string }) => c.code === 'JANE20');
    expect((await suite.app.request('DELETE', `/v2/campaign/${p.pid}/codes/${jane.id}`, { key: p.key })).status).toBe(200);
    const after = rows((await suite.app.request('GET', `/v2/campaign/${p.pid}/export/commissions.csv`, { key: p.key })).text, [...COMMISSION_EXPORT_HEADER, 'affiliateCodes', 'attributedCode']);
    expect(after.map((c) => [c.affiliateCodes, c.attributedCode])).toEqual([
      ['jane-vip', 'JANE20'],
      ['jane-vip', ''],
    ]);

    const run = await suite.app.request('POST', `/v2/campaign/${p.pid}/payouts/run`, { key: p.key, body: {} });
    expect(run.status, run.text).toBe(200);
    const po3 = await suite.app.request('GET', `/v2/campaign/${p.pid}/payouts/export.csv`, { key: p.key });
    expect(po3.status, po3.text).toBe(200);
    const payouts = rows(po3.text, GENERIC_CSV_HEADER);
    expect(GENERIC_CSV_HEADER.at(-1)).toBe('codes');
    expect(payouts.map((r) => [r.participant_id, r.codes])).toEqual([[p.affiliate.id, 'jane-vip']]);
  });

  it('names the Paddle discount’s code in attributedCode when the discount attributed the sale', async () => {
    const p = await moneyProgram(suite.app);
    expect((await suite.app.request('POST', `/v2/campaign/${p.pid}/participant/${p.affiliate.id}/codes`, { key: p.key, body: { code: 'PADDLE15', paddleDiscountId: 'dsc_01hvpaddle15code' } })).status).toBe(200);
    const { path: endpoint } = await connectPaddle(suite.app, p.key, p.pid, { webhookSecretKey: PADDLE_SECRET, apiKey: PADDLE_API_KEY });
    const ctm = 'ctm_01hvcodeexportcustomer0001';
    customers.set(ctm, { email: `paddle-coded-${p.pid}@example.com`, name: 'Pat Coded' });
    const txn = paddleEvent('transaction.completed', (_e, d) => ((d.customer_id = ctm), (d.custom_data = null), (d.discount_id = 'dsc_01hvpaddle15code')));
    expect((await deliverPaddle(suite.app, endpoint, txn)).body.outcome).toBe('ACCEPTED');
    const dx4 = rows((await suite.app.request('GET', `/v2/campaign/${p.pid}/export/commissions.csv`, { key: p.key })).text, [...COMMISSION_EXPORT_HEADER, 'affiliateCodes', 'attributedCode']);
    expect(dx4.map((c) => [c.affiliateCodes, c.attributedCode])).toEqual([['PADDLE15', 'PADDLE15']]);
  });

  it('imports a participants export with its codes column again (the column is read past)', async () => {
    const p = await moneyProgram(suite.app);
    await addParticipant(suite.app, p.key, p.pid, { email: `again-${p.pid}@example.com` });
    expect((await suite.app.request('POST', `/v2/campaign/${p.pid}/participant/${p.affiliate.id}/codes`, { key: p.key, body: { code: 'AGAIN10', stripeCouponId: 'again10' } })).status).toBe(200);
    const exported = parseCsv((await suite.app.request('GET', `/v2/campaign/${p.pid}/export/participants.csv`, { key: p.key })).text);
    // The header and the affiliate's row (codes "AGAIN10"; no referrer to list first).
    const row = exported.find((r) => r.cells[1] === p.affiliate.email)!;
    expect(row.cells.at(-1)).toBe('AGAIN10');
    const csv = [exported[0]!, row].map((r) => r.cells.map((c) => `"${c.replace(/"/g, '""')}"`).join(',')).join('\r\n');
    const other = await moneyProgram(suite.app);
    const res = await suite.app.request('POST', `/v2/campaign/${other.pid}/import/participants?dryRun=true`, { key: other.key, body: { csv } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ errors: [] });
  });
});
