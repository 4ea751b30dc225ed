// @vitest-environment happy-dom
// Attribution into Stripe (issue #25): the chunk the page stage loads for a pending referral puts the
// referrer's code into Payment Links' `client_reference_id` and the `client-reference-id` attribute of
// Buy Buttons and Pricing Tables, on the page and as they are added, keeping a merchant's own value
// unless the mode is OVERWRITE.
import { afterEach, describe, expect, it } from 'vitest';
import { tag, tagAll, watch } from '../../widget/attribution/stripe.ts';

const page = `
<a id="link" href="https://buy.stripe.com/test_14k3dG">Buy</a>
<a id="linkq" href="https://buy.stripe.com/test_14k3dG?prefilled_email=a%40b.c">Buy with email</a>
<a id="own" href="https://buy.stripe.com/test_9Aq?client_reference_id=order-77">Merchant's own</a>
<a id="other" href="https://example.com/buy.stripe.com/x">Not Stripe</a>
<a id="checkout" href="https://checkout.stripe.com/c/pay/cs_test_1">Hosted checkout session</a>
<stripe-buy-button id="button" buy-button-id="buy_btn_1" publishable-key="pk_test_1"></stripe-buy-button>
<stripe-pricing-table id="table" pricing-table-id="prctbl_1" publishable-key="pk_test_1" client-reference-id="merchant-9"></stripe-pricing-table>`;

const href = (id: string) => (document.getElementById(id) as HTMLAnchorElement).href;
const attr = (id: string) => document.getElementById(id)!.getAttribute('client-reference-id');
/** Lets MutationObserver callbacks run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

let observer: MutationObserver | null = null;
afterEach(() => {
  observer?.disconnect();
  observer = null;
  document.body.innerHTML = '';
});

describe('the Stripe client reference on the page', () => {
  it('FILL: sets the code on Payment Links, Buy Buttons and Pricing Tables that carry none, keeping other parameters', () => {
    document.body.innerHTML = page;
    observer = watch('ALICE-42_x', 'FILL');
    expect(new URL(href('link')).searchParams.get('client_reference_id')).toBe('ALICE-42_x');
    const q = new URL(href('linkq')).searchParams;
    expect([q.get('prefilled_email'), q.get('client_reference_id')]).toEqual(['a@b.c', 'ALICE-42_x']);
    expect(attr('button')).toBe('ALICE-42_x');
    // The merchant's own values stay.
    expect(new URL(href('own')).searchParams.get('client_reference_id')).toBe('order-77');
    expect(attr('table')).toBe('merchant-9');
    // Other links are not Payment Links.
    expect(href('other')).toBe('https://example.com/buy.stripe.com/x');
    expect(href('checkout')).toBe('https://checkout.stripe.com/c/pay/cs_test_1');
  });

  it('OVERWRITE: replaces a value the merchant set', () => {
    document.body.innerHTML = page;
    observer = watch('ALICE', 'OVERWRITE');
    expect(new URL(href('own')).searchParams.getAll('client_reference_id')).toEqual(['ALICE']);
    expect(attr('table')).toBe('ALICE');
  });

  it('tags elements added later, inside added subtrees, and a Payment Link whose href the page changes', async () => {
    document.body.innerHTML = '<main></main>';
    observer = watch('BOB', 'FILL');
    const main = document.querySelector('main')!;
    main.insertAdjacentHTML('beforeend', '<section><stripe-pricing-table id="late" pricing-table-id="prctbl_2"></stripe-pricing-table><p><a id="late-link" href="https://buy.stripe.com/late">Buy</a></p></section>');
    const button = document.createElement('stripe-buy-button');
    button.id = 'late-button';
    main.append(button);
    const plain = document.createElement('a');
    plain.id = 'plain';
    plain.href = 'https://example.com/pricing';
    main.append(plain);
    await settle();
    expect(attr('late')).toBe('BOB');
    expect(attr('late-button')).toBe('BOB');
    expect(new URL(href('late-link')).searchParams.get('client_reference_id')).toBe('BOB');
    // An SPA switching plans: the new Payment Link is tagged too; a plain link becomes no Stripe link.
    (document.getElementById('late-link') as HTMLAnchorElement).href = 'https://buy.stripe.com/yearly';
    plain.href = 'https://example.com/yearly';
    await settle();
    expect(href('late-link')).toBe('https://buy.stripe.com/yearly?client_reference_id=BOB');
    expect(href('plain')).toBe('https://example.com/yearly');
  });

  it('does nothing without a code, or with one Stripe would refuse', () => {
    document.body.innerHTML = page;
    for (const code of [null, undefined, '', 'has space', 'x'.repeat(201), 'ünï']) expect(watch(code, 'OVERWRITE')).toBeNull();
    expect(href('link')).toBe('https://buy.stripe.com/test_14k3dG');
    expect(attr('button')).toBeNull();
    expect(attr('table')).toBe('merchant-9');
  });

  it('counts what it changed, and tagging again changes nothing', () => {
    document.body.innerHTML = page;
    expect(tagAll(document, 'C1', false)).toBe(3);
    expect(tagAll(document, 'C1', false)).toBe(0);
    expect(tag(document.getElementById('own')!, 'C1', false)).toBe(false);
    expect(tag(document.getElementById('own')!, 'C1', true)).toBe(true);
  });
});
