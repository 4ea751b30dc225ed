import type { DemoState } from './seed.ts';

// The demo store's two pages. Each carries GrowSurf's Universal Code exactly as a website owner
// pastes it, with only the host changed to this server: that is the whole installation. The
// embedded blocks bring their own headings (the program's design texts), so their cards have none,
// and the programs' design theme (demo/seed.ts, DEMO_THEME) uses this page's colours and font.

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The Universal Code snippet for a program, pointing at this server. */
export function universalCode(publicUrl: string, programId: string): string {
  return `<script>
  (function(g,r,s,f){g.grsfSettings={campaignId:"${esc(programId)}",version:"2.0.0"};s=r.getElementsByTagName("head")[0];f=r.createElement("script");f.async=1;f.src="${esc(publicUrl)}/growsurf.js"+"?v="+g.grsfSettings.version;f.setAttribute("grsf-campaign",g.grsfSettings.campaignId);!g.grsfInit?s.appendChild(f):"";})(window,document);
</script>`;
}

const STYLE = `
:root{--ink:#1f1a17;--muted:#6b625c;--accent:#8a4b1f;--bg:#fbf7f2;--card:#fff}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:var(--ink);background:var(--bg)}
header{display:flex;gap:1rem;align-items:center;justify-content:space-between;padding:1rem 1.5rem;background:var(--card);border-bottom:1px solid #eadfd4;flex-wrap:wrap}
header nav{display:flex;gap:1rem;align-items:center}a{color:var(--accent)}
main{max-width:64rem;margin:0 auto;padding:1.5rem;display:grid;gap:1.5rem;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr))}
section{background:var(--card);border:1px solid #eadfd4;border-radius:.75rem;padding:1.25rem}
section.wide{grid-column:1/-1}h1{font-size:1.25rem;margin:0}h2{font-size:1.05rem;margin:0 0 .5rem}
button,.button{font:inherit;padding:.55rem 1rem;border-radius:.5rem;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary{background:transparent;color:var(--accent)}input{font:inherit;padding:.5rem;border:1px solid #cbbfb4;border-radius:.5rem;width:100%}
label{display:block;margin:.5rem 0 .25rem}.muted{color:var(--muted);font-size:.9rem}output{display:block;white-space:pre-wrap;font:13px/1.4 ui-monospace,monospace;background:#f4efe9;border-radius:.5rem;padding:.5rem;margin-top:.5rem;min-height:2rem}
pre{overflow:auto;background:#1f1a17;color:#f4efe9;padding:.75rem;border-radius:.5rem;font-size:12px}
ol{padding-left:1.25rem}footer{text-align:center;padding:2rem;color:var(--muted)}
@media (prefers-reduced-motion:no-preference){button{transition:opacity .15s}button:hover{opacity:.9}}
`;

/** The page script: waits for grsfReady, then wires the demo's buttons to the store's backend. */
const SCRIPT = `
function whenReady(fn){ if (window.grsfInit && window.growsurf) fn(); else document.addEventListener('grsfReady', fn, { once: true }); }
async function backend(path, body){
  const res = await fetch('/demo/api/' + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body || {}) });
  const json = await res.json().catch(() => ({}));
  return { ok: res.ok, status: res.status, json };
}
function show(id, value){ const el = document.getElementById(id); if (el) el.textContent = typeof value === 'string' ? value : JSON.stringify(value, null, 2); }
document.addEventListener('click', async (e) => {
  const t = e.target.closest('[data-demo]');
  if (!t) return;
  e.preventDefault();
  const action = t.getAttribute('data-demo');
  if (action === 'sign-in') {
    const r = await backend('sign-in', { program: t.getAttribute('data-program') });
    if (!r.ok) return show('signin-out', r.json);
    whenReady(async () => {
      try { await window.growsurf.init({ email: r.json.email, hash: r.json.hash }); show('signin-out', 'Signed in as ' + r.json.email + '. The embedded elements below now show this participant.'); }
      catch (err) { show('signin-out', String(err && err.message || err)); }
    });
  } else if (action === 'sign-out') {
    whenReady(async () => { try { await (window.growsurf.shutdown ? window.growsurf.shutdown() : window.growsurf.init()); } finally { location.reload(); } });
  } else if (action === 'purchase' || action === 'sale') {
    const email = document.getElementById(action + '-email').value;
    const r = await backend(action, { email });
    show(action + '-out', (r.ok ? '' : 'HTTP ' + r.status + '\\n') + JSON.stringify(r.json, null, 2));
    // The store's backend changed what the widget shows (a reward, a commission): growsurf.init()
    // reloads the embedded summary, lists and badge in place (docs/widget.md), with no page reload.
    if (r.ok) whenReady(() => window.growsurf.init().catch(() => {}));
  } else if (action === 'stripe-test') {
    const email = document.getElementById('stripe-email').value;
    show('stripe-out', 'Paying…');
    whenReady(async () => {
      // The value a store's checkout code sends its backend for client_reference_id (docs/integrations.md).
      let referral = null;
      try { referral = await window.growsurf.getReferralCode(); } catch (err) { referral = null; }
      const r = await backend('stripe-test', { email, referral });
      if (!r.ok) return show('stripe-out', 'HTTP ' + r.status + '\\n' + JSON.stringify(r.json, null, 2));
      const money = (n, c) => new Intl.NumberFormat('en-US', { style: 'currency', currency: c }).format(n / 100);
      const c = r.json.commission;
      show('stripe-out', 'Stripe event ' + r.json.eventId + ' (client_reference_id: ' + (r.json.clientReferenceId || 'none') + ')\\nrefloop: ' + r.json.outcome + (r.json.reason ? ': ' + r.json.reason : '') +
        (c ? '\\nCommission for ' + c.referrerEmail + ': ' + money(c.amount, c.currencyISO) + ' on a ' + money(c.saleAmount, c.currencyISO) + ' sale' : '\\nNo commission.'));
      window.growsurf.init().catch(() => {});
    });
  }
});
`;

