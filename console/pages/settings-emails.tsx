// Program settings, Emails (CF3/CF4): one template at a time (the address names it), its subject,
// preheader and body with the email as a participant would receive it (EP1, rendered by the server
// in the real layout), and "send a test to me" (EP2, to the signed-in member's own address); then the
// settings every email shares (sender, postal address, look), saved on their own. The preview and
// the test both use what is on screen: the template's unsaved copy and the settings' unsaved changes
// (sent as EP1/EP2's `settings` draft, exactly what saving them would PATCH), nothing stored. A
// program with additional languages chooses which language's texts are edited (issue #27).
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, can, session, type SessionInfo } from '../api.ts';
import { navigate, params as queryParams } from '../router.tsx';
import { announce, Async, PageTitle, problem } from '../ui.tsx';
import { usePreviewFrame } from '../preview-frame.ts';
import { en, languageName, t, type MessageKey } from '../i18n/index.ts';
import { CheckField, Group, SaveError, SelectField, TextField, errorWithin } from './settings-kit.tsx';
import { SpecSection, useDraft } from './settings-spec.tsx';
import { EMAIL_SETTINGS_SECTIONS, TRANSACTIONAL_TEMPLATES } from './settings-emails-spec.ts';
import { EMAIL_SETTINGS_TEXTS } from './settings-translations-spec.ts';
import { EmptyNote, LanguageChoice, TranslatedField, chosenLanguage, loadTranslations, translationsPath, useOverrides, type LanguageTexts } from './settings-translations.tsx';
import type { CampaignEmails, EmailTemplate } from '../../shared/schemas/program-config-emails.ts';
import type { EmailPreview } from '../../shared/schemas/program-previews.ts';


type Draft = Pick<EmailTemplate, 'subject' | 'preheader' | 'body' | 'isEnabled'>;
type Settings = CampaignEmails['settings'];

/** What is on screen and not saved: the template's copy, and the shared settings' changes as CF4 would take them. */
interface Unsaved {
  copy: Pick<Draft, 'subject' | 'preheader' | 'body'>;
  settings: Record<string, unknown>;
  dirty: boolean;
}

/** How long typing pauses before the preview asks for the email again. */
const PREVIEW_DELAY_MS = 300;

/** The EP1/EP2 body for what is on screen: the copy, plus a settings draft when any setting changed. */
const draftBody = (u: Unsaved) => ({ ...u.copy, ...(Object.keys(u.settings).length ? { settings: u.settings } : {}) });

/** The rendered email in the server's `/preview/email` frame (our CSP forbids an email's inline styles here). */
function EmailFrame({ html, subject }: { html: string; subject: string }) {
  const frame = usePreviewFrame({ type: 'refloop.preview.email', html });
  return <iframe ref={frame} class="email-frame" src="/preview/email" title={t('emails.frameTitle', { subject })} />;
}

const COPY_LABELS: Record<string, MessageKey> = { subject: 'emails.subject', preheader: 'emails.preheader', body: 'emails.body' };

/** A refused field's label as the form names it (`settings.sender.replyToEmail`: "Reply-to address"), else the field. */
function fieldLabel(field: string): string {
  const key = `es.${field.replace(/^settings\./, '')}`;
  if (COPY_LABELS[field]) return t(COPY_LABELS[field]);
  return field.startsWith('settings.') && key in en ? t(key as MessageKey) : field;
}

/** Why the preview could not show the latest changes, in words and without interrupting typing (not an alert). */
function PreviewRefused({ error }: { error: unknown }) {
  const fields = error instanceof ApiError ? error.errors : [];
  return (
    <div class="error" data-testid="preview-refused">
      <p>{t('emails.previewRefused')}</p>
      {fields.length > 0 ? (
        <ul>
          {fields.map((f) => (
            <li key={f.field}>
              {fieldLabel(f.field)}: {f.message}
            </li>
          ))}
        </ul>
      ) : (
        <p>{problem(error)}</p>
      )}
    </div>
  );
}

