// The Stripe page's "On your pages" card (issue #25): installation.stripe.clientReferenceId, whether
// the attribution script puts a referred visitor's referral code into the Stripe Payment Links, Buy
// Buttons and Pricing Tables on the owner's pages (docs/integrations.md "Attribution from your
// backend"). Read and changed through the installation document (`GET`/`PATCH …/installation`).
import { useState } from 'preact/hooks';
import { api, can } from '../api.ts';
import { announce, Async, ErrorSummary, useAction } from '../ui.tsx';
import { t, type MessageKey } from '../i18n/index.ts';

const MODES = ['AUTO', 'ALWAYS', 'OVERWRITE', 'OFF'] as const;
type Mode = (typeof MODES)[number];

function ModeForm({ base, first }: { base: string; first: Mode }) {
  const [saved, setSaved] = useState<Mode>(first);
  const [mode, setMode] = useState<Mode>(first);
  const { busy, error, run } = useAction();
  const writable = can('program:write');
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const doc = await api<{ stripe: { clientReferenceId: Mode } }>('PATCH', base, { stripe: { clientReferenceId: mode } });
      setSaved(doc.stripe.clientReferenceId);
      announce(t('integrations.pages.saved'));
    });
  };
  return (
    <form class="card" aria-labelledby="stripe-pages-title" onSubmit={submit}>
      <h2 id="stripe-pages-title">{t('integrations.pages.title')}</h2>
      <p>{t('integrations.pages.intro')}</p>
      <ErrorSummary error={error} />
      <fieldset disabled={!writable}>
        <legend>{t('integrations.pages.legend')}</legend>
        {MODES.map((m) => (
          <label class="choice" key={m}>
            <input type="radio" name="stripe-client-reference" value={m} checked={mode === m} aria-describedby={`stripe-pages-${m}-hint`} onChange={() => setMode(m)} />
            <span>
              {t(`integrations.pages.${m}` as MessageKey)}
              <span class="hint" id={`stripe-pages-${m}-hint`}>
                {' '}
                {t(`integrations.pages.${m}.hint` as MessageKey)}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      {writable ? (
        <button type="submit" disabled={busy || mode === saved}>
          {busy ? t('state.loading') : t('integrations.pages.save')}
        </button>
      ) : (
        <p>{t('integrations.readOnly')}</p>
      )}
    </form>
  );
}

/** The card for one program. */
export function StripePageAttribution({ programId }: { programId: string }) {
  const base = `/campaign/${encodeURIComponent(programId)}/installation`;
  return (
    <Async depKey={base} load={() => api<{ stripe?: { clientReferenceId: Mode } }>('GET', base)}>
      {(doc) => <ModeForm base={base} first={doc.stripe?.clientReferenceId ?? 'AUTO'} />}
    </Async>
  );
}