function layout(title: string, publicUrl: string, programId: string, nav: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title>
${universalCode(publicUrl, programId)}
<style>${STYLE}</style>
</head>
<body>
<header><h1>☕ Acme Coffee <span class="muted">a refloop demo store</span></h1><nav aria-label="Demo pages">${nav}</nav></header>
<main>
${body}
</main>
<footer><a href="/_dev/mail">Mail outbox</a> · <a href="/docs">REST API docs</a> · <a href="/signin">Owner sign-in</a> · <a href="/signup">Create an owner account</a></footer>
<script>${SCRIPT}</script>
</body>
</html>`;
}

/** The referral program's store page. */
export function storePage(publicUrl: string, s: DemoState): string {
  const nav = `<a href="/">Shop</a><a href="/partners">Partners</a><button type="button" class="growsurf-open-window growsurf-unread-notifications-badge">Refer a friend</button>`;
  return layout(
    'Acme Coffee — refer a friend (refloop demo)',
    publicUrl,
    s.referralProgramId,
    nav,
    `<section class="wide">
<h2>What this page shows</h2>
<ol>
<li><a href="/demo/as-friend">Arrive as a friend of ${esc(s.people.referrer)}</a>: the page is opened from her share link (<code>?grsf=…</code>); the attribution script records the visit and keeps the referral.</li>
<li>Join below with any email: the embedded form adds you as ${esc(s.people.referrer)}'s referred friend.</li>
<li>Place an order with that email: the store's backend credits the referral over REST (<code>POST /v2/campaign/{id}/participant/{email}/ref</code>) with a key that never reaches this page.</li>
<li>Sign in as ${esc(s.people.referrer)} and open “Refer a friend”: the new reward is there. The reward emails are in the <a href="/_dev/mail">mail outbox</a>.</li>
</ol>
<p class="muted">Installed with the snippet below in the page's &lt;head&gt; — GrowSurf's Universal Code with only the host changed.</p>
<pre tabindex="0" aria-label="The Universal Code snippet">${esc(universalCode(publicUrl, s.referralProgramId))}</pre>
</section>
<section><div data-grsf-block-form></div></section>
<section>
<h2>Checkout</h2>
<form onsubmit="return false">
<label for="purchase-email">Customer email</label>
<input id="purchase-email" type="email" autocomplete="email" value="${esc(s.people.friendPending)}" required>
<p><button type="button" data-demo="purchase">Place order</button></p>
</form>
<output id="purchase-out" aria-live="polite"></output>
</section>
<section>
<h2>Participant</h2>
<p><button type="button" data-demo="sign-in" data-program="referral">Sign in as ${esc(s.people.referrer)}</button> <button type="button" class="secondary" data-demo="sign-out">Sign out</button></p>
<output id="signin-out" aria-live="polite"></output>
</section>
<section><div data-grsf-block-rewards></div></section>
<section><div data-grsf-block-referral-status></div></section>
<section><div data-grsf-block-referral-summary></div></section>
<section><div data-grsf-block-invite></div></section>`,
  );
}

/** The affiliate program's partners page. */
export function partnersPage(publicUrl: string, s: DemoState): string {
  const nav = `<a href="/">Shop</a><a href="/partners">Partners</a><button type="button" class="growsurf-open-window growsurf-unread-notifications-badge">Partner portal</button>`;
  return layout(
    'Acme Coffee partners (refloop demo)',
    publicUrl,
    s.affiliateProgramId,
    nav,
    `<section class="wide">
<h2>Affiliate program</h2>
<p>Partners earn 20% of every sale they refer. Sign in as ${esc(s.people.affiliate)}, record a sale for her customer ${esc(s.people.customer)}, and watch the commission appear.</p>
<pre tabindex="0" aria-label="The Universal Code snippet">${esc(universalCode(publicUrl, s.affiliateProgramId))}</pre>
</section>
<section>
<h2>Partner</h2>
<p><button type="button" data-demo="sign-in" data-program="affiliate">Sign in as ${esc(s.people.affiliate)}</button> <button type="button" class="secondary" data-demo="sign-out">Sign out</button></p>
<output id="signin-out" aria-live="polite"></output>
</section>
<section>
<h2>Record a sale</h2>
<label for="sale-email">Customer email</label>
<input id="sale-email" type="email" autocomplete="email" value="${esc(s.people.customer)}" required>
<p><button type="button" data-demo="sale">Record a $24.00 sale</button></p>
<output id="sale-out" aria-live="polite"></output>
</section>
<section>
<h2>Pay with Stripe (test)</h2>
<p><a href="/demo/as-customer">Arrive as a customer of ${esc(s.people.affiliate)}</a> (through her affiliate link), then pay. No Stripe account is needed: the store's backend builds the <code>checkout.session.completed</code> event Stripe would send, with your referral as <code>client_reference_id</code>, signs it with this program's Stripe signing secret and posts it to refloop's Stripe endpoint.</p>
<label for="stripe-email">Customer email</label>
<input id="stripe-email" type="email" autocomplete="email" value="stripe.customer@example.com" required>
<p><button type="button" data-demo="stripe-test">Pay with Stripe (test)</button></p>
<output id="stripe-out" aria-live="polite"></output>
</section>
<section><div data-grsf-block-form></div></section>
<section><div data-grsf-block-affiliate-summary></div></section>
<section><div data-grsf-block-commissions></div></section>
<section><div data-grsf-block-payouts></div></section>`,
  );
}
