// Attribution into Stripe (issue #25): `chunks/stripe-<hash>.js`, an ES module with no imports that
// the page stage (launcher.ts) loads only when the window payload's `stripeClientReferenceId` is set
// (installation.stripe.clientReferenceId) and this visitor has a pending referral. It puts the referrer's code where Stripe carries
// it into the Checkout Session's `client_reference_id`, which refloop's Stripe endpoint reads first:
// a Payment Link's `client_reference_id` query parameter, and the `client-reference-id` attribute of
// `<stripe-buy-button>` and `<stripe-pricing-table>`. Elements added later get it too (one
// MutationObserver). A value the merchant set is kept unless the mode is OVERWRITE.

/** The elements it tags. */
export const STRIPE_ELEMENTS = 'a[href^="https://buy.stripe.com/"],stripe-buy-button,stripe-pricing-table';

/** Stripe's rule for client_reference_id: at most 200 characters, letters, digits, `-` and `_`. */
const VALID = /^[\w-]{1,200}$/;

/** Puts `code` on one Stripe element (a Payment Link or a Buy Button or Pricing Table); true when it changed it. */
export function tag(el: Element, code: string, overwrite: boolean): boolean {
  if (el.localName == 'a') {
    const a = el as HTMLAnchorElement;
    let u: URL;
    try {
      u = new URL(a.href);
    } catch {
      return false;
    }
    const had = u.searchParams.get('client_reference_id');
    if (had == code || (had && !overwrite)) return false;
    u.searchParams.set('client_reference_id', code);
    a.href = u.href;
    return true;
  }
  const had = el.getAttribute('client-reference-id');
  if (had == code || (had && !overwrite)) return false;
  el.setAttribute('client-reference-id', code);
  return true;
}

/** Tags every Stripe element in `root` (itself included); the count it changed. */
export function tagAll(root: Document | Element, code: string, overwrite: boolean): number {
  let n = 0;
  if ('matches' in root && root.matches(STRIPE_ELEMENTS) && tag(root, code, overwrite)) n++;
  for (const el of root.querySelectorAll(STRIPE_ELEMENTS)) if (tag(el, code, overwrite)) n++;
  return n;
}

/**
 * Tags the page's Stripe elements with `code` now and as they are added; the observer is returned
 * (a page keeps it for its life). Null when the code is not one Stripe accepts.
 */
export function watch(code: string | null | undefined, mode: 'FILL' | 'OVERWRITE', doc: Document = document): MutationObserver | null {
  if (!code || !VALID.test(code)) return null;
  const overwrite = mode == 'OVERWRITE';
  tagAll(doc, code, overwrite);
  const o = new MutationObserver((records) => {
    for (const r of records)
      if (r.type == 'attributes') (r.target as Element).matches(STRIPE_ELEMENTS) && tag(r.target as Element, code, overwrite);
      else for (const n of r.addedNodes) if (n.nodeType == 1) tagAll(n as Element, code, overwrite);
  });
  // A Payment Link whose href the page changes later (an SPA switching plans) is tagged again.
  o.observe(doc, { childList: true, subtree: true, attributes: true, attributeFilter: ['href'] });
  return o;
}