function Preview({ programId, template, unsaved, language }: { programId: string; template: string; unsaved: Unsaved; language?: string }) {
  const [shown, setShown] = useState<EmailPreview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const body = JSON.stringify({ ...draftBody(unsaved), ...(language ? { language } : {}) });
  useEffect(() => {
    // Only the answer to the newest request is shown: a slower, older one arriving later is dropped.
    let live = true;
    const timer = setTimeout(() => {
      api<EmailPreview>('POST', `/campaign/${encodeURIComponent(programId)}/emails/${template}/preview`, JSON.parse(body)).then(
        (p) => live && (setShown(p), setError(null)),
        (e) => live && setError(e),
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [programId, template, body]);
  return (
    <section class="card preview" aria-labelledby="email-preview-title">
      <h2 id="email-preview-title">{t('emails.preview')}</h2>
      {unsaved.dirty && <p class="badge unsaved">{t('emails.previewUnsaved')}</p>}
      <p class="hint">{t('emails.previewHint')}</p>
      {error ? <PreviewRefused error={error} /> : null}
      {shown ? (
        <>
          <p class="rendered-subject">
            <span class="label">{t('emails.renderedSubject')}</span> <strong data-testid="rendered-subject">{shown.subject}</strong>
          </p>
          <EmailFrame html={shown.html} subject={shown.subject} />
        </>
      ) : (
        !error && <p aria-live="polite">{t('state.loading')}</p>
      )}
    </section>
  );
}

/** One template's form and its preview; `settings` are the shared settings' unsaved changes, previewed and tested with it. */
function TemplateEditor({ programId, doc, template, settings, reload }: { programId: string; doc: CampaignEmails; template: string; settings: Record<string, unknown>; reload: () => void }) {
  const saved = (doc as unknown as Record<string, EmailTemplate>)[template]!;
  const [draft, setDraft] = useState<Draft>({ subject: saved.subject, preheader: saved.preheader, body: saved.body, isEnabled: saved.isEnabled });
  const copyDirty = (['subject', 'preheader', 'body', 'isEnabled'] as const).some((k) => draft[k] !== saved[k]);
  const unsaved: Unsaved = {
    copy: { subject: draft.subject, preheader: draft.preheader, body: draft.body },
    settings,
    dirty: copyDirty || Object.keys(settings).length > 0,
  };
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<'save' | 'test' | null>(null);
  const me = (session.value as SessionInfo).email;
  const set = (k: keyof Draft, v: string | boolean) => setDraft((d) => ({ ...d, [k]: v }));
  const path = `/campaign/${encodeURIComponent(programId)}/emails`;
  const run = async (kind: 'save' | 'test', fn: () => Promise<void>) => {
    setBusy(kind);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(err);
      announce(t(kind === 'save' ? 'settings.notSaved' : 'emails.testFailed'));
    } finally {
      setBusy(null);
    }
  };
  const save = (e: Event) => {
    e.preventDefault();
    void run('save', async () => {
      await api('PATCH', path, { [template]: draft });
      announce(t('settings.saved'));
      reload();
    });
  };
  const test = () =>
    run('test', async () => {
      const r = await api<{ to: string }>('POST', `${path}/${template}/test`, { to: me, ...draftBody(unsaved) });
      announce(t(unsaved.dirty ? 'emails.testSentUnsaved' : 'emails.testSent', { to: r.to }));
    });
  const transactional = (TRANSACTIONAL_TEMPLATES as readonly string[]).includes(template);
  return (
    <div class="split">
      <form onSubmit={save} class="settings-form" noValidate>
        <fieldset disabled={!can('program:write')} class="bare">
          <TextField id="e-subject" field={`${template}.subject`} error={error} label={t('emails.subject')} hint={t('emails.tagsHint')} value={draft.subject} maxLength={255} onInput={(v) => set('subject', v)} />
          <TextField id="e-preheader" field={`${template}.preheader`} error={error} label={t('emails.preheader')} hint={t('emails.preheaderHint')} value={draft.preheader} onInput={(v) => set('preheader', v)} />
          <TextField id="e-body" field={`${template}.body`} error={error} label={t('emails.body')} hint={t('emails.bodyHint')} multiline rows={14} value={draft.body} onInput={(v) => set('body', v)} />
          {transactional ? (
            <p class="hint">{t('emails.transactional')}</p>
          ) : (
            <CheckField id="e-enabled" field={`${template}.isEnabled`} error={error} label={t('emails.enabled')} hint={t('emails.enabledHint')} checked={draft.isEnabled} onChange={(v) => set('isEnabled', v)} />
          )}
        </fieldset>
        <SaveError error={error} />
        {can('program:write') && (
          <div class="buttons">
            <button type="submit" disabled={busy !== null}>
              {busy === 'save' ? t('form.saving') : t('settings.save')}
            </button>
            <button type="button" class="secondary" disabled={busy !== null} onClick={test}>
              {busy === 'test' ? t('emails.sending') : t('emails.sendTest')}
            </button>
          </div>
        )}
        {can('program:write') && <p class="hint">{t('emails.testHint', { email: me })}</p>}
      </form>
      <Preview programId={programId} template={template} unsaved={unsaved} />
    </div>
  );
}

/**
 * One template's texts in an additional language (issue #27): subject, preview text and body over
 * the base template's, and the footer every email shares; saved as that language's overrides. The
 * preview and the test show the email as a reader of that language receives it.
 */
function TranslatedTemplateEditor({ programId, doc, template, language, saved, onSaved }: { programId: string; doc: CampaignEmails; template: string; language: string; saved: Record<string, unknown>; onSaved: () => void }) {
  const base = (doc as unknown as Record<string, EmailTemplate>)[template]!;
  const o = useOverrides(saved);
  const [testing, setTesting] = useState(false);
  const [testError, setTestError] = useState<unknown>(null);
  const me = (session.value as SessionInfo).email;
  const path = (k: string) => `${template}.${k}`;
  const footer = o.value(EMAIL_SETTINGS_TEXTS[0]);
  // What a reader of this language gets: the text for it, else the base template's (`doc` has the unedited defaults in their language).
  const unsaved: Unsaved = {
    copy: { subject: o.value(path('subject')) || base.subject, preheader: o.value(path('preheader')) || base.preheader, body: o.value(path('body')) || base.body },
    // The footer a reader of this language gets: its own, else the base footer (a default in their language).
    settings: { design: { footerText: footer || doc.settings.design.footerText } },
    dirty: o.dirty,
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const ok = await o.save(async (body) => {
      try {
        return (await api<LanguageTexts>('PATCH', translationsPath(programId, language), { emails: body })).emails;
      } catch (err) {
        throw errorWithin(err, 'emails');
      }
    });
    announce(t(ok ? 'settings.saved' : 'settings.notSaved'));
    if (ok) onSaved();
  };
  const test = async () => {
    setTesting(true);
    setTestError(null);
    try {
      const r = await api<{ to: string }>('POST', `/campaign/${encodeURIComponent(programId)}/emails/${template}/test`, { to: me, ...draftBody(unsaved), language });
      announce(t(unsaved.dirty ? 'emails.testSentUnsaved' : 'emails.testSent', { to: r.to }));
    } catch (err) {
      setTestError(err);
      announce(t('emails.testFailed'));
    } finally {
      setTesting(false);
    }
  };
  const busy = o.busy || testing;
  return (
    <div class="split">
      <form onSubmit={submit} class="settings-form" noValidate aria-label={t('tr.formTitle', { language: languageName(language) })}>
        <EmptyNote language={language} />
        <fieldset disabled={!can('program:write')} class="bare">
          <TranslatedField o={o} path={path('subject')} base={base.subject} label={t('emails.subject')} hint={t('emails.tagsHint')} />
          <TranslatedField o={o} path={path('preheader')} base={base.preheader} label={t('emails.preheader')} hint={t('emails.preheaderHint')} />
          <TranslatedField o={o} path={path('body')} base={base.body} label={t('emails.body')} hint={t('emails.bodyHint')} long rows={14} />
          <Group id="g-tr-emails-shared" title={t('tr.emailsShared')}>
            <TranslatedField o={o} path={EMAIL_SETTINGS_TEXTS[0]} base={doc.settings.design.footerText} label={t('es.design.footerText')} hint={t('es.design.footerText.hint')} long />
          </Group>
        </fieldset>
        <SaveError error={o.error ?? testError} />
        {can('program:write') && (
          <div class="buttons">
            <button type="submit" disabled={busy || !o.dirty}>
              {o.busy ? t('form.saving') : t('settings.save')}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={test}>
              {testing ? t('emails.sending') : t('emails.sendTest')}
            </button>
          </div>
        )}
        {can('program:write') && <p class="hint">{t('emails.testHint', { email: me })}</p>}
      </form>
      <Preview programId={programId} template={template} unsaved={unsaved} language={language} />
    </div>
  );
}

/** Sender, postal address and look of every email: their own form, PATCHed under `settings`; the draft lives in `EmailsEditor`. */
function EmailSettings({ programId, edit, reload }: { programId: string; edit: ReturnType<typeof useDraft<Settings>>; reload: () => void }) {
  const { draft, busy, save, dirty } = edit;
  const submit = async (e: Event) => {
    e.preventDefault();
    const ok = await save(async (changes) => {
      try {
        return (await api<CampaignEmails>('PATCH', `/campaign/${encodeURIComponent(programId)}/emails`, { settings: changes })).settings;
      } catch (err) {
        // The fields of this form are paths inside `settings`: name the API's problems the same way.
        throw errorWithin(err, 'settings');
      }
    });
    announce(t(ok ? 'settings.saved' : 'settings.notSaved'));
    if (ok) reload();
  };
  return (
    <section class="email-settings" aria-labelledby="es-title">
      <h2 id="es-title">{t('es.title')}</h2>
      <p class="hint">{t('es.hint')}</p>
      <form onSubmit={submit} class="settings-form" noValidate>
        <fieldset disabled={!can('program:write')} class="bare">
          {EMAIL_SETTINGS_SECTIONS.map((section, i) => (
            <SpecSection key={section.id} section={section} d={draft} prefix="es">
              {i === 0 && (
                <p class="field">
                  <span class="label">{t('es.fromEmail')}</span> <strong>{draft.doc.sender.fromEmail}</strong>
                </p>
              )}
            </SpecSection>
          ))}
        </fieldset>
        <SaveError error={draft.error} />
        {can('program:write') && (
          <button type="submit" disabled={busy || !dirty}>
            {busy ? t('form.saving') : t('es.save')}
          </button>
        )}
      </form>
    </section>
  );
}

/** The template's editor and the shared settings' form, which share the settings' draft (the preview shows both). */
function EmailsEditor({ programId, doc, template, reload }: { programId: string; doc: CampaignEmails; template: string; reload: () => void }) {
  const edit = useDraft<Settings>(doc.settings);
  return (
    <>
      <TemplateEditor key={template} programId={programId} doc={doc} template={template} settings={edit.changes} reload={reload} />
      <EmailSettings programId={programId} edit={edit} reload={reload} />
    </>
  );
}

export default function EmailsPage({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  const chosen = queryParams().get('template');
  return (
    <>
      <PageTitle>{t('settings.emailsTitle')}</PageTitle>
      {/* In an additional language, the document as its readers get it without the owner's texts for it (CF3 `?language=`): its unedited defaults are the fields' placeholders. */}
      <Async
        depKey={`${id}|${queryParams().get('language') ?? ''}`}
        load={async () => {
          const tr = await loadTranslations(id);
          const language = chosenLanguage(tr);
          const doc = await api<CampaignEmails>('GET', `/campaign/${encodeURIComponent(id)}/emails${language ? `?language=${encodeURIComponent(language)}` : ''}`);
          return [doc, tr] as const;
        }}
      >
        {([doc, tr], reload) => {
          const keys = Object.keys(doc).filter((k) => k !== 'settings');
          const template = chosen && keys.includes(chosen) ? chosen : keys[0]!;
          const language = chosenLanguage(tr);
          return (
            <>
              <LanguageChoice tr={tr} chosen={language} />
              <SelectField
                id="e-template"
                field="template"
                error={null}
                label={t('emails.template')}
                value={template}
                options={keys.map((k) => [k, t(`email.${k}` as MessageKey)] as const)}
                onChange={(v) => navigate(`/console/programs/${encodeURIComponent(id)}/settings/emails?template=${v}${language ? `&language=${encodeURIComponent(language)}` : ''}`, true)}
              />
              {language ? (
                <TranslatedTemplateEditor key={`${template}|${language}`} programId={id} doc={doc} template={template} language={language} saved={tr.languages[language]!.emails} onSaved={reload} />
              ) : (
                <EmailsEditor programId={id} doc={doc} template={template} reload={reload} />
              )}
            </>
          );
        }}
      </Async>
    </>
  );
}
