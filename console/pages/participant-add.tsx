// The participants page's "Add participant" form (issue #32): P3 `POST /campaign/{id}/participant`
// as the owner, with email, names, a referrer and metadata as key/value rows. P3 adds a participant
// whose referrer it cannot find without one, and answers an email it already knows with that
// participant unchanged (GrowSurf's contract), so the form asks P4 for the referrer first and says
// so next to the field in both cases instead of reporting a success that did not happen.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { Button, Card } from '../components.tsx';
import { announce, useAction } from '../ui.tsx';
import { messageFor } from '../field-messages.ts';
import { t } from '../i18n/index.ts';
import { described, FieldMessage, SaveError, TextField } from './settings-kit.tsx';
import { METADATA_LIMITS, type Participant, type ParticipantCreate } from '../../shared/schemas/participant.ts';

type Row = { key: string; value: string };
const blank = () => ({ email: '', firstName: '', lastName: '', referredBy: '', rows: [{ key: '', value: '' }] as Row[] });

/** A refusal the console makes itself, shaped as the API's so each field shows it the same way. */
const refusal = (field: string, code: string) => new ApiError(400, 'VALIDATION_ERROR', '', [{ field, code, message: '' }]);

/** The form (a card with id `add-participant`); `onAdded` runs after P3 created someone. */
export function AddParticipant({ programId, onAdded, onClose }: { programId: string; onAdded: (p: Participant) => void; onClose: () => void }) {
  const [f, setF] = useState(blank);
  const { busy, error, run } = useAction();
  const set = (k: 'email' | 'firstName' | 'lastName' | 'referredBy', v: string) => setF((x) => ({ ...x, [k]: v }));
  const setRow = (i: number, r: Partial<Row>) => setF((x) => ({ ...x, rows: x.rows.map((o, j) => (j === i ? { ...o, ...r } : o)) }));
  const path = `/campaign/${encodeURIComponent(programId)}`;
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const body: ParticipantCreate = { email: f.email };
      if (f.firstName.trim()) body.firstName = f.firstName;
      if (f.lastName.trim()) body.lastName = f.lastName;
      const meta = f.rows.filter((r) => r.key.trim());
      if (meta.length) body.metadata = Object.fromEntries(meta.map((r) => [r.key.trim(), r.value]));
      const ref = f.referredBy.trim();
      if (ref) {
        body.referredBy = ref;
        try {
          await api('GET', `${path}/participant/${encodeURIComponent(ref)}`);
        } catch (err) {
          if (err instanceof ApiError && err.status === 400) throw refusal('referredBy', 'REFERRER_NOT_FOUND');
          throw err;
        }
      }
      const p = await api<Participant>('POST', `${path}/participant`, body);
      if (p.isNew === false) throw refusal('email', 'ALREADY_PARTICIPANT');
      setF(blank());
      announce(t('pt.add.done', { email: p.email }));
      onAdded(p);
    });
  };
  const metaError = messageFor(error, 'metadata');
  return (
    <Card id="add-participant" title={t('pt.add.title')} description={t('pt.add.intro')}>
      <form onSubmit={submit} noValidate class="add-participant">
        <SaveError error={error} />
        <TextField id="pa-email" field="email" error={error} type="email" label={t('pt.add.email')} value={f.email} maxLength={254} onInput={(v) => set('email', v)} />
        <div class="pt-pair">
          <TextField id="pa-first" field="firstName" error={error} label={t('pt.firstName')} value={f.firstName} maxLength={255} onInput={(v) => set('firstName', v)} />
          <TextField id="pa-last" field="lastName" error={error} label={t('pt.lastName')} value={f.lastName} maxLength={255} onInput={(v) => set('lastName', v)} />
        </div>
        <TextField id="pa-ref" field="referredBy" error={error} label={t('pt.add.referrer')} hint={t('pt.add.referrerHint')} value={f.referredBy} maxLength={254} onInput={(v) => set('referredBy', v)} />
        <fieldset class="bare meta-rows" data-field="metadata">
          <legend class="sub">{t('pt.field.metadata')}</legend>
          <p class="hint" id="pa-meta-hint">
            {t('pt.add.metaHint')}
          </p>
          {f.rows.length > 0 && (
            // The columns' names for sighted people; each input is named by row for screen readers.
            <div class="meta-row meta-head" aria-hidden="true">
              <span>{t('pt.add.metaKeyHead')}</span>
              <span>{t('pt.add.metaValueHead')}</span>
            </div>
          )}
          {f.rows.map((r, i) => (
            <div class="meta-row" key={i}>
              <input aria-label={t('pt.add.metaKey', { n: i + 1 })} value={r.key} maxLength={METADATA_LIMITS.keyLength} {...described('pa-meta', false, metaError, 'pa-meta-hint')} onInput={(e) => setRow(i, { key: e.currentTarget.value })} />
              <input aria-label={t('pt.add.metaValue', { n: i + 1 })} value={r.value} maxLength={METADATA_LIMITS.valueLength} onInput={(e) => setRow(i, { value: e.currentTarget.value })} />
              <Button kind="plain" size="small" aria-label={t('pt.add.metaRemoveRow', { n: i + 1 })} onClick={() => setF((x) => ({ ...x, rows: x.rows.filter((_, j) => j !== i) }))}>
                {t('pt.add.metaRemove')}
              </Button>
            </div>
          ))}
          {f.rows.length < METADATA_LIMITS.keys && (
            <Button kind="secondary" size="small" onClick={() => setF((x) => ({ ...x, rows: [...x.rows, { key: '', value: '' }] }))}>
              {t('pt.add.metaAdd')}
            </Button>
          )}
          <FieldMessage id="pa-meta" message={metaError} />
        </fieldset>
        <div class="buttons">
          <Button type="submit" disabled={busy}>
            {busy ? t('form.saving') : t('pt.add.submit')}
          </Button>
          <Button kind="secondary" onClick={onClose}>
            {t('pt.add.cancel')}
          </Button>
        </div>
      </form>
    </Card>
  );
}
